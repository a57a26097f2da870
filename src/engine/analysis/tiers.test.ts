/**
 * The playground's flows and matrix follow the cluster tiers (policy/stack.ts):
 * an Admin Deny drops an edge that a NetworkPolicy allows, and the edge says
 * which tier decided (the graph's tier mark). CNPAdminTierIntegration
 * (network-policy-api conformance/tests at 0eec1b0e).
 */
import { describe, expect, it } from "vitest";
import { analyzeText, openAnalysis } from "./index.ts";

const TEXT = `apiVersion: v1
kind: Node
metadata: {name: n1}
spec: {podCIDR: 10.244.1.0/24}
---
apiVersion: v1
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
spec: {nodeName: n1, containers: [{name: c, ports: [{containerPort: 80}]}]}
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: shop, labels: {app: web}}
spec: {nodeName: n1, containers: [{name: c}]}
---
apiVersion: v1
kind: Pod
metadata: {name: tool, namespace: dev, labels: {app: tool}}
spec: {nodeName: n1, containers: [{name: c}]}
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

describe("analysis under the cluster tiers", () => {
  it("an Admin Deny drops the edge a NetworkPolicy allows, and the edge names the tier", () => {
    const a = analyzeText(TEXT);
    const withService = analyzeText(
      `${TEXT}---\napiVersion: v1\nkind: Service\nmetadata: {name: api, namespace: shop}\nspec: {selector: {app: api}, ports: [{port: 80}]}\n`,
    );
    const toApi = a.flows.filter((f) => f.to === "pod:shop/api" && f.kind === "pod");
    const fromDev = toApi.find((f) => f.from.includes("pod:dev/tool"))!;
    const fromWeb = toApi.find((f) => f.from.includes("pod:shop/web"))!;
    expect(fromDev).toMatchObject({ verdict: "drop", dropCause: "policy", tier: "Admin" });
    expect(fromDev.decidedBy[0]).toMatchObject({ kind: "ClusterNetworkPolicy", name: "no-dev" });
    expect(fromWeb.verdict).toBe("allow");
    expect(fromWeb.tier).toBeUndefined();
    const endpoint = withService.flows.find((f) => f.kind === "endpoint" && f.to === "pod:shop/api")!;
    expect(endpoint).toMatchObject({ verdict: "partial", tier: "Admin" });
    // The pod-to-Service flow (traced) and the trace's path parts name the tier too.
    const service = withService.flows.find((f) => f.kind === "service" && f.from.includes("pod:dev/tool"))!;
    expect(service).toMatchObject({ verdict: "drop", tier: "Admin" });
    const fromWebToService = withService.flows.find(
      (f) => f.kind === "service" && f.from.includes("pod:shop/web"),
    )!;
    expect(fromWebToService.tier).toBeUndefined();
  });

  it("the matrix names the tier that dropped a cell: A where the Admin Deny decides, none where NetworkPolicy does", () => {
    const baseline = `${TEXT}---
apiVersion: policy.networking.k8s.io/v1alpha1
kind: BaselineAdminNetworkPolicy
metadata: {name: default}
spec:
  subject: {namespaces: {matchLabels: {team: dev}}}
  ingress:
  - {name: deny-all, action: Deny, from: [{namespaces: {}}]}
---
apiVersion: v1
kind: Namespace
metadata: {name: ops}
---
apiVersion: v1
kind: Pod
metadata: {name: bot, namespace: ops, labels: {app: bot}}
spec: {nodeName: n1, containers: [{name: c}]}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny-all, namespace: ops}
spec: {podSelector: {}, policyTypes: [Ingress]}
`;
    const s = openAnalysis([{ name: "m.yaml", text: baseline }]);
    for (const by of ["pod", "workload"] as const) {
      const m = s.matrix({ port: 80, protocol: "TCP", by });
      const at = (from: string, to: string) => {
        const i = m.labels.indexOf(from);
        const j = m.labels.indexOf(to);
        return `${m.cells[i]![j]}${m.tiers![i]![j]}`;
      };
      expect(at("dev/tool", "shop/api"), by).toBe("dA"); // the Admin tier's Deny, over shop's allow-all
      expect(at("shop/web", "dev/tool"), by).toBe("dB"); // no NetworkPolicy in dev: the Baseline default deny
      expect(at("shop/api", "ops/bot"), by).toBe("d."); // ops's own NetworkPolicy isolates bot
      expect(at("shop/web", "shop/api"), by).toBe("a.");
    }
    // Without tier policies the matrix carries no tier row.
    const plain = openAnalysis([{ name: "m.yaml", text: TEXT.split("---\napiVersion: policy")[0]! }]);
    expect(plain.matrix({ port: 80, protocol: "TCP", by: "pod" }).tiers).toBeUndefined();
  });
});
