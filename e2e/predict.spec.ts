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
    await playground.graph.waitForDrawn(); // (a straight horizontal edge has an empty box: not "visible" to Playwright)
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

/** Issue 32: a prediction belongs to one lesson and one whole question, and is judged on the whole answer. */
test.describe("predictions keyed by the whole question", () => {
  test("lesson 17: GET and POST are two predictions, and a 403 is not 'allowed'", async ({
    playground,
    page,
  }) => {
    await playground.goto("./#lesson=17");
    const w = new WorkshopPanel(page);
    const rows = w.lesson.getByTestId("prediction");
    await expect(rows).toHaveCount(4);
    // Dropped for POST leaves GET unpredicted.
    await rows.nth(1).getByLabel("dropped", { exact: true }).check();
    await expect(rows.nth(0).getByRole("radio", { checked: true })).toHaveCount(0);
    await rows.nth(0).getByLabel("allowed", { exact: true }).check();
    await rows
      .nth(0)
      .getByRole("combobox", { name: /^HTTP answer/ })
      .selectOption({ label: "HTTP 200" });
    await expect(rows.nth(1).getByLabel("dropped", { exact: true })).toBeChecked();
    // POST: allowed with a 200 is wrong twice over; the engine says dropped, 403.
    await rows.nth(1).getByLabel("allowed", { exact: true }).check();
    await rows
      .nth(1)
      .getByRole("combobox", { name: /^HTTP answer/ })
      .selectOption({ label: "HTTP 200" });

    await w.revealAnswer();
    const results = w.lesson.getByTestId("result");
    await expect(results.nth(0)).toHaveAttribute("data-right", "true");
    await results.nth(1).getByRole("button", { name: "trace it to see" }).click();
    await expect(results.nth(1)).toHaveAttribute("data-right", "false");
    await expect(results.nth(1)).toContainText(
      "dropped (HTTP 403) ✗ you predicted allowed; ✗ you predicted HTTP 200",
    );
    // GET's answer is still its own.
    await expect(results.nth(0)).toContainText("allowed (HTTP 200) ✓ as you predicted; ✓ HTTP 200");
  });

  test("lesson 31: the three 'received by' pickers (jason, Jason, no header) hold three answers", async ({
    playground,
    page,
  }) => {
    await playground.goto("./#lesson=31");
    const w = new WorkshopPanel(page);
    const rows = w.lesson.getByTestId("prediction");
    await expect(rows).toHaveCount(3);
    const backend = (i: number) => rows.nth(i).getByRole("combobox", { name: /^Backend/ });
    const options = await backend(0)
      .locator("option")
      .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value).filter(Boolean));
    const v1 = options.find((o) => o.includes("reviews-v1"))!;
    const v2 = options.find((o) => o.includes("reviews-v2"))!;
    await backend(0).selectOption(v2);
    await backend(1).selectOption(v2);
    await backend(2).selectOption(v1);
    await expect(backend(0)).toHaveValue(v2);
    await expect(backend(2)).toHaveValue(v1);
    for (let i = 0; i < 3; i++) {
      await rows.nth(i).getByLabel("allowed", { exact: true }).check();
      await rows
        .nth(i)
        .getByRole("combobox", { name: /^HTTP answer/ })
        .selectOption({ label: "HTTP 200" });
    }
    await w.revealAnswer();
    const results = w.lesson.getByTestId("result");
    for (let i = 1; i < 3; i++) await results.nth(i).getByRole("button", { name: "trace it to see" }).click();
    await expect(results.nth(0)).toHaveAttribute("data-right", "true");
    // Jason (capital J) falls through to v1: predicting v2 is wrong.
    await expect(results.nth(1)).toHaveAttribute("data-right", "false");
    await expect(results.nth(1)).toContainText("does not receive it");
    await expect(results.nth(2)).toHaveAttribute("data-right", "true");
  });

  test("another lesson after a reload shows none of the first lesson's rows or answers", async ({
    playground,
    page,
  }) => {
    await playground.goto("./#lesson=17");
    const w = new WorkshopPanel(page);
    await w.lesson.getByTestId("prediction").nth(1).getByLabel("dropped", { exact: true }).check();
    await w.revealAnswer();
    await playground.goto("./#lesson=31");
    await page.reload();
    await expect(w.lesson).toHaveAttribute("data-lesson", "31-route-by-header-with-an-istio-virtualservice");
    await expect(w.answer()).toHaveCount(0);
    const rows = w.lesson.getByTestId("prediction");
    await expect(rows).toHaveCount(3);
    await expect(rows.getByRole("radio", { checked: true })).toHaveCount(0);
    await expect(w.lesson).not.toContainText("/api/orders");
  });
});
