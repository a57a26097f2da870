/**
 * Edge labels: their words (the deciding object, the drops, the ports),
 * their size, and where each goes on the paths lens so that it covers no
 * box, no other label and no drawn line. Pure; graph units.
 */
import type { GraphEdge } from "./model.ts";
import type { Positions } from "./layout.ts";
import type { EdgeData, FlowEdge, FlowNode } from "./flowTypes.ts";

/** How many of an aggregated edge's connections are not allowed, in words ("3 of 40 dropped", "12 partly dropped"). */
export function dropsText(g: Pick<GraphEdge, "count" | "mix" | "verdict" | "source" | "target">): string {
  const m = g.mix;
  const n = g.count ?? 0;
  if (!m || g.verdict === "allow" || n === 0) return "";
  const inside = g.source === g.target ? " inside" : "";
  const of = m.allow > 0 ? ` of ${n}` : "";
  if (m.partial === 0) return `${m.drop}${of} dropped${inside}`;
  if (m.drop === 0) return `${m.partial}${of} partly dropped${inside}`;
  return `${m.drop} dropped + ${m.partial} partly${of}${inside}`;
}

/**
 * An edge's label, one or two lines, never cut: its deciding object first; then how many of its
 * connections drop and which layers dropped them (or how many it carries), and its ports.
 */
export function edgeLines(g: GraphEdge): string[] {
  const rest: string[] = [];
  const drops = g.count && (g.count > 1 || g.source === g.target) ? dropsText(g) : "";
  if (drops) rest.push(drops);
  else if (g.count && g.count > 1) rest.push(`${g.count} connections`);
  if (g.layers?.length && g.verdict !== "allow") rest.push(g.layers.join(" + "));
  // A drop's count and layers say enough on the picture; its ports are in the tooltip and the details.
  else if (g.ports?.length)
    rest.push(
      g.ports.length > 2 ? `${g.ports.slice(0, 2).join(", ")} +${g.ports.length - 2}` : g.ports.join(", "),
    );
  const second = rest.join(" · ");
  if (!g.label) return second ? [second] : [];
  // Short enough for one line: one line.
  return !second
    ? [g.label]
    : g.label.length + second.length <= 34
      ? [`${g.label} · ${second}`]
      : [g.label, second];
}

/** An edge's label as one string (titles, tests). */
export function edgeText(g: GraphEdge): string {
  return edgeLines(g).join(" · ");
}

/** Label box metrics (graph units, kept in step with graph.css: 14 px text, 17 px lines, 3/8 px padding, 1.5 px border). */
export const LABEL_BOX = { font: 14, charWidth: 0.62, padX: 19, height: 27, line: 17, gap: 10 };

/** The size of an edge's label box (graph units). */
export function labelBox(g: GraphEdge): { width: number; height: number } {
  const lines = edgeLines(g);
  const longest = Math.max(0, ...lines.map((l) => l.length));
  return {
    width: longest * LABEL_BOX.font * LABEL_BOX.charWidth + LABEL_BOX.padX,
    height: LABEL_BOX.height + Math.max(0, lines.length - 1) * LABEL_BOX.line,
  };
}

type Box = { x: number; y: number; width: number; height: number };
const hits = (a: Box, b: Box) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** A point of the bezier React Flow draws between two handles (getBezierPath, curvature 0.3, left/right handles). */
export function bezierPoint(
  s: { x: number; y: number; side: "left" | "right" },
  t: { x: number; y: number; side: "left" | "right" },
  at: number,
): { x: number; y: number } {
  const offset = (d: number) => (d >= 0 ? 0.5 * d : 0.3 * 25 * Math.sqrt(-d));
  const c1x = s.side === "right" ? s.x + offset(t.x - s.x) : s.x - offset(s.x - t.x);
  const c2x = t.side === "right" ? t.x + offset(s.x - t.x) : t.x - offset(t.x - s.x);
  const u = 1 - at;
  return {
    x: u * u * u * s.x + 3 * u * u * at * c1x + 3 * u * at * at * c2x + at * at * at * t.x,
    y: u * u * u * s.y + 3 * u * u * at * s.y + 3 * u * at * at * t.y + at * at * at * t.y,
  };
}

/**
 * A loop on an element's right side (flows between members of one folded element): a cubic from just
 * above the side's middle out and back to just below it. VerdictEdge draws it; label placement samples it.
 */
export const LOOP = { out: 30, rise: 26, gap: 10 };
export function loopCurve(x: number, y: number): [number, number][] {
  return [
    [x, y - LOOP.gap],
    [x + LOOP.out, y - LOOP.rise],
    [x + LOOP.out, y + LOOP.rise],
    [x, y + LOOP.gap],
  ];
}
export function loopPoint(x: number, y: number, at: number): { x: number; y: number } {
  const [p0, p1, p2, p3] = loopCurve(x, y) as [
    [number, number],
    [number, number],
    [number, number],
    [number, number],
  ];
  const u = 1 - at;
  const b = [u * u * u, 3 * u * u * at, 3 * u * at * at, at * at * at] as const;
  return {
    x: b[0] * p0[0] + b[1] * p1[0] + b[2] * p2[0] + b[3] * p3[0],
    y: b[0] * p0[1] + b[1] * p1[1] + b[2] * p2[1] + b[3] * p3[1],
  };
}

/** Where a label may go, relative to a point of its edge (at: 0..1 along it), nearest first. */
const CANDIDATES: { at: number; dx: number; dy: number }[] = (() => {
  const out: { at: number; dx: number; dy: number; cost: number }[] = [];
  for (const at of [0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8])
    for (const dx of [0, -60, 60, -120, 120])
      for (let k = 0; k <= 26; k++)
        for (const dy of [LABEL_BOX.gap + k * 12, -LABEL_BOX.gap - LABEL_BOX.height - k * 12])
          out.push({ at, dx, dy, cost: Math.abs(dy) + Math.abs(dx) + Math.abs(at - 0.5) * 80 });
  return out.sort((a, b) => a.cost - b.cost);
})();

/** Does the segment a-b pass through the box? (Liang-Barsky clipping.) */
export function segmentHits(a: { x: number; y: number }, b: { x: number; y: number }, r: Box): boolean {
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  let t0 = 0;
  let t1 = 1;
  for (const [p, q] of [
    [-dx, a.x - r.x],
    [dx, r.x + r.width - a.x],
    [-dy, a.y - r.y],
    [dy, r.y + r.height - a.y],
  ] as const) {
    if (p === 0) {
      if (q <= 0) return false;
      continue;
    }
    const t = q / p;
    if (p < 0) t0 = Math.max(t0, t);
    else t1 = Math.min(t1, t);
    if (t0 >= t1) return false;
  }
  return true;
}

/** An edge's drawn curve as a polyline, with its bounding box for a quick reject. */
interface Line {
  points: { x: number; y: number }[];
  bounds: Box;
}

/** More drawn edges than this: labels avoid boxes and labels only (each candidate would test every line). */
const MAX_LINES = 400;

/**
 * Shown labels go on their edge where they cover no box, no earlier label
 * and no drawn line (their own included): the middle first, then points
 * along the line, then above it. Where every candidate crosses some line,
 * the first clear of boxes and labels. Lit (traced) edges are placed first.
 * Pure; positions in graph units.
 */
export function placeLabels(
  edges: FlowEdge[],
  positions: Positions,
  viewport?: { width: number; height: number; minZoom: number; maxZoom: number },
): void {
  // The same edges, handles, labels and places as the last call's: placed as they were (an edit that turns no
  // edge's label, at M about 8 ms and 4 MB of candidate points and boxes on the main thread each time).
  const key = placementKey(edges, viewport);
  const last = lastPlacement;
  if (last && last.positions === positions && last.key === key) {
    const byId = new Map(edges.map((e) => [e.id, e]));
    for (const [id, at] of last.placed) {
      const d = byId.get(id)!.data!;
      if (at) d.labelAt = at;
      else d.showLabel = false;
    }
    return;
  }
  placeAll(edges, positions, viewport);
  const placed = new Map<string, EdgeData["labelAt"] | undefined>();
  for (const e of edges)
    if (e.data?.labelAt || (e.data?.optionalLabel && !e.data.showLabel))
      placed.set(e.id, e.data.showLabel ? e.data.labelAt : undefined);
  lastPlacement = { positions, key, placed };
}

/** The last placement's inputs and, per edge it placed, where (undefined: an optional label left unshown). */
let lastPlacement:
  { positions: Positions; key: string; placed: Map<string, EdgeData["labelAt"] | undefined> } | undefined;

/** Everything placeAll reads of the edges, besides the positions: ids, ends, handles, which labels show, their sizes. */
function placementKey(
  edges: readonly FlowEdge[],
  viewport: { width: number; height: number; minZoom: number; maxZoom: number } | undefined,
): string {
  const parts = [
    viewport ? `${viewport.width},${viewport.height},${viewport.minZoom},${viewport.maxZoom}` : "",
  ];
  for (const e of edges) {
    let k = `${e.id}|${e.source}|${e.target}|${e.sourceHandle ?? ""}|${e.targetHandle ?? ""}`;
    const d = e.data;
    if (d?.showLabel && d.edge.label) {
      const { width, height } = labelBox(d.edge);
      k += `|${d.lit ? 1 : 0}${d.optionalLabel ? 1 : 0}|${width}x${height}`;
    }
    parts.push(k);
  }
  return parts.join("\n");
}

function placeAll(
  edges: FlowEdge[],
  positions: Positions,
  viewport?: { width: number; height: number; minZoom: number; maxZoom: number },
): void {
  // Labels keep within the elements' bounds where they can (fit view takes in those that cannot: pictureBounds).
  const all = Object.values(positions);
  const bounds = {
    x: Math.min(...all.map((p) => p.x)),
    y: Math.min(...all.map((p) => p.y)),
    right: Math.max(...all.map((p) => p.x + p.width)),
    bottom: Math.max(...all.map((p) => p.y + p.height)),
  };
  const inside = (b: Box) =>
    b.x >= bounds.x && b.y >= bounds.y && b.x + b.width <= bounds.right && b.y + b.height <= bounds.bottom;
  // What fit view shows around the elements (the pane at the zoom that fits them): a label shown unasked stays in it.
  const view = { ...bounds };
  if (viewport && viewport.width > 0 && viewport.height > 0) {
    const w = bounds.right - bounds.x;
    const h = bounds.bottom - bounds.y;
    const zoom = Math.min(
      viewport.maxZoom,
      Math.max(viewport.minZoom, Math.min(viewport.width / w, viewport.height / h)),
    );
    const cx = (bounds.x + bounds.right) / 2;
    const cy = (bounds.y + bounds.bottom) / 2;
    // Never more than the pane (a picture larger than it at the smallest zoom): its own bounds then.
    const vw = Math.max(w, viewport.width / zoom);
    const vh = Math.max(h, viewport.height / zoom);
    view.x = Math.min(bounds.x, cx - vw / 2);
    view.right = Math.max(bounds.right, cx + vw / 2);
    view.y = Math.min(bounds.y, cy - vh / 2);
    view.bottom = Math.max(bounds.bottom, cy + vh / 2);
    if (viewport.width / zoom < w || viewport.height / zoom < h) Object.assign(view, bounds);
  }
  const inView = (b: Box) =>
    b.x >= view.x && b.y >= view.y && b.x + b.width <= view.right && b.y + b.height <= view.bottom;
  const boxes: Box[] = Object.values(positions).map((p) => ({
    x: p.x - 4,
    y: p.y - 4,
    width: p.width + 8,
    height: p.height + 8,
  }));
  const side = (h: string | null | undefined) => (h?.endsWith("left") ? "left" : "right");
  const ends = (e: FlowEdge) => {
    const sp = positions[e.source];
    const tp = positions[e.target];
    if (!sp || !tp) return undefined;
    const sSide = side(e.sourceHandle);
    const tSide = side(e.targetHandle);
    const s = {
      x: sSide === "right" ? sp.x + sp.width : sp.x,
      y: sp.y + sp.height / 2,
      side: sSide,
    } as const;
    const t = {
      x: tSide === "right" ? tp.x + tp.width : tp.x,
      y: tp.y + tp.height / 2,
      side: tSide,
    } as const;
    return { s, t };
  };
  /** A point of an edge's drawn curve (a loop's own shape when it starts and ends at one element). */
  const pointOf = (e: FlowEdge, st: NonNullable<ReturnType<typeof ends>>, at: number) =>
    e.source === e.target ? loopPoint(st.s.x, st.s.y, at) : bezierPoint(st.s, st.t, at);
  const lines: Line[] = [];
  if (edges.length <= MAX_LINES)
    for (const e of edges) {
      const st = ends(e);
      if (!st) continue;
      const points = Array.from({ length: 33 }, (_, i) => pointOf(e, st, i / 32));
      const xs = points.map((p) => p.x);
      const ys = points.map((p) => p.y);
      const x = Math.min(...xs);
      const y = Math.min(...ys);
      lines.push({ points, bounds: { x, y, width: Math.max(...xs) - x, height: Math.max(...ys) - y } });
    }
  // A touching bounding box (zero width or height for a straight line) still counts: pad by a pixel.
  const crossesLine = (box: Box) => {
    const near = { x: box.x - 1, y: box.y - 1, width: box.width + 2, height: box.height + 2 };
    return lines.some(
      (l) => hits(l.bounds, near) && l.points.some((p, i) => i > 0 && segmentHits(l.points[i - 1]!, p, box)),
    );
  };
  const shown = edges.filter((e) => e.data?.showLabel && e.data.edge.label);
  // Lit edges first, then edges between elements, then loops (whose labels have room beside their box).
  const order = (e: FlowEdge) => (e.data!.lit ? 0 : e.source === e.target ? 2 : 1);
  shown.sort((a, b) => order(a) - order(b));
  for (const e of shown) {
    const st = ends(e);
    if (!st) continue;
    const { width: w, height: h } = labelBox(e.data!.edge);
    // Candidates near the line, nearest first: below or above a point of the edge, then further away (a leader line then joins them).
    const anchor = pointOf(e, st, 0.5);
    let chosen: { x: number; y: number; ax: number; ay: number } | undefined;
    let clearOfBoxes: typeof chosen;
    // Within the elements' bounds first; past them only when nothing within is clear. An optional label only near its line.
    const optional = e.data!.optionalLabel === true;
    for (const within of [true, false]) {
      for (const c of CANDIDATES) {
        if (optional && (Math.abs(c.dy) > 100 || Math.abs(c.dx) > 60)) continue;
        const p = c.at === 0.5 ? anchor : pointOf(e, st, c.at);
        const box = { x: p.x + c.dx - w / 2, y: p.y + c.dy, width: w, height: h };
        if ((within && !inside(box)) || (optional && !inView(box)) || boxes.some((b) => hits(b, box)))
          continue;
        const at = { x: p.x + c.dx, y: p.y + c.dy, ax: p.x, ay: p.y };
        clearOfBoxes ??= at;
        if (!crossesLine(box)) {
          chosen = at;
          break;
        }
      }
      if (chosen) break;
    }
    // An optional label with no clear place near its line stays on demand (hover, selection).
    if (optional && !chosen) {
      e.data!.showLabel = false;
      continue;
    }
    const fallback = { x: anchor.x, y: anchor.y + LABEL_BOX.gap, ax: anchor.x, ay: anchor.y };
    const at = chosen ?? clearOfBoxes ?? fallback;
    e.data!.labelAt = at;
    boxes.push({ x: at.x - w / 2, y: at.y, width: w, height: h });
  }
}

/** What fit view must show: every element and every shown label (graph units). */
export function pictureBounds(nodes: readonly FlowNode[], edges: readonly FlowEdge[]): Box | undefined {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  const add = (x: number, y: number, w: number, h: number) => {
    x0 = Math.min(x0, x);
    y0 = Math.min(y0, y);
    x1 = Math.max(x1, x + w);
    y1 = Math.max(y1, y + h);
  };
  for (const n of nodes) if (!n.parentId) add(n.position.x, n.position.y, n.width ?? 0, n.height ?? 0);
  for (const e of edges) {
    const at = e.data?.showLabel ? e.data.labelAt : undefined;
    if (!at) continue;
    const { width, height } = labelBox(e.data!.edge);
    add(at.x - width / 2, at.y, width, height);
  }
  return x0 === Infinity ? undefined : { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
}
