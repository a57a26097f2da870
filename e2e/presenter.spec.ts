import { test, expect } from "./fixtures.ts";
import { WorkshopPanel } from "./pages/WorkshopPanel.ts";

test.describe("presenter mode", () => {
  test("steps through a trace hop by hop with the keyboard, lighting each hop, and resets between questions", async ({
    playground,
    page,
  }) => {
    await playground.goto("./#lesson=12");
    const w = new WorkshopPanel(page);
    await w.present();
    await expect(page.locator(".app.presenting")).toBeVisible();
    await expect(page.getByTestId("editor")).toBeHidden();
    await w.presenter.getByTestId("presenter-question").first().click();
    await expect(w.hop()).toContainText("hops. Press → to step through them.");
    const hops = await w.presenter.getByRole("list", { name: "Hops" }).locator("li").count();
    expect(hops).toBeGreaterThan(3);

    await page.keyboard.press("ArrowRight");
    await expect(w.hop()).toContainText(`Hop 1 of ${hops}: source`);
    await expect(w.focus()).toHaveAttribute("data-focus", "external:203.0.113.10 node:node-b");

    const steps: string[] = [];
    for (let i = 2; i <= hops; i++) {
      await page.keyboard.press("ArrowRight");
      await expect(w.hop()).toContainText(`Hop ${i} of ${hops}:`);
      steps.push((await w.hop().locator("strong").first().textContent()) ?? "");
    }
    expect(steps).toContain("kube-proxy");
    // The last hop is at the terminating pod: it lights that pod and the verdict is shown.
    await expect(w.focus()).toHaveAttribute("data-focus", "pod:shop/web-7d4b9c6f5-x2v8q");
    await expect(w.presenter.getByTestId("presenter-verdict")).toContainText("allow");

    await page.keyboard.press("ArrowLeft");
    await expect(w.hop()).toContainText(`Hop ${hops - 1} of ${hops}`);
    await page.keyboard.press("Home");
    await expect(w.hop()).toContainText("Press → to step through them.");

    await page.keyboard.press("r");
    await expect(w.presenter.getByTestId("presenter-question").first()).toBeVisible();
    await expect(playground.details.getByTestId("trace")).toHaveCount(0);

    await page.keyboard.press("Escape");
    await expect(w.presenter).toHaveCount(0);
    await expect(page.getByTestId("editor")).toBeVisible();
  });

  test("the kube-proxy hop lights the Service, the handling node and the chosen pod on the graph", async ({
    playground,
    page,
  }) => {
    await playground.goto("./#lesson=4");
    const w = new WorkshopPanel(page);
    await w.present();
    await w.presenter.getByTestId("presenter-question").first().click();
    await w.presenter.getByRole("button", { name: /kube-proxy/ }).click();
    await expect(w.hop()).toHaveAttribute("data-verdict", "drop");
    await expect(w.focus()).toHaveAttribute(
      "data-focus",
      "service:default/nginx-sample-svc node:aks-nodepool1-23236778-vmss000002",
    );
    await expect(w.hop()).toContainText("DROPs the packet");
  });
});
