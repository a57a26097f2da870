/**
 * The graph is legible at fit view, measured from the DOM (not pixels), for
 * the default scenario and the bench's S (189 pods) and M (2,036 pods)
 * clusters at 1440x900 and 1280x720: no graph text under 11 px on screen, no
 * text over other text, no edge label over a box, no text cut by its box, the
 * whole picture inside the pane, and a bounded number of drawn elements at M.
 */
import type { Page } from "@playwright/test";
import { test, expect } from "./fixtures.ts";
// @ts-expect-error: the bench generator is plain JavaScript
import { generate } from "../bench/generate.mjs";

const VIEWPORTS = [
  { width: 1440, height: 900 },
  { width: 1280, height: 720 },
] as const;
/** Drawn nodes + edges at M stay under this (all 2,036 pods and their flows would be thousands). */
const M_ELEMENTS = 200;

interface Measure {
  minFont: number;
  texts: number;
  overlaps: string[];
  labelOverBox: string[];
  clipped: string[];
  outside: string[];
  nodes: number;
  edges: number;
}

/** Everything measured in the page: on-screen font size (computed size x the zoom), text rectangles, boxes. */
async function measure(page: Page): Promise<Measure> {
  return page.evaluate(() => {
    type R = { left: number; top: number; right: number; bottom: number };
    const graph = document.querySelector<HTMLElement>('[data-testid="graph"] .graph-canvas')!;
    const pane = graph.getBoundingClientRect();
    const rectOf = (el: Element): R => {
      const range = document.createRange();
      range.selectNodeContents(el);
      return range.getBoundingClientRect();
    };
    const area = (r: R) => Math.max(0, r.right - r.left) * Math.max(0, r.bottom - r.top);
    const cut = (a: R, b: R): number =>
      Math.max(0, Math.min(a.right, b.right) - Math.max(a.left, b.left)) *
      Math.max(0, Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top));
    const visible = (el: Element) => {
      const s = getComputedStyle(el);
      return s.visibility !== "hidden" && s.display !== "none" && (el as HTMLElement).offsetParent !== null;
    };
    const texts = [
      ...graph.querySelectorAll<HTMLElement>(
        ".react-flow__node .name, .react-flow__node .sub, .ktl-edge-label",
      ),
    ].filter((el) => visible(el) && (el.textContent ?? "").trim() !== "");
    const name = (el: Element) =>
      `${el.closest<HTMLElement>("[data-id]")?.dataset.id ?? el.getAttribute("data-edge-label")}: ${el.textContent}`;
    let minFont = Infinity;
    const clipped: string[] = [];
    for (const el of texts) {
      const scale = el.getBoundingClientRect().width / Math.max(1, el.offsetWidth);
      minFont = Math.min(minFont, parseFloat(getComputedStyle(el).fontSize) * scale);
      const box = el.closest(".rf-path") ?? el;
      const r = rectOf(el);
      const b = box.getBoundingClientRect();
      // Cut where the text runs past its box's border (into the padding is fine: nothing hides it there).
      if (r.right > b.right - 1 || r.bottom > b.bottom - 1 || r.left < b.left || r.top < b.top)
        clipped.push(name(el));
    }
    const overlaps: string[] = [];
    const rects = texts.map(rectOf);
    for (let i = 0; i < texts.length; i++)
      for (let j = i + 1; j < texts.length; j++)
        if (cut(rects[i]!, rects[j]!) > 0.2 * Math.min(area(rects[i]!), area(rects[j]!)))
          overlaps.push(`${name(texts[i]!)} / ${name(texts[j]!)}`);
    const boxes = [...graph.querySelectorAll(".react-flow__node")];
    const labelOverBox: string[] = [];
    for (const label of graph.querySelectorAll(".ktl-edge-label")) {
      const l = label.getBoundingClientRect();
      for (const n of boxes)
        if (cut(l, n.getBoundingClientRect()) > 0)
          labelOverBox.push(`${name(label)} over ${n.getAttribute("data-id")}`);
    }
    const outside = boxes
      .filter((n) => {
        const r = n.getBoundingClientRect();
        return (
          r.left < pane.left - 1 ||
          r.top < pane.top - 1 ||
          r.right > pane.right + 1 ||
          r.bottom > pane.bottom + 1
        );
      })
      .map((n) => n.getAttribute("data-id") ?? "");
    return {
      minFont,
      texts: texts.length,
      overlaps,
      labelOverBox,
      clipped,
      outside,
      nodes: boxes.length,
      edges: graph.querySelectorAll('[data-testid="flow-edge"]').length,
    };
  });
}

/** Pastes a scenario and waits until the graph drew it (a new revision) and has been fitted. */
async function load(page: Page, text: string | undefined, paste: (t: string) => Promise<void>) {
  const graph = page.getByTestId("graph");
  if (text !== undefined) {
    const before = await graph.getAttribute("data-revision");
    await paste(text);
    await expect(graph).not.toHaveAttribute("data-revision", before ?? "", { timeout: 90_000 });
    await expect(graph).not.toHaveAttribute("data-revision", "", { timeout: 90_000 });
  }
  await page.getByRole("button", { name: /fit view/i }).click();
  await page.waitForTimeout(400);
}

const expectLegible = (m: Measure) => {
  expect(m.texts).toBeGreaterThan(5);
  expect(m.minFont, "smallest graph text on screen (px)").toBeGreaterThanOrEqual(11);
  expect(m.overlaps, "text over text").toEqual([]);
  expect(m.labelOverBox, "edge labels over boxes").toEqual([]);
  expect(m.clipped, "text cut by its box").toEqual([]);
  expect(m.outside, "boxes outside the pane at fit view").toEqual([]);
};

for (const viewport of VIEWPORTS) {
  test.describe(`graph legibility at ${viewport.width}x${viewport.height}`, () => {
    test.use({ viewport });

    test("default scenario, and with a traced path's labels shown", async ({ playground, page }) => {
      await playground.goto();
      await load(page, undefined, (t) => playground.pasteText(t));
      expectLegible(await measure(page));
      // The traced edge backend-1 -> cache shows its labels; none may cover a box.
      await playground.graph.clickEdge("pod:shop/backend-1", "service:shop/cache");
      await expect(page.locator(".ktl-edge-label").first()).toBeVisible();
      await page.getByRole("button", { name: /fit view/i }).click();
      await page.waitForTimeout(400);
      const m = await measure(page);
      expect(m.labelOverBox).toEqual([]);
      expect(m.overlaps).toEqual([]);
      expect(m.minFont).toBeGreaterThanOrEqual(11);
    });

    test("S: 189 pods in 11 namespaces", async ({ playground, page }) => {
      test.setTimeout(120_000);
      await playground.goto();
      await load(page, (generate("S") as { text: string }).text, (t) => playground.pasteText(t));
      expectLegible(await measure(page));
    });
  });
}

test.describe("graph at M (2,036 pods, 43 namespaces)", () => {
  test.use({ viewport: { width: 1440, height: 900 } });
  test("folds to an overview that fits the pane, legible, with a bounded element count", async ({
    playground,
    page,
  }) => {
    test.setTimeout(180_000);
    await playground.goto();
    await load(page, (generate("M") as { text: string }).text, (t) => playground.pasteText(t));
    const m = await measure(page);
    expectLegible(m);
    expect(m.nodes + m.edges, "drawn nodes + edges").toBeLessThan(M_ELEMENTS);
    expect(m.nodes).toBeGreaterThan(5);
  });
});
