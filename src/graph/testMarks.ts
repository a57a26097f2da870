/**
 * The Tests tab's failures on the graph: each failing expectation names the
 * parts of its traced path where the traffic contradicts it (engine
 * analysis/tests.ts, as pod, Service and external ids); these become the
 * drawn edges that show those parts (a pod folded into its workload marks
 * the workload's edge; where the Service is not drawn, its parts join up into
 * the edge that goes past it), tagged "test failed" (verdicts.ts NOTES). Pure.
 */
import type { TestResultView } from "../engine/analysis/index.ts";
import { leafResolver, type GraphModel } from "./model.ts";

/** Drawn edge id -> the names of the expectations that fail on it. */
export type TestFailures = ReadonlyMap<string, readonly string[]>;

export function testFailedEdges(g: GraphModel, results: readonly TestResultView[] | undefined): TestFailures {
  const out = new Map<string, string[]>();
  if (!results?.some((r) => !r.pass)) return out;
  const resolve = leafResolver(g);
  const drawn = new Map(g.edges.map((e) => [`${e.source}->${e.target}`, e.id]));
  const mark = (id: string | undefined, name: string) => {
    if (!id) return;
    const names = out.get(id) ?? [];
    if (!names.includes(name)) names.push(name);
    out.set(id, names);
  };
  for (const r of results) {
    if (r.pass) continue;
    for (const m of r.marks) {
      const s = resolve(m.source);
      const t = resolve(m.target);
      // A part inside one element (a Service folded into its workload, to its own pods) is no edge.
      if (s && t) {
        if (s !== t) mark(drawn.get(`${s}->${t}`), r.name);
      }
      // A Service the graph does not draw (folded into the paths between workloads): its marked parts join up.
      else if (s)
        for (const n of r.marks)
          if (n.source === m.target) mark(drawn.get(`${s}->${resolve(n.target) ?? n.target}`), r.name);
    }
  }
  return out;
}
