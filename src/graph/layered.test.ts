/**
 * The paths lens's layout keeps the picture within the pane at a legible zoom where it can:
 * Online Boutique's twelve pods (netpol-analyzer tests/onlineboutique) fall in three columns of
 * long pod names, each box sized to its name up to BOX.maxWidth; at the 1280x720 pane fit view
 * stopped at its legible floor and the third column ran past the pane's edge, its names cut.
 */
import { describe, expect, it } from "vitest";
import { layeredLayout, LAYERED } from "./layered.ts";
import type { GraphModel, GraphNode } from "./model.ts";
import { nodeBoxText } from "./text.ts";

const CALLERS = [
  "loadgenerator-555fbdc87d-cgxv8",
  "adservice-77d5cd745d-t8mx4",
  "cartservice-74f56fd4b-8fjzp",
];
const MIDDLE = [
  "currencyservice-77654bbbdd-kq4xj",
  "frontend-99684f7f8-l7mqq",
  "paymentservice-bbcbdc6b6-87j92",
];
const BACKENDS = [
  "productcatalogservice-68765d49b6-dkxzk",
  "recommendationservice-5f8c456796-b594r",
  "shippingservice-5bd985c46d-mbb8l",
];

function pod(name: string, i: number): GraphNode {
  const n: GraphNode = {
    id: `pod:default/${name}`,
    kind: "pod",
    label: name,
    namespace: "default",
    parts: ["default", `10.244.120.${70 + i}`],
    width: 0,
    height: 0,
  };
  const text = nodeBoxText(n);
  return { ...n, text, width: text.width, height: text.height };
}

function boutique(): GraphModel {
  const nodes = [...CALLERS, ...MIDDLE, ...BACKENDS].map(pod);
  const id = (name: string) => `pod:default/${name}`;
  const links = [
    ...CALLERS.flatMap((c) => MIDDLE.map((m) => `${id(c)}>${id(m)}`)),
    ...MIDDLE.flatMap((m) => BACKENDS.map((b) => `${id(m)}>${id(b)}`)),
  ];
  return { lens: "paths", level: "pod", nodes, edges: [], links, structureKey: "boutique", hidden: 0 };
}

/** The boxes' extent (what fit view fits: flow.ts pictureBounds, less the edge labels none of these has). */
function extent(pos: ReturnType<typeof layeredLayout>) {
  const boxes = Object.values(pos);
  return {
    width: Math.max(...boxes.map((b) => b.x + b.width)) - Math.min(...boxes.map((b) => b.x)),
    height: Math.max(...boxes.map((b) => b.y + b.height)) - Math.min(...boxes.map((b) => b.y)),
  };
}

describe("layeredLayout within the pane", () => {
  it("keeps the model's boxes when the picture fits the pane", () => {
    const g = boutique();
    const pos = layeredLayout(g, { aspect: 2.4, maxRows: 4, paneWidth: 1400, paneHeight: 500 });
    for (const n of g.nodes) {
      expect(pos[n.id]!.width).toBe(n.width);
      expect(pos[n.id]!.text).toBeUndefined();
    }
  });

  // The pane of 1280x720 in graph units at the legible zoom (GraphCanvas: LEGIBLE_ZOOM 0.815).
  it("re-wraps the widest boxes narrower when three columns of long names are wider than the pane", () => {
    const g = boutique();
    const widest = Math.max(...g.nodes.map((n) => n.width));
    expect(3 * widest + 2 * LAYERED.columnGap + 2 * LAYERED.padding).toBeGreaterThan(888);
    const pos = layeredLayout(g, { aspect: 2.6, maxRows: 4, paneWidth: 888, paneHeight: 400 });
    expect(extent(pos).width).toBeLessThanOrEqual(888);
    expect(extent(pos).height).toBeLessThanOrEqual(400);
    for (const n of g.nodes) {
      const p = pos[n.id]!;
      // Nothing is cut: a narrowed box carries its whole name, wrapped after its separators only.
      const text = p.text ?? n.text!;
      expect(text.name.join("")).toBe(n.label);
      for (const line of text.name.slice(0, -1)) expect(line).toMatch(/-$/);
      expect(p.width).toBe(text.width);
      expect(p.height).toBe(text.height);
    }
    expect(g.nodes.some((n) => pos[n.id]!.text)).toBe(true);
    // Boxes do not overlap.
    const boxes = Object.values(pos);
    for (const [i, a] of boxes.entries())
      for (const b of boxes.slice(i + 1))
        expect(
          a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height,
        ).toBe(false);
  });

  it("keeps the model's boxes when no narrower shape fits the pane's width either", () => {
    const g = boutique();
    const pos = layeredLayout(g, { aspect: 2.6, maxRows: 4, paneWidth: 500, paneHeight: 400 });
    for (const n of g.nodes) expect(pos[n.id]!.text).toBeUndefined();
  });

  it("keeps narrowed boxes' text when it keeps the previous places", () => {
    const g = boutique();
    const options = { aspect: 2.6, maxRows: 4, paneWidth: 888, paneHeight: 400 };
    const first = layeredLayout(g, options);
    const again = layeredLayout(g, { ...options, previous: first });
    expect(again).toEqual(first);
  });
});
