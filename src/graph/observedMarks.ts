/**
 * The Observed tab's rows on the graph: each compared row names its pair as
 * graph ids (engine analysis/observe.ts: `pod:NS/NAME` to a pod or a
 * `service:NS/NAME`); these become the drawn edges that carry that traffic
 * (a pod folded into its workload marks the workload's edge; a pod-to-pod
 * pair the graph draws only through a Service marks the source's edge to
 * that Service, not the Service's edge to the pod, which every client
 * shares). Each edge carries the engine's case (report.ts: agree allowed,
 * agree dropped, and the two disagreements; a row seen both ways is
 * partial), the counts seen and the rows themselves; a disagreeing row wins
 * an edge that several cross. Pure: the canvas draws it beside the verdict.
 */
import type { ObservedRowView } from "../engine/analysis/index.ts";
import type { ObserveCase } from "../engine/observe/report.ts";
import { leafResolver, type GraphEdge, type GraphModel } from "./model.ts";

/** What the observation says of one drawn edge: the engine's case for it, what was seen, and the rows behind it. */
export interface ObservedMark {
  case: ObserveCase;
  forwarded: number;
  dropped: number;
  rows: ObservedRowView[];
}

/** Drawn edge id -> what the observation says of the traffic it carries. */
export type ObservedEdges = ReadonlyMap<string, ObservedMark>;

/** Which case an edge shows when rows of several cases cross it: a disagreement first (it is the news). */
const RANK: Record<ObserveCase, number> = {
  "observed-forwarded-but-predicted-dropped": 4,
  "observed-dropped-but-predicted-allowed": 4,
  partial: 3,
  "agree-dropped": 2,
  "agree-allowed": 1,
};

/**
 * The legend's entries, one glyph each: the frame says agree (a square) or
 * disagree (a diamond), the inside says what was seen (a check: forwarded
 * as predicted; a cross: dropped as predicted; an arrow through: forwarded
 * where the engine drops; a bar across: dropped where the engine allows).
 * Shape, not colour alone.
 */
export const OBSERVED_CASES: readonly { id: ObserveCase; label: string; frame: string; inner: string }[] = [
  {
    id: "agree-allowed",
    label: "seen forwarded, predicted allowed",
    frame: SQUARE(),
    inner: "M -3 0 L -1 2.4 L 3.2 -2.4",
  },
  {
    id: "agree-dropped",
    label: "seen dropped, predicted dropped",
    frame: SQUARE(),
    inner: "M -2.6 -2.6 L 2.6 2.6 M 2.6 -2.6 L -2.6 2.6",
  },
  {
    id: "observed-forwarded-but-predicted-dropped",
    label: "seen forwarded, predicted dropped",
    frame: DIAMOND(),
    inner: "M -3.4 0 L 3 0 M 0.6 -2.4 L 3 0 L 0.6 2.4",
  },
  {
    id: "observed-dropped-but-predicted-allowed",
    label: "seen dropped, predicted allowed",
    frame: DIAMOND(),
    inner: "M -3.4 0 L 1.6 0 M 2.8 -3 L 2.8 3",
  },
  {
    id: "partial",
    label: "seen both forwarded and dropped",
    frame: SQUARE(),
    inner: "M 0 -3 L 0 3 M -3 0 L 3 0",
  },
];

function SQUARE(): string {
  return "M -5.5 -5.5 L 5.5 -5.5 L 5.5 5.5 L -5.5 5.5 Z";
}
function DIAMOND(): string {
  return "M 0 -7.5 L 7.5 0 L 0 7.5 L -7.5 0 Z";
}

export function observedCase(id: ObserveCase) {
  return OBSERVED_CASES.find((c) => c.id === id)!;
}

/** "seen 14: 0 forwarded, 14 dropped" */
export function observedText(m: ObservedMark): string {
  const n = m.forwarded + m.dropped;
  return `seen ${n}: ${m.forwarded} forwarded, ${m.dropped} dropped`;
}

export interface ObservedGraph {
  marks: ObservedEdges;
  /**
   * Rows between drawn elements that no drawn edge carries (pod-to-pod
   * traffic the input has no Service for): an edge of their own, of kind
   * "observed", with the engine's predicted verdict for them.
   */
  extra: GraphEdge[];
}

const VERDICT = { allowed: "allow", dropped: "drop", partial: "partial" } as const;

export function observedEdges(g: GraphModel, rows: readonly ObservedRowView[] | undefined): ObservedEdges {
  return observedGraph(g, rows).marks;
}

export function observedGraph(g: GraphModel, rows: readonly ObservedRowView[] | undefined): ObservedGraph {
  const out = new Map<string, ObservedMark>();
  const extra = new Map<string, GraphEdge>();
  if (!rows?.length) return { marks: out, extra: [] };
  const resolve = leafResolver(g);
  const drawn = new Map(g.edges.map((e) => [`${e.source}->${e.target}`, e.id]));
  const from = new Map<string, string[]>();
  for (const e of g.edges) from.set(e.source, [...(from.get(e.source) ?? []), e.target]);
  const mark = (id: string | undefined, r: ObservedRowView) => {
    if (!id) return false;
    const m = out.get(id) ?? { case: r.case, forwarded: 0, dropped: 0, rows: [] };
    if (RANK[r.case] > RANK[m.case]) m.case = r.case;
    m.forwarded += r.observed.forwarded;
    m.dropped += r.observed.dropped;
    m.rows.push(r);
    out.set(id, m);
    return true;
  };
  for (const r of rows) {
    const s = resolve(r.mark.source);
    const t = resolve(r.mark.target);
    if (!s || !t || s === t) continue;
    const key = `${s}->${t}`;
    if (mark(drawn.get(key) ?? extra.get(key)?.id, r)) continue;
    // Drawn only through a Service: the source's own edge to it.
    let through = false;
    for (const x of from.get(s) ?? [])
      if (x.startsWith("service:") && drawn.has(`${x}->${t}`))
        through = mark(drawn.get(`${s}->${x}`), r) || through;
    if (through) continue;
    const verdict = VERDICT[r.predicted];
    const e: GraphEdge = {
      id: `o:${key}`,
      source: s,
      target: t,
      kind: "observed",
      verdict,
      label: `predicted ${r.predicted}`,
      title: r.reason,
      decidedBy: [],
      flows: [],
    };
    if (verdict === "drop") e.dropCause = "policy";
    extra.set(key, e);
    mark(e.id, r);
  }
  return { marks: out, extra: [...extra.values()] };
}
