/**
 * Issue 33, item 4: a load that takes over a second says what the engine is doing and how far (the
 * engine's steps, posted by the worker as each starts), and the note goes once the graph is drawn.
 */
import { test, expect } from "./fixtures.ts";
// @ts-expect-error: the bench generator is plain JavaScript
import { generate } from "../bench/generate.mjs";

test.use({ viewport: { width: 1440, height: 900 } });

test("a large paste shows the engine's step and how far, then the graph", async ({ playground, page }) => {
  test.setTimeout(180_000);
  await playground.goto();
  // L (about 10,000 pods) takes seconds on this machine: long enough to read the steps.
  const progress = page.getByTestId("analysis-progress");
  const shown = progress.waitFor({ state: "visible", timeout: 120_000 });
  const loaded = playground.loadText((generate("L") as { text: string }).text);
  await shown;
  await expect(progress).toContainText(/step \d of 7/);
  await expect(progress.getByRole("progressbar")).toHaveAttribute("max", "7");
  await page.screenshot({ path: "test-results/load-progress.png" });
  await loaded;
  await expect(progress).toHaveCount(0);
});
