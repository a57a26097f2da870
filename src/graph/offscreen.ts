/**
 * What the graph pane does not show: the elements beyond each edge of the viewport and the
 * dropped or partial edges that reach them. A picture wider than the pane at a legible zoom
 * (fit view stops there) runs past an edge; the pane says so at that edge instead of hiding
 * it in silence.
 */
import type { FlowEdge, FlowNode } from "./flowTypes.ts";

export type Side = "left" | "right" | "top" | "bottom";

export interface Beyond {
  /** Elements (boxes with no box inside them) whose centre lies past this edge. */
  count: number;
  /** Edges drawn with a verdict other than allow that reach one of them. */
  drops: number;
}

export interface Viewport {
  x: number;
  y: number;
  zoom: number;
  width: number;
  height: number;
}

const SIDES: Side[] = ["left", "right", "top", "bottom"];

/** The elements (boxes with no box inside them) at their absolute positions, and the edges drawn with a drop. */
export interface Placed {
  boxes: { id: string; x: number; y: number; width: number; height: number }[];
  drops: { source: string; target: string }[];
}

/** Once per picture: where each element sits, whatever the viewport. */
export function placeElements(nodes: readonly FlowNode[], edges: readonly FlowEdge[]): Placed {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const parents = new Set<string>();
  for (const n of nodes) if (n.parentId) parents.add(n.parentId);
  const boxes: Placed["boxes"] = [];
  for (const n of nodes) {
    if (parents.has(n.id) || n.hidden) continue;
    let { x, y } = n.position;
    for (
      let p = n.parentId ? byId.get(n.parentId) : undefined;
      p;
      p = p.parentId ? byId.get(p.parentId) : undefined
    ) {
      x += p.position.x;
      y += p.position.y;
    }
    boxes.push({ id: n.id, x, y, width: n.width ?? 0, height: n.height ?? 0 });
  }
  const drops = edges
    .filter((e) => !e.hidden && e.data && e.data.edge.verdict !== "allow")
    .map((e) => ({ source: e.source, target: e.target }));
  return { boxes, drops };
}

/** Per side, the elements past the viewport's edge and the dropped edges reaching them (a corner counts left or right). */
export function offscreenOf(placed: Placed, view: Viewport): Record<Side, Beyond> {
  const out = Object.fromEntries(SIDES.map((s) => [s, { count: 0, drops: 0 }])) as Record<Side, Beyond>;
  if (view.width <= 0 || view.height <= 0 || view.zoom <= 0) return out;
  const sideOf = new Map<string, Side>();
  for (const b of placed.boxes) {
    const cx = (b.x + b.width / 2) * view.zoom + view.x;
    const cy = (b.y + b.height / 2) * view.zoom + view.y;
    const side: Side | undefined =
      cx < 0 ? "left" : cx > view.width ? "right" : cy < 0 ? "top" : cy > view.height ? "bottom" : undefined;
    if (!side) continue;
    sideOf.set(b.id, side);
    out[side].count++;
  }
  for (const e of placed.drops) {
    const sides = new Set([sideOf.get(e.source), sideOf.get(e.target)]);
    for (const s of sides) if (s) out[s].drops++;
  }
  return out;
}

/** The gap kept between a hint and the pane's edge, and the hints' inset where the zoom buttons sit (left). */
export const HINT_MARGIN = { edge: 8, left: 56 };

/**
 * Where a side's hint goes along its edge (its top for left and right, its left for top and bottom, in pane
 * pixels): the place nearest the middle of the edge where a hint of `size` covers no box drawn in the pane, so
 * the hint never hides a name; the middle when every place covers one.
 */
export function hintSpot(
  placed: Placed,
  view: Viewport,
  side: Side,
  size: { width: number; height: number },
): number {
  const across = side === "left" || side === "right";
  const length = across ? view.height : view.width;
  const extent = across ? size.height : size.width;
  const middle = Math.max(0, (length - extent) / 2);
  if (view.zoom <= 0 || length <= extent + 2 * HINT_MARGIN.edge) return middle;
  // The hint's fixed band across the edge, in pane pixels.
  const [lo, hi] =
    side === "right"
      ? [view.width - HINT_MARGIN.edge - size.width, view.width - HINT_MARGIN.edge]
      : side === "left"
        ? [HINT_MARGIN.left, HINT_MARGIN.left + size.width]
        : side === "top"
          ? [HINT_MARGIN.edge, HINT_MARGIN.edge + size.height]
          : [view.height - HINT_MARGIN.edge - size.height, view.height - HINT_MARGIN.edge];
  // The spans along the edge that boxes in that band take.
  const taken: [number, number][] = [];
  for (const b of placed.boxes) {
    const x0 = b.x * view.zoom + view.x;
    const y0 = b.y * view.zoom + view.y;
    const [a0, a1, c0, c1] = across
      ? [x0, x0 + b.width * view.zoom, y0, y0 + b.height * view.zoom]
      : [y0, y0 + b.height * view.zoom, x0, x0 + b.width * view.zoom];
    if (a1 > lo && a0 < hi) taken.push([c0, c1]);
  }
  const free = (at: number) => taken.every(([c0, c1]) => at + extent <= c0 || at >= c1);
  if (free(middle)) return middle;
  // Places just past a box's end or just before its start, nearest the middle first.
  const candidates = taken
    .flatMap(([c0, c1]) => [c1 + 2, c0 - extent - 2])
    .filter((at) => at >= HINT_MARGIN.edge && at + extent <= length - HINT_MARGIN.edge && free(at))
    .sort((a, b) => Math.abs(a - middle) - Math.abs(b - middle));
  return candidates[0] ?? middle;
}

/** Both steps at once. */
export function offscreen(
  nodes: readonly FlowNode[],
  edges: readonly FlowEdge[],
  view: Viewport,
): Record<Side, Beyond> {
  return offscreenOf(placeElements(nodes, edges), view);
}
