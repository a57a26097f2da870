import type { Selection } from "../../store/types.ts";

/** What a click on an element selects, in either lens (the paths lens's node types are `p-KIND`). */
export function selectionOf(type: string | undefined, id: string): Selection | undefined {
  const kind = type?.replace(/^p-/, "");
  switch (kind) {
    case "pod":
    case "service":
    case "group":
    case "external":
    case "router":
      return { kind, id };
    case "namespace":
      return { kind: "group", id };
    case "zone":
    case "bucket":
      return { kind: "container", id };
    case "node":
      // A cluster node (not the "unscheduled" bucket) selects it, and picks it for the Node rules tab.
      return id === "node:(unscheduled)" ? { kind: "container", id } : { kind, id };
    default:
      return undefined;
  }
}
