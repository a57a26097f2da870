/**
 * The Observed tab's rows on the graph: each compared row names its pair as
 * graph ids (engine analysis/observe.ts: `pod:NS/NAME` to a pod or a
 * `service:NS/NAME`); these become the drawn edges that carry that traffic
 * (a pod folded into its workload marks the workload's edge; a pod-to-pod
 * pair the graph draws only through a Service marks the source's edge to
 * that Service, not the Service's edge to the pod, which every client
 * shares), each "agree" or "disagree" (a disagreeing row wins an edge that
 * both cross). Pure: a canvas sets it on its edges as `data-observed`.
 */
import type { ObservedRowView } from "../engine/analysis/index.ts";
import { leafResolver, type GraphModel } from "./model.ts";

export type ObservedMark = "agree" | "disagree";

/** Drawn edge id -> what the observation says of the traffic it carries. */
export type ObservedEdges = ReadonlyMap<string, ObservedMark>;

export function observedEdges(g: GraphModel, rows: readonly ObservedRowView[] | undefined): ObservedEdges {
  const out = new Map<string, ObservedMark>();
  if (!rows?.length) return out;
  const resolve = leafResolver(g);
  const drawn = new Map(g.edges.map((e) => [`${e.source}->${e.target}`, e.id]));
  const from = new Map<string, string[]>();
  for (const e of g.edges) from.set(e.source, [...(from.get(e.source) ?? []), e.target]);
  const mark = (id: string | undefined, m: ObservedMark) => {
    if (id && out.get(id) !== "disagree") out.set(id, m);
  };
  for (const r of rows) {
    const m: ObservedMark = r.case.startsWith("observed-") ? "disagree" : "agree";
    const s = resolve(r.mark.source);
    const t = resolve(r.mark.target);
    if (!s || !t) continue;
    const direct = drawn.get(`${s}->${t}`);
    if (direct) {
      mark(direct, m);
      continue;
    }
    // Drawn only through a Service: the source's own edge to it.
    for (const x of from.get(s) ?? [])
      if (x.startsWith("service:") && drawn.has(`${x}->${t}`)) mark(drawn.get(`${s}->${x}`), m);
  }
  return out;
}
