/**
 * Properties of the engine over generated manifests (fast-check, fixed seed,
 * bounded runs). They restate the NetworkPolicy API's semantics
 * (networking.k8s.io/v1 NetworkPolicySpec docs; test/e2e/network/netpol):
 * policies are additive allow-lists, a pod is isolated for a direction only
 * when some policy selects it for that direction, and no policy means every
 * flow is allowed.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  buildPolicyIndex,
  buildProxyIndex,
  loadModel,
  traceRequest,
  validateModel,
  type Model,
  type Protocol,
} from "./index.ts";
import { pairAllowed, classMatrix, explainPair, podMatrix } from "./netpol/index.ts";

const SEED = 20250101;
const RUNS = 60;

const NAMESPACES = ["x", "y", "z"] as const;
const PROBES: [number, Protocol][] = [
  [80, "TCP"],
  [81, "TCP"],
  [53, "UDP"],
  [8080, "TCP"],
];

type Obj = Record<string, unknown>;

const POD_NAME = "statefulset.kubernetes.io/pod-name";

const labelSet = fc.record(
  { app: fc.constantFrom("a", "b", "c"), tier: fc.constantFrom("front", "back") },
  { requiredKeys: [] },
);

const containerPorts = fc.subarray(
  [
    { name: "http", containerPort: 80, protocol: "TCP" },
    { name: "alt", containerPort: 81, protocol: "TCP" },
    { name: "dns", containerPort: 53, protocol: "UDP" },
    { name: "web", containerPort: 8080, protocol: "TCP" },
  ],
  { minLength: 0 },
);

const podArb = fc.record({
  namespace: fc.constantFrom(...NAMESPACES),
  labels: labelSet,
  ports: containerPorts,
  node: fc.constantFrom("node-1", "node-2"),
  hostNetwork: fc.oneof(
    { arbitrary: fc.constant(false), weight: 6 },
    { arbitrary: fc.constant(true), weight: 1 },
  ),
  /** A StatefulSet replica: owned, with its own pod-name label (which classes leave out unless a selector reads it). */
  replicaOf: fc.option(fc.constantFrom("db", "cache"), { nil: undefined }),
});

const selectorArb: fc.Arbitrary<Obj> = fc.oneof(
  fc.constant({}),
  fc.constantFrom("p0", "p1", "p2").map((v) => ({ matchLabels: { [POD_NAME]: v } })),
  labelSet.map((l) => ({ matchLabels: l })),
  fc.record({
    matchExpressions: fc.array(
      fc.oneof(
        fc.record({
          key: fc.constantFrom("app", "tier"),
          operator: fc.constantFrom("In", "NotIn"),
          values: fc.subarray(["a", "b", "c", "front", "back"], { minLength: 1 }),
        }),
        fc.record({
          key: fc.constantFrom("app", "tier", "other"),
          operator: fc.constantFrom("Exists", "DoesNotExist"),
        }),
      ),
      { minLength: 1, maxLength: 2 },
    ),
  }),
);

/** ipBlocks over the pod network (10.244.1.0/24 and 10.244.2.0/24 are the two nodes' podCIDRs). */
const ipBlockArb = fc.oneof(
  fc.constant({ cidr: "10.244.0.0/16" }),
  fc.constant({ cidr: "10.244.1.0/24" }),
  fc.constant({ cidr: "10.244.0.0/16", except: ["10.244.2.0/24"] }),
  fc.constant({ cidr: "10.244.1.0/25", except: ["10.244.1.0/30"] }),
  fc.constant({ cidr: "0.0.0.0/0" }),
  fc.constant({ cidr: "fd00::/8" }),
);

const peerArb: fc.Arbitrary<Obj> = fc.oneof(
  selectorArb.map((s) => ({ podSelector: s })),
  fc
    .constantFrom(...NAMESPACES)
    .map((n) => ({ namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": n } } })),
  fc.record({ namespaceSelector: selectorArb, podSelector: selectorArb }),
  ipBlockArb.map((b) => ({ ipBlock: b })),
);

const portArb: fc.Arbitrary<Obj> = fc.oneof(
  fc.record(
    { protocol: fc.constantFrom("TCP", "UDP", "SCTP"), port: fc.constantFrom(53, 80, 81, 8080) },
    { requiredKeys: ["port"] },
  ),
  fc.record(
    { protocol: fc.constantFrom("TCP", "UDP"), port: fc.constantFrom("http", "dns", "alt", "web") },
    { requiredKeys: ["port"] },
  ),
  fc.record({ port: fc.constantFrom(53, 80), endPort: fc.constantFrom(81, 100, 8080) }),
  fc.record({ protocol: fc.constantFrom("TCP", "UDP") }),
);

const ruleArb = (peerKey: "from" | "to"): fc.Arbitrary<Obj> =>
  fc.record(
    { [peerKey]: fc.array(peerArb, { maxLength: 2 }), ports: fc.array(portArb, { maxLength: 2 }) },
    { requiredKeys: [] },
  );

const policyArb = fc.record({
  namespace: fc.constantFrom(...NAMESPACES),
  podSelector: selectorArb,
  policyTypes: fc.option(fc.subarray(["Ingress", "Egress"], { minLength: 1 }), { nil: undefined }),
  ingress: fc.option(fc.array(ruleArb("from"), { maxLength: 2 }), { nil: undefined }),
  egress: fc.option(fc.array(ruleArb("to"), { maxLength: 2 }), { nil: undefined }),
});

type Infer<A> = A extends fc.Arbitrary<infer T> ? T : never;
type PodSpec = Infer<typeof podArb>;
type PolicySpec = Infer<typeof policyArb>;

const REPLICA_TEMPLATES = {
  db: {
    namespace: NAMESPACES[0],
    labels: { app: "a" },
    ports: [{ name: "http", containerPort: 80, protocol: "TCP" }],
  },
  cache: { namespace: NAMESPACES[1], labels: { app: "b", tier: "back" }, ports: [] },
};

function podDoc(p: PodSpec, i: number): Obj {
  // A replica has its set's template (namespace, labels, ports) and its own pod-name label.
  const set = p.replicaOf;
  const template = set && REPLICA_TEMPLATES[set];
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: template
      ? {
          name: `p${i}`,
          namespace: template.namespace,
          labels: { ...template.labels, [POD_NAME]: `p${i}` },
          ownerReferences: [
            { apiVersion: "apps/v1", kind: "StatefulSet", name: set, uid: set, controller: true },
          ],
        }
      : { name: `p${i}`, namespace: p.namespace, labels: p.labels },
    spec: {
      nodeName: p.node,
      hostNetwork: template ? false : p.hostNetwork,
      containers: [{ name: "c", image: "x", ports: template ? template.ports : p.ports }],
    },
  };
}

function policyDoc(p: PolicySpec, i: number): Obj {
  const spec: Obj = { podSelector: p.podSelector };
  if (p.policyTypes) spec.policyTypes = p.policyTypes;
  if (p.ingress) spec.ingress = p.ingress;
  if (p.egress) spec.egress = p.egress;
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata: { name: `np${i}`, namespace: p.namespace },
    spec,
  };
}

function cluster(pods: PodSpec[], policies: PolicySpec[], extra: unknown[] = []): string {
  const docs: unknown[] = [
    { apiVersion: "v1", kind: "Node", metadata: { name: "node-1" }, spec: { podCIDR: "10.244.1.0/24" } },
    { apiVersion: "v1", kind: "Node", metadata: { name: "node-2" }, spec: { podCIDR: "10.244.2.0/24" } },
    ...NAMESPACES.map((n, i) => ({
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: n, labels: { team: `t${i % 2}` } },
    })),
    ...pods.map(podDoc),
    ...policies.map(policyDoc),
    ...extra,
  ];
  return docs.map((d) => JSON.stringify(d)).join("\n---\n");
}

function load(text: string): Model {
  return loadModel([{ name: "gen.yaml", text }]);
}

const podsArb = fc.array(podArb, { minLength: 1, maxLength: 7 });
const policiesArb = fc.array(policyArb, { maxLength: 4 });
const params = { seed: SEED, numRuns: RUNS };

describe("engine properties", () => {
  it("never throws on generated manifests, broken ones included", () => {
    const junk = fc.oneof(
      fc.anything({ maxDepth: 3 }),
      fc.record({
        apiVersion: fc.constantFrom("v1", "networking.k8s.io/v1", "discovery.k8s.io/v1"),
        kind: fc.constantFrom("Service", "NetworkPolicy", "EndpointSlice", "Pod", "Node"),
        metadata: fc.anything({ maxDepth: 2 }),
        spec: fc.anything({ maxDepth: 3 }),
      }),
    );
    fc.assert(
      fc.property(
        podsArb,
        policiesArb,
        fc.array(junk, { maxLength: 3 }),
        fc.string({ maxLength: 40 }),
        (pods, policies, extra, tail) => {
          const model = load(`${cluster(pods, policies, extra)}\n---\n${tail}`);
          const index = buildPolicyIndex(model);
          for (const [port, protocol] of PROBES) podMatrix(index, classMatrix(index, port, protocol));
          JSON.stringify(validateModel(model));
        },
      ),
      params,
    );
  });

  it("with no policy every pod-to-pod flow is allowed", () => {
    fc.assert(
      fc.property(podsArb, (pods) => {
        const model = load(cluster(pods, []));
        const index = buildPolicyIndex(model);
        for (const [port, protocol] of PROBES) {
          expect(
            podMatrix(index, classMatrix(index, port, protocol))
              .flat()
              .every(Boolean),
          ).toBe(true);
          for (const a of model.pods)
            for (const b of model.pods) expect(explainPair(model, a, b, port, protocol).allowed).toBe(true);
        }
      }),
      params,
    );
  });

  it("adding a policy opens no flow to or from an isolated pod unless one of its own rules allows it", () => {
    let opened = 0;
    let closed = 0;
    fc.assert(
      fc.property(podsArb, policiesArb, policyArb, (pods, policies, extra) => {
        const before = load(cluster(pods, policies));
        const after = load(cluster(pods, [...policies, extra]));
        const added = `${extra.namespace}/np${policies.length}`;
        expect(after.pods.map((p) => p.key)).toEqual(before.pods.map((p) => p.key));
        for (const [port, protocol] of PROBES) {
          for (const [i, a] of before.pods.entries()) {
            for (const [j, b] of before.pods.entries()) {
              const v0 = explainPair(before, a, b, port, protocol);
              const v1 = explainPair(after, after.pods[i]!, after.pods[j]!, port, protocol);
              for (const dir of ["ingress", "egress"] as const) {
                if (v1[dir].allowed && !v0[dir].allowed) {
                  // Only an isolated pod can newly allow, and only through the added policy's rule.
                  opened++;
                  expect(v0[dir].isolated).toBe(true);
                  expect(v1[dir].allowedBy.some((m) => m.policy.key === added)).toBe(true);
                }
                if (v0[dir].allowed && !v1[dir].allowed) closed++;
              }
            }
          }
        }
      }),
      params,
    );
    // The generator reaches both sides of the implication.
    expect(opened).toBeGreaterThan(0);
    expect(closed).toBeGreaterThan(0);
  });

  it("the class matrix gives the exact per-pair verdict for every pair", () => {
    const seen = { allowed: 0, denied: 0 };
    fc.assert(
      fc.property(podsArb, policiesArb, (pods, policies) => {
        const model = load(cluster(pods, policies));
        const index = buildPolicyIndex(model);
        for (const [port, protocol] of PROBES) {
          const m = classMatrix(index, port, protocol);
          for (const a of model.pods) {
            for (const b of model.pods) {
              const fast = pairAllowed(index, m, a, b);
              seen[fast ? "allowed" : "denied"]++;
              expect(fast, `${a.key} -> ${b.key} ${protocol}/${port}`).toBe(
                explainPair(model, a, b, port, protocol).allowed,
              );
            }
          }
        }
      }),
      params,
    );
    expect(seen.allowed).toBeGreaterThan(0);
    expect(seen.denied).toBeGreaterThan(0);
  });

  it("a pod-to-pod trace agrees with the reachability matrix", () => {
    fc.assert(
      fc.property(podsArb, policiesArb, (pods, policies) => {
        const model = load(cluster(pods, policies));
        const index = buildPolicyIndex(model);
        const proxy = buildProxyIndex(model);
        for (const [port, protocol] of PROBES) {
          const allowed = podMatrix(index, classMatrix(index, port, protocol));
          for (const [i, a] of model.pods.entries()) {
            for (const [j, b] of model.pods.entries()) {
              // A hostNetwork destination is its node's IP: the trace is about the node, not the pod.
              if (a.hostNetwork || b.hostNetwork) continue;
              const t = traceRequest(model, proxy, `pod:${a.key}`, `pod:${b.key}:${port}`, protocol);
              expect(t.error, `${a.key} -> ${b.key}`).toBeUndefined();
              expect(t.verdict, `${a.key} -> ${b.key} ${protocol}/${port}`).toBe(
                allowed[i]![j] ? "allow" : "drop",
              );
            }
          }
        }
      }),
      { seed: SEED, numRuns: 25 },
    );
  });
});
