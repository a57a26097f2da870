import { test, expect } from "./fixtures.ts";

test.describe("the playground on the default scenario", () => {
  test("first load draws the default scenario: zones, nodes, pods, Services and the external client", async ({
    playground,
  }) => {
    await playground.goto();
    const g = playground.graph;
    // Zones and nodes are a lens: the default scenario's Local traffic policy makes them matter, so turn it on.
    await playground.page.getByRole("combobox", { name: "View" }).selectOption("topology");
    for (const id of [
      "zone:zone-a",
      "zone:zone-b",
      "node:node-a",
      "node:node-b",
      "pod:shop/frontend-0",
      "pod:tools/toolbox",
      "service:shop/backend",
      "external:203.0.113.10",
    ]) {
      await expect(g.node(id)).toBeVisible();
    }
    await g.expectEdge("pod:shop/frontend-0", "service:shop/backend", "allow");
    await g.expectEdge("pod:tools/toolbox", "service:shop/backend", "drop");
    await g.expectEdge("pod:shop/backend-1", "service:shop/cache", "drop");
    await expect(g.edge("pod:shop/backend-1", "service:shop/cache")).toHaveAttribute(
      "data-cause",
      "traffic-policy",
    );
    await g.expectEdge("service:shop/backend", "pod:shop/backend-0", "partial");
    await g.expectEdge("external:203.0.113.10", "service:shop/frontend", "allow");
    await expect(playground.page.getByText("Nothing leaves your browser")).toBeVisible();
    await expect(
      playground.details.getByText("Runs in your browser: nothing leaves it.", { exact: false }),
    ).toBeVisible();
  });

  test("editing the YAML redraws the graph", async ({ playground }) => {
    await playground.goto();
    await playground.graph.expectNoEdge("pod:shop/cache-1", "service:shop/backend");
    const text = await playground.editorText();
    await playground.pasteText(
      text.replace(
        "name: cache\n  namespace: shop\nspec:\n  replicas: 1",
        "name: cache\n  namespace: shop\nspec:\n  replicas: 2",
      ),
    );
    await expect(playground.graph.node("pod:shop/cache-1")).toBeVisible();
    await playground.graph.expectEdge("pod:shop/cache-1", "service:shop/backend", "drop");
  });

  test("adding a default-deny policy turns the right edges to drop", async ({ playground }) => {
    await playground.goto();
    const g = playground.graph;
    await g.expectEdge("pod:tools/toolbox", "service:shop/frontend", "allow");
    await playground.appendText(
      "\n---\napiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata:\n  name: default-deny-egress\n  namespace: tools\nspec:\n  podSelector: {}\n  policyTypes:\n  - Egress\n",
    );
    // The toolbox's own egress is now denied everywhere...
    await g.expectEdge("pod:tools/toolbox", "service:shop/frontend", "drop");
    await g.expectEdge("pod:tools/toolbox", "service:shop/backend", "drop");
    // ...and nobody else's traffic changes.
    await g.expectEdge("pod:shop/backend-0", "service:shop/frontend", "allow");
    await g.expectEdge("pod:shop/frontend-0", "service:shop/backend", "allow");
    await g.expectEdge("external:203.0.113.10", "service:shop/frontend", "allow");
  });

  test("a trace explains a drop, and its link moves the editor to the policy", async ({ playground }) => {
    await playground.goto();
    await playground.graph.clickEdge("pod:tools/toolbox", "service:shop/backend");
    await expect(playground.traceVerdict()).toHaveAttribute("data-verdict", "drop");
    await expect(playground.details.getByText("ingress policy at backend")).toBeVisible();
    const link = playground.details
      .getByRole("button", { name: /NetworkPolicy shop\/default-deny-ingress · line \d+/ })
      .first();
    const line = Number(await link.getAttribute("data-line"));
    expect(line).toBeGreaterThan(100);
    await link.click();
    await expect(playground.cursorLine()).toHaveText(new RegExp(`^Line ${line},`));
    await expect(playground.page.locator(".ktl-reveal-line")).toBeVisible();
    // The highlighted line is the policy's podSelector, in the editor's visible text.
    await expect(
      playground.editor.locator(".view-line").filter({ hasText: "podSelector: {}" }).first(),
    ).toBeVisible();
  });

  test("asking a question lights the path: the cache is out of reach from node-a", async ({ playground }) => {
    await playground.goto();
    const page = playground.page;
    await page.getByRole("combobox", { name: "Source" }).selectOption("pod:shop/backend-1");
    await page.getByRole("combobox", { name: "Destination" }).selectOption("service:shop/cache:6379");
    await page.getByRole("button", { name: "Trace" }).click();
    await expect(playground.traceVerdict()).toHaveAttribute("data-verdict", "drop");
    await expect(playground.traceVerdict()).toContainText("internalTrafficPolicy Local");
    // The drawn edge for this question is lit, and it is the only one.
    await expect(playground.graph.edge("pod:shop/backend-1", "service:shop/cache")).toHaveClass(/\blit\b/);
    await expect(playground.graph.root.locator('[data-testid="flow-edge"].lit')).toHaveCount(1);
  });

  test("a broken document shows a marker on its line and keeps the rest of the graph", async ({
    playground,
  }) => {
    await playground.goto();
    const text = await playground.editorText();
    const lines = text.split("\n");
    const at = lines.indexOf("  name: toolbox") + 1;
    await playground.insertAfterLine(at, "\n  labels: [unclosed");
    const problems = await playground.openProblems();
    const syntax = problems.locator('li[data-code="KTL101"]');
    await expect(syntax).toHaveCount(1);
    const line = Number(await syntax.getAttribute("data-line"));
    expect(Math.abs(line - (at + 1))).toBeLessThanOrEqual(2);
    await expect(playground.editor.locator(".squiggly-error").first()).toBeAttached();
    // The broken document (the toolbox) is gone; every other document still draws.
    await expect(playground.graph.node("pod:tools/toolbox")).toHaveCount(0);
    await playground.graph.expectEdge("pod:shop/frontend-0", "service:shop/backend", "allow");
    await playground.graph.expectEdge("service:shop/backend", "pod:shop/backend-0", "partial");
  });
});
