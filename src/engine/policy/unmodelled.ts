/**
 * No silent answers: the objects of the input that could change a traffic
 * verdict but that no layer evaluates (decided by API group and kind in
 * parse/kinds.ts), for the `unmodelled` list of reach, trace and connlist,
 * the first line of their human output and the playground's banner.
 */
import type { KObject } from "../parse/manifests.ts";
import { unmodelledScope } from "../parse/kinds.ts";
import type { Model, Pod, UnmodelledObject } from "../model/types.ts";

export function unmodelledObjects(ignored: readonly KObject[]): UnmodelledObject[] {
  const out: UnmodelledObject[] = [];
  for (const o of ignored) {
    const scope = unmodelledScope(o.apiVersion, o.kind);
    if (!scope) continue;
    const u: UnmodelledObject = {
      kind: o.kind,
      apiVersion: o.apiVersion,
      name: o.name,
      file: o.file,
      doc: o.doc,
      line: o.line,
      scope,
    };
    if (o.namespace !== undefined) u.namespace = o.namespace;
    out.push(u);
  }
  return out;
}

/** The contract's JSON form: `{"kind", "namespace", "name", "line"}` (plus apiVersion and file). */
export interface UnmodelledEntry {
  kind: string;
  apiVersion: string;
  namespace?: string;
  name: string;
  file: string;
  line: number;
}

/** The unmodelled objects that matter for a command: `pod` for pod-to-pod verdicts (reach, connlist), every one for trace. */
export function unmodelledFor(model: Model, scope: "pod" | "all"): UnmodelledEntry[] {
  return model.unmodelled
    .filter((u) => (scope === "all" ? u.scope !== "reach" : u.scope !== "route"))
    .map((u) => {
      // The contract's key order: kind, namespace, name, line.
      const e: UnmodelledEntry =
        u.namespace !== undefined
          ? {
              kind: u.kind,
              namespace: u.namespace,
              name: u.name,
              line: u.line,
              apiVersion: u.apiVersion,
              file: u.file,
            }
          : { kind: u.kind, name: u.name, line: u.line, apiVersion: u.apiVersion, file: u.file };
      return e;
    });
}

/** "CiliumNetworkPolicy shop/deny-all (line 12)" */
export function describeUnmodelled(u: UnmodelledEntry): string {
  return `${u.kind} ${u.namespace ? `${u.namespace}/` : ""}${u.name} (${u.apiVersion}, ${u.file} line ${u.line})`;
}

/** The first line of a human output when some object is not evaluated; undefined when none. */
export function unmodelledHeadline(list: readonly UnmodelledEntry[]): string | undefined {
  if (list.length === 0) return undefined;
  const shown = list.slice(0, 3).map(describeUnmodelled).join("; ");
  const more = list.length > 3 ? ` and ${list.length - 3} more` : "";
  return `WARNING: this answer ignores ${list.length} object(s) that could change it, which ktl does not evaluate: ${shown}${more}`;
}

/**
 * Whether an unmodelled object could select a pod (for the playground's edge
 * mark): a namespaced object can only select pods of its own namespace; a
 * cluster-scoped one any pod. Its selectors are not read: the engine does not
 * know that dialect, so it marks every pod it could reach.
 */
export function couldSelect(u: UnmodelledObject, pod: Pod): boolean {
  return u.scope === "pod" && (u.namespace === undefined || u.namespace === pod.namespace);
}

/** The cluster tiers' policies as unmodelled entries, for a path that does not stack them (the CNI dialects' own evaluation). */
export function unmodelledTiers(model: Model): UnmodelledEntry[] {
  return model.clusterPolicies.map((p) => ({
    kind: p.kind,
    name: p.name,
    line: p.source.line,
    apiVersion: p.apiVersion,
    file: p.source.file,
  }));
}
