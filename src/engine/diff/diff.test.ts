/**
 * Pairs of inputs with known gained and lost flows. Each expectation follows
 * from the rule the pair changes (named per case) and is the engine's own
 * verdict before and after: NetworkPolicy isolation (a pod is isolated for a
 * direction once any policy selects it), kube-proxy's endpoint choice
 * (pkg/proxy/topology.go CategorizeEndpoints) and the trace.
 */
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { diffTexts, summarizeDiff, type FlowChange, type InputDiff } from "./index.ts";
import { applyWhatIf, type WhatIf } from "../whatif/index.ts";

const scenario = (id: string) =>
  readFileSync(join(import.meta.dirname, "../../../scenarios", id, "manifests.yaml"), "utf8");
const after = (text: string, op: WhatIf) => {
  const r = applyWhatIf(text, op);
  if (r.error) throw new Error(r.error);
  return r.text;
};
const flow = (f: FlowChange) =>
  `${f.change} ${f.from} -> ${f.to}:${f.port}/${f.protocol} ${f.before}->${f.after}`;
const endpoint = (d: InputDiff) =>
  d.endpoints.map((e) => `${e.change} ${e.service}:${e.port} ${e.traffic}@${e.node} ${e.endpoint}`);

interface Case {
  name: string;
  before: string;
  after: string;
  summary: string;
  flows: string[];
  endpoints?: string[];
}

const s05 = scenario("05-allow-one-caller-after-default-deny");
const s04 = scenario("04-drop-calls-with-no-local-endpoint");
const s02 = scenario("02-spread-load-with-external-local");
const s12 = scenario("12-serve-from-terminating-pods");

const cases: Case[] = [
  {
    name: "default deny off: frontend and orders stop being isolated, so every pod reaches them (payments stays isolated by payments-from-orders)",
    before: s05,
    after: after(s05, { kind: "policyOff", policy: "shop/default-deny-ingress" }),
    summary: "6 flows gained; 8 workload connections (8 added)",
    flows: [
      "gained pod:shop/orders -> pod:shop/frontend:8080/TCP drop->allow",
      "gained pod:shop/payments -> pod:shop/frontend:8080/TCP drop->allow",
      "gained pod:tools/toolbox -> pod:shop/frontend:8080/TCP drop->allow",
      "gained pod:shop/frontend -> pod:shop/orders:8080/TCP drop->allow",
      "gained pod:shop/payments -> pod:shop/orders:8080/TCP drop->allow",
      "gained pod:tools/toolbox -> pod:shop/orders:8080/TCP drop->allow",
    ],
    endpoints: [],
  },
  {
    name: "internalTrafficPolicy Local -> Cluster: the client's node gains the remote endpoint (TestInternalTrafficPolicy)",
    before: s04,
    after: after(s04, {
      kind: "trafficPolicy",
      service: "default/nginx-sample-svc",
      field: "internalTrafficPolicy",
      value: "Cluster",
    }),
    summary: "1 flow gained; 1 endpoint appears",
    flows: ["gained pod:default/client -> service:default/nginx-sample-svc:80/TCP drop->allow"],
  },
  {
    name: "externalTrafficPolicy Local -> Cluster: node-c serves, and every node uses every endpoint",
    before: s02,
    after: after(s02, {
      kind: "trafficPolicy",
      service: "shop/storefront",
      field: "externalTrafficPolicy",
      value: "Cluster",
    }),
    summary: "1 flow gained; 6 endpoints appear",
    flows: ["gained external:203.0.113.10@node-c -> service:shop/storefront:80/TCP drop->allow"],
  },
  {
    name: "the old pod stops serving: node-b loses its terminating fallback for external traffic",
    before: s12,
    after: after(s12, { kind: "notReady", pod: "shop/web-7d4b9c6f5-x2v8q" }),
    summary: "1 flow lost; 1 endpoint vanishes",
    flows: ["lost external:203.0.113.10@node-b -> service:shop/web:80/TCP allow->drop"],
    endpoints: ["vanishes service:shop/web:80 external@node-b pod:shop/web-7d4b9c6f5-x2v8q"],
  },
  {
    name: "identical inputs",
    before: s05,
    after: s05,
    summary: "no change in flows, workload connections or endpoints",
    flows: [],
    endpoints: [],
  },
];

describe("diffTexts: known pairs", () => {
  it.each(cases)("$name", (c) => {
    const d = diffTexts(c.before, c.after);
    expect(d.summary).toBe(c.summary);
    expect(d.flows.map(flow).sort()).toEqual([...c.flows].sort());
    if (c.endpoints) expect(endpoint(d)).toEqual(c.endpoints);
    expect(d.truncated).toEqual([]);
  });

  it("scaling sessions from 3 to 2 loses every flow of sessions-2 and its endpoint on every node", () => {
    const text = scenario("13-pin-clients-with-session-affinity");
    const d = diffTexts(
      text,
      after(text, { kind: "scale", workload: "shop/StatefulSet/sessions", replicas: 2 }),
    );
    expect(d.pods.removed).toEqual(["pod:shop/sessions-2"]);
    expect(
      d.flows.every(
        (f) =>
          f.change === "lost" &&
          f.after === "absent" &&
          (f.from === "pod:shop/sessions-2" || f.to === "pod:shop/sessions-2"),
      ),
    ).toBe(true);
    // To sessions-2 from web, sessions-0, sessions-1; from sessions-2 to sessions-0, sessions-1; sessions-2 -> the Service.
    expect(d.counts).toMatchObject({
      lost: 6,
      gained: 0,
      podFlowsLost: 5,
      serviceFlowsLost: 1,
      endpointsVanish: 2,
      endpointsAppear: 0,
    });
    expect(d.summary).toBe("6 flows lost; 2 endpoints vanish");
    expect(d.flows.find((f) => f.kind === "service")!.reason).toBe("pod:shop/sessions-2 is gone");
  });

  it("a Deployment whose template changes renames its pods: they are paired, and nothing else changes", () => {
    const text = scenario("09-keep-traffic-in-zone-with-hints");
    const relabelled = text.replace(
      "      labels:\n        app: catalog\n    spec:",
      "      labels:\n        app: catalog\n        release: v2\n    spec:",
    );
    expect(relabelled).not.toBe(text);
    const d = diffTexts(text, relabelled);
    expect(d.pods.renamed).toHaveLength(4);
    expect(d.pods.added).toEqual([]);
    expect(d.pods.removed).toEqual([]);
    expect(d.summary).toBe("no change in flows, workload connections or endpoints");
  });

  it("drain moves pods, loses the bare pod's flows and changes each node's external endpoints", () => {
    const text = scenario("01-trace-a-shop-across-zones");
    const d = diffTexts(text, after(text, { kind: "drain", node: "node-a" }));
    expect(d.pods.removed).toEqual(["pod:tools/toolbox"]);
    expect(d.pods.moved.map((m) => `${m.pod} ${m.from}->${m.to}`)).toEqual([
      "pod:shop/backend-1 node-a->node-b",
      "pod:shop/frontend-1 node-a->node-b",
    ]);
    // backend-1 now shares node-b with the cache: internalTrafficPolicy Local finds a local endpoint.
    expect(d.flows.filter((f) => f.change === "gained").map(flow)).toEqual([
      "gained pod:shop/backend-1 -> service:shop/cache:6379/TCP drop->allow",
    ]);
    expect(d.flows.filter((f) => f.kind === "external").map(flow)).toEqual([
      "lost external:203.0.113.10@node-a -> service:shop/frontend:80/TCP allow->drop",
    ]);
    expect(endpoint(d)).toEqual([
      "vanishes service:shop/frontend:80 external@node-a pod:shop/frontend-1",
      "appears service:shop/frontend:80 external@node-b pod:shop/frontend-1",
    ]);
  });

  it("caps the work on large inputs and says what it left out", () => {
    const d = diffTexts(s05, s05, "m.yaml", { maxPodPairs: 1, maxTraces: 1 });
    expect(d.truncated).toHaveLength(2);
  });
});

describe("summarizeDiff", () => {
  const zero = {
    gained: 0,
    lost: 0,
    podFlowsGained: 0,
    podFlowsLost: 0,
    serviceFlowsGained: 0,
    serviceFlowsLost: 0,
    endpointsAppear: 0,
    endpointsVanish: 0,
    workloadsAdded: 0,
    workloadsRemoved: 0,
    workloadsChanged: 0,
  };
  it.each([
    [{ lost: 3, gained: 1 }, "3 flows lost, 1 gained"],
    [{ lost: 1 }, "1 flow lost"],
    [{ gained: 2, endpointsAppear: 1 }, "2 flows gained; 1 endpoint appears"],
    [{ endpointsVanish: 2, endpointsAppear: 3 }, "2 endpoints vanish, 3 appear"],
    [{ workloadsRemoved: 2, workloadsChanged: 1 }, "3 workload connections (2 removed, 1 changed)"],
    [{}, "no change in flows, workload connections or endpoints"],
  ])("%j -> %s", (c, s) => {
    expect(summarizeDiff({ ...zero, ...c })).toBe(s);
  });
});

describe("workload connections: every layer, every port (the one decider through connlist)", () => {
  // netpol-analyzer's diff (docs/diff_output.md): per pair of workloads, added/removed/changed over every port.
  const deployment = (name: string, ports = "") => `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, namespace: shop}
spec:
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec: {containers: [{name: c, image: x${ports}}]}`;
  // Pods that declare no containerPort: the pod flows see no port, the workload comparison sees every port.
  const base = [deployment("web"), deployment("api")].join("\n---\n");
  const with_ = (extra: string) => `${base}\n---\n${extra}`;
  const lines = (d: ReturnType<typeof diffTexts>) =>
    d.workloads
      .filter((w) => !w.src.includes("[External]") && !w.dst.includes("[External]"))
      .map((w) => `${w.change} ${w.src} -> ${w.dst}: ${w.before} => ${w.after}`);
  it.each([
    [
      "a deny-all NetworkPolicy over pods that declare no containerPort",
      `apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: deny, namespace: shop}\nspec: {podSelector: {}, policyTypes: [Ingress]}`,
      [
        "removed shop/api[Deployment] -> shop/web[Deployment]: All Connections => No Connections",
        "removed shop/web[Deployment] -> shop/api[Deployment]: All Connections => No Connections",
      ],
    ],
    [
      "an AdminNetworkPolicy Deny added (network-policy-api AdminNetworkPolicy: Deny at priority 10)",
      `apiVersion: policy.networking.k8s.io/v1alpha1\nkind: AdminNetworkPolicy\nmetadata: {name: deny-web}\nspec:\n  priority: 10\n  subject: {pods: {namespaceSelector: {}, podSelector: {matchLabels: {app: api}}}}\n  ingress:\n  - action: Deny\n    from: [{pods: {namespaceSelector: {}, podSelector: {matchLabels: {app: web}}}}]\n    ports: [{portNumber: {protocol: TCP, port: 8080}}]`,
      [
        "changed shop/web[Deployment] -> shop/api[Deployment]: All Connections => SCTP 1-65535,TCP 1-8079,8081-65535,UDP 1-65535",
      ],
    ],
    [
      "a CiliumNetworkPolicy added (Cilium's default deny once an endpoint is selected)",
      `apiVersion: cilium.io/v2\nkind: CiliumNetworkPolicy\nmetadata: {name: api, namespace: shop}\nspec:\n  endpointSelector: {matchLabels: {app: api}}\n  ingress:\n  - fromEndpoints: [{matchLabels: {app: web}}]\n    toPorts: [{ports: [{port: "8080", protocol: TCP}]}]`,
      ["changed shop/web[Deployment] -> shop/api[Deployment]: All Connections => TCP 8080"],
    ],
  ])("%s", (_, policy, want) => {
    const d = diffTexts(base, with_(policy));
    expect(lines(d)).toEqual(want);
    expect(d.summary).not.toMatch(/^no change/);
    // And back: the reverse edit reports the opposite change.
    expect(diffTexts(with_(policy), base).workloads.length).toBe(d.workloads.length);
  });
});
