import { test, expect } from "./fixtures.ts";
import { WorkshopPanel } from "./pages/WorkshopPanel.ts";

/** Issue 14's scenario (scenarios/fixtures/why-frontend-cannot-reach-payments): answers that point at the cause. */
test.describe("answers that point at the cause", () => {
  test("why can't frontend reach payments: two actions, and the answer names team: web versus team: storefront", async ({
    playground,
    page,
  }) => {
    await playground.goto();
    // 1: open the scenario; 2: click the dropped edge.
    await page
      .getByLabel("Scenario", { exact: true })
      .selectOption("fixture-why-frontend-cannot-reach-payments");
    const from = "pod:web/frontend-5z9smncpq2-prk7w";
    await playground.graph.expectEdge(from, "service:payments/payments", "drop");
    await playground.graph.clickEdge(from, "service:payments/payments");
    await expect(playground.traceVerdict()).toHaveAttribute("data-verdict", "drop");
    const miss = page.getByTestId("near-miss").first();
    await expect(miss).toContainText(
      "rule 1 of payments/allow-checkout-and-web matches if namespace web has label `team=web`; it has `team=storefront`",
    );
    await miss.scrollIntoViewIfNeeded();
    await expect(miss).toBeVisible();
    // Its two lines: the rule's namespaceSelector, and the namespace's labels.
    await miss.getByRole("button", { name: /the rule, line/ }).click();
    await expect(playground.cursorLine()).toHaveText(/^Line 211,/);
    await miss.getByRole("button", { name: /Namespace web, line/ }).click();
    await expect(playground.cursorLine()).toHaveText(/^Line 15,/);
  });

  test("the near miss's edit as a what-if: one click labels namespace web team: web, and frontend reaches payments", async ({
    playground,
    page,
  }) => {
    await playground.goto();
    await page
      .getByLabel("Scenario", { exact: true })
      .selectOption("fixture-why-frontend-cannot-reach-payments");
    const from = "pod:web/frontend-5z9smncpq2-prk7w";
    const g = playground.graph;
    await g.clickEdge(from, "service:payments/payments");
    await expect(playground.traceVerdict()).toHaveAttribute("data-verdict", "drop");
    const miss = page.getByTestId("near-miss").first();
    await expect(miss).toContainText("smallest edit, line 16: set label team: web on Namespace web");
    await miss.getByRole("button", { name: "Try this edit" }).click();
    // The what-if bar compares before and after (src/engine/whatif/nearmiss.test.ts: the edit, re-traced, allows).
    const w = new WorkshopPanel(page);
    await expect(w.whatIf).toContainText("set label team: web on Namespace web");
    await w.expectDiff("6 flows gained; 1 workload connection (1 added)");
    await expect(g.edge(from, "service:payments/payments")).toHaveAttribute("data-diff", "gained");
    await g.expectEdge(from, "service:payments/payments", "allow");
    // The same question, answered again over the edited text.
    await expect(playground.traceVerdict()).toHaveAttribute("data-verdict", "allow");
    await expect(page.getByTestId("near-miss")).toHaveCount(0);
    // The editor shows the edit (one undoable change), not only the analysis.
    await expect(page.locator(".monaco-editor .view-lines")).toContainText("team: web");
    const text = await playground.editorText();
    expect(text).toContain("  name: web\n  labels:\n    team: web\n");
    // Only the label changed (the header comment still tells the story).
    expect(text).not.toContain("  labels:\n    team: storefront\n");
    await w.undoWhatIf();
    await expect(playground.traceVerdict()).toHaveAttribute("data-verdict", "drop");
  });

  test("the DNS mistake: payments' call to checkout fails at DNS, first hop after the source", async ({
    playground,
    page,
  }) => {
    await playground.goto();
    await page
      .getByLabel("Scenario", { exact: true })
      .selectOption("fixture-why-frontend-cannot-reach-payments");
    const from = "pod:payments/payments-k79vf8n2xv-2nps5";
    await playground.graph.expectEdge(from, "service:checkout/checkout", "drop");
    await playground.graph.clickEdge(from, "service:checkout/checkout");
    await expect(playground.traceVerdict()).toHaveAttribute("data-verdict", "drop");
    await expect(playground.traceVerdict()).toContainText("dropped at DNS");
    const hops = playground.traceHops();
    await expect(hops.nth(1)).toHaveAttribute("data-verdict", "drop");
    await expect(hops.nth(1)).toContainText("dns");
    await expect(page.getByTestId("near-miss").first()).toContainText(
      "namespace kube-system has label `name=kube-system`; it has no label `name` but has `kubernetes.io/metadata.name=kube-system`",
    );
  });

  test("ask by workload: every pod of the Deployment answered, one traced, the graph lit on its path", async ({
    playground,
    page,
  }) => {
    await playground.goto();
    await page
      .getByLabel("Scenario", { exact: true })
      .selectOption("fixture-why-frontend-cannot-reach-payments");
    await page.getByRole("combobox", { name: "Source" }).selectOption("workload:web/Deployment/frontend");
    await page.getByRole("combobox", { name: "Destination" }).selectOption("service:payments/payments:8443");
    await page.getByRole("button", { name: "Trace" }).click();
    const answer = page.getByTestId("workload-verdict");
    await expect(answer).toHaveAttribute("data-verdict", "drop");
    await expect(answer).toContainText("none of the 2 pods of Deployment web/frontend are allowed");
    await expect(page.getByTestId("workload-pair")).toHaveCount(2);
    // The graph lights both pods' paths, not only the traced one's.
    for (const pod of ["pod:web/frontend-5z9smncpq2-prk7w", "pod:web/frontend-5z9smncpq2-zcxq5"]) {
      await expect(playground.graph.edge(pod, "service:payments/payments")).toHaveClass(/\blit\b/);
      await playground.graph.expectEdge(pod, "service:payments/payments", "drop");
    }
    // The traced pod's answer follows, with the near miss that names the cause.
    await expect(playground.traceVerdict()).toHaveAttribute("data-verdict", "drop");
    await expect(page.getByTestId("near-miss").first()).toContainText("it has `team=storefront`");
    // Another pod's own trace is one click away.
    await page.getByTestId("workload-pair").getByRole("button", { name: "explain" }).first().click();
    await expect(page.getByTestId("workload-verdict")).toHaveCount(0);
    await expect(playground.traceVerdict()).toHaveAttribute("data-verdict", "drop");
  });
});
