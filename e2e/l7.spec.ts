import { test, expect } from "./fixtures.ts";
import { WorkshopPanel } from "./pages/WorkshopPanel.ts";

/** L7 in the playground: a Cilium HTTP rule answered per request, a Calico tier lesson, a Gateway's weighted routes, the cluster profile. */
test.describe("L7 and CNI policies", () => {
  test("a Cilium L7 question: the connection opens, a path the rule does not allow gets 403", async ({
    playground,
    page,
  }) => {
    await playground.goto("./#lesson=17");
    // A lesson opens with its verdicts hidden (predict, then reveal): reveal them first.
    await new WorkshopPanel(page).revealAnswer();
    const bar = page.getByRole("form", { name: "Ask a question" });
    await bar.getByRole("combobox", { name: "Source" }).selectOption("pod:shop/frontend");
    await bar.getByRole("combobox", { name: "Destination" }).selectOption("service:shop/api:80");
    // The destination is behind a Cilium L7 rule: the bar asks for the request.
    await expect(bar.getByTestId("http-fields")).toBeVisible();
    await bar.getByLabel("HTTP method").selectOption("GET");
    await bar.getByLabel("HTTP path").fill("/health");
    await bar.getByRole("button", { name: "Trace" }).click();
    await expect(playground.traceVerdict()).toHaveAttribute("data-verdict", "drop");
    const status = playground.details.getByTestId("http-status");
    await expect(status).toHaveAttribute("data-status", "403");
    await expect(status).toContainText("CiliumNetworkPolicy");

    await bar.getByLabel("HTTP path").fill("/api/orders");
    await bar.getByRole("button", { name: "Trace" }).click();
    await expect(playground.traceVerdict()).toHaveAttribute("data-verdict", "allow");
    await expect(status).toHaveAttribute("data-status", "200");
    // The allowed edge says it holds for some requests only.
    await expect(page.locator('[data-testid="flow-edge"][data-note="l7"]').first()).toBeAttached();
  });

  test("a Calico tier lesson: Pass hands reports to the default tier, where it is denied; Allow in the tier ends it", async ({
    playground,
    page,
  }) => {
    await playground.goto("./#lesson=18");
    const w = new WorkshopPanel(page);
    await expect(w.lesson).toHaveAttribute("data-lesson", "18-order-calico-tiers-with-pass");
    await w.revealAnswer();
    await w.traceLessonQuestion(2);
    await expect(playground.traceVerdict()).toHaveAttribute("data-verdict", "drop");
    await expect(playground.details).toContainText("db-deny-reports");
    await expect(page.locator('[data-testid="flow-edge"][data-note="cni"]').first()).toBeAttached();
    await w.applySuggestedEdit();
    await w.traceLessonQuestion(2);
    await expect(playground.traceVerdict()).toHaveAttribute("data-verdict", "allow");
  });

  test("a Gateway canary: the router sits in the paths view with 90% and 10% routes, and the question shows the shares", async ({
    playground,
    page,
  }) => {
    await playground.goto("./#lesson=25");
    await new WorkshopPanel(page).revealAnswer();
    const router = page.locator('[data-testid="router-node"][data-id="gateway:shop/web-gw"]');
    await expect(router).toBeVisible();
    const labels = page.locator('[data-edge-label][data-note="weight"]');
    await expect(labels).toHaveCount(2);
    await expect(labels.filter({ hasText: /^90%/ })).toHaveCount(1);
    await expect(labels.filter({ hasText: /^10%/ })).toHaveCount(1);
    await new WorkshopPanel(page).traceLessonQuestion(0);
    await expect(playground.traceVerdict()).toHaveAttribute("data-verdict", "allow");
    const backends = playground.details.getByTestId("l7-backends");
    await expect(backends.locator("tr[data-service]")).toHaveCount(2);
    await expect(backends).toContainText("90%");
    // The shares multiply down the path: 90% x 1/2 for each stable pod, 10% for the canary.
    await expect(playground.details.locator("table.endpoints").last().locator("tbody tr")).toHaveText([
      /45%/,
      /45%/,
      /10%/,
    ]);
    // externalTrafficPolicy: Local on the gateway's Service: node-b has no gateway pod, so no proxy ever sees it.
    await new WorkshopPanel(page).traceLessonQuestion(1);
    await expect(playground.traceVerdict()).toHaveAttribute("data-verdict", "drop");
    await expect(playground.traceHops().filter({ hasText: "healthCheckNodePort" })).toContainText(
      "node-b answers 503",
    );
  });

  test("the cluster profile is in the toolbar and in the share link", async ({ playground, page }) => {
    await playground.goto("./#lesson=17");
    const picker = page.getByTestId("cni-profile");
    await expect(picker).toHaveAttribute("data-cni", "generic");
    await picker.selectOption("calico");
    await expect(picker).toHaveAttribute("data-cni", "calico");
    const link = await playground.share();
    const p2 = await page.context().newPage();
    await p2.goto(link);
    await expect(p2.getByTestId("cni-profile")).toHaveValue("calico");
    await expect(p2.getByTestId("cni-profile")).toHaveAttribute("data-cni", "calico");
    await p2.close();
  });
});
