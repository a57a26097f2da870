import { test, expect } from "./fixtures.ts";
import { WorkshopPanel } from "./pages/WorkshopPanel.ts";

/** Predict, then reveal (issue 14): a lesson opens with its verdicts hidden and judges the learner's prediction on reveal. */
test.describe("predict, then reveal", () => {
  test("a lesson opens with neutral edges, takes a prediction per question, and the reveal says which were right", async ({
    playground,
    page,
  }) => {
    await playground.goto("./#lesson=5");
    const w = new WorkshopPanel(page);
    const edges = playground.graph.edges();
    await expect(edges.first()).toBeVisible();
    // Nothing on the graph gives the answer away: no verdict styles, glyphs, labels or legend.
    expect(await edges.count()).toBeGreaterThan(2);
    for (const category of await edges.evaluateAll((es) => es.map((e) => e.getAttribute("data-category"))))
      expect(category).toBe("hidden");
    await expect(playground.graph.root.locator(".edge-glyph, .ktl-edge-label")).toHaveCount(0);
    await expect(playground.graph.root.locator(".legend")).toContainText("Verdicts are hidden");
    await expect(w.answer()).toHaveCount(0);

    const predict = w.lesson.getByTestId("lesson-predict");
    const rows = predict.getByTestId("prediction");
    await expect(rows).toHaveCount(3);
    await rows.nth(0).getByLabel("allowed", { exact: true }).check(); // orders -> payments
    await rows.nth(1).getByLabel("allowed", { exact: true }).check(); // frontend -> payments

    await w.revealAnswer();
    await expect(predict).toHaveCount(0);
    // The reveal traces the first question and judges it against the engine's verdict.
    await expect(playground.traceVerdict()).toHaveAttribute("data-verdict", "allow");
    const results = w.lesson.getByTestId("result");
    await expect(results.nth(0)).toHaveAttribute("data-right", "true");
    await expect(results.nth(0)).toContainText("allowed ✓ as you predicted");
    // Not traced yet: the second waits for its trace, then is judged.
    await expect(results.nth(1)).toHaveAttribute("data-right", "");
    await results.nth(1).getByRole("button", { name: "trace it to see" }).click();
    await expect(playground.traceVerdict()).toHaveAttribute("data-verdict", "drop");
    await expect(results.nth(1)).toHaveAttribute("data-right", "false");
    await expect(results.nth(1)).toContainText("dropped ✗ you predicted allowed");
    await expect(results.nth(2)).toContainText("no prediction");

    // Revealed, the graph draws its verdicts again, with the trace lit.
    await expect(
      playground.graph.root.locator('[data-testid="flow-edge"][data-category="drop"]').first(),
    ).toBeVisible();
    await expect(playground.graph.root.locator(".legend")).toContainText("dropped by NetworkPolicy or CNI");

    // The next lesson starts hidden again, with no predictions.
    await w.lesson.getByRole("button", { name: "Next lesson" }).click();
    await expect(w.lesson.getByTestId("lesson-predict")).toBeVisible();
    await expect(edges.first()).toHaveAttribute("data-category", "hidden");
  });

  test("which backend: the reveal says whether the predicted pod receives the request", async ({
    playground,
    page,
  }) => {
    await playground.goto("./#lesson=12");
    const w = new WorkshopPanel(page);
    const row = w.lesson.getByTestId("prediction").first();
    await row.getByLabel("dropped", { exact: true }).check();
    const backend = row.getByRole("combobox");
    await expect(backend.locator("option")).toHaveCount(3); // no guess, and the two pods behind shop/web
    await backend.selectOption("pod:shop/web-7d4b9c6f5-x2v8q");
    await w.revealAnswer();
    const result = w.lesson.getByTestId("result").first();
    await expect(result).toHaveAttribute("data-right", "false");
    await expect(result).toContainText("allowed ✗ you predicted dropped");
    await expect(result).toContainText("✓ shop/web-7d4b9c6f5-x2v8q receives it");
  });

  test("in presenter mode the instructor reveals the verdicts for the room", async ({ playground, page }) => {
    await playground.goto("./#lesson=5");
    const w = new WorkshopPanel(page);
    await w.present();
    await expect(playground.graph.edges().first()).toHaveAttribute("data-category", "hidden");
    await w.presenter.getByTestId("presenter-reveal").click();
    await expect(w.presenter.getByTestId("presenter-reveal")).toHaveAttribute("aria-pressed", "true");
    await expect(playground.graph.edges().first()).not.toHaveAttribute("data-category", "hidden");
    await expect(w.presenter.getByTestId("presenter-verdict")).toContainText("allow");
  });
});
