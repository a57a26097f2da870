import type { GraphEdge } from "../../graph/model.ts";
import type { AppStore } from "../../store/createAppStore.ts";
import type { Selection } from "../../store/types.ts";

/** The trace that explains an edge: its first dropped flow, else its first flow. */
export function askEdge(store: AppStore, e: GraphEdge) {
  const f = e.flows.find((x) => x.verdict !== "allow") ?? e.flows[0];
  const selection: Selection = { kind: "edge", id: e.id };
  if (f) store.getState().ask({ from: f.from, to: f.traceTo, protocol: f.protocol }, selection);
  else store.getState().select(selection);
}
