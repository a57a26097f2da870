/**
 * Issue 31: a page that opens on the Matrix or Node rules tab draws no graph, so its load was never marked
 * finished, and every later visit opened in safe mode. The tab's own first result now finishes the load.
 */
import { test, expect } from "./fixtures.ts";

for (const tab of ["Matrix", "Node rules"] as const) {
  test(`a load that opens on the ${tab} tab finishes, and the next visit is not in safe mode`, async ({
    page,
    playground,
  }) => {
    await playground.goto();
    await page.getByRole("tab", { name: tab }).click();
    await expect(page.getByRole("tab", { name: tab })).toHaveAttribute("aria-selected", "true");
    // A link carries the tab: opened, the page shows that tab and draws no graph.
    const link = await playground.share();
    await page.goto("about:blank");
    await page.goto(link);
    await expect(page.getByRole("tab", { name: tab })).toHaveAttribute("aria-selected", "true");
    await expect(page.getByTestId(tab === "Matrix" ? "matrix" : "node-rules")).toBeVisible({
      timeout: 20_000,
    });
    await expect
      .poll(() => page.evaluate(() => localStorage.getItem("ktl.loading.v1")), { timeout: 20_000 })
      .toBeNull();
    // Left after the quick-leave window, as a visit that ends later does.
    await page.waitForTimeout(4500);
    await page.reload();
    await expect(page.getByTestId(tab === "Matrix" ? "matrix" : "node-rules")).toBeVisible({
      timeout: 20_000,
    });
    await expect(page.getByTestId("engine-status")).not.toHaveAttribute("data-status", "paused");
    await expect(page.getByTestId("safe-mode")).toHaveCount(0);
  });
}
