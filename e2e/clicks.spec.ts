/**
 * Issue 30, point 3: every element answers a click, in both lenses: it is selected, the details
 * panel describes it, and what it is not connected to dims.
 */
import { test, expect } from "./fixtures.ts";
import { WorkshopPanel } from "./pages/WorkshopPanel.ts";

test.use({ viewport: { width: 1440, height: 900 } });

test("paths lens, first visit: a pod, a Service, a client, a namespace and a workload each select and explain", async ({
  playground,
}) => {
  await playground.goto();
  const g = playground.graph;
  await g.clickNode("pod:tools/toolbox");
  await expect(g.node("pod:tools/toolbox")).toHaveClass(/selected/);
  await expect(playground.details.getByRole("region", { name: "Pod" })).toContainText("tools/toolbox");
  // What the toolbox does not talk to dims; its own edges stay.
  await expect(g.node("pod:shop/frontend-0").locator(".rf-path")).toHaveClass(/dimmed/);
  await expect(g.node("pod:tools/toolbox").locator(".rf-path")).not.toHaveClass(/dimmed/);

  await g.clickNode("service:shop/backend");
  await expect(playground.details.getByRole("region", { name: "Service" })).toContainText("shop/backend");

  await g.clickNode("external:203.0.113.10");
  await expect(playground.details.getByTestId("element-details")).toContainText("Client outside the cluster");

  await playground.groupBy("namespace");
  await g.clickNode("group:namespace:tools");
  const el = playground.details.getByTestId("element-details");
  await expect(el.getByRole("heading").first()).toHaveText("Namespace tools");
  await expect(el).toContainText("to shop");
  await el.getByRole("button", { name: "explain" }).first().click();
  await expect(playground.traceVerdict()).toBeVisible();

  await playground.groupBy("workload");
  await g.clickNode("group:workload:shop/StatefulSet/backend");
  await expect(playground.details.getByTestId("element-details").getByRole("heading").first()).toHaveText(
    "StatefulSet shop/backend",
  );
  await expect(playground.details.getByTestId("element-details")).toContainText("Its Service");
});

test("topology lens: a pod, a zone and a cluster node each select and explain", async ({
  playground,
  page,
}) => {
  await playground.goto();
  await page.getByRole("combobox", { name: "View" }).selectOption("topology");
  const g = playground.graph;
  await expect(g.node("zone:zone-a")).toBeVisible();
  await g.clickNode("pod:shop/frontend-0");
  await expect(playground.details.getByRole("region", { name: "Pod" })).toContainText("shop/frontend-0");
  await expect(g.node("pod:tools/toolbox").locator(".rf-leaf")).toHaveClass(/dimmed/);
  await g.node("zone:zone-a").locator(".title").click();
  await expect(playground.details.getByTestId("element-details").getByRole("heading").first()).toHaveText(
    "Zone zone-a",
  );
  await g.node("node:node-a").locator(".title").click();
  await expect(playground.details.getByRole("region", { name: "Node" })).toContainText("node-a");
});

test("a router in the paths lens selects and offers its question", async ({ playground, page }) => {
  await playground.goto("./#lesson=25");
  await new WorkshopPanel(page).revealAnswer();
  await playground.graph.clickNode("gateway:shop/web-gw");
  const el = playground.details.getByTestId("element-details");
  await expect(el.getByRole("heading").first()).toHaveText("Gateway shop/web-gw");
  await expect(el.getByRole("button", { name: "Ask a question through it" })).toBeVisible();
});
