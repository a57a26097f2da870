/**
 * Properties of the CNI dialects over generated clusters (fast-check, fixed
 * seed, bounded runs):
 * - the class path (cniClassMatrix) and the exact per-pair path
 *   (cniPairAllowed) agree on every pod pair;
 * - a trace from pod to pod agrees with the pair verdict;
 * - a dialect's policy that selects no pod leaves NetworkPolicy's answer
 *   as the netpol engine gives it (both CNIs enforce NetworkPolicy as
 *   upstream defines it);
 * - a Cilium deny rule never opens a flow (language.rst "Deny Policies");
 * - with ClusterNetworkPolicies stacked around the dialect (cni/stack.ts),
 *   the class path, the pair path and the trace still agree.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  buildPolicyIndex,
  buildProxyIndex,
  loadModel,
  traceRequest,
  type Model,
  type Protocol,
} from "../index.ts";
import { classMatrix, podMatrix } from "../netpol/index.ts";
import { cniClassMatrix, cniPairAllowed, cniPodMatrix, hasCniPolicies } from "./index.ts";

const params = { seed: 20261201, numRuns: 25 };
// Generated clusters are judged pair by pair and traced: more than the default 5 s on a loaded machine.
const slow = { timeout: 120_000 };
const NAMESPACES = ["x", "y"] as const;
const PROBES: [number, Protocol][] = [
  [80, "TCP"],
  [81, "TCP"],
  [53, "UDP"],
];
type Obj = Record<string, unknown>;

const labels = fc.record(
  { app: fc.constantFrom("a", "b", "c"), tier: fc.constantFrom("front", "back") },
  { requiredKeys: [] },
);
const podArb = fc.record({
  namespace: fc.constantFrom(...NAMESPACES),
  labels,
  node: fc.constantFrom("node-1", "node-2"),
  sa: fc.constantFrom("default", "robot"),
  hostNetwork: fc.oneof(
    { arbitrary: fc.constant(false), weight: 8 },
    { arbitrary: fc.constant(true), weight: 1 },
  ),
});
type PodSpec = typeof podArb extends fc.Arbitrary<infer T> ? T : never;
const podsArb = fc.array(podArb, { minLength: 2, maxLength: 6 });

const k8sSelector: fc.Arbitrary<Obj> = fc.oneof(
  fc.constant({}),
  labels.map((l) => ({ matchLabels: l })),
  fc.record({ matchExpressions: fc.constant([{ key: "tier", operator: "NotIn", values: ["front"] }]) }),
);

// ---- Cilium ----
const ciliumPorts = fc.array(
  fc.oneof(
    fc.record({
      port: fc.constantFrom("80", "81", "53", "0"),
      protocol: fc.constantFrom("TCP", "UDP", "ANY"),
    }),
    fc.record({ port: fc.constant("80"), endPort: fc.constant(81), protocol: fc.constant("TCP") }),
    fc.record({ port: fc.constantFrom("http", "dns"), protocol: fc.constantFrom("TCP", "UDP") }),
  ),
  { minLength: 1, maxLength: 2 },
);
const ciliumPeer = (dir: "from" | "to") =>
  fc.record(
    {
      [`${dir}Endpoints`]: fc.array(
        fc.oneof(
          k8sSelector,
          fc
            .constantFrom(...NAMESPACES)
            .map((n) => ({ matchLabels: { "k8s:io.kubernetes.pod.namespace": n } })),
        ),
        { minLength: 1, maxLength: 2 },
      ),
      [`${dir}Entities`]: fc.subarray(["world", "cluster", "host", "remote-node", "all"], {
        minLength: 1,
        maxLength: 2,
      }),
      [`${dir}CIDRSet`]: fc.constant([{ cidr: "10.244.0.0/16", except: ["10.244.2.0/24"] }]),
      toPorts: ciliumPorts.map((ports) => [{ ports }]),
    },
    { requiredKeys: [] },
  );
const ciliumArb = fc.record({
  clusterwide: fc.boolean(),
  namespace: fc.constantFrom(...NAMESPACES),
  endpointSelector: k8sSelector,
  ingress: fc.option(fc.array(ciliumPeer("from"), { maxLength: 2 }), { nil: undefined }),
  ingressDeny: fc.option(fc.array(ciliumPeer("from"), { maxLength: 1 }), { nil: undefined }),
  egress: fc.option(fc.array(ciliumPeer("to"), { maxLength: 2 }), { nil: undefined }),
  egressDeny: fc.option(fc.array(ciliumPeer("to"), { maxLength: 1 }), { nil: undefined }),
  enableDefaultDeny: fc.option(
    fc.record({ ingress: fc.boolean(), egress: fc.boolean() }, { requiredKeys: [] }),
    { nil: undefined },
  ),
});
type CiliumSpec = typeof ciliumArb extends fc.Arbitrary<infer T> ? T : never;

function ciliumDoc(p: CiliumSpec, i: number): Obj {
  const spec: Obj = { endpointSelector: p.endpointSelector };
  for (const k of ["ingress", "ingressDeny", "egress", "egressDeny", "enableDefaultDeny"] as const)
    if (p[k] !== undefined) spec[k] = p[k];
  return p.clusterwide
    ? {
        apiVersion: "cilium.io/v2",
        kind: "CiliumClusterwideNetworkPolicy",
        metadata: { name: `ccnp${i}` },
        spec,
      }
    : {
        apiVersion: "cilium.io/v2",
        kind: "CiliumNetworkPolicy",
        metadata: { name: `cnp${i}`, namespace: p.namespace },
        spec,
      };
}

// ---- Calico ----
const calicoSelector = fc.constantFrom(
  "all()",
  "app == 'a'",
  "app != 'b'",
  "has(tier)",
  "tier in {'front'}",
  "!has(app) || tier == 'back'",
  "app starts with 'a' && tier != 'front'",
);
const calicoEntity = (withPorts: boolean) =>
  fc.record(
    {
      selector: calicoSelector,
      notSelector: calicoSelector,
      namespaceSelector: fc.constantFrom("projectcalico.org/name == 'x'", "team == 't1'", "all()"),
      nets: fc.constant(["10.244.1.0/24"]),
      serviceAccounts: fc.constant({ names: ["robot"] }),
      ...(withPorts
        ? { ports: fc.constantFrom([80], ["80:81"], ["http"], [53]), notPorts: fc.constant([81]) }
        : {}),
    },
    { requiredKeys: [] },
  );
const calicoRule = fc.record(
  {
    action: fc.constantFrom("Allow", "Deny", "Pass", "Log"),
    protocol: fc.constantFrom("TCP", "UDP"),
    source: calicoEntity(false),
    destination: calicoEntity(true),
  },
  { requiredKeys: ["action"] },
);
const calicoArb = fc.record({
  global: fc.boolean(),
  namespace: fc.constantFrom(...NAMESPACES),
  tier: fc.constantFrom("default", "sec"),
  order: fc.option(fc.constantFrom(10, 500, 1000, 1500), { nil: undefined }),
  selector: calicoSelector,
  types: fc.option(fc.subarray(["Ingress", "Egress"], { minLength: 1 }), { nil: undefined }),
  ingress: fc.option(fc.array(calicoRule, { maxLength: 2 }), { nil: undefined }),
  egress: fc.option(fc.array(calicoRule, { maxLength: 2 }), { nil: undefined }),
});
type CalicoSpec = typeof calicoArb extends fc.Arbitrary<infer T> ? T : never;

function calicoDoc(p: CalicoSpec, i: number): Obj {
  const name = p.tier === "default" ? `c${i}` : `${p.tier}.c${i}`;
  const spec: Obj = { selector: p.selector, tier: p.tier };
  for (const k of ["order", "types", "ingress", "egress"] as const) if (p[k] !== undefined) spec[k] = p[k];
  return p.global
    ? { apiVersion: "projectcalico.org/v3", kind: "GlobalNetworkPolicy", metadata: { name }, spec }
    : {
        apiVersion: "projectcalico.org/v3",
        kind: "NetworkPolicy",
        metadata: { name, namespace: p.namespace },
        spec,
      };
}

const k8sArb = fc.record({
  namespace: fc.constantFrom(...NAMESPACES),
  podSelector: k8sSelector,
  policyTypes: fc.subarray(["Ingress", "Egress"], { minLength: 1 }),
  ingress: fc.array(
    fc.record(
      {
        from: fc.array(fc.record({ podSelector: k8sSelector }, { requiredKeys: [] }), { maxLength: 1 }),
        ports: fc.constantFrom([], [{ port: 80 }], [{ port: "dns", protocol: "UDP" }]),
      },
      { requiredKeys: [] },
    ),
    { maxLength: 2 },
  ),
  egress: fc.array(
    fc.record(
      { to: fc.array(fc.record({ podSelector: k8sSelector }, { requiredKeys: [] }), { maxLength: 1 }) },
      { requiredKeys: [] },
    ),
    { maxLength: 1 },
  ),
});
type K8sSpec = typeof k8sArb extends fc.Arbitrary<infer T> ? T : never;

function cluster(pods: PodSpec[], docs: Obj[]): Model {
  const all: unknown[] = [
    { apiVersion: "v1", kind: "Node", metadata: { name: "node-1" }, spec: { podCIDR: "10.244.1.0/24" } },
    { apiVersion: "v1", kind: "Node", metadata: { name: "node-2" }, spec: { podCIDR: "10.244.2.0/24" } },
    ...NAMESPACES.map((n, i) => ({
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: n, labels: { team: `t${i}` } },
    })),
    {
      apiVersion: "projectcalico.org/v3",
      kind: "Tier",
      metadata: { name: "sec" },
      spec: { order: 100, defaultAction: "Pass" },
    },
    ...pods.map((p, i) => ({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: `p${i}`, namespace: p.namespace, labels: p.labels },
      spec: {
        nodeName: p.node,
        serviceAccountName: p.sa,
        hostNetwork: p.hostNetwork,
        containers: [
          {
            name: "c",
            image: "x",
            ports: [
              { name: "http", containerPort: 80 },
              { name: "dns", containerPort: 53, protocol: "UDP" },
            ],
          },
        ],
      },
    })),
    ...docs,
  ];
  return loadModel([{ name: "gen.yaml", text: all.map((d) => JSON.stringify(d)).join("\n---\n") }]);
}
const k8sDoc = (p: K8sSpec, i: number): Obj => ({
  apiVersion: "networking.k8s.io/v1",
  kind: "NetworkPolicy",
  metadata: { name: `np${i}`, namespace: p.namespace },
  spec: p,
});

// ---- cluster tiers (network-policy-api v1alpha2), stacked around the dialect (cni/stack.ts) ----
const tierPeer = (dir: "from" | "to") =>
  fc.oneof(
    fc
      .constantFrom(...NAMESPACES)
      .map((n) => ({ namespaces: { matchLabels: { "kubernetes.io/metadata.name": n } } })),
    labels.map((l) => ({ pods: { namespaceSelector: {}, podSelector: { matchLabels: l } } })),
    ...(dir === "to" ? [fc.constant({ networks: ["10.244.1.0/24"] }), fc.constant({ nodes: {} })] : []),
  );
const tierRule = (dir: "from" | "to", tier: "Admin" | "Baseline") =>
  fc.record(
    {
      action: fc.constantFrom(...(tier === "Admin" ? ["Accept", "Deny", "Pass"] : ["Accept", "Deny"])),
      [dir]: fc.array(tierPeer(dir), { minLength: 1, maxLength: 2 }),
      protocols: fc.constantFrom(
        [{ tcp: { destinationPort: { number: 80 } } }],
        [{ udp: { destinationPort: { number: 53 } } }],
      ),
    },
    { requiredKeys: ["action", dir] },
  );
const cnpArb = fc.constantFrom("Admin" as const, "Baseline" as const).chain((tier) =>
  fc.record({
    tier: fc.constant(tier),
    priority: fc.integer({ min: 0, max: 3 }),
    subject: fc.oneof(
      fc.constant({ namespaces: {} }),
      fc.constantFrom(...NAMESPACES).map((n) => ({
        namespaces: { matchLabels: { "kubernetes.io/metadata.name": n } },
      })),
      labels.map((l) => ({ pods: { namespaceSelector: {}, podSelector: { matchLabels: l } } })),
    ),
    ingress: fc.array(tierRule("from", tier), { maxLength: 2 }),
    egress: fc.array(tierRule("to", tier), { maxLength: 1 }),
  }),
);
type CnpSpec = typeof cnpArb extends fc.Arbitrary<infer T> ? T : never;
const cnpDoc = (p: CnpSpec, i: number): Obj => ({
  apiVersion: "policy.networking.k8s.io/v1alpha2",
  kind: "ClusterNetworkPolicy",
  metadata: { name: `cnp${i}` },
  // Distinct priorities: equal ones leave the winner undefined upstream.
  spec: { ...p, priority: p.priority * 10 + i },
});

/** Pairs seen denied and allowed across a property's runs: a property that never sees both proves little. */
const seen = { denied: 0, allowed: 0 };

function agree(model: Model): void {
  expect(hasCniPolicies(model.cni)).toBe(true);
  const proxy = buildProxyIndex(model);
  for (const [port, protocol] of PROBES) {
    const m = cniPodMatrix(cniClassMatrix(model, model.cni!, port, protocol));
    for (const a of model.pods) {
      for (const b of model.pods) {
        const exact = cniPairAllowed(model, model.cni!, a, b, port, protocol);
        seen[exact ? "allowed" : "denied"]++;
        expect(m[a.index]![b.index], `${a.key} -> ${b.key} ${protocol}/${port}`).toBe(exact);
        if (!a.hostNetwork && !b.hostNetwork && a !== b) {
          const t = traceRequest(model, proxy, `pod:${a.key}`, `pod:${b.key}:${port}`, protocol);
          expect(t.verdict === "allow", `trace ${a.key} -> ${b.key} ${protocol}/${port}: ${t.reason}`).toBe(
            exact,
          );
        }
      }
    }
  }
}

describe("CNI dialect properties", slow, () => {
  it("Cilium: the class path, the pair path and the trace agree", () => {
    seen.denied = seen.allowed = 0;
    fc.assert(
      fc.property(
        podsArb,
        fc.array(ciliumArb, { minLength: 1, maxLength: 3 }),
        fc.array(k8sArb, { maxLength: 2 }),
        (pods, cnps, nps) => {
          agree(cluster(pods, [...cnps.map(ciliumDoc), ...nps.map(k8sDoc)]));
        },
      ),
      params,
    );
    expect(seen.denied).toBeGreaterThan(100);
    expect(seen.allowed).toBeGreaterThan(100);
  });
  it("Calico: the class path, the pair path and the trace agree", () => {
    seen.denied = seen.allowed = 0;
    fc.assert(
      fc.property(
        podsArb,
        fc.array(calicoArb, { minLength: 1, maxLength: 3 }),
        fc.array(k8sArb, { maxLength: 2 }),
        (pods, cps, nps) => {
          agree(cluster(pods, [...cps.map(calicoDoc), ...nps.map(k8sDoc)]));
        },
      ),
      params,
    );
    expect(seen.denied).toBeGreaterThan(100);
    expect(seen.allowed).toBeGreaterThan(100);
  });
  it.each(["Cilium", "Calico"])(
    "%s under the cluster tiers: the class path, the pair path and the trace agree",
    (dialect) => {
      seen.denied = seen.allowed = 0;
      const dialectDocs =
        dialect === "Cilium"
          ? fc.array(ciliumArb, { minLength: 1, maxLength: 2 }).map((l) => l.map(ciliumDoc))
          : fc.array(calicoArb, { minLength: 1, maxLength: 2 }).map((l) => l.map(calicoDoc));
      fc.assert(
        fc.property(
          podsArb,
          dialectDocs,
          fc.array(cnpArb, { minLength: 1, maxLength: 3 }),
          fc.array(k8sArb, { maxLength: 1 }),
          (pods, docs, cnps, nps) => {
            const model = cluster(pods, [...docs, ...cnps.map(cnpDoc), ...nps.map(k8sDoc)]);
            expect(model.clusterPolicies.length).toBe(cnps.length);
            agree(model);
          },
        ),
        { ...params, numRuns: 15 },
      );
      expect(seen.denied).toBeGreaterThan(50);
      expect(seen.allowed).toBeGreaterThan(50);
    },
  );
  it("a dialect policy that selects nothing leaves NetworkPolicy's answer unchanged", () => {
    const noHost = podsArb.map((ps) => ps.map((p) => ({ ...p, hostNetwork: false })));
    const inert = [
      {
        apiVersion: "cilium.io/v2",
        kind: "CiliumNetworkPolicy",
        metadata: { name: "inert", namespace: "x" },
        spec: { endpointSelector: { matchLabels: { none: "none" } }, ingress: [{}] },
      },
      {
        apiVersion: "projectcalico.org/v3",
        kind: "GlobalNetworkPolicy",
        metadata: { name: "inert" },
        spec: { selector: "has(none)", ingress: [{ action: "Deny" }] },
      },
    ];
    fc.assert(
      fc.property(noHost, fc.array(k8sArb, { maxLength: 3 }), fc.constantFrom(0, 1), (pods, nps, which) => {
        const plain = cluster(pods, nps.map(k8sDoc));
        const withCni = cluster(pods, [...nps.map(k8sDoc), inert[which]!]);
        const index = buildPolicyIndex(plain);
        for (const [port, protocol] of PROBES) {
          const want = podMatrix(index, classMatrix(index, port, protocol));
          expect(cniPodMatrix(cniClassMatrix(withCni, withCni.cni!, port, protocol))).toEqual(want);
        }
      }),
      params,
    );
  });
  it("Cilium: adding a deny rule never opens a flow", () => {
    fc.assert(
      fc.property(
        podsArb,
        fc.array(ciliumArb, { minLength: 1, maxLength: 2 }),
        ciliumPeer("from"),
        k8sSelector,
        (pods, cnps, deny, sel) => {
          const before = cluster(pods, cnps.map(ciliumDoc));
          const after = cluster(pods, [
            ...cnps.map(ciliumDoc),
            {
              apiVersion: "cilium.io/v2",
              kind: "CiliumClusterwideNetworkPolicy",
              metadata: { name: "deny" },
              spec: { endpointSelector: sel, ingressDeny: [deny] },
            },
          ]);
          for (const [port, protocol] of PROBES) {
            const b = cniPodMatrix(cniClassMatrix(before, before.cni!, port, protocol));
            const a = cniPodMatrix(cniClassMatrix(after, after.cni!, port, protocol));
            a.forEach((row, i) => row.forEach((v, j) => v && expect(b[i]![j], `${i} -> ${j}`).toBe(true)));
          }
        },
      ),
      params,
    );
  });
});
