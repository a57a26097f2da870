/**
 * The CNI dialects on the policy stack (cni/stack.ts): Calico tiers ordered
 * before kube-admin (order < 1000), the Admin tier, the dialect with
 * NetworkPolicy inside it, the Baseline tier. Order from Calico's docs
 * (tigera/docs calico/network-policy/policy-tiers/tiered-policy.mdx: kube-admin
 * 1,000, default 1,000,000, kube-baseline 10,000,000) and network-policy-api's
 * ClusterNetworkPolicySpec.tier.
 */
import { describe, expect, it } from "vitest";
import { loadModel } from "../index.ts";
import { buildProxyIndex } from "../proxy/index.ts";
import { traceRequest } from "../trace/index.ts";
import { cniPairAllowed, explainCniDirection, peerOf } from "./index.ts";
import { asPodKey } from "../model/ids.ts";

const BASE = `apiVersion: v1
kind: Node
metadata: {name: n1}
spec: {podCIDR: 10.244.1.0/24}
---
apiVersion: v1
kind: Namespace
metadata: {name: x}
---
apiVersion: v1
kind: Pod
metadata: {name: a, namespace: x, labels: {app: a}}
spec: {nodeName: n1, containers: [{name: c, ports: [{containerPort: 80}]}]}
status: {podIP: 10.244.1.10}
---
apiVersion: v1
kind: Pod
metadata: {name: b, namespace: x, labels: {app: b}}
spec: {nodeName: n1, containers: [{name: c, ports: [{containerPort: 80}]}]}
status: {podIP: 10.244.1.11}
`;
const cnp = (tier: string, action: string) => `apiVersion: policy.networking.k8s.io/v1alpha2
kind: ClusterNetworkPolicy
metadata: {name: ${tier.toLowerCase()}-${action.toLowerCase()}}
spec:
  tier: ${tier}
  priority: 5
  subject: {pods: {namespaceSelector: {}, podSelector: {matchLabels: {app: b}}}}
  ingress:
  - name: r
    action: ${action}
    from: [{namespaces: {}}]
`;
const calicoAllow = (tier: string) => `apiVersion: projectcalico.org/v3
kind: GlobalNetworkPolicy
metadata: {name: ${tier}.allow}
spec:
  tier: ${tier}
  selector: app == 'b'
  types: [Ingress]
  ingress: [{action: Allow}]
`;
const calicoTier = (name: string, order: number) => `apiVersion: projectcalico.org/v3
kind: Tier
metadata: {name: ${name}}
spec: {order: ${order}}
`;
const ciliumAllow = `apiVersion: cilium.io/v2
kind: CiliumNetworkPolicy
metadata: {name: allow, namespace: x}
spec:
  endpointSelector: {matchLabels: {app: b}}
  ingress: [{fromEndpoints: [{}]}]
`;

function judge(...docs: string[]) {
  const model = loadModel([{ name: "t.yaml", text: [BASE, ...docs].join("---\n") }]);
  const a = model.podsByKey.get(asPodKey("x/a"))!;
  const b = model.podsByKey.get(asPodKey("x/b"))!;
  const v = explainCniDirection(model, model.cni!, "ingress", b, peerOf(model, a.ips[0]!, a), 80, "TCP");
  const t = traceRequest(model, buildProxyIndex(model), "pod:x/a", "pod:x/b:80", "TCP");
  return { allowed: cniPairAllowed(model, model.cni!, a, b, 80, "TCP"), layer: v.layer, trace: t };
}

describe("the CNI dialects under the cluster tiers", () => {
  it.each([
    {
      name: "an Admin Deny overrides a Cilium allow",
      docs: [ciliumAllow, cnp("Admin", "Deny")],
      allowed: false,
      layer: "AdminNetworkPolicy",
    },
    {
      name: "an Admin Deny overrides a Calico allow in the default tier (kube-admin 1000 < default)",
      docs: [calicoAllow("default"), cnp("Admin", "Deny")],
      allowed: false,
      layer: "AdminNetworkPolicy",
    },
    {
      name: "a Calico tier of order 100 decides before the Admin tier",
      docs: [calicoTier("security", 100), calicoAllow("security"), cnp("Admin", "Deny")],
      allowed: true,
      layer: "CalicoNetworkPolicy",
    },
    {
      name: "an Admin Pass hands down to the Calico policy, which allows",
      docs: [calicoAllow("default"), cnp("Admin", "Pass"), cnp("Baseline", "Deny")],
      allowed: true,
      layer: "CalicoNetworkPolicy",
    },
    {
      name: "a Cilium policy that does not select the pod leaves it to the Baseline Deny",
      docs: [ciliumAllow.replace("app: b}", "app: z}"), cnp("Baseline", "Deny")],
      allowed: false,
      layer: "BaselineAdminNetworkPolicy",
    },
    {
      name: "a Cilium policy that selects the pod keeps the Baseline tier out",
      docs: [ciliumAllow, cnp("Baseline", "Deny")],
      allowed: true,
      layer: "CiliumNetworkPolicy",
    },
  ])("$name", ({ docs, allowed, layer }) => {
    const r = judge(...docs);
    expect(r.allowed).toBe(allowed);
    expect(r.layer).toBe(layer);
    expect(r.trace.verdict).toBe(allowed ? "allow" : "drop");
    if (!allowed) expect(r.trace.decidedBy?.layer).toBe(layer);
  });
});
