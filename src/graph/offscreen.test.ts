import { describe, expect, it } from "vitest";
import { hintSpot, offscreen, placeElements } from "./offscreen.ts";
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

// A hint sits on the pane's edge over the picture: it must not hide a box's name. At 1280x720 with M's cluster the
// right hint (vertically centred) covered a box of the middle column.
describe("hintSpot: where a hint sits along its edge", () => {
  const view = { x: 0, y: 0, zoom: 1, width: 600, height: 300 };
  const size = { width: 160, height: 24 };
  const rect = (b: { x: number; y: number; width: number; height: number }, at: number) =>
    b.x < 600 - 8 && b.x + b.width > 600 - 8 - size.width && b.y < at + size.height && b.y + b.height > at;
  it("takes the middle when no box is under it", () => {
    const placed = placeElements([box("a", 0, 130)], []);
    expect(hintSpot(placed, view, "right", size)).toBe(138);
    expect(hintSpot(placed, view, "bottom", size)).toBe(220);
  });
  it("moves off a box under the middle to the nearest free place, and covers none", () => {
    const boxes = [box("a", 480, 120), box("b", 480, 60), box("c", 480, 200)];
    const placed = placeElements(boxes, []);
    const at = hintSpot(placed, view, "right", size);
    expect(at).not.toBe(138);
    for (const b of placed.boxes) expect(rect(b, at), `${b.id} at ${at}`).toBe(false);
    // The nearest free place: just past a's end (160 + 2); just past b's (102) would cover a, just before c's
    // start (174) is further.
    expect(at).toBe(162);
  });
  it("keeps to the middle when every place along the edge covers a box", () => {
    const tall = { ...box("t", 480, -10), height: 400 } as FlowNode;
    expect(hintSpot(placeElements([tall], []), view, "right", size)).toBe(138);
  });
  it("reads boxes where the viewport draws them (panned and zoomed)", () => {
    const placed = placeElements([box("a", 1000, 300)], []);
    // Drawn at x 500..550, y 150..170 at zoom 0.5 after a pan of (0, 0): under the middle band of the right edge.
    const at = hintSpot(placed, { ...view, zoom: 0.5 }, "right", size);
    expect(at === 138).toBe(false);
  });
});
