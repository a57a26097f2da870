/** Keyboard ways into the graph: the skip link, the editor's Tab hint, and Find (opens the folds, centres, selects). */
import { test, expect } from "./fixtures.ts";
// @ts-expect-error: the bench generator is plain JavaScript
import { generate } from "../bench/generate.mjs";

test.use({ viewport: { width: 1440, height: 900 } });

test("the first Tab reaches the skip link, which moves focus to the graph; the editor names its Tab escape", async ({
  playground,
  page,
}) => {
  await playground.goto();
  await page.keyboard.press("Tab");
  const skip = page.getByRole("link", { name: "Skip to the graph" });
  await expect(skip).toBeFocused();
  await expect(skip).toBeInViewport();
  await page.keyboard.press("Enter");
  await expect(page.locator("#graph-canvas")).toBeFocused();
  await expect(page.locator("#editor-tab-hint")).toContainText("Ctrl+M");
});

test("Find opens the folded namespace of a workload at S, centres and selects it", async ({
  playground,
  page,
}) => {
  test.setTimeout(120_000);
  await playground.goto();
  const graph = page.getByTestId("graph");
  const before = await graph.getAttribute("data-revision");
  await playground.pasteText((generate("S") as { text: string }).text);
  await expect(graph).not.toHaveAttribute("data-revision", before ?? "", { timeout: 90_000 });
  const id = "group:workload:checkout-prod/Deployment/pricing-api";
  await expect(playground.graph.node(id)).toHaveCount(0);
  const find = page.getByRole("combobox", { name: /Find a pod, workload, Service or namespace/ });
  await find.focus();
  await page.keyboard.type("pricing-api");
  await page.keyboard.press("Enter");
  const node = playground.graph.node(id);
  await expect(node).toBeVisible();
  await expect(node).toHaveClass(/selected/);
  await expect(node).toBeInViewport();
  // Nothing found is said, not silent.
  await find.fill("no-such-workload");
  await page.keyboard.press("Enter");
  await expect(page.getByRole("status").filter({ hasText: "Nothing named" })).toHaveCount(1);
});

test("in the graph, arrow keys move the selection between elements and Escape clears it", async ({
  playground,
  page,
}) => {
  await playground.goto();
  await playground.graph.node("pod:tools/toolbox").click();
  await expect(playground.graph.node("pod:tools/toolbox")).toHaveClass(/selected/);
  await page.locator("#graph-canvas").focus();
  await page.keyboard.press("ArrowRight");
  await expect(playground.graph.node("pod:tools/toolbox")).not.toHaveClass(/selected/);
  await expect(page.locator(".react-flow__node.selected")).toHaveCount(1);
  await page.keyboard.press("Escape");
  await expect(page.locator(".react-flow__node.selected")).toHaveCount(0);
});
