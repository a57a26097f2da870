import { describe, expect, it } from "vitest";
import { offscreen } from "./offscreen.ts";
import type { FlowEdge, FlowNode } from "./flowTypes.ts";

const box = (id: string, x: number, y: number, parentId?: string): FlowNode =>
  ({
    id,
    position: { x, y },
    width: 100,
    height: 40,
    data: {},
    ...(parentId ? { parentId } : {}),
  }) as FlowNode;
const edge = (source: string, target: string, verdict: string): FlowEdge =>
  ({ id: `${source}>${target}`, source, target, data: { edge: { verdict } } }) as unknown as FlowEdge;

describe("offscreen: what the pane does not show", () => {
  const nodes = [box("a", 0, 0), box("b", 300, 0), box("c", 900, 0), box("d", 900, 100), box("e", 0, 500)];
  const edges = [
    edge("a", "c", "drop"),
    edge("b", "d", "partial"),
    edge("a", "b", "drop"),
    edge("a", "d", "allow"),
  ];
  it("counts elements past each edge and the dropped or partial edges reaching them", () => {
    const r = offscreen(nodes, edges, { x: 0, y: 0, zoom: 1, width: 600, height: 300 });
    expect(r).toEqual({
      left: { count: 0, drops: 0 },
      right: { count: 2, drops: 2 },
      top: { count: 0, drops: 0 },
      bottom: { count: 1, drops: 0 },
    });
  });
  it("follows the viewport: panned right, the first columns are past the left edge (a corner counts left)", () => {
    const r = offscreen(nodes, edges, { x: -500, y: 0, zoom: 1, width: 600, height: 300 });
    // a, b and e (below and left) are past the left edge; an edge with both ends there counts once.
    expect([r.left, r.right, r.bottom]).toEqual([
      { count: 3, drops: 3 },
      { count: 0, drops: 0 },
      { count: 0, drops: 0 },
    ]);
  });
  it("nothing beyond when the picture fits (zoomed out)", () => {
    const r = offscreen(nodes, edges, { x: 0, y: 0, zoom: 0.5, width: 600, height: 300 });
    expect(Object.values(r).every((s) => s.count === 0)).toBe(true);
  });
  it("a box inside a container is placed by its container; the container itself is not an element", () => {
    const zone = { ...box("zone", 700, 0), width: 400, height: 300 } as FlowNode;
    const r = offscreen([zone, box("p", 10, 10, "zone")], [], {
      x: 0,
      y: 0,
      zoom: 1,
      width: 600,
      height: 300,
    });
    expect(r.right).toEqual({ count: 1, drops: 0 });
  });
});
