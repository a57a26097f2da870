/**
 * Issue 30, point 2: names whole. On real manifests (Online Boutique, Bookinfo, Sock Shop) every box
 * holds its whole text: no ellipsis, no line past its box, ports and namespaces whole, and the part
 * that tells pods of one workload apart stays on screen.
 */
import { readFileSync } from "node:fs";
import { test, expect } from "./fixtures.ts";

const app = (name: string) => readFileSync(`e2e/fixtures/real-apps/${name}.yaml`, "utf8");

for (const viewport of [
  { width: 1440, height: 900 },
  { width: 1280, height: 720 },
]) {
  test.describe(`at ${viewport.width}x${viewport.height}`, () => {
    test.use({ viewport });

    for (const name of ["online-boutique-netpol", "bookinfo", "sock-shop"])
      test(`${name}: every line whole inside its box`, async ({ playground }) => {
        await playground.goto();
        await playground.loadText(app(name));
        await playground.fitView();
        const lines = await playground.graph.boxLines();
        expect(lines.length).toBeGreaterThan(5);
        expect(lines.filter((l) => l.text.includes("…"))).toEqual([]);
        expect(lines.filter((l) => l.overflows)).toEqual([]);
      });
  });
}

test.describe("at 1280x720", () => {
  test("Online Boutique folds into its workloads, each named whole with its namespace", async ({
    playground,
  }) => {
    await playground.goto();
    await playground.loadText(app("online-boutique"));
    const box = playground.graph.boxText("group:workload:default/Deployment/productcatalogservice");
    await expect(box.locator(".name")).toHaveText("1× productcatalogservice");
    await expect(box.locator(".sub")).toHaveText("deploy · default · svc");
    // Opened, its Service keeps the gRPC port whole.
    await playground.groupBy("pod");
    await expect(playground.graph.boxText("service:default/paymentservice").locator(".sub")).toHaveText(
      "svc · default · 50051/TCP",
    );
  });

  test("Bookinfo's reviews pods show their workload (v1, v2, v3) and their own suffix", async ({
    playground,
  }) => {
    await playground.goto();
    await playground.loadText(app("bookinfo"));
    const names = await playground.graph.root
      .locator('.rf-path[data-id^="pod:default/reviews-"] .name')
      .allInnerTexts();
    expect(names).toHaveLength(3);
    expect(names.map((n) => n.split(" · ")[0])).toEqual(["reviews-v1", "reviews-v2", "reviews-v3"]);
    for (const n of names) expect(n).toMatch(/^reviews-v\d · [a-z0-9]{5}$/);
  });
});

// A picture wider than the pane at the legible zoom runs past its edge: the pane says how many elements
// lie that way (and how many of their edges drop), and a click pans there.
test.describe("at 1280x720, past the pane's edge", () => {
  test.use({ viewport: { width: 1280, height: 720 } });
  test("Online Boutique: the elements past the right edge are counted, and the hint pans to them", async ({
    playground,
  }) => {
    await playground.goto();
    await playground.loadText(app("online-boutique"));
    await playground.fitView();
    const right = playground.page.locator('[data-offscreen="right"]');
    await expect(right).toHaveAccessibleName(/^\d+ more elements? to the right.*: pan right$/);
    const count = Number((await right.getAttribute("aria-label"))!.split(" ")[0]);
    expect(count).toBeGreaterThan(0);
    await right.click();
    // Panned: what was past the right edge is in view, and what it passed is now to the left.
    await expect(playground.page.locator('[data-offscreen="left"]')).toBeVisible();
  });
});
