import { test, expect } from "./fixtures.ts";
import { WorkshopPanel } from "./pages/WorkshopPanel.ts";

test.describe("what-if controls", () => {
  test("draining node-a: the edit is in the editor, the graph marks what changed, and undo brings it back", async ({
    playground,
    page,
  }) => {
    await playground.goto();
    const w = new WorkshopPanel(page);
    const before = await playground.editorText();
    await w.applyWhatIf("Drain a node", "node-a");
    // Upstream drain semantics (src/engine/whatif): cordon, evict non-DaemonSet pods; expected counts from src/engine/diff/diff.test.ts.
    await w.expectDiff(
      "4 flows lost, 1 gained; 6 workload connections (6 removed); 1 endpoint vanishes, 1 appears",
    );
    const g = playground.graph;
    await expect(g.edge("external:203.0.113.10", "service:shop/frontend")).toHaveAttribute(
      "data-diff",
      "lost",
    );
    await expect(g.edge("pod:shop/backend-1", "service:shop/cache")).toHaveAttribute("data-diff", "gained");
    await g.expectEdge("pod:shop/backend-1", "service:shop/cache", "allow");
    await expect(g.node("pod:tools/toolbox")).toHaveCount(0);
    const changes = await w.showChanges();
    await expect(changes).toContainText("removed pod:tools/toolbox");
    const after = await playground.editorText();
    expect(after).toContain("unschedulable: true");
    expect(after).not.toContain("name: toolbox");
    await w.undoWhatIf();
    await expect(w.whatIf).toHaveCount(0);
    expect(await playground.editorText()).toBe(before);
    await g.expectEdge("pod:shop/backend-1", "service:shop/cache", "drop");
  });

  test("cordoning node-a keeps its pods running there: no flow is lost, only new pods avoid the node", async ({
    playground,
    page,
  }) => {
    await playground.goto();
    const w = new WorkshopPanel(page);
    await w.applyWhatIf("Cordon a node", "node-a");
    // kubectl cordon sets spec.unschedulable and evicts nothing (drain evicts).
    await w.expectDiff("no change in flows, workload connections or endpoints");
    await expect(w.whatIf).toContainText("stay on node-a");
    await expect(playground.graph.node("pod:tools/toolbox")).toHaveCount(1);
    const after = await playground.editorText();
    expect(after).toContain("unschedulable: true");
    expect(after).toContain("nodeName: node-a");
  });

  test("switching a policy off marks the gained cells of the matrix", async ({ playground, page }) => {
    await playground.goto("./#lesson=5");
    const w = new WorkshopPanel(page);
    // A what-if's comparison states verdicts: in a lesson it comes with the answer.
    await w.ensureRevealed();
    await w.applyWhatIf("Switch a NetworkPolicy off", "shop/default-deny-ingress");
    await w.expectDiff("6 flows gained; 8 workload connections (8 added)");
    const matrix = await playground.openMatrix();
    await expect(
      matrix.locator('button.cell[data-from="pod:shop/orders"][data-to="pod:shop/frontend"]'),
    ).toHaveAttribute("data-diff", "gained");
    await expect(
      matrix.locator('button.cell[data-from="pod:shop/orders"][data-to="pod:shop/frontend"]'),
    ).toHaveAttribute("data-verdict", "allow");
    await expect(
      matrix.locator('button.cell[data-from="pod:shop/frontend"][data-to="pod:shop/payments"]'),
    ).toHaveAttribute("data-diff", "");
    expect(await playground.editorText()).toContain("# kind: NetworkPolicy");
  });

  test("scaling, making a pod not ready, and a traffic policy change each compare before and after", async ({
    playground,
    page,
  }) => {
    await playground.goto();
    const w = new WorkshopPanel(page);
    await w.applyWhatIf("Change a Service's traffic policy", "shop/cache");
    await w.expectDiff("1 flow gained; 1 endpoint appears");
    await expect(playground.graph.edge("pod:shop/backend-1", "service:shop/cache")).toHaveAttribute(
      "data-diff",
      "gained",
    );
    await w.applyWhatIf("Scale a workload", "shop/StatefulSet/cache", { replicas: 0 });
    await expect(w.whatIf).toHaveAttribute("data-status", "ready", { timeout: 20_000 });
    await expect(w.diffSummary()).toContainText("flows lost");
    await w.applyWhatIf("Make a pod not ready", "shop/frontend-1");
    await expect(w.whatIf).toHaveAttribute("data-status", "ready", { timeout: 20_000 });
    await expect(w.diffSummary()).toContainText("endpoint");
    expect(await playground.editorText()).toContain(
      "# shop/frontend-1, a pod of StatefulSet shop/frontend, written out by a what-if.",
    );
  });

  test("a lesson's suggested edit runs as a what-if with its comparison", async ({ playground, page }) => {
    await playground.goto("./#lesson=9");
    const w = new WorkshopPanel(page);
    await w.applySuggestedEdit();
    // Three endpoints for two zones: the controller drops the hints (topologycache.go); both clients now reach all three.
    // The removed pod's 9 flows; zone-a's clients gain zone-b's endpoints (and lose the removed one).
    await w.expectDiff("9 flows lost; 1 endpoint vanishes, 3 appear");
    await w.traceLessonQuestion(0);
    await expect(playground.traceVerdict()).toHaveAttribute("data-verdict", "allow");
    await expect(playground.details.locator("table.endpoints tbody tr")).toHaveCount(3);
  });
});
