/**
 * Cilium does not implement network-policy-api's tiers: the project's list of
 * implementations (kubernetes-sigs/network-policy-api site-src/implementations.md,
 * updated 21 April 2026, at 0eec1b0e) lists Cilium for AdminNetworkPolicy only by
 * its tracking issue, cilium/cilium#23380, and not at all for ClusterNetworkPolicy.
 * Under the cilium profiles the tier policies are in the input but nothing
 * enforces them: ktl leaves them out of every answer and says so (a warning, a
 * trace note); Calico implements them (Calico v3.29 on), so they still apply there.
 */
import { describe, expect, it } from "vitest";
import { loadModel } from "../load/index.ts";
import { buildProxyIndex } from "../proxy/index.ts";
import { traceRequest } from "../trace/index.ts";
import type { CniName } from "../cni/profile.ts";

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
spec: {containers: [{name: c, ports: [{containerPort: 80}]}]}
---
apiVersion: v1
kind: Pod
metadata: {name: tool, namespace: dev, labels: {app: tool}}
spec: {containers: [{name: c}]}
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

function run(cni: CniName | undefined, text = TEXT) {
  const model = loadModel([{ name: "m.yaml", text }], cni ? { cni } : {});
  const t = traceRequest(model, buildProxyIndex(model), "pod:dev/tool", "pod:shop/api:80", "TCP");
  return { model, t };
}

describe("the tiers under a CNI that does not implement them", () => {
  it.each([
    ["cilium", "allow", true],
    ["cilium-kpr", "allow", true],
    ["calico", "drop", false],
    [undefined, "drop", false],
  ] as const)("profile %s: the Admin Deny gives %s; not enforced: %s", (cni, verdict, ignored) => {
    const { model, t } = run(cni);
    expect(t.verdict).toBe(verdict);
    const note = t.hops.find(
      (h) => h.cause.layer === "AdminNetworkPolicy" && h.cause.category === "not-enforced",
    );
    const warning = model.diagnostics.find((d) => d.code === "KTL451" && d.message.includes("no-dev"));
    expect(!!note).toBe(ignored);
    expect(!!warning).toBe(ignored);
    expect(model.clusterPolicies.length).toBe(ignored ? 0 : 1);
    if (ignored) {
      expect(note!.detail).toContain("does not implement network-policy-api's tiers");
      expect(note!.detail).toContain("ClusterNetworkPolicy no-dev");
      expect(warning!.message).toContain("cilium/cilium#23380");
      expect(warning!.line).toBe(19);
    }
  });

  it("the profile read from the input's cilium-config counts too, with Cilium's own policies in the input (the dialect's path)", () => {
    const cfg = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cilium-config, namespace: kube-system}\ndata: {kube-proxy-replacement: "false"}\n---\n`;
    const cnp = `---\napiVersion: cilium.io/v2\nkind: CiliumNetworkPolicy\nmetadata: {name: api, namespace: shop}\nspec:\n  endpointSelector: {matchLabels: {app: other}}\n  ingress: [{fromEndpoints: [{}]}]\n`;
    const { model, t } = run(undefined, `${cfg}${TEXT}${cnp}`);
    expect(model.profile?.cni).toBe("cilium");
    expect(t.verdict).toBe("allow");
    expect(
      t.hops.some((h) => h.cause.layer === "AdminNetworkPolicy" && h.cause.category === "not-enforced"),
    ).toBe(true);
  });
});
