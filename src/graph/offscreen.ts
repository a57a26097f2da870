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

/** Per side, the elements past the viewport's edge and the dropped edges reaching them (a corner counts left or right). */
export function offscreen(
  nodes: readonly FlowNode[],
  edges: readonly FlowEdge[],
  view: Viewport,
): Record<Side, Beyond> {
  const out = Object.fromEntries(SIDES.map((s) => [s, { count: 0, drops: 0 }])) as Record<Side, Beyond>;
  if (view.width <= 0 || view.height <= 0 || view.zoom <= 0) return out;
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const parents = new Set<string>();
  for (const n of nodes) if (n.parentId) parents.add(n.parentId);
  const absolute = (n: FlowNode): { x: number; y: number } => {
    let { x, y } = n.position;
    for (
      let p = n.parentId ? byId.get(n.parentId) : undefined;
      p;
      p = p.parentId ? byId.get(p.parentId) : undefined
    ) {
      x += p.position.x;
      y += p.position.y;
    }
    return { x, y };
  };
  const sideOf = new Map<string, Side>();
  for (const n of nodes) {
    if (parents.has(n.id) || n.hidden) continue;
    const at = absolute(n);
    const cx = (at.x + (n.width ?? 0) / 2) * view.zoom + view.x;
    const cy = (at.y + (n.height ?? 0) / 2) * view.zoom + view.y;
    const side: Side | undefined =
      cx < 0 ? "left" : cx > view.width ? "right" : cy < 0 ? "top" : cy > view.height ? "bottom" : undefined;
    if (!side) continue;
    sideOf.set(n.id, side);
    out[side].count++;
  }
  for (const e of edges) {
    if (e.hidden || !e.data || e.data.edge.verdict === "allow") continue;
    const sides = new Set([sideOf.get(e.source), sideOf.get(e.target)]);
    for (const s of sides) if (s) out[s].drops++;
  }
  return out;
}
