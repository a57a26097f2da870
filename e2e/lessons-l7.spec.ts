import { test, expect } from "./fixtures.ts";
import { WorkshopPanel } from "./pages/WorkshopPanel.ts";

/**
 * The L7 lessons as a learner works them (issue 20): open with the verdicts
 * hidden, predict, reveal, then trace each question and read which route,
 * rule or mesh setting decided it.
 */
test.describe("L7 lessons: predict, reveal, read the deciding route", () => {
  test("29: an HTTPRoute is not first-match: the longest prefix, then the method, wins", async ({
    playground,
    page,
  }) => {
    await playground.goto("./#lesson=29");
    const w = new WorkshopPanel(page);
    await expect(w.lesson).toHaveAttribute("data-lesson", "29-find-which-httproute-rule-wins");
    await expect(playground.graph.edges().first()).toHaveAttribute("data-category", "hidden");
    await expect(w.answer()).toHaveCount(0);
    const rows = w.lesson.getByTestId("prediction");
    await expect(rows).toHaveCount(3);
    await rows.nth(0).getByLabel("allowed", { exact: true }).check();
    await rows
      .nth(0)
      .getByRole("combobox", { name: /^HTTP answer/ })
      .selectOption({ label: "HTTP 200" });
    // Which Service receives it: the route's backends, offered without saying which wins.
    await rows
      .nth(0)
      .getByRole("combobox", { name: /^Backend/ })
      .selectOption("service:shop/api");

    await w.revealAnswer();
    await expect(w.answer()).toContainText("a longer PathPrefix (/api, 4 characters) beats a shorter one");
    await expect(w.lesson.getByTestId("lesson-sources")).toContainText("HTTPRouteRule.Matches");
    // The reveal traces GET /api/orders: rule 2 (api) wins over the catch-all listed first.
    await expect(playground.traceVerdict()).toHaveAttribute("data-verdict", "allow");
    await expect(w.lesson.getByTestId("result").nth(0)).toContainText(
      "allowed (HTTP 200) ✓ as you predicted; ✓ HTTP 200; ✓ shop/api receives it",
    );
    await expect(w.lesson.getByTestId("result").nth(0)).toHaveAttribute("data-right", "true");
    const route = playground.traceHops().filter({ hasText: "HTTPRoute shop/shop rule" });
    await expect(route).toContainText("HTTPRoute shop/shop rule 2 (api) matches");
    await expect(playground.details.getByTestId("l7-backends").locator("tr[data-service]")).toHaveText([
      /^shop\/api8080/,
    ]);

    // POST /api/orders: the same prefix, and the method match breaks the tie.
    await w.traceLessonQuestion(1);
    await expect(route).toContainText("HTTPRoute shop/shop rule 3 (api-writes) matches");
    await expect(playground.details.getByTestId("l7-backends")).toContainText("shop/api-writer");
  });

  test("30: REGISTRY_ONLY blocks an external host in the sidecar until a ServiceEntry admits it", async ({
    playground,
    page,
  }) => {
    await playground.goto("./#lesson=30");
    const w = new WorkshopPanel(page);
    await expect(playground.graph.edges().first()).toHaveAttribute("data-category", "hidden");
    await w.lesson.getByTestId("prediction").nth(0).getByLabel("allowed", { exact: true }).check();

    await w.revealAnswer();
    await expect(w.answer()).toContainText("BlackHoleCluster");
    await expect(playground.traceVerdict()).toHaveAttribute("data-verdict", "drop");
    await expect(w.lesson.getByTestId("result").nth(0)).toContainText(
      "dropped (HTTP 502) ✗ you predicted allowed; ✗ no HTTP answer predicted (HTTP 502)",
    );
    await expect(playground.traceHops().filter({ hasText: "REGISTRY_ONLY" })).toContainText(
      "from MeshConfig (ConfigMap istio-system/istio)",
    );

    await w.applySuggestedEdit();
    await w.traceLessonQuestion(0);
    await expect(playground.traceVerdict()).toHaveAttribute("data-verdict", "allow");
    await expect(playground.traceHops().filter({ hasText: "registers httpbin.org" })).toContainText(
      "ServiceEntry shop/httpbin registers httpbin.org",
    );
  });

  test("31: a VirtualService header match decides in the client's sidecar, case included", async ({
    playground,
    page,
  }) => {
    await playground.goto("./#lesson=31");
    const w = new WorkshopPanel(page);
    await expect(playground.graph.edges().first()).toHaveAttribute("data-category", "hidden");
    await w.revealAnswer();
    await expect(w.answer()).toContainText("exact compares the value as written, case included");
    // end-user: jason takes the first route, testers, to subset v2.
    await expect(playground.traceVerdict()).toHaveAttribute("data-verdict", "allow");
    const backends = playground.details.getByTestId("l7-backends").locator("tr[data-service]");
    await expect(backends).toHaveCount(1);
    await expect(backends.first()).toContainText("v2");
    // end-user: Jason falls through to everyone-else and v1.
    await w.traceLessonQuestion(1);
    await expect(backends.first()).toContainText("v1");
    await expect(playground.traceHops().filter({ hasText: "everyone-else" }).first()).toBeVisible();
  });
});
