import { test, expect } from "./fixtures.ts";
import { WorkshopPanel } from "./pages/WorkshopPanel.ts";

test.describe("presenter mode", () => {
  test("a lesson question under a cluster profile asks it under that profile (lesson 19: Calico, then Cilium)", async ({
    playground,
    page,
  }) => {
    await playground.goto("./#lesson=19");
    const w = new WorkshopPanel(page);
    await w.present();
    const profile = page.getByRole("combobox", { name: "Cluster profile (CNI)" });
    const calico = w.presenter.getByTestId("presenter-question").filter({ hasText: "--cni calico" });
    await calico.click();
    await expect(profile).toHaveValue("calico");
    await page.keyboard.press("r");
    await w.presenter.getByTestId("presenter-question").filter({ hasText: "--cni cilium" }).first().click();
    await expect(profile).toHaveValue("cilium");
    await expect(playground.graph.edges().first()).toBeAttached();
  });

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

  for (const viewport of [
    { width: 1280, height: 720 },
    { width: 1920, height: 1080 },
  ])
    test(`on a ${viewport.width}x${viewport.height} projector the graph takes the stage and its text is projector-size`, async ({
      playground,
      page,
    }) => {
      await page.setViewportSize(viewport);
      await playground.goto("./#lesson=12");
      const w = new WorkshopPanel(page);
      await w.present();
      await w.presenter.getByTestId("presenter-question").first().click();
      // The keys step through the hops once the trace has answered (a key before it steps nothing).
      await expect(w.hop()).toContainText("hops. Press → to step through them.");
      await page.keyboard.press("ArrowRight");
      await page.keyboard.press("ArrowRight");
      await expect(w.hop()).toContainText("Hop 2 of");
      // The lesson's question moves into the panel; tabs, filters and the lesson bar make room.
      await expect(w.presenter.getByTestId("presenter-lesson")).toBeVisible();
      await expect(w.lesson).toBeHidden();
      await expect(page.getByRole("tablist", { name: "View" })).toBeHidden();
      const measure = () =>
        page.evaluate(() => {
          const box = (sel: string) => {
            const r = document.querySelector(sel)!.getBoundingClientRect();
            return { width: r.width, height: r.height };
          };
          const zoom = Number(
            /matrix\(([^,]+)/.exec(
              getComputedStyle(document.querySelector(".react-flow__viewport")!).transform,
            )?.[1] ?? 1,
          );
          const names = [...document.querySelectorAll(".react-flow__node .name")].map(
            (e) => Number.parseFloat(getComputedStyle(e).fontSize) * zoom,
          );
          return {
            graph: box('[data-testid="graph"]'),
            panel: box('[data-testid="presenter"]'),
            detail: Number.parseFloat(
              getComputedStyle(document.querySelector(".presenter-detail")!).fontSize,
            ),
            name: Math.min(...names),
          };
        });
      // Graph names scale with the screen, 2.2 % of its height or more (16 px at 720p, 24 px at 1080p),
      // once the graph has refitted to the layout around it.
      await expect.poll(async () => (await measure()).name).toBeGreaterThanOrEqual(0.022 * viewport.height);
      const m = await measure();
      expect(m.graph.width * m.graph.height).toBeGreaterThan(0.6 * viewport.width * viewport.height);
      expect(m.panel.width).toBeLessThanOrEqual(0.27 * viewport.width);
      expect(m.detail).toBeGreaterThanOrEqual(18);
      // The hop's elements are lit on the graph as drawn.
      await expect(page.getByTestId("presenter-focus")).toHaveAttribute("data-shown", /\S/);
    });
});
