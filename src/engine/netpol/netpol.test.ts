/**
 * NetworkPolicy truth tables on upstream's e2e cluster shape (namespaces x, y,
 * z; pods a, b, c; test/e2e/network/netpol/network_policy.go). Expectations
 * are written as policy-assistant does: a default plus the exceptions.
 * Every case is checked through both paths (class matrix and exact per-pair).
 */
import { describe, expect, it } from "vitest";
import { buildPolicyIndex, loadModel } from "../index.ts";
import { classMatrix, explainPair, pairAllowed, podMatrix, reachSummary } from "./index.ts";
import type { Protocol } from "../model/types.ts";
import { asPodKey } from "../model/ids.ts";

const NAMESPACES = ["x", "y", "z"];
const PODS = ["a", "b", "c"];

function cluster(policies: string): string {
  const docs = ["apiVersion: v1\nkind: Node\nmetadata: {name: node-1}\nspec: {podCIDR: 10.244.1.0/24}"];
  for (const ns of NAMESPACES)
    docs.push(`apiVersion: v1\nkind: Namespace\nmetadata: {name: ${ns}, labels: {ns: ${ns}}}`);
  for (const ns of NAMESPACES) {
    for (const p of PODS) {
      docs.push(`apiVersion: v1
kind: Pod
metadata: {name: ${p}, namespace: ${ns}, labels: {pod: ${p}}}
spec:
  nodeName: node-1
  containers:
  - name: c
    ports:
    - {name: serve-80-tcp, containerPort: 80, protocol: TCP}
    - {name: serve-81-tcp, containerPort: 81, protocol: TCP}
    - {name: serve-80-udp, containerPort: 80, protocol: UDP}
    - {name: serve-81-udp, containerPort: 81, protocol: UDP}`);
    }
  }
  return [...docs, policies].join("\n---\n");
}

interface Case {
  name: string;
  policies: string;
  port?: number;
  protocol?: Protocol;
  /** Verdict for every pair not listed in `except`. */
  default: boolean;
  /** "from>to" pairs that get the opposite verdict; "*" matches any pod. */
  except: string[];
}

const ALL = NAMESPACES.flatMap((ns) => PODS.map((p) => `${ns}/${p}`));

function expand(pattern: string): string[][] {
  const [from, to] = pattern.split(">") as [string, string];
  const m = (p: string) =>
    ALL.filter(
      (k) =>
        p === "*" ||
        k === p ||
        (p.endsWith("/*") && k.startsWith(p.slice(0, -1))) ||
        (p.startsWith("*/") && k.endsWith(p.slice(1))),
    );
  return m(from).flatMap((f) => m(to).map((t) => [f, t]));
}

const cases: Case[] = [
  { name: "no policy allows everything", policies: "", default: true, except: [] },
  {
    name: "network_policy.go: should support a 'default-deny-ingress' policy",
    policies:
      "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: deny, namespace: x}\nspec: {podSelector: {}, policyTypes: [Ingress]}",
    default: true,
    except: ["*>x/*"],
  },
  {
    name: "network_policy.go: should support a 'default-deny-all' policy (ingress and egress)",
    policies:
      "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: deny, namespace: x}\nspec: {podSelector: {}, policyTypes: [Ingress, Egress]}",
    default: true,
    except: ["*>x/*", "x/*>y/*", "x/*>z/*"],
  },
  {
    name: "policyTypes defaulting (SetDefaults_NetworkPolicy): egress rules without policyTypes imply Egress",
    policies:
      "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: p, namespace: x}\nspec:\n  podSelector: {matchLabels: {pod: a}}\n  egress: [{to: [{podSelector: {matchLabels: {pod: b}}}]}]",
    default: true,
    // x/a is isolated both ways: ingress (always defaulted) with no rules, egress only to x/b.
    except: ["*>x/a", "x/a>x/c", "x/a>y/*", "x/a>z/*"],
  },
  {
    name: "network_policy.go: should enforce policy based on PodSelector and NamespaceSelector (AND in one peer)",
    policies: `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: p, namespace: x}
spec:
  podSelector: {matchLabels: {pod: a}}
  policyTypes: [Ingress]
  ingress:
  - from:
    - namespaceSelector: {matchExpressions: [{key: ns, operator: NotIn, values: [x]}]}
      podSelector: {matchLabels: {pod: b}}`,
    default: true,
    except: ["x/*>x/a", "y/a>x/a", "y/c>x/a", "z/a>x/a", "z/c>x/a"],
  },
  {
    name: "network_policy.go: should enforce policy based on any PodSelectors (separate peers are ORed)",
    policies: `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: p, namespace: x}
spec:
  podSelector: {matchLabels: {pod: a}}
  policyTypes: [Ingress]
  ingress:
  - from:
    - podSelector: {matchLabels: {pod: b}}
    - podSelector: {matchLabels: {pod: c}}`,
    default: true,
    except: ["x/a>x/a", "y/*>x/a", "z/*>x/a"],
  },
  {
    name: "network_policy.go: should enforce policy to allow traffic only from a different namespace, based on NamespaceSelector",
    policies: `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: p, namespace: x}
spec:
  podSelector: {matchLabels: {pod: a}}
  policyTypes: [Ingress]
  ingress: [{from: [{namespaceSelector: {matchLabels: {ns: y}}}]}]`,
    default: true,
    except: ["x/*>x/a", "z/*>x/a"],
  },
  {
    name: "network_policy.go: should allow ingress access on one named port (serve-81-tcp): port 80 denied",
    policies: `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: p, namespace: x}
spec:
  podSelector: {}
  policyTypes: [Ingress]
  ingress: [{ports: [{port: serve-81-tcp}]}]`,
    port: 80,
    default: true,
    except: ["*>x/*"],
  },
  {
    name: "network_policy.go: should allow ingress access on one named port (serve-81-tcp): port 81 allowed",
    policies: `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: p, namespace: x}
spec:
  podSelector: {}
  policyTypes: [Ingress]
  ingress: [{ports: [{port: serve-81-tcp}]}]`,
    port: 81,
    default: true,
    except: [],
  },
  {
    name: "named port resolves with the protocol of the policy port: serve-81-tcp does not open UDP/81",
    policies: `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: p, namespace: x}
spec:
  podSelector: {}
  policyTypes: [Ingress]
  ingress: [{ports: [{port: serve-81-tcp}]}]`,
    port: 81,
    protocol: "UDP",
    default: true,
    except: ["*>x/*"],
  },
  {
    name: "network_policy.go: should support allow-all policy (one empty rule matches every peer and port)",
    policies:
      "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: p, namespace: x}\nspec: {podSelector: {}, policyTypes: [Ingress], ingress: [{}]}",
    default: true,
    except: [],
  },
  {
    name: "network_policy.go: should enforce policies to check ingress and egress policies can be controlled independently based on PodSelector",
    policies: `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny-egress-a, namespace: x}
spec:
  podSelector: {matchLabels: {pod: a}}
  policyTypes: [Egress]
  egress: [{to: [{podSelector: {matchLabels: {pod: b}}}]}]`,
    default: true,
    except: ["x/a>x/a", "x/a>x/c", "x/a>y/*", "x/a>z/*"],
  },
  {
    name: "cyclonus: ingress with endPort allows the range port..endPort only",
    policies: `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: p, namespace: x}
spec:
  podSelector: {}
  policyTypes: [Ingress]
  ingress: [{ports: [{protocol: TCP, port: 79, endPort: 80}]}]`,
    port: 81,
    default: true,
    except: ["*>x/*"],
  },
  {
    name: "network_policy.go: should enforce egress policy allowing traffic to a server in a different namespace based on PodSelector and NamespaceSelector... via ipBlock with except (10.244.1.0/24 except x/b's /32)",
    policies: `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: p, namespace: x}
spec:
  podSelector: {matchLabels: {pod: a}}
  policyTypes: [Egress]
  egress: [{to: [{ipBlock: {cidr: 10.244.1.0/24, except: [10.244.1.3/32]}}]}]`,
    default: true,
    // Pods are allocated in input order from .2: x/a=.2, x/b=.3.
    except: ["x/a>x/b"],
  },
  {
    name: "policies are additive: a second policy opens more, never less",
    policies: `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: only-b, namespace: x}
spec:
  podSelector: {matchLabels: {pod: a}}
  policyTypes: [Ingress]
  ingress: [{from: [{podSelector: {matchLabels: {pod: b}}}]}]
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: also-c, namespace: x}
spec:
  podSelector: {matchLabels: {pod: a}}
  policyTypes: [Ingress]
  ingress: [{from: [{podSelector: {matchLabels: {pod: c}}}]}]`,
    default: true,
    except: ["x/a>x/a", "y/*>x/a", "z/*>x/a"],
  },
];

describe("NetworkPolicy truth tables", () => {
  for (const c of cases) {
    it(c.name, () => {
      const model = loadModel([{ name: "case.yaml", text: cluster(c.policies) }]);
      const port = c.port ?? 80;
      const protocol = c.protocol ?? "TCP";
      const flipped = new Set(c.except.flatMap(expand).map(([f, t]) => `${f}>${t}`));
      const index = buildPolicyIndex(model);
      const m = classMatrix(index, port, protocol);
      const wrong: string[] = [];
      for (const src of model.pods) {
        for (const dst of model.pods) {
          const want = flipped.has(`${src.key}>${dst.key}`) ? !c.default : c.default;
          const fast = pairAllowed(index, m, src, dst);
          const exact = explainPair(model, src, dst, port, protocol).allowed;
          if (fast !== want || exact !== want)
            wrong.push(`${src.key}>${dst.key}: want ${want}, matrix ${fast}, exact ${exact}`);
        }
      }
      expect(wrong).toEqual([]);
      const summary = reachSummary(index, m);
      expect(summary.allowedPairs).toBe(c.default ? 81 - flipped.size : flipped.size);
    });
  }
});

describe("verdicts carry their cause", () => {
  const policies = `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: allow-b, namespace: x}
spec:
  podSelector: {matchLabels: {pod: a}}
  policyTypes: [Ingress]
  ingress:
  - from: [{podSelector: {matchLabels: {pod: c}}}]
  - from: [{podSelector: {matchLabels: {pod: b}}}]
    ports: [{port: 80}]`;
  const model = loadModel([{ name: "case.yaml", text: cluster(policies) }]);
  const pod = (k: string) => model.podsByKey.get(asPodKey(k))!;

  it("names the policy, the rule and its line when a rule allows", () => {
    const v = explainPair(model, pod("x/b"), pod("x/a"), 80, "TCP");
    expect(v.allowed).toBe(true);
    const m = v.ingress.allowedBy[0]!;
    expect([m.policy.key, m.rule.index, m.peer?.index, m.port?.index]).toEqual(["x/allow-b", 1, 0, 0]);
    expect(m.rule.line).toBe(model.policies[0]!.source.line + 8);
    expect(v.ingress.reason).toBe("allowed by x/allow-b ingress rule 2");
  });

  it("names the isolating policies when no rule allows", () => {
    const v = explainPair(model, pod("y/b"), pod("x/a"), 80, "TCP");
    expect(v.allowed).toBe(false);
    expect(v.ingress.isolated).toBe(true);
    expect(v.ingress.selecting.map((p) => p.key)).toEqual(["x/allow-b"]);
    expect(v.ingress.reason).toContain("isolated for ingress by x/allow-b");
    expect(v.egress).toMatchObject({ allowed: true, isolated: false });
  });

  it("counts isolated pods per direction", () => {
    const index = buildPolicyIndex(model);
    expect(reachSummary(index, classMatrix(index, 80, "TCP"))).toMatchObject({
      pods: 9,
      isolatedIngress: 1,
      isolatedEgress: 0,
    });
  });
});

describe("hostNetwork pods are outside NetworkPolicy", () => {
  it("no policy isolates them and no pod selector matches them; ipBlock matches their node IP", () => {
    const text = `apiVersion: v1
kind: Node
metadata: {name: n}
spec: {podCIDR: 10.1.0.0/24}
status: {addresses: [{type: InternalIP, address: 192.168.1.10}]}
---
apiVersion: v1
kind: Pod
metadata: {name: host, labels: {app: x}}
spec: {nodeName: n, hostNetwork: true}
---
apiVersion: v1
kind: Pod
metadata: {name: web, labels: {app: web}}
spec: {nodeName: m}
---
apiVersion: v1
kind: Node
metadata: {name: m}
spec: {podCIDR: 10.2.0.0/24}
status: {addresses: [{type: InternalIP, address: 192.168.1.11}]}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: p}
spec:
  podSelector: {}
  policyTypes: [Ingress]
  ingress: [{from: [{podSelector: {matchLabels: {app: x}}}]}, {from: [{ipBlock: {cidr: 192.168.1.0/24}}], ports: [{port: 81}]}]`;
    const model = loadModel([{ name: "h.yaml", text }]);
    const host = model.podsByKey.get(asPodKey("default/host"))!;
    const web = model.podsByKey.get(asPodKey("default/web"))!;
    expect(explainPair(model, host, web, 80, "TCP").allowed).toBe(false);
    expect(explainPair(model, host, web, 81, "TCP").allowed).toBe(true);
    expect(explainPair(model, web, host, 80, "TCP").ingress.isolated).toBe(false);
  });
});

describe("a pod's own node is always admitted (networking/v1 NetworkPolicySpec.ingress: 'OR if the traffic source is the pod's local node')", () => {
  const text = `apiVersion: v1
kind: Node
metadata: {name: n1}
status: {addresses: [{type: InternalIP, address: 192.168.1.1}]}
---
apiVersion: v1
kind: Node
metadata: {name: n2}
status: {addresses: [{type: InternalIP, address: 192.168.1.2}]}
---
apiVersion: v1
kind: Pod
metadata: {name: agent-1}
spec: {nodeName: n1, hostNetwork: true}
---
apiVersion: v1
kind: Pod
metadata: {name: agent-2}
spec: {nodeName: n2, hostNetwork: true}
---
apiVersion: v1
kind: Pod
metadata: {name: web, labels: {app: web}}
spec: {nodeName: n1}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny}
spec: {podSelector: {matchLabels: {app: web}}, policyTypes: [Ingress]}`;
  const model = loadModel([{ name: "own.yaml", text }]);
  const pod = (k: string) => model.podsByKey.get(asPodKey(k))!;
  const index = buildPolicyIndex(model);
  const m = classMatrix(index, 80, "TCP");

  it("admits a host-network sender on the pod's node and names the node; one on another node is dropped", () => {
    const same = explainPair(model, pod("default/agent-1"), pod("default/web"), 80, "TCP");
    expect([same.allowed, same.ingress.ownNode, same.ingress.isolated]).toEqual([true, "n1", true]);
    expect(explainPair(model, pod("default/agent-2"), pod("default/web"), 80, "TCP").allowed).toBe(false);
  });

  it("the matrix and the summary agree with the exact verdict", () => {
    const keys = model.pods.map((p) => p.key);
    const matrix = podMatrix(index, m);
    const exact = model.pods.map((s) => model.pods.map((d) => explainPair(model, s, d, 80, "TCP").allowed));
    expect(matrix).toEqual(exact);
    const allowed = exact.flat().filter(Boolean).length;
    expect(reachSummary(index, m).allowedPairs).toBe(allowed);
    expect(keys).toEqual(["default/agent-1", "default/agent-2", "default/web"]);
  });
});

describe("fields read as the apiserver decodes them", () => {
  const policy = (peer: string, port: string) => `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: p, namespace: x}
spec:
  podSelector: {}
  policyTypes: [Ingress]
  ingress: [{from: [${peer}], ports: [{port: ${port}}]}]`;
  const verdict = (text: string) => {
    const model = loadModel([{ name: "f.yaml", text: cluster(text) }]);
    return explainPair(
      model,
      model.podsByKey.get(asPodKey("y/a"))!,
      model.podsByKey.get(asPodKey("x/a"))!,
      80,
      "TCP",
    ).allowed;
  };
  it("a quoted port is IntOrString's string form, a port name, and matches no container port", () => {
    expect(verdict(policy("{namespaceSelector: {}}", "80"))).toBe(true);
    expect(verdict(policy("{namespaceSelector: {}}", '"80"'))).toBe(false);
  });
  it("podSelector: null is an absent field, not an empty selector (a peer of nothing matches no pod)", () => {
    expect(verdict(policy("{podSelector: {}, namespaceSelector: {}}", "80"))).toBe(true);
    expect(verdict(policy("{podSelector: null}", "80"))).toBe(false);
  });
});
