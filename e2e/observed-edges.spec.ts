import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { test, expect } from "./fixtures.ts";
import { GraphPanel } from "./pages/GraphPanel.ts";

/** The fixture with planted disagreements (scenarios/fixtures/observed-vs-predicted): every case of `ktl observe` once at least. */
const DIR = new URL("../scenarios/fixtures/observed-vs-predicted/", import.meta.url);
const MANIFESTS = readFileSync(new URL("manifests.yaml", DIR), "utf8");
const FLOWS = fileURLToPath(new URL("flows.csv", DIR));

const CASES = [
  "agree-allowed",
  "agree-dropped",
  "observed-forwarded-but-predicted-dropped",
  "observed-dropped-but-predicted-allowed",
];

test("observed against predicted on the graph: four glyphs, the legend, and Allow this edge proved and applied as a what-if", async ({
  playground,
  page,
}) => {
  await playground.goto("./");
  await playground.loadText(MANIFESTS);
  const graph = new GraphPanel(page);
  await graph.waitForDrawn();
  await page.getByRole("tab", { name: /Observed/ }).click();
  await page.getByTestId("observe-panel").getByTestId("observe-file").setInputFiles(FLOWS);

  // Each case has its own glyph on an edge and in the legend.
  const legend = page.getByRole("group", { name: "Legend" });
  for (const c of CASES) {
    await expect(
      graph.root.locator(`[data-testid="edge-observed"][data-case="${c}"]`).first(),
    ).toBeAttached();
    await expect(legend.locator(`[data-observed="${c}"]`)).toBeVisible();
  }
  // Unasked, only the marks show (counts of edges that meet at one box would pile up); the counts seen come
  // with the edge the reader points at (here, selects), at a legible size.
  await expect(graph.root.locator(".edge-observed-text")).toHaveCount(0);
  const marked = graph.root.locator(
    '[data-testid="flow-edge"][data-source^="pod:shop/backend-"][data-target^="pod:analytics/collector-"]',
  );
  await graph.clickEdge(
    (await marked.getAttribute("data-source"))!,
    (await marked.getAttribute("data-target"))!,
  );
  const text = marked.locator(".edge-observed-text");
  await expect(text).toHaveText("0 fwd · 14 drop");
  // On screen: the computed size times the viewport's zoom.
  const onScreen = await text.evaluate((el) => {
    const vp = el.closest<HTMLElement>(".react-flow__viewport")!;
    return parseFloat(getComputedStyle(el).fontSize) * new DOMMatrix(getComputedStyle(vp).transform).a;
  });
  expect(onScreen).toBeGreaterThanOrEqual(11);

  // toolbox was seen reaching the backend Service, which the manifests drop: allow it.
  const edge = graph.edge("pod:tools/toolbox", "service:shop/backend");
  await expect(edge).toHaveAttribute("data-observed", "observed-forwarded-but-predicted-dropped");
  await graph.clickEdge("pod:tools/toolbox", "service:shop/backend");
  await page.getByRole("tab", { name: /Details/ }).click();
  const details = page.getByTestId("details");
  await expect(details.getByTestId("edge-observed-row")).toHaveAttribute(
    "data-case",
    "observed-forwarded-but-predicted-dropped",
  );
  await details.getByTestId("edge-allow").click();
  const proof = details.getByTestId("edge-edit-proof");
  await expect(proof).toHaveAttribute("data-holds", "true");
  await expect(proof).toContainText("the decider gives allowed (was dropped)");
  await expect(proof).toContainText("kind: NetworkPolicy");
  // The edit went into the text as a what-if: the engine now allows the edge, and the observation agrees.
  await expect(playground.editorText()).resolves.toContain("allow-from-toolbox-8080");
  await expect(edge).toHaveAttribute("data-verdict", "allow", { timeout: 30_000 });
  await expect(edge).toHaveAttribute("data-observed", "agree-allowed", { timeout: 30_000 });
});

// Deny this edge, round trip: the engine proves the edit, the text takes it as a what-if, the edge turns
// dropped. NetworkPolicy cannot deny: the Admin tier does, and under Cilium (no Admin tier) Cilium's own deny.
for (const [profile, kind] of [
  ["generic (auto)", "kind: AdminNetworkPolicy"],
  ["cilium", "kind: CiliumNetworkPolicy"],
] as const)
  test(`Deny this edge under the ${profile} profile: proved, applied, and the edge drops`, async ({
    playground,
    page,
  }) => {
    await playground.goto("./");
    await playground.loadText(MANIFESTS);
    const graph = new GraphPanel(page);
    await graph.waitForDrawn();
    if (profile !== "generic (auto)") {
      await page.getByLabel("Cluster profile (CNI)").selectOption(profile);
      await graph.waitForDrawn();
    }
    const source = (await graph.root
      .locator(
        '[data-testid="flow-edge"][data-source^="pod:shop/frontend-"][data-target="service:shop/backend"]',
      )
      .first()
      .getAttribute("data-source"))!;
    const edge = graph.edge(source, "service:shop/backend");
    await expect(edge).toHaveAttribute("data-verdict", "allow");
    await graph.clickEdge(source, "service:shop/backend");
    await page.getByRole("tab", { name: /Details/ }).click();
    const details = page.getByTestId("details");
    await details.getByTestId("edge-deny").click();
    const proof = details.getByTestId("edge-edit-proof");
    await expect(proof).toHaveAttribute("data-holds", "true");
    await expect(proof).toContainText("the decider gives dropped (was allowed)");
    await expect(proof).toContainText(kind);
    await expect(playground.editorText()).resolves.toContain(kind);
    await expect(edge).toHaveAttribute("data-verdict", /drop|partial/, { timeout: 30_000 });
  });

// Issue 35, item 3 in the playground: policies written from the flow file, proved, and applied as a what-if.
test("Write policies from these flows: proved by the engine, applied as a what-if, and every row then agrees", async ({
  playground,
  page,
}) => {
  await playground.goto("./");
  await playground.loadText(MANIFESTS);
  const graph = new GraphPanel(page);
  await graph.waitForDrawn();
  await page.getByRole("tab", { name: /Observed/ }).click();
  const panel = page.getByTestId("observe-panel");
  await panel.getByTestId("observe-file").setInputFiles(FLOWS);
  await expect(panel).toContainText(/rows disagree with the manifests/);
  await panel.getByTestId("observe-suggest").click();
  const proof = panel.getByTestId("observe-suggest-proof");
  await expect(proof).toHaveAttribute("data-holds", "true");
  await expect(proof).toContainText(/NetworkPolicies from the observed flows/);
  await expect(proof).toContainText("The proof holds.");
  await expect(playground.editorText()).resolves.toContain("allow-observed-ingress-backend");
  // toolbox was seen reaching the backend Service, which the manifests dropped: now they agree.
  await expect(graph.edge("pod:tools/toolbox", "service:shop/backend")).toHaveAttribute(
    "data-observed",
    "agree-allowed",
    { timeout: 30_000 },
  );
});
