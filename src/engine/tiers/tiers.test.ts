/**
 * The Admin and Baseline tiers, one connection at a time, with the cause of
 * each step. Cases follow network-policy-api's conformance tests
 * (conformance/tests/*.go at 0eec1b0e, v1alpha1 at 40eeb180) and the API
 * docs of apis/v1alpha2/clusternetworkpolicy_types.go.
 */
import { describe, expect, it } from "vitest";
import { buildPolicyIndex, loadModel, type Model } from "../index.ts";
import { buildStack, explainStackPair } from "../policy/index.ts";
import { tierCidrs } from "./parse.ts";
import { asPodKey } from "../model/ids.ts";

const BASE = `apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/os: linux}}
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
spec: {nodeName: n1, containers: [{name: c, ports: [{name: web, containerPort: 80}, {containerPort: 8080}]}]}
status: {podIP: 10.244.1.10}
---
apiVersion: v1
kind: Pod
metadata: {name: draco, namespace: slytherin, labels: {app: draco}}
spec: {nodeName: n1, containers: [{name: c, ports: [{name: web, containerPort: 80}]}]}
status: {podIP: 10.244.1.11}
---
apiVersion: v1
kind: Pod
metadata: {name: centaur, namespace: slytherin, labels: {app: centaur}}
spec: {nodeName: n1, hostNetwork: true, containers: [{name: c}]}
`;

function model(extra: string): Model {
  return loadModel([{ name: "t.yaml", text: `${BASE}---\n${extra}` }]);
}

function pair(m: Model, from: string, to: string, port = 80, protocol: "TCP" | "UDP" = "TCP") {
  const stack = buildStack(m, buildPolicyIndex(m));
  return explainStackPair(
    stack,
    m.podsByKey.get(asPodKey(from))!,
    m.podsByKey.get(asPodKey(to))!,
    port,
    protocol,
  );
}

const cnp = (name: string, tier: string, priority: number, body: string) =>
  `apiVersion: policy.networking.k8s.io/v1alpha2\nkind: ClusterNetworkPolicy\nmetadata: {name: ${name}}\nspec:\n  tier: ${tier}\n  priority: ${priority}\n${body}`;

describe("ClusterNetworkPolicy v1alpha2, exactly", () => {
  it.each([
    {
      name: "CNPAdminTierIngressTCP: the first matching rule in written order decides (Accept before Deny)",
      yaml: cnp(
        "ingress",
        "Admin",
        3,
        "  subject: {namespaces: {matchLabels: {house: gryffindor}}}\n  ingress:\n  - {name: allow-slytherin, action: Accept, from: [{namespaces: {matchLabels: {house: slytherin}}}]}\n  - {name: deny-slytherin, action: Deny, from: [{namespaces: {matchLabels: {house: slytherin}}}]}\n",
      ),
      from: "slytherin/draco",
      to: "gryffindor/harry",
      allowed: true,
      layer: "AdminNetworkPolicy",
      rule: "allow-slytherin",
    },
    {
      name: "an Admin Deny overrides a NetworkPolicy that allows",
      yaml:
        cnp(
          "deny",
          "Admin",
          1,
          "  subject: {namespaces: {}}\n  ingress:\n  - {name: deny-all, action: Deny, from: [{namespaces: {}}]}\n",
        ) +
        "\n---\napiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: allow, namespace: gryffindor}\nspec: {podSelector: {}, policyTypes: [Ingress], ingress: [{}]}\n",
      from: "slytherin/draco",
      to: "gryffindor/harry",
      allowed: false,
      layer: "AdminNetworkPolicy",
      rule: "deny-all",
    },
    {
      name: "Pass skips the Admin tier; no NetworkPolicy selects the pod, so the Baseline Deny decides",
      yaml:
        cnp(
          "pass",
          "Admin",
          1,
          "  subject: {namespaces: {}}\n  ingress:\n  - {name: pass, action: Pass, from: [{namespaces: {}}]}\n  - {name: accept, action: Accept, from: [{namespaces: {}}]}\n",
        ) +
        "\n---\n" +
        cnp(
          "default",
          "Baseline",
          1,
          "  subject: {namespaces: {}}\n  ingress:\n  - {name: deny-all, action: Deny, from: [{namespaces: {}}]}\n",
        ),
      from: "slytherin/draco",
      to: "gryffindor/harry",
      allowed: false,
      layer: "BaselineAdminNetworkPolicy",
      rule: "deny-all",
    },
    {
      name: "a NetworkPolicy that selects the pod decides before the Baseline tier",
      yaml:
        cnp(
          "default",
          "Baseline",
          1,
          "  subject: {namespaces: {}}\n  ingress:\n  - {name: deny-all, action: Deny, from: [{namespaces: {}}]}\n",
        ) +
        "\n---\napiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: allow, namespace: gryffindor}\nspec: {podSelector: {}, policyTypes: [Ingress], ingress: [{}]}\n",
      from: "slytherin/draco",
      to: "gryffindor/harry",
      allowed: true,
      layer: "NetworkPolicy",
      rule: "ingress[0]",
    },
    {
      name: "destinationNamedPort resolves on the destination pod (web = TCP 80 on harry)",
      yaml: cnp(
        "named",
        "Admin",
        1,
        "  subject: {namespaces: {matchLabels: {house: slytherin}}}\n  egress:\n  - {name: web, action: Accept, to: [{namespaces: {}}], protocols: [{destinationNamedPort: web}]}\n  - {name: rest, action: Deny, to: [{namespaces: {}}]}\n",
      ),
      from: "slytherin/draco",
      to: "gryffindor/harry",
      allowed: true,
      layer: "AdminNetworkPolicy",
      rule: "web",
    },
    {
      name: "egress networks match pod IPs too (0.0.0.0/0 covers pod-to-pod)",
      yaml: cnp(
        "internet",
        "Admin",
        1,
        "  subject: {namespaces: {matchLabels: {house: slytherin}}}\n  egress:\n  - {name: no-internet, action: Deny, to: [{networks: [0.0.0.0/0]}]}\n",
      ),
      from: "slytherin/draco",
      to: "gryffindor/harry",
      allowed: false,
      layer: "AdminNetworkPolicy",
      rule: "no-internet",
    },
    {
      name: "a pod's traffic to its own IP is not subject to the tiers (site-src/api-overview.md, hairpin)",
      yaml: cnp(
        "deny",
        "Admin",
        1,
        "  subject: {namespaces: {}}\n  ingress:\n  - {action: Deny, from: [{namespaces: {}}]}\n",
      ),
      from: "gryffindor/harry",
      to: "gryffindor/harry",
      allowed: true,
      layer: undefined,
      rule: undefined,
    },
    {
      name: "host-network pods are never matched by namespaces peers",
      yaml: cnp(
        "deny",
        "Admin",
        1,
        "  subject: {namespaces: {}}\n  ingress:\n  - {action: Deny, from: [{namespaces: {}}]}\n",
      ),
      from: "slytherin/centaur",
      to: "gryffindor/harry",
      allowed: true,
      layer: undefined,
      rule: undefined,
    },
    {
      name: "a peer with no known field fails closed: a Deny rule matches everything",
      yaml: cnp(
        "deny",
        "Admin",
        1,
        "  subject: {namespaces: {}}\n  ingress:\n  - {name: future, action: Deny, from: [{someFuturePeer: {}}]}\n",
      ),
      from: "slytherin/draco",
      to: "gryffindor/harry",
      allowed: false,
      layer: "AdminNetworkPolicy",
      rule: "future",
    },
  ])("$name", ({ yaml, from, to, allowed, layer, rule }) => {
    const m = model(yaml);
    const v = pair(m, from, to);
    expect(v.allowed).toBe(allowed);
    const decided =
      v.egress.decidedBy && !v.egress.allowed
        ? v.egress.decidedBy
        : (v.ingress.decidedBy ?? v.egress.decidedBy);
    expect(decided?.layer).toBe(layer);
    expect(decided?.cause?.rule).toBe(rule);
  });

  it("the cause names the policy, rule index and YAML line", () => {
    const m = model(
      cnp(
        "deny",
        "Admin",
        1,
        "  subject: {namespaces: {}}\n  ingress:\n  - {name: first, action: Accept, from: [{namespaces: {matchLabels: {house: nobody}}}]}\n  - {name: second, action: Deny, from: [{namespaces: {}}]}\n",
      ),
    );
    const step = pair(m, "slytherin/draco", "gryffindor/harry").ingress.decidedBy!;
    expect(step).toMatchObject({
      layer: "AdminNetworkPolicy",
      label: "Admin",
      action: "Deny",
      cause: { kind: "ClusterNetworkPolicy", name: "deny", rule: "second", ruleIndex: 1, line: 41 },
    });
    expect(step.reason).toBe('Deny by ClusterNetworkPolicy deny rule 2 "second"');
  });

  it("a destinationPort without number or range (an undeclared field only) matches no port, never every port", () => {
    // The apiserver prunes `name` and rejects the empty destinationPort (minProperties 1): the policy
    // does not exist, so it denies nothing; ktl validate reports it (validate/tiers.ts).
    const m = model(
      cnp(
        "bad-port",
        "Admin",
        1,
        "  subject: {namespaces: {}}\n  ingress:\n  - {name: no-metrics, action: Deny, from: [{namespaces: {}}], protocols: [{tcp: {destinationPort: {name: web}}}]}\n",
      ),
    );
    for (const port of [80, 8080]) {
      const v = pair(m, "slytherin/draco", "gryffindor/harry", port);
      expect(v.allowed).toBe(true);
      expect(v.ingress.decidedBy?.layer).not.toBe("AdminNetworkPolicy");
    }
  });

  it("nodes peers add every node address to the class cuts; networks their CIDRs", () => {
    const m = model(
      cnp(
        "nodes",
        "Baseline",
        1,
        "  subject: {namespaces: {}}\n  egress:\n  - {action: Deny, to: [{nodes: {}}, {networks: [10.0.0.0/8]}]}\n",
      ),
    );
    expect(tierCidrs(m).map((c) => `${c.family}:${c.first}-${c.last}`)).toEqual([
      "4:167772160-184549375",
      "4:2886860802-2886860802",
      "4:2886860802-2886860802",
    ]);
  });
});

describe("AdminNetworkPolicy and BaselineAdminNetworkPolicy v1alpha1 map onto the tiers", () => {
  const anp = (priority: number, action: string, ports = "") =>
    `apiVersion: policy.networking.k8s.io/v1alpha1\nkind: AdminNetworkPolicy\nmetadata: {name: anp-${priority}}\nspec:\n  priority: ${priority}\n  subject: {namespaces: {matchLabels: {house: gryffindor}}}\n  ingress:\n  - {name: r, action: ${action}, from: [{namespaces: {matchLabels: {house: slytherin}}}]${ports}}\n`;
  const banp = (action: string) =>
    `apiVersion: policy.networking.k8s.io/v1alpha1\nkind: BaselineAdminNetworkPolicy\nmetadata: {name: default}\nspec:\n  subject: {namespaces: {}}\n  ingress:\n  - {name: b, action: ${action}, from: [{namespaces: {}}]}\n`;
  it.each([
    {
      name: "ANPPriorityField: the lower priority number wins",
      yaml: `${anp(60, "Allow")}---\n${anp(50, "Deny")}`,
      allowed: false,
      layer: "AdminNetworkPolicy",
    },
    { name: "Allow is Accept", yaml: anp(10, "Allow"), allowed: true, layer: "AdminNetworkPolicy" },
    {
      name: "portNumber limits the rule to its port (8080 is not matched, the BANP Deny decides)",
      yaml: `${anp(10, "Allow", ", ports: [{portNumber: {protocol: TCP, port: 80}}]")}---\n${banp("Deny")}`,
      port: 8080,
      allowed: false,
      layer: "BaselineAdminNetworkPolicy",
    },
    {
      name: "Pass falls through to the BANP",
      yaml: `${anp(10, "Pass")}---\n${banp("Deny")}`,
      allowed: false,
      layer: "BaselineAdminNetworkPolicy",
    },
    {
      name: "Pass falls through to the default allow",
      yaml: anp(10, "Pass"),
      allowed: true,
      layer: undefined,
    },
  ])("$name", ({ yaml, allowed, layer, port }) => {
    const v = pair(model(yaml), "slytherin/draco", "gryffindor/harry", port ?? 80);
    expect(v.allowed).toBe(allowed);
    expect(v.ingress.decidedBy?.layer).toBe(layer);
  });
});
