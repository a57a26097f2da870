// The cluster tiers in the playground (issue 15): a banner names the tier policies, and an edge that an
// Admin Deny drops is drawn dropped although a NetworkPolicy allows it, as a tier's drop (its own legend
// entry, line and glyph, and a label naming the tier), with a filter by the deciding layer and the matrix
// naming the tier; the two tier lessons (27 and 28), predicted then revealed.
import { expect, test } from "./fixtures.ts";
import { WorkshopPanel } from "./pages/WorkshopPanel.ts";

const TEXT = `apiVersion: v1
kind: Namespace
metadata: {name: shop, labels: {team: shop}}
---
apiVersion: v1
kind: Namespace
metadata: {name: dev, labels: {team: dev}}
---
apiVersion: v1
kind: Pod
metadata: {name: api, namespace: shop, labels: {app: api}}
spec: {containers: [{name: c, image: nginx, ports: [{containerPort: 80}]}]}
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: shop, labels: {app: web}}
spec: {containers: [{name: c, image: nginx}]}
---
apiVersion: v1
kind: Pod
metadata: {name: tool, namespace: dev, labels: {app: tool}}
spec: {containers: [{name: c, image: nginx}]}
---
apiVersion: v1
kind: Service
metadata: {name: api, namespace: shop}
spec: {selector: {app: api}, ports: [{port: 80}]}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: allow-all, namespace: shop}
spec: {podSelector: {}, ingress: [{}]}
---
apiVersion: policy.networking.k8s.io/v1alpha2
kind: ClusterNetworkPolicy
metadata: {name: no-dev}
spec:
  tier: Admin
  priority: 10
  subject: {namespaces: {matchLabels: {team: shop}}}
  ingress:
  - {name: deny-dev, action: Deny, from: [{namespaces: {matchLabels: {team: dev}}}]}
`;

test("cluster tiers: a banner names them and an Admin Deny drops the edge", async ({ playground, page }) => {
  await playground.goto();
  await playground.pasteText(TEXT);
  const banner = page.getByTestId("tiers-banner");
  await expect(banner).toBeVisible({ timeout: 20_000 });
  await expect(banner).toContainText("ClusterNetworkPolicy no-dev (priority 10)");
  await playground.graph.expectEdge("pod:dev/tool", "service:shop/api", "drop");
  await playground.graph.expectEdge("pod:shop/web", "service:shop/api", "allow");
});

test("tens of tier policies: the banner counts them in one line and lists every one on demand", async ({
  playground,
  page,
}) => {
  // A platform team's usual count (the bench's L cluster has 30): naming each in the sentence took a fifth of the screen.
  const many = Array.from(
    { length: 12 },
    (_, i) => `---
apiVersion: policy.networking.k8s.io/v1alpha2
kind: ClusterNetworkPolicy
metadata: {name: team-${String(i).padStart(2, "0")}}
spec:
  tier: Admin
  priority: ${20 + i}
  subject: {namespaces: {matchLabels: {team: t${i}}}}
  ingress:
  - {name: deny, action: Deny, from: [{namespaces: {matchLabels: {team: dev}}}]}
`,
  ).join("");
  await playground.goto();
  await playground.pasteText(`${TEXT}${many}`);
  const banner = page.getByTestId("tiers-banner");
  await expect(banner).toContainText(
    "Admin: 13 policies, evaluated from no-dev (priority 10) to team-11 (priority 31).",
    {
      timeout: 20_000,
    },
  );
  await expect(banner.locator("p")).not.toContainText("team-05");
  // One line of text plus the list's summary: the banner stays a banner.
  const box = await banner.boundingBox();
  expect(box!.height).toBeLessThan(120);
  const list = page.getByTestId("tiers-list");
  await expect(list.locator("li").first()).toBeHidden();
  await list.locator("summary").click();
  await expect(list.locator("li")).toHaveCount(13);
  await expect(list.locator("li").last()).toBeVisible();
  await expect(list.locator("li").nth(6)).toHaveText(
    /^Admin: ClusterNetworkPolicy team-05 \(priority 25\), line \d+$/,
  );
});

test("a tier-dropped edge: its legend entry, its label, the Decided by filter and the matrix name the tier", async ({
  playground,
  page,
}) => {
  await playground.goto();
  await playground.pasteText(TEXT);
  await expect(page.getByTestId("tiers-banner")).toBeVisible({ timeout: 20_000 });
  const admin = playground.graph.edge("pod:dev/tool", "service:shop/api");
  await expect(admin).toHaveAttribute("data-category", "tier");
  await expect(admin).toHaveAttribute("data-tier", "Admin");
  await expect(admin.locator("title")).toContainText("dropped by a cluster tier (Admin, Baseline)");
  // A NetworkPolicy's own drop keeps the policy category: the two are told apart by more than colour.
  await expect(playground.graph.edge("pod:shop/web", "service:shop/api")).toHaveAttribute(
    "data-category",
    "allow",
  );
  const legend = playground.graph.root.locator(".legend");
  await expect(legend.locator('[data-category="tier"]')).toContainText("dropped by a cluster tier");
  await expect(legend.locator('[data-category="drop"]')).toContainText("dropped by NetworkPolicy or CNI");

  // Decided by: the Admin tier's edges only, then NetworkPolicy's only.
  const decidedBy = page.getByRole("group", { name: "Graph filters" }).getByLabel("Decided by");
  await decidedBy.selectOption("Admin");
  await expect(admin).toBeAttached();
  await playground.graph.expectNoEdge("pod:shop/web", "service:shop/api");
  await decidedBy.selectOption("NetworkPolicy");
  await playground.graph.expectNoEdge("pod:dev/tool", "service:shop/api");
  await playground.graph.expectEdge("pod:shop/web", "service:shop/api", "allow");
  await decidedBy.selectOption("all");
  await expect(admin).toBeAttached();

  // Its label (drawn when the edge is lit) names the tier before the policy.
  const id = await admin.getAttribute("data-edge-id");
  await playground.graph.clickEdge("pod:dev/tool", "service:shop/api");
  await expect(page.locator(`[data-edge-label="${id}"]`)).toHaveText(/^Admin ✕ · .*no-dev/);
  await expect(playground.details).toContainText("Admin tier");

  // The matrix: the cell's cross carries the tier's initial, and its tooltip says it in words.
  const matrix = await playground.openMatrix();
  const cell = matrix.locator('button.cell[data-from="pod:dev/tool"][data-to="pod:shop/api"]');
  await expect(cell).toHaveAttribute("data-tier", "A");
  await expect(cell).toHaveAttribute("title", /dropped by the Admin tier/);
  await expect(cell).toHaveText("✕A");
  await expect(matrix.page().getByTestId("matrix-tier-key")).toBeVisible();
  await expect(
    matrix.locator('button.cell[data-from="pod:shop/web"][data-to="pod:shop/api"]'),
  ).toHaveAttribute("data-verdict", "allow");
});

test("lesson 27: predicted, revealed, the Admin Deny holds over shop's NetworkPolicy and names its tier", async ({
  playground,
  page,
}) => {
  await playground.goto("./#lesson=27");
  const w = new WorkshopPanel(page);
  await expect(w.lesson).toHaveAttribute("data-lesson", "27-hold-an-admin-deny-over-every-namespace");
  // Hidden until the reveal: no edge shows its verdict.
  await expect(playground.graph.edges().first()).toHaveAttribute("data-category", "hidden");
  const rows = w.lesson.getByTestId("lesson-predict").getByTestId("prediction");
  await rows.nth(0).getByLabel("allowed", { exact: true }).check(); // tester -> api: the NetworkPolicy allows it...
  await w.revealAnswer();
  await expect(playground.traceVerdict()).toHaveAttribute("data-verdict", "drop");
  await expect(w.lesson.getByTestId("result").nth(0)).toHaveAttribute("data-right", "false");
  await expect(playground.details).toContainText("Admin tier");
  await expect(playground.details).toContainText("isolate-sandbox");
  await expect(playground.graph.edge("pod:sandbox/tester", "service:shop/api")).toHaveAttribute(
    "data-category",
    "tier",
  );
  await w.traceLessonQuestion(1);
  await expect(playground.traceVerdict()).toHaveAttribute("data-verdict", "allow");
  // The edit: Deny becomes Pass, and shop's NetworkPolicy decides.
  await w.applySuggestedEdit();
  await w.traceLessonQuestion(0);
  await expect(playground.traceVerdict()).toHaveAttribute("data-verdict", "allow");
  await expect(playground.details).toContainText("Pass");
});

test("lesson 28: a Pass reaches the NetworkPolicy; where none governs, the Baseline tier denies", async ({
  playground,
  page,
}) => {
  await playground.goto("./#lesson=28");
  const w = new WorkshopPanel(page);
  await expect(w.lesson).toHaveAttribute("data-lesson", "28-pass-to-the-namespace-with-a-baseline-behind");
  const rows = w.lesson.getByTestId("lesson-predict").getByTestId("prediction");
  await expect(rows).toHaveCount(3);
  await rows.nth(0).getByLabel("allowed", { exact: true }).check();
  await w.revealAnswer();
  await expect(playground.traceVerdict()).toHaveAttribute("data-verdict", "allow");
  await expect(w.lesson.getByTestId("result").nth(0)).toHaveAttribute("data-right", "true");
  await expect(playground.details).toContainText("Pass");
  await expect(playground.details).toContainText("delegate-billing");
  await w.traceLessonQuestion(1);
  await expect(playground.traceVerdict()).toHaveAttribute("data-verdict", "drop");
  await expect(playground.details).toContainText("Baseline tier");
  await expect(playground.details).toContainText("BaselineAdminNetworkPolicy default");
  await w.traceLessonQuestion(2);
  await expect(playground.traceVerdict()).toHaveAttribute("data-verdict", "drop");
  await expect(playground.details).toContainText("api-allow-billing");
});
