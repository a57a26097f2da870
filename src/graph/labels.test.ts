/**
 * Edge labels are read where they sit: no label covers a box, another label,
 * or a line it does not belong to. Geometric: the label's box (LABEL_BOX,
 * graph units) against every drawn edge's bezier (bezierPoint, the curve
 * React Flow draws), sampled finely.
 */
import { describe, expect, it } from "vitest";
import { openAnalysis } from "../engine/analysis/index.ts";
import { lessonById } from "../../scenarios/lessons.ts";
import { questionOf } from "../components/Lessons/question.ts";
import { buildGraph } from "./build.ts";
import { layeredLayout } from "./layered.ts";
import { bezierPoint, labelBox as labelSize } from "./edgeLabels.ts";
import { toFlowElements, type FlowEdge } from "./flow.ts";

type Box = { x: number; y: number; width: number; height: number };
const filters = { hiddenNamespaces: [], port: "all", onlyDrops: false };

function labelBox(e: FlowEdge): Box {
  const { width: w, height } = labelSize(e.data!.edge);
  return { x: e.data!.labelAt!.x - w / 2, y: e.data!.labelAt!.y, width: w, height };
}

/** The points of an edge's drawn curve, 200 steps from source handle to target handle. */
function curve(e: FlowEdge, pos: Record<string, Box>): { x: number; y: number }[] {
  const sp = pos[e.source]!;
  const tp = pos[e.target]!;
  const side = (h: string | null | undefined) => (h?.endsWith("left") ? "left" : "right");
  const s = {
    x: side(e.sourceHandle) === "right" ? sp.x + sp.width : sp.x,
    y: sp.y + sp.height / 2,
    side: side(e.sourceHandle),
  } as const;
  const t = {
    x: side(e.targetHandle) === "right" ? tp.x + tp.width : tp.x,
    y: tp.y + tp.height / 2,
    side: side(e.targetHandle),
  } as const;
  return Array.from({ length: 201 }, (_, i) => bezierPoint(s, t, i / 200));
}

const inside = (p: { x: number; y: number }, b: Box) =>
  p.x > b.x && p.x < b.x + b.width && p.y > b.y && p.y < b.y + b.height;

describe("edge labels cover no line", () => {
  // The note of the last session: "At 1440x900 the 10% label overlaps a line" (lesson 25's canary).
  it.each([
    ["25-split-a-canary-through-a-gateway", undefined],
    ["25-split-a-canary-through-a-gateway", 0],
    ["29-find-which-httproute-rule-wins", 0],
    ["31-route-by-header-with-an-istio-virtualservice", 0],
  ] as const)("%s (question %s traced), at the pane shapes of 1440x900 and 1280x720", (id, asked) => {
    const lesson = lessonById(id)!;
    const session = openAnalysis([{ name: lesson.file, text: lesson.manifests }]);
    const g = buildGraph(session.analysis, { filters, grouping: "auto", lens: "paths" });
    const trace = asked === undefined ? undefined : session.trace(questionOf(lesson.checks[asked]!));
    for (const [aspect, rows] of [
      [2, 7],
      [2.7, 5],
    ] as const) {
      const pos = layeredLayout(g, { aspect, maxRows: rows });
      const { edges } = toFlowElements(g, pos, trace ? { trace, allLabels: true } : { allLabels: true });
      const shown = edges.filter((e) => e.data!.showLabel && e.data!.edge.label && e.data!.labelAt);
      expect(shown.length, `${id} at ${aspect}`).toBeGreaterThan(0);
      for (const e of shown) {
        const box = labelBox(e);
        for (const [nid, b] of Object.entries(pos))
          expect(
            inside({ x: box.x + box.width / 2, y: box.y + box.height / 2 }, b),
            `${e.id} over ${nid}`,
          ).toBe(false);
        for (const other of edges) {
          const crossing = curve(other, pos).filter((p) => inside(p, box)).length;
          expect(
            crossing,
            `${e.data!.edge.label} (${e.id}) at aspect ${aspect} covers the line of ${other.id}`,
          ).toBe(0);
        }
      }
    }
  });
});

describe("label placement is kept while nothing it reads changed", () => {
  const lesson = lessonById("25-split-a-canary-through-a-gateway")!;
  const session = openAnalysis([{ name: lesson.file, text: lesson.manifests }]);
  const g = buildGraph(session.analysis, { filters, grouping: "auto", lens: "paths" });
  const places = (edges: FlowEdge[]) =>
    edges.map((e) => `${e.id} ${e.data!.showLabel ? 1 : 0} ${JSON.stringify(e.data!.labelAt ?? null)}`);
  it("places fresh edges of the same picture where it placed them, and places again when a place or a label moved", () => {
    const pos = layeredLayout(g, { aspect: 2, maxRows: 7 });
    const first = places(toFlowElements(g, pos, { allLabels: true }).edges);
    // Same positions object, fresh edges (each build makes new ones): the kept placement.
    expect(places(toFlowElements(g, pos, { allLabels: true }).edges)).toEqual(first);
    // Another layout of the same graph (a new positions object, every box moved): placed anew, on the new boxes.
    const moved = Object.fromEntries(
      Object.entries(pos).map(([k, b]) => [k, { ...b, x: b.x + 500, y: b.y + 40 }]),
    );
    const again = places(toFlowElements(g, moved, { allLabels: true }).edges);
    expect(again).not.toEqual(first);
    const shifted = toFlowElements(g, pos, { allLabels: true }).edges.filter((e) => e.data!.labelAt);
    const inMoved = toFlowElements(g, moved, { allLabels: true }).edges.filter((e) => e.data!.labelAt);
    expect(inMoved.map((e) => e.data!.labelAt!.x - 500)).toEqual(shifted.map((e) => e.data!.labelAt!.x));
    // A label many times as long on the first labelled edge (same positions): placed anew.
    const labelled = toFlowElements(g, pos, { allLabels: true }).edges.find((e) => e.data!.labelAt)!.id;
    const longer = {
      ...g,
      edges: g.edges.map((e) => (e.id === labelled ? { ...e, label: `${e.label} `.repeat(12) } : e)),
    };
    const relabelled = toFlowElements(longer, pos, { allLabels: true }).edges;
    const fresh = toFlowElements(structuredClone(longer), structuredClone(pos), { allLabels: true }).edges;
    expect(places(relabelled)).not.toEqual(first);
    expect(places(relabelled)).toEqual(places(fresh));
  });
});
