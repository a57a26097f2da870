// Nothing left out in silence (issue 29): a document that could not be read is a Problem and a banner
// above the answer; a mesh route without sidecars is named (KTL471), and the toolbar's Assume switch
// (sidecars in every application namespace) makes the graph draw the route and the details say so.
import { expect, test } from "./fixtures.ts";

const TEXT = `apiVersion: v1
kind: Pod
metadata: {name: client, namespace: app, labels: {app: client}}
spec: {containers: [{name: c, image: nginx}]}
---
apiVersion: v1
kind: Pod
metadata: {name: api, namespace: app, labels: {app: api}}
spec: {containers: [{name: c, image: nginx, ports: [{containerPort: 80}]}]}
---
apiVersion: v1
kind: Service
metadata: {name: api, namespace: app}
spec: {selector: {app: api}, ports: [{port: 80}]}
---
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: api, namespace: app}
spec: {hosts: [api], http: [{route: [{destination: {host: api}}]}]}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny-all, namespace: app}
spec:
  podSelector: {}
  policyTypes: [Ingress, Egress
`;

test("a skipped document is a banner and a Problem; the Assume switch draws the mesh route", async ({
  playground,
  page,
}) => {
  await playground.goto();
  await playground.pasteText(TEXT);
  const banner = page.getByTestId("omissions-banner");
  await expect(banner).toBeVisible({ timeout: 20_000 });
  await expect(banner).toContainText("1 document could not be read");
  await page.getByRole("tab", { name: /Problems/ }).click();
  const problems = page.getByTestId("problems");
  await expect(problems.locator('[data-code="KTL101"]')).toHaveCount(1);
  await expect(problems.locator('[data-code="KTL471"]')).toHaveCount(1);
  await playground.graph.expectNoEdge("virtualservice:app/api", "service:app/api");
  await page.getByTestId("assume").locator("summary").click();
  await page.getByTestId("assume-injection").check();
  await expect(problems.locator('[data-code="KTL471"]')).toHaveCount(0, { timeout: 20_000 });
  await expect(page.getByTestId("assume").locator("summary")).toContainText("(on)");
  await playground.graph.expectEdge("virtualservice:app/api", "service:app/api", "allow");
});
