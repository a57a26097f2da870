/**
 * Find in the graph: a pod, workload, Service or namespace by name, with the
 * fold keys that reveal it (its namespace family, its namespace, its
 * workload) and the ids it may be drawn as, most specific first. Pure.
 */
import type { Analysis } from "../engine/analysis/index.ts";
import { leafResolver, type GraphModel } from "./model.ts";
import { namespaceNodeId, nsGroupKey, nsGroupNodeId, nsKey, workloadNodeId } from "./paths.ts";
import { familyResolver, type NsGroupBy } from "./nsGroups.ts";

export interface Match {
  kind: "pod" | "workload" | "Service" | "namespace";
  /** namespace/name (a namespace: its name). */
  name: string;
  /** Fold keys to open, outermost first. */
  opens: string[];
  /** Element ids it may be drawn as, the element itself first, then what folds it. */
  ids: string[];
}

export const KIND_ORDER: Record<Match["kind"], number> = { namespace: 0, workload: 1, Service: 2, pod: 3 };

/** Everything findable, in a stable order (namespaces, workloads, Services, pods; by name). */
export function searchIndex(a: Analysis, nsGroupBy?: NsGroupBy): Match[] {
  const out: Match[] = [];
  const familyOf = familyResolver(a, nsGroupBy);
  // A namespace with no family (no value for the grouping label) is never folded further.
  const family = (ns: string) => {
    const f = familyOf(ns);
    return f === undefined ? { opens: [], ids: [] } : { opens: [nsGroupKey(f)], ids: [nsGroupNodeId(f)] };
  };
  const outer = (ns: string) => ({
    opens: [...family(ns).opens, nsKey(ns)],
    ids: [namespaceNodeId(ns), ...family(ns).ids],
  });
  const namespaces = new Set<string>();
  const workloads = new Map<string, { ns: string; name: string; pods: string[] }>();
  for (const p of a.pods) {
    namespaces.add(p.namespace);
    let w = workloads.get(p.workload.id);
    if (!w) workloads.set(p.workload.id, (w = { ns: p.namespace, name: p.workload.name, pods: [] }));
    w.pods.push(p.id);
  }
  for (const s of a.services) namespaces.add(s.namespace);
  for (const ns of namespaces)
    out.push({
      kind: "namespace",
      name: ns,
      opens: family(ns).opens,
      ids: [namespaceNodeId(ns), ...family(ns).ids],
    });
  for (const [id, w] of workloads) {
    const o = outer(w.ns);
    // A folded workload is one element; an open one is its pods.
    out.push({
      kind: "workload",
      name: `${w.ns}/${w.name}`,
      opens: o.opens,
      ids: [workloadNodeId(id), ...w.pods, ...o.ids],
    });
  }
  const workloadOfPod = new Map(a.pods.map((p) => [p.id, p.workload.id]));
  for (const s of a.services) {
    const o = outer(s.namespace);
    out.push({ kind: "Service", name: `${s.namespace}/${s.name}`, opens: o.opens, ids: [s.id, ...o.ids] });
  }
  for (const p of a.pods) {
    const o = outer(p.namespace);
    out.push({
      kind: "pod",
      name: `${p.namespace}/${p.name}`,
      opens: [...o.opens, workloadOfPod.get(p.id)!],
      ids: [p.id, workloadNodeId(p.workload.id), ...o.ids],
    });
  }
  return out.sort(
    (x, y) => KIND_ORDER[x.kind] - KIND_ORDER[y.kind] || (x.name < y.name ? -1 : x.name > y.name ? 1 : 0),
  );
}

/**
 * Matches for a query, best first: an exact name, then a name that starts
 * with it, then one that contains it (case-insensitive; "ns/name" or just
 * "name"). At most `limit`.
 */
export function findMatches(index: readonly Match[], query: string, limit = 12): Match[] {
  const q = query.trim().toLowerCase();
  if (!q) return [];
  const scored: { m: Match; score: number }[] = [];
  for (const m of index) {
    const full = m.name.toLowerCase();
    const short = full.slice(full.indexOf("/") + 1);
    const score =
      full === q || short === q
        ? 0
        : short.startsWith(q) || full.startsWith(q)
          ? 1
          : full.includes(q)
            ? 2
            : -1;
    if (score >= 0) scored.push({ m, score });
  }
  scored.sort((x, y) => x.score - y.score || KIND_ORDER[x.m.kind] - KIND_ORDER[y.m.kind]);
  return scored.slice(0, limit).map((s) => s.m);
}

/** The drawn element a match is shown as: the first of its ids drawn, itself or through the element that holds it (a Service inside its workload). */
export function drawnAs(g: GraphModel, ids: readonly string[]): string | undefined {
  const drawn = new Set(g.nodes.map((n) => n.id));
  const resolve = leafResolver(g);
  const merged = new Map<string, string>();
  for (const n of g.nodes) for (const s of n.services ?? []) merged.set(s, n.id);
  for (const id of ids) {
    if (drawn.has(id)) return id;
    const r = merged.get(id) ?? resolve(id);
    if (r) return r;
  }
  return undefined;
}
