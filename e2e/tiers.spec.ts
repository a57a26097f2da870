// The cluster tiers in the playground (issue 15): a banner names the tier policies, and an edge that an
// Admin Deny drops is drawn dropped although a NetworkPolicy allows it.
import { expect, test } from "./fixtures.ts";

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
