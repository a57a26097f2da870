/**
 * Issue 30, point 1: drops fold with their boxes. An aggregated drop edge joins two boxes whenever a
 * flow between their members is dropped, labelled with the count and the deciding layer; drops
 * among one box's members make a loop on it; "Only drops" shows every drop at the fold level in
 * view, and says why when there is none; "Where the drops are" opens the boxes and picks the edge.
 */
import { readFileSync } from "node:fs";
import { test, expect } from "./fixtures.ts";
// @ts-expect-error: the bench generator is plain JavaScript
import { generate } from "../bench/generate.mjs";
import type { PlaygroundPage } from "./pages/PlaygroundPage.ts";

/** Opens a generated cluster of the bench's (S: 189 pods, M: 2,036), with the time a larger one takes to load. */
async function openTier(playground: PlaygroundPage, tier: "S" | "M"): Promise<void> {
  test.setTimeout(tier === "S" ? 120_000 : 180_000);
  await playground.goto();
  await playground.loadText((generate(tier) as { text: string }).text);
}

test.use({ viewport: { width: 1440, height: 900 } });

test("folded namespaces keep their drops: a labelled drop edge between boxes and a loop inside one", async ({
  playground,
}) => {
  await playground.goto();
  await playground.groupBy("namespace");
  const g = playground.graph;
  await expect(g.edge("group:namespace:tools", "group:namespace:shop")).toHaveAttribute(
    "data-verdict",
    /drop|partial/,
  );
  const label = g.label("group:namespace:tools", "group:namespace:shop");
  await expect(label).toContainText(/\d+ of \d+ dropped/);
  await expect(label).toContainText("NetworkPolicy");
  // backend-1 -> cache (traffic policy) and the policy drops inside shop: a loop on the shop box.
  await expect(g.loop("group:namespace:shop")).toHaveAttribute("data-verdict", /drop|partial/);
  await expect(playground.page.locator('.legend [data-shape="loop"]')).toBeVisible();
  // Only drops: the same fold level, only the edges that carry drops.
  await playground.onlyDrops();
  await expect(g.edges()).toHaveCount(2);
  await expect(g.dropEdges()).toHaveCount(2);
  // A click on the loop traces one of its dropped flows.
  await g.clickEdge("group:namespace:shop", "group:namespace:shop");
  await expect(playground.traceVerdict()).toHaveAttribute("data-verdict", /drop|partial/);
  // Selected, the loop shows its label: how many of the flows inside drop, and the layers that dropped them.
  await expect(g.label("group:namespace:shop", "group:namespace:shop")).toContainText(/\d+ dropped.* inside/);
});

test("at 189 pods, Only drops shows the partly dropped edges between folded namespaces, and the list opens one", async ({
  playground,
  page,
}) => {
  await openTier(playground, "S");
  await playground.onlyDrops();
  await expect(playground.graph.dropEdges().first()).toBeAttached();
  const edges = await playground.graph.edges().count();
  expect(edges).toBeGreaterThan(0);
  await expect(playground.graph.dropEdges()).toHaveCount(edges);
  const list = playground.dropList();
  await expect(list.getByRole("listitem").first()).toBeVisible();
  // The pairs no endpoint admits (6,596: a StatefulSet's replicas once per workload, host-network senders once
  // per node) are drawn, not only counted.
  await expect(playground.details).toContainText("6,596 are dropped (drawn as drop edges");
  await expect(list.getByTestId("drops-unlisted")).toHaveCount(0);
  const first = list.getByRole("listitem").first();
  const title = (await first.getByRole("button").innerText()).split(" → ");
  await first.getByRole("button").click();
  // The spot's edge is selected: its details name both ends, in the spot's namespaces.
  const heading = playground.details.getByRole("region", { name: "Edge" }).getByRole("heading").first();
  await expect(heading).toContainText(title[1]!);
  await expect(page.locator(".react-flow__edge.selected")).toHaveCount(1);
});

test("at 2,036 pods (M), the pairs no endpoint admits are drawn at the fold level in view, isolation faint", async ({
  playground,
  page,
}) => {
  await openTier(playground, "M");
  await expect(playground.graph.dropEdges().first()).toBeAttached();
  await playground.groupBy("namespace");
  // Namespaces folded: isolation (refused on both sides) is a hairline, with its own legend entry.
  await expect(page.locator('[data-quiet="true"]').first()).toBeAttached();
  await expect(page.locator('.legend [data-shape="quiet"]')).toBeVisible();
  await playground.onlyDrops();
  const edges = await playground.graph.edges().count();
  expect(edges).toBeGreaterThan(100);
  await expect(playground.graph.dropEdges()).toHaveCount(edges);
  await expect(page.getByTestId("drops-none")).toHaveCount(0);
  // By workload this cluster has over a hundred thousand edges (a minute's freeze until 2026-12-07): the
  // picture folds to fit instead, and says which grouping it did not draw and why.
  await playground.onlyDrops(false);
  await playground.groupBy("workload");
  await expect(page.getByTestId("graph")).toHaveAttribute("data-declined", "workload");
  await expect(page.locator(".legend")).toContainText(
    "“Group by: workload” would draw more than 2,500 edges",
  );
  expect(await playground.graph.edges().count()).toBeLessThanOrEqual(2500);
});

test("at 2,036 pods (M), an edit redraws the graph and ranks the drops again, each a slice per task", async ({
  playground,
  page,
}) => {
  await openTier(playground, "M");
  const top = playground.dropList().locator("li").first();
  await expect(top).toBeAttached();
  const key = (await top.getAttribute("data-spot"))!;
  const from = key.slice(0, key.indexOf(">"));
  const to = key.slice(key.indexOf(">") + 1, key.indexOf("|"));
  const graph = page.getByTestId("graph");
  const before = (await graph.getAttribute("data-revision"))!;
  // Every pod of the source namespace may send anything, every pod of the destination may take anything:
  // the drops of the top place are gone, whichever side refused them.
  const open = (name: string, ns: string, dir: "ingress" | "egress") =>
    `---\napiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata:\n  name: ${name}\n  namespace: ${ns}\nspec:\n  podSelector: {}\n  policyTypes: [${dir === "ingress" ? "Ingress" : "Egress"}]\n  ${dir}:\n  - {}\n`;
  await playground.appendText(
    `\n${open("e2e-open-in", to, "ingress")}${open("e2e-open-out", from, "egress")}`,
  );
  await expect(graph).not.toHaveAttribute("data-revision", before, { timeout: 90_000 });
  await expect(graph).not.toHaveAttribute("data-revision", "", { timeout: 90_000 });
  await expect(playground.dropList().locator(`li[data-spot="${key}"]`)).toHaveCount(0, { timeout: 30_000 });
  await expect(playground.dropList().locator("li").first()).toBeAttached();
});

test("Only drops on an input with none says so instead of an empty picture", async ({ playground }) => {
  await playground.goto();
  await playground.loadText(readFileSync("e2e/fixtures/real-apps/bookinfo.yaml", "utf8"));
  await playground.onlyDrops();
  await expect(playground.graph.edges()).toHaveCount(0);
  await expect(playground.page.getByTestId("drops-none")).toContainText("every listed flow allowed");
});
