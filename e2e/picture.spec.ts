/**
 * Issue 30, point 5: the picture holds still and reads at every size. An edit that turns verdicts keeps
 * every edge element (no flicker); the topology lens's text is 11 px or more at fit view; presenter mode
 * gives the graph 80 % of a 1280x720 screen; the exported slide's legend has every edge style drawn.
 */
import { test, expect } from "./fixtures.ts";
import { WorkshopPanel } from "./pages/WorkshopPanel.ts";

const DENY_TOOLS_EGRESS =
  "\n---\napiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: deny-egress, namespace: tools}\nspec: {podSelector: {}, policyTypes: [Egress]}\n";

test("an edit that turns verdicts keeps every edge element in place: the turned ones change, none is drawn anew", async ({
  playground,
  page,
}) => {
  await playground.goto();
  await playground.graph.expectEdge("pod:tools/toolbox", "service:shop/frontend", "allow");
  await page.evaluate(() => {
    for (const e of document.querySelectorAll<HTMLElement>('[data-testid="flow-edge"]'))
      (e as HTMLElement & { ktlTag?: boolean }).ktlTag = true;
  });
  const before = await playground.graph.edges().count();
  await playground.appendText(DENY_TOOLS_EGRESS);
  await playground.graph.expectEdge("pod:tools/toolbox", "service:shop/frontend", "drop");
  await page.waitForTimeout(500);
  const kept = await page.evaluate(
    () =>
      [...document.querySelectorAll('[data-testid="flow-edge"]')].filter(
        (e) => (e as HTMLElement & { ktlTag?: boolean }).ktlTag,
      ).length,
  );
  expect(await playground.graph.edges().count()).toBe(before);
  expect(kept).toBe(before);
});

for (const viewport of [
  { width: 1440, height: 900 },
  { width: 1280, height: 720 },
])
  test(`topology lens at ${viewport.width}x${viewport.height}: no text under 11 px at fit view`, async ({
    playground,
    page,
  }) => {
    await page.setViewportSize(viewport);
    await playground.goto();
    await page.getByRole("combobox", { name: "View" }).selectOption("topology");
    await expect(playground.graph.root.locator('[data-testid="zone"]').first()).toBeVisible();
    await playground.fitView();
    const sizes = await playground.graph.root.evaluate((root) => {
      const zoom = Number(
        /matrix\(([^,]+)/.exec(
          getComputedStyle(root.querySelector(".react-flow__viewport")!).transform,
        )?.[1] ?? 1,
      );
      const out: number[] = [];
      const walker = document.createTreeWalker(
        root.querySelector(".react-flow__viewport")!,
        NodeFilter.SHOW_TEXT,
      );
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const el = n.parentElement;
        if (!el || !n.textContent?.trim() || el.closest("svg")) continue;
        out.push(Number.parseFloat(getComputedStyle(el).fontSize) * zoom);
      }
      return out;
    });
    expect(sizes.length).toBeGreaterThan(10);
    expect(Math.min(...sizes)).toBeGreaterThanOrEqual(11);
  });

test("presenter mode at 1280x720 gives the graph at least 80 % of the height, a notice floating over it", async ({
  playground,
  page,
}) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  await playground.goto("./#lesson=12");
  const w = new WorkshopPanel(page);
  await page.getByRole("button", { name: "Present" }).click();
  await w.presenter.getByTestId("presenter-question").first().click();
  await expect(playground.notice()).toBeVisible();
  await page.waitForTimeout(500);
  const height = await playground.graph.root.evaluate((g) => g.getBoundingClientRect().height);
  expect(height).toBeGreaterThanOrEqual(0.8 * 720);
});

test("the exported slide's legend has every edge style of the picture: the cluster tier's", async ({
  playground,
  page,
}) => {
  const w = new WorkshopPanel(page);
  await playground.goto("./#lesson=27");
  await w.revealAnswer();
  await expect(
    playground.graph.root.locator('[data-testid="flow-edge"][data-category="tier"]').first(),
  ).toBeAttached();
  const tiered = (await w.export("Graph as SVG")).bytes.toString("utf8");
  const legend = (svg: string) => /<g data-testid="legend"[^>]*>(.*)<\/g>/.exec(svg)?.[1] ?? "";
  expect(legend(tiered)).toContain('data-category="tier"');
  expect(legend(tiered)).toContain(">dropped by a cluster tier (Admin, Baseline)<");
});

test("the exported slide's legend has the loop a folded box draws for drops among its members", async ({
  playground,
  page,
}) => {
  const w = new WorkshopPanel(page);
  const legend = (svg: string) => /<g data-testid="legend"[^>]*>(.*)<\/g>/.exec(svg)?.[1] ?? "";
  await playground.goto();
  await playground.groupBy("namespace");
  await expect(playground.graph.loop("group:namespace:shop")).toBeAttached();
  const looped = (await w.export("Graph as SVG")).bytes.toString("utf8");
  expect(legend(looped)).toContain('data-shape="loop"');
  // Every category drawn in the picture is in the legend.
  for (const c of new Set([...looped.matchAll(/<path [^>]*data-category="([a-z]+)"/g)].map((m) => m[1])))
    expect(legend(looped)).toContain(`data-category="${c}"`);
});
