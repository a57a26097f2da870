/**
 * The cluster tiers in a trace: a hop per tier step and direction, in stack
 * order (Admin -> NetworkPolicy -> Baseline), the step's cause as data, and
 * the endpoint's `decidedBy` naming the tier's policy, rule and priority (or
 * the Admin Pass that handed the connection down). Semantics as in
 * network-policy-api's conformance tests CNPAdminTierIntegration and
 * CNPAdminTierPassNetworkPolicyIntegration (conformance/tests/*.go at 0eec1b0e).
 */
import { describe, expect, it } from "vitest";
import { loadModel } from "../index.ts";
import { buildProxyIndex } from "../proxy/index.ts";
import { traceRequest } from "./index.ts";
import { causeText } from "./render.ts";
import type { HopStep, TraceDecidedBy } from "./types.ts";

const BASE = `apiVersion: v1
kind: Node
metadata: {name: n1}
spec: {podCIDR: 10.244.1.0/24}
status: {addresses: [{type: InternalIP, address: 172.18.0.2}]}
---
apiVersion: v1
kind: Namespace
metadata: {name: gryffindor, labels: {house: gryffindor}}
---
apiVersion: v1
kind: Namespace
metadata: {name: slytherin, labels: {house: slytherin}}
---
apiVersion: v1
kind: Pod
metadata: {name: harry, namespace: gryffindor, labels: {app: harry}}
spec: {nodeName: n1, containers: [{name: c, ports: [{containerPort: 80}]}]}
status: {podIP: 10.244.1.10}
---
apiVersion: v1
kind: Pod
metadata: {name: draco, namespace: slytherin, labels: {app: draco}}
spec: {nodeName: n1, containers: [{name: c, ports: [{containerPort: 80}]}]}
status: {podIP: 10.244.1.11}
`;

const ADMIN_DENY = `apiVersion: policy.networking.k8s.io/v1alpha2
kind: ClusterNetworkPolicy
metadata: {name: guard}
spec:
  tier: Admin
  priority: 7
  subject: {namespaces: {matchLabels: {house: gryffindor}}}
  ingress:
  - name: deny-slytherin
    action: Deny
    from: [{namespaces: {matchLabels: {house: slytherin}}}]
`;
const ADMIN_PASS = ADMIN_DENY.replace("action: Deny", "action: Pass").replace("deny-slytherin", "to-ns");
const NP_ALLOW = `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: allow-slytherin, namespace: gryffindor}
spec:
  podSelector: {}
  policyTypes: [Ingress]
  ingress:
  - from: [{namespaceSelector: {matchLabels: {house: slytherin}}}]
`;
const BASELINE_DENY = `apiVersion: policy.networking.k8s.io/v1alpha1
kind: BaselineAdminNetworkPolicy
metadata: {name: default}
spec:
  subject: {namespaces: {}}
  ingress:
  - name: deny-all
    action: Deny
    from: [{namespaces: {}}]
`;

function trace(...docs: string[]) {
  const model = loadModel([{ name: "t.yaml", text: [BASE, ...docs].join("---\n") }]);
  return traceRequest(model, buildProxyIndex(model), "pod:slytherin/draco", "pod:gryffindor/harry:80", "TCP");
}

describe("trace: the tiers as hops, and decidedBy", () => {
  it.each<{
    name: string;
    docs: string[];
    verdict: "allow" | "drop";
    steps: [HopStep, string, string][];
    decidedBy: Partial<TraceDecidedBy> | undefined;
  }>([
    {
      name: "an Admin Deny decides before a NetworkPolicy that allows (CNPAdminTierIntegration)",
      docs: [ADMIN_DENY, NP_ALLOW],
      verdict: "drop",
      steps: [
        ["admin tier at source", "info", "not-selected"],
        ["egress policy at source", "pass", "not-isolated"],
        ["admin tier at backend", "drop", "Deny"],
      ],
      decidedBy: {
        layer: "AdminNetworkPolicy",
        kind: "ClusterNetworkPolicy",
        name: "guard",
        rule: "deny-slytherin",
        priority: 7,
      },
    },
    {
      name: "an Admin Pass hands down to the NetworkPolicy, which allows",
      docs: [ADMIN_PASS, NP_ALLOW, BASELINE_DENY],
      verdict: "allow",
      steps: [
        ["admin tier at source", "info", "not-selected"],
        ["egress policy at source", "pass", "not-isolated"],
        ["baseline tier at source", "info", "not-selected"],
        ["admin tier at backend", "info", "Pass"],
        ["ingress policy at backend", "pass", "allowed"],
      ],
      decidedBy: {
        layer: "NetworkPolicy",
        name: "allow-slytherin",
        rule: "spec.ingress[0]",
        passedBy: { kind: "ClusterNetworkPolicy", name: "guard", rule: "to-ns", priority: 7, line: 35 },
      },
    },
    {
      name: "an Admin Pass, no NetworkPolicy: the Baseline default deny decides",
      docs: [ADMIN_PASS, BASELINE_DENY],
      verdict: "drop",
      steps: [
        ["admin tier at source", "info", "not-selected"],
        ["egress policy at source", "pass", "not-isolated"],
        ["baseline tier at source", "info", "not-selected"],
        ["admin tier at backend", "info", "Pass"],
        ["ingress policy at backend", "pass", "not-isolated"],
        ["baseline tier at backend", "drop", "Deny"],
      ],
      decidedBy: {
        layer: "BaselineAdminNetworkPolicy",
        kind: "BaselineAdminNetworkPolicy",
        name: "default",
        rule: "deny-all",
      },
    },
    {
      name: "a NetworkPolicy that isolates the pod keeps the Baseline tier out",
      docs: [NP_ALLOW, BASELINE_DENY],
      verdict: "allow",
      steps: [
        ["egress policy at source", "pass", "not-isolated"],
        ["baseline tier at source", "info", "not-selected"],
        ["ingress policy at backend", "pass", "allowed"],
      ],
      decidedBy: { layer: "NetworkPolicy", name: "allow-slytherin" },
    },
    {
      name: "no tier policy in the input: no tier hops, no decidedBy on an allow",
      docs: [NP_ALLOW],
      verdict: "allow",
      steps: [
        ["egress policy at source", "pass", "not-isolated"],
        ["ingress policy at backend", "pass", "allowed"],
      ],
      decidedBy: undefined,
    },
  ])("$name", ({ docs, verdict, steps, decidedBy }) => {
    const t = trace(...docs);
    expect(t.verdict).toBe(verdict);
    const policyHops = t.hops.filter((h) => h.step.includes("tier") || h.step.includes("policy"));
    expect(policyHops.map((h) => [h.step, h.verdict, (h.cause as { category: string }).category])).toEqual(
      steps,
    );
    if (decidedBy) expect(t.endpoints[0]!.decidedBy).toMatchObject(decidedBy);
    else expect(t.endpoints[0]!.decidedBy).toBeUndefined();
    if (verdict === "drop") expect(t.decidedBy).toEqual(t.endpoints[0]!.decidedBy);
  });

  it("words each tier step through render.ts, naming policy, priority and rule", () => {
    const t = trace(ADMIN_PASS, BASELINE_DENY);
    const texts = t.hops.filter((h) => h.step.includes("tier")).map((h) => causeText(h.cause));
    expect(texts).toContain(
      "Admin tier: Pass by ClusterNetworkPolicy guard (priority 7) ingress rule 1 (to-ns), handed down to NetworkPolicy",
    );
    expect(texts).toContain(
      "Baseline tier: Deny by BaselineAdminNetworkPolicy default ingress rule 1 (deny-all)",
    );
    const drop = t.hops.find((h) => h.verdict === "drop")!;
    expect(drop.ref).toMatchObject({
      kind: "BaselineAdminNetworkPolicy",
      name: "default",
      field: "spec.ingress[0]",
    });
  });

  it("a pod's traffic to its own IP is not subject to the tiers (site-src/api-overview.md)", () => {
    const model = loadModel([
      {
        name: "t.yaml",
        text: [BASE, ADMIN_DENY.replace("house: slytherin", "house: gryffindor")].join("---\n"),
      },
    ]);
    const t = traceRequest(
      model,
      buildProxyIndex(model),
      "pod:gryffindor/harry",
      "pod:gryffindor/harry:80",
      "TCP",
    );
    expect(t.verdict).toBe("allow");
    const admin = t.hops.find((h) => h.step === "admin tier at backend")!;
    expect(admin.cause).toMatchObject({ category: "hairpin" });
  });
});
