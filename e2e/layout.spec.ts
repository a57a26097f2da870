/**
 * The graph keeps the stage with a lesson open: the lesson reads at the top of
 * the editor column (scrolling inside itself past 60 % of it), and the question
 * bar wraps its HTTP fields to a second row instead of scrolling sideways.
 * Lesson 25 (a Gateway canary) shows the most: a predict form and HTTP fields.
 */
import type { Page } from "@playwright/test";
import { test, expect } from "./fixtures.ts";
import { WorkshopPanel } from "./pages/WorkshopPanel.ts";

async function heights(page: Page) {
  return page.evaluate(() => {
    const h = (sel: string) => document.querySelector(sel)?.getBoundingClientRect().height ?? 0;
    const form = document.querySelector<HTMLElement>("form.question")!;
    const box = form.getBoundingClientRect();
    const outside = [...form.querySelectorAll<HTMLElement>("select, input, button")]
      .map((el) => ({ el, r: el.getBoundingClientRect() }))
      .filter(({ r }) => r.width > 0 && (r.right > box.right + 0.5 || r.left < box.left - 0.5))
      .map(({ el }) => el.getAttribute("aria-label") ?? el.textContent);
    return {
      viewport: window.innerHeight,
      traffic: h('[aria-label="Traffic"]'),
      canvas: h('[data-testid="graph"]'),
      lesson: h('[data-testid="lesson"]'),
      overflow: form.scrollWidth - form.clientWidth,
      outside,
    };
  });
}

for (const viewport of [
  { width: 1280, height: 720 },
  { width: 1440, height: 900 },
])
  test(`with lesson 25 open at ${viewport.width}x${viewport.height} the graph keeps most of the height and the question bar does not scroll sideways`, async ({
    playground,
    page,
  }) => {
    await page.setViewportSize(viewport);
    await playground.goto("./#lesson=25");
    const w = new WorkshopPanel(page);
    await expect(w.lesson.getByTestId("lesson-predict")).toBeVisible();
    await expect(page.getByTestId("http-fields")).toBeVisible();
    await playground.graph.waitForDrawn();
    const m = await heights(page);
    // The notice "Opened lesson 25" is still up: the toolbar and it are all that sit above the graph pane.
    expect(m.traffic, JSON.stringify(m)).toBeGreaterThanOrEqual(0.55 * m.viewport);
    expect(m.canvas, JSON.stringify(m)).toBeGreaterThanOrEqual(0.4 * m.viewport);
    expect(m.overflow, "the question bar scrolls sideways").toBeLessThanOrEqual(0);
    expect(m.outside, "controls outside the question bar").toEqual([]);
    // Everything in the lesson is reachable (it scrolls inside itself), and hiding it gives the editor back.
    // (Before the reveal its last control is the reveal; the edit to try comes with the answer.)
    await w.lesson.getByTestId("lesson-reveal").scrollIntoViewIfNeeded();
    await expect(w.lesson.getByTestId("lesson-reveal")).toBeInViewport();
    await expect(w.lesson.getByRole("button", { name: "Previous lesson" })).toBeInViewport();
    await w.lesson.getByRole("button", { name: "Hide lesson" }).click();
    expect((await heights(page)).lesson).toBeLessThan(m.lesson);
  });

for (const viewport of [
  { width: 1280, height: 720 },
  { width: 1440, height: 900 },
])
  test(`the toolbar keeps one row at ${viewport.width}x${viewport.height}`, async ({ playground, page }) => {
    await page.setViewportSize(viewport);
    await playground.goto();
    await playground.graph.waitForDrawn();
    // Every control's top within one row: a wrapped control (the theme switch, Share) pushed the graph down a row.
    const tops = await page
      .locator("header.toolbar > *:visible")
      .evaluateAll((els) => els.map((el) => Math.round(el.getBoundingClientRect().top)));
    expect(Math.max(...tops) - Math.min(...tops), `control tops: ${tops.join(", ")}`).toBeLessThan(16);
    // Whatever the engine's status says: at 1280 "Analysing…" was wider than "287 ms" and pushed the theme
    // switch to a second row on every keystroke, so the page below (the editor, the graph) jumped and Monaco
    // laid itself out again twice per edit (the longest main-thread tasks while typing at 2,000 pods).
    const status = page.getByTestId("engine-status");
    const height = async () => (await page.locator("header.toolbar").boundingBox())!.height;
    const idle = await height();
    for (const text of ["Analysing…", "Paused", "Engine error", "12345 ms", ""]) {
      await status.evaluate((el, t) => (el.textContent = t), text);
      expect(await height(), `the toolbar's height with the status "${text}"`).toBe(idle);
    }
  });
