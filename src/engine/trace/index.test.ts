import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadModel } from "../index.ts";
import { buildProxyIndex } from "../proxy/index.ts";
import { makeNode, makePod, makePolicy, makeService, makeSlice, modelOf } from "../testing/fixtures.ts";
import { parseTraceDestination, parseTraceSource, traceRequest, type TraceResult } from "./index.ts";

type Obj = Record<string, unknown>;
function tracer(objects: Obj[]) {
  const model = modelOf(objects);
  const index = buildProxyIndex(model);
  return (from: string, to: string, protocol: "TCP" | "UDP" | "SCTP" = "TCP"): TraceResult =>
    traceRequest(model, index, from, to, protocol);
}
const eps = (t: TraceResult) =>
  t.endpoints
    .map((e) => `${e.ip}:${e.port}`)
    .sort()
    .join(", ");

// nftables proxier_test.go TestInternalExternalMasquerade, "base" case (working local detector, no
// masqueradeAll): svc1 is a LoadBalancer with externalTrafficPolicy Cluster, svc2 with Local, svc3 with
// internalTrafficPolicy Local; each has one endpoint on test-node (10.180.0.N) and one on "remote"
// (10.180.1.N). Pod 10.0.0.2 and the node 192.168.0.2 send from test-node; 203.0.113.2 is external.
describe("TestInternalExternalMasquerade flows, through the trace", () => {
  const lb = (n: number, ip: string, spec: Obj) =>
    makeService(
      `ns${n}`,
      `svc${n}`,
      {
        type: "LoadBalancer",
        clusterIP: `172.30.0.4${n}`,
        ports: [{ name: "p80", port: 80, nodePort: 3000 + n }],
        ...spec,
      },
      { status: { loadBalancer: { ingress: [{ ip }] } } },
    );
  const slice = (n: number) =>
    makeSlice(
      `ns${n}`,
      `svc${n}`,
      `svc${n}-1`,
      [{ name: "p80", port: 80 }],
      [
        { ip: `10.180.0.${n}`, node: "test-node" },
        { ip: `10.180.1.${n}`, node: "remote" },
      ],
    );
  const trace = tracer([
    makeNode("test-node", "192.168.0.2", { podCIDR: "10.0.0.0/24" }),
    makeNode("remote", "192.168.0.3", { podCIDR: "10.0.1.0/24" }),
    makePod("ns0", "client", { node: "test-node", ip: "10.0.0.2" }),
    lb(1, "1.2.3.4", { externalTrafficPolicy: "Cluster" }),
    lb(2, "5.6.7.8", { externalTrafficPolicy: "Local" }),
    lb(3, "9.10.11.12", { internalTrafficPolicy: "Local" }),
    slice(1),
    slice(2),
    slice(3),
  ]);
  const pod = "pod:ns0/client",
    node = "node:test-node",
    external = "external:203.0.113.2@test-node";
  it.each<[string, string, string, string, boolean]>([
    ["pod to ClusterIP", pod, "ip:172.30.0.41:80", "10.180.0.1:80, 10.180.1.1:80", false],
    ["pod to NodePort", pod, "ip:192.168.0.2:3001", "10.180.0.1:80, 10.180.1.1:80", true],
    ["pod to LB", pod, "ip:1.2.3.4:80", "10.180.0.1:80, 10.180.1.1:80", true],
    ["node to ClusterIP", node, "ip:172.30.0.41:80", "10.180.0.1:80, 10.180.1.1:80", true],
    ["node to NodePort", node, "ip:192.168.0.2:3001", "10.180.0.1:80, 10.180.1.1:80", true],
    ["node to LB", node, "ip:1.2.3.4:80", "10.180.0.1:80, 10.180.1.1:80", true],
    ["external to ClusterIP", external, "ip:172.30.0.41:80", "10.180.0.1:80, 10.180.1.1:80", true],
    ["external to NodePort", external, "ip:192.168.0.2:3001", "10.180.0.1:80, 10.180.1.1:80", true],
    ["external to LB", external, "ip:1.2.3.4:80", "10.180.0.1:80, 10.180.1.1:80", true],
    ["pod to ClusterIP with eTP:Local", pod, "ip:172.30.0.42:80", "10.180.0.2:80, 10.180.1.2:80", false],
    ["pod to NodePort with eTP:Local", pod, "ip:192.168.0.2:3002", "10.180.0.2:80, 10.180.1.2:80", false],
    ["pod to LB with eTP:Local", pod, "ip:5.6.7.8:80", "10.180.0.2:80, 10.180.1.2:80", false],
    ["node to ClusterIP with eTP:Local", node, "ip:172.30.0.42:80", "10.180.0.2:80, 10.180.1.2:80", true],
    [
      "node to NodePort with eTP:Local (upstream probes 3001 here)",
      node,
      "ip:192.168.0.2:3001",
      "10.180.0.1:80, 10.180.1.1:80",
      true,
    ],
    ["node to LB with eTP:Local", node, "ip:5.6.7.8:80", "10.180.0.2:80, 10.180.1.2:80", true],
    [
      "external to ClusterIP with eTP:Local",
      external,
      "ip:172.30.0.42:80",
      "10.180.0.2:80, 10.180.1.2:80",
      true,
    ],
    ["external to NodePort with eTP:Local", external, "ip:192.168.0.2:3002", "10.180.0.2:80", false],
    ["external to LB with eTP:Local", external, "ip:5.6.7.8:80", "10.180.0.2:80", false],
    ["pod to ClusterIP with iTP:Local", pod, "ip:172.30.0.43:80", "10.180.0.3:80", false],
    ["pod to NodePort with iTP:Local", pod, "ip:192.168.0.2:3003", "10.180.0.3:80, 10.180.1.3:80", true],
    ["pod to LB with iTP:Local", pod, "ip:9.10.11.12:80", "10.180.0.3:80, 10.180.1.3:80", true],
    ["node to ClusterIP with iTP:Local", node, "ip:172.30.0.43:80", "10.180.0.3:80", true],
    ["node to NodePort with iTP:Local", node, "ip:192.168.0.2:3003", "10.180.0.3:80, 10.180.1.3:80", true],
    ["node to LB with iTP:Local", node, "ip:9.10.11.12:80", "10.180.0.3:80, 10.180.1.3:80", true],
    ["external to ClusterIP with iTP:Local", external, "ip:172.30.0.43:80", "10.180.0.3:80", true],
    [
      "external to NodePort with iTP:Local",
      external,
      "ip:192.168.0.2:3003",
      "10.180.0.3:80, 10.180.1.3:80",
      true,
    ],
    ["external to LB with iTP:Local", external, "ip:9.10.11.12:80", "10.180.0.3:80, 10.180.1.3:80", true],
  ])("%s", (_, from, to, output, masq) => {
    const t = trace(from, to);
    expect(eps(t)).toBe(output);
    expect(t.sourceIPPreserved).toBe(!masq);
    expect(t.handledBy).toBe("test-node");
  });

  it("the backends of a masqueraded flow see test-node's address", () => {
    const t = trace(external, "ip:192.168.0.2:3001");
    expect(t.endpoints.map((e) => e.sourceIP)).toEqual(["192.168.0.2", "192.168.0.2"]);
  });

  it("an external client's LoadBalancer with eTP:Local arriving at a node with no local endpoint: the health check fails and kube-proxy DROPs", () => {
    const t = trace("external:203.0.113.2@remote", "service:ns2/svc2:80");
    expect(t.hops.find((h) => h.step === "load balancer health check")).toMatchObject({ verdict: "pass" });
    const none = tracer([
      makeNode("test-node", "192.168.0.2"),
      makeNode("remote", "192.168.0.3"),
      lb(2, "5.6.7.8", { externalTrafficPolicy: "Local" }),
      makeSlice("ns2", "svc2", "s", [{ name: "p80", port: 80 }], [{ ip: "10.180.0.2", node: "test-node" }]),
    ])("external:203.0.113.2@remote", "service:ns2/svc2:80");
    expect(none.hops.find((h) => h.step === "load balancer health check")).toMatchObject({ verdict: "drop" });
    expect([none.verdict, none.kubeProxy?.action, none.reason]).toEqual([
      "drop",
      "drop",
      'dropped: Service ns2/svc2 has externalTrafficPolicy Local and remote has no ready (or serving terminating) endpoint of its own; kube-proxy\'s rule: "ns2/svc2:p80 has no local endpoints" DROP',
    ]);
  });
});

// nftables proxier_test.go TestTerminatingEndpointsTrafficPolicyLocal and ...Cluster @81810de635aa, every case: svc1 is a
// LoadBalancer 1.2.3.4 with the given externalTrafficPolicy; pod 10.0.0.2 on test-node sends to the ClusterIP, external
// client 203.0.113.2 to the LB at test-node. Output is the candidate set, or DROP / REJECT; then the slice is deleted.
describe("TestTerminatingEndpointsTrafficPolicyLocal/Cluster flows, through the trace", () => {
  type C = { ready: boolean; serving: boolean; terminating: boolean };
  const R: C = { ready: true, serving: true, terminating: false };
  const ST: C = { ready: false, serving: true, terminating: true };
  const T: C = { ready: false, serving: false, terminating: true };
  const ep = (ip: string, c: C, node: string) => ({ ip, node, ...c });
  const L = "test-node";
  const cases: [string, "Local" | "Cluster", ReturnType<typeof ep>[], string, boolean, string, boolean][] = [
    [
      "Local: ready endpoints exist",
      "Local",
      [
        ep("10.0.1.1", R, L),
        ep("10.0.1.2", R, L),
        ep("10.0.1.3", ST, L),
        ep("10.0.1.4", T, L),
        ep("10.0.1.5", R, "node-1"),
      ],
      "10.0.1.1:80, 10.0.1.2:80, 10.0.1.5:80",
      false,
      "10.0.1.1:80, 10.0.1.2:80",
      false,
    ],
    [
      "Local: only terminating endpoints exist",
      "Local",
      [ep("10.0.1.2", ST, L), ep("10.0.1.3", ST, L), ep("10.0.1.4", T, L), ep("10.0.1.5", R, "node-1")],
      "10.0.1.5:80",
      false,
      "10.0.1.2:80, 10.0.1.3:80",
      false,
    ],
    [
      "Local: terminating endpoints on remote node",
      "Local",
      [ep("10.0.1.5", ST, "node-1")],
      "10.0.1.5:80",
      false,
      "DROP",
      false,
    ],
    [
      "Local: no usable endpoints on any node",
      "Local",
      [ep("10.0.1.5", T, L), ep("10.0.1.5", T, "node-1")],
      "REJECT",
      false,
      "REJECT",
      false,
    ],
    [
      "Cluster: ready endpoints exist",
      "Cluster",
      [
        ep("10.0.1.1", R, L),
        ep("10.0.1.2", R, L),
        ep("10.0.1.3", ST, "another-node"),
        ep("10.0.1.4", T, "another-node"),
        ep("10.0.1.5", R, "another-node"),
      ],
      "10.0.1.1:80, 10.0.1.2:80, 10.0.1.5:80",
      false,
      "10.0.1.1:80, 10.0.1.2:80, 10.0.1.5:80",
      true,
    ],
    [
      "Cluster: only terminating endpoints exist",
      "Cluster",
      [
        ep("10.0.1.2", ST, L),
        ep("10.0.1.3", ST, L),
        ep("10.0.1.4", T, "another-node"),
        ep("10.0.1.5", ST, "another-node"),
      ],
      "10.0.1.2:80, 10.0.1.3:80, 10.0.1.5:80",
      false,
      "10.0.1.2:80, 10.0.1.3:80, 10.0.1.5:80",
      true,
    ],
    [
      "Cluster: terminating endpoints on remote node",
      "Cluster",
      [ep("10.0.1.5", ST, "node-1")],
      "10.0.1.5:80",
      false,
      "10.0.1.5:80",
      true,
    ],
    [
      "Cluster: no usable endpoints on any node",
      "Cluster",
      [ep("10.0.1.5", T, L), ep("10.0.1.5", T, "node-1")],
      "REJECT",
      false,
      "REJECT",
      false,
    ],
  ];
  const outcome = (t: TraceResult) =>
    t.kubeProxy?.action === "drop" ? "DROP" : t.kubeProxy?.action === "reject" ? "REJECT" : eps(t);
  const objects = (etp: string, slice: Obj[]) => [
    makeNode("test-node", "192.168.0.2"),
    makeNode("node-1", "192.168.0.3"),
    makeNode("another-node", "192.168.0.4"),
    makePod("ns0", "client", { node: "test-node", ip: "10.0.0.2" }),
    makeService(
      "ns1",
      "svc1",
      {
        type: "LoadBalancer",
        clusterIP: "172.30.1.1",
        externalTrafficPolicy: etp,
        healthCheckNodePort: 30000,
        ports: [{ name: "", port: 80, targetPort: 80, nodePort: 30080 }],
      },
      { status: { loadBalancer: { ingress: [{ ip: "1.2.3.4" }] } } },
    ),
    ...slice,
  ];
  it.each(cases)("%s", (_, etp, endpoints, podOut, podMasq, extOut, extMasq) => {
    const trace = tracer(
      objects(etp, [makeSlice("ns1", "svc1", "svc1-1", [{ name: "", port: 80 }], endpoints)]),
    );
    const pod = trace("pod:ns0/client", "ip:172.30.1.1:80");
    const ext = trace("external:203.0.113.2@test-node", "ip:1.2.3.4:80");
    expect([outcome(pod), outcome(ext)]).toEqual([podOut, extOut]);
    if (pod.endpoints.length) expect(pod.sourceIPPreserved).toBe(!podMasq);
    if (ext.endpoints.length) expect(ext.sourceIPPreserved).toBe(!extMasq);
    // "after endpoints deleted": both flows REJECT.
    const gone = tracer(objects(etp, []));
    expect([
      outcome(gone("pod:ns0/client", "ip:172.30.1.1:80")),
      outcome(gone("external:203.0.113.2@test-node", "ip:1.2.3.4:80")),
    ]).toEqual(["REJECT", "REJECT"]);
  });
});

// iptables proxier_test.go TestLoadBalancer: svc1 is a LoadBalancer (externalTrafficPolicy Cluster) with two VIPs and
// loadBalancerSourceRanges 192.168.0.0/24 and 203.0.113.0/25; its one endpoint is 10.180.0.1. 203.0.113.130 is blocked.
describe("TestLoadBalancer flows, through the trace", () => {
  const trace = tracer([
    makeNode("test-node", "192.168.0.2"),
    makePod("ns0", "client", { node: "test-node", ip: "10.0.0.2" }),
    makeService(
      "ns1",
      "svc1",
      {
        type: "LoadBalancer",
        clusterIP: "172.30.0.41",
        loadBalancerSourceRanges: ["192.168.0.0/24", "203.0.113.0/25"],
        ports: [{ name: "p80", port: 80, nodePort: 3001 }],
      },
      { status: { loadBalancer: { ingress: [{ ip: "1.2.3.4" }, { ip: "5.6.7.8" }] } } },
    ),
    makeSlice("ns1", "svc1", "svc1-1", [{ name: "p80", port: 80 }], [{ ip: "10.180.0.1" }]),
  ]);
  const out = (t: TraceResult) => (t.endpoints.length ? eps(t) : "DROP");
  it.each<[string, string, string, string, boolean]>([
    ["pod to cluster IP", "pod:ns0/client", "ip:172.30.0.41:80", "10.180.0.1:80", false],
    ["external to nodePort", "external:203.0.113.2@test-node", "ip:192.168.0.2:3001", "10.180.0.1:80", true],
    [
      "nodePort bypasses LoadBalancerSourceRanges",
      "external:203.0.113.130@test-node",
      "ip:192.168.0.2:3001",
      "10.180.0.1:80",
      true,
    ],
    ...["1.2.3.4", "5.6.7.8"].flatMap((lb, i): [string, string, string, string, boolean][] => [
      [
        `accepted external to LB${i + 1}`,
        "external:203.0.113.2@test-node",
        `ip:${lb}:80`,
        "10.180.0.1:80",
        true,
      ],
      [`blocked external to LB${i + 1}`, "external:203.0.113.130@test-node", `ip:${lb}:80`, "DROP", false],
      [
        `pod to LB${i + 1} (blocked by LoadBalancerSourceRanges)`,
        "pod:ns0/client",
        `ip:${lb}:80`,
        "DROP",
        false,
      ],
      [
        `node to LB${i + 1} (allowed by LoadBalancerSourceRanges)`,
        "node:test-node",
        `ip:${lb}:80`,
        "10.180.0.1:80",
        true,
      ],
      [
        `same node to LB${i + 1}, SNATted to LB${i + 1} (implicitly allowed)`,
        `external:${lb}@test-node`,
        `ip:${lb}:80`,
        "10.180.0.1:80",
        true,
      ],
    ]),
  ])("%s", (_, from, to, want, masq) => {
    const t = trace(from, to);
    expect(out(t)).toBe(want);
    if (t.endpoints.length) expect(t.sourceIPPreserved).toBe(!masq);
  });
});

describe("NetworkPolicy along the path", () => {
  const base = [
    makeNode("node-a", "192.168.10.11", { zone: "zone-a", podCIDR: "10.244.1.0/24" }),
    makeNode("node-b", "192.168.10.21", { zone: "zone-b", podCIDR: "10.244.2.0/24" }),
    makePod("shop", "frontend", { node: "node-a", ip: "10.244.1.20", labels: { app: "frontend" } }),
    makePod("shop", "backend-0", {
      node: "node-a",
      ip: "10.244.1.5",
      labels: { app: "backend" },
      ports: [{ name: "http", containerPort: 8080 }],
    }),
    makePod("shop", "backend-1", {
      node: "node-b",
      ip: "10.244.2.5",
      labels: { app: "backend" },
      ports: [{ name: "http", containerPort: 8080 }],
    }),
  ];
  const backendSvc = (spec: Obj = {}) =>
    makeService("shop", "backend", {
      selector: { app: "backend" },
      clusterIP: "10.96.0.50",
      ports: [{ name: "http", port: 80, targetPort: "http" }],
      ...spec,
    });

  it("egress at the source is judged against the backend after DNAT: a rule for the Service port does not admit the target port", () => {
    const egress = (port: number) =>
      makePolicy("shop", "frontend-egress", {
        podSelector: { matchLabels: { app: "frontend" } },
        policyTypes: ["Egress"],
        egress: [
          { to: [{ podSelector: { matchLabels: { app: "backend" } } }], ports: [{ protocol: "TCP", port }] },
        ],
      });
    const ok = tracer([...base, backendSvc(), egress(8080)])("pod:shop/frontend", "service:shop/backend:80");
    expect([ok.verdict, ok.endpoints.map((e) => e.egress.reason)]).toEqual([
      "allow",
      ["allowed by shop/frontend-egress egress rule 1", "allowed by shop/frontend-egress egress rule 1"],
    ]);
    const bad = tracer([...base, backendSvc(), egress(80)])("pod:shop/frontend", "service:shop/backend:80");
    expect(bad.verdict).toBe("drop");
    expect(bad.hops.find((h) => h.step === "egress policy at source")).toMatchObject({
      verdict: "drop",
      ref: { kind: "NetworkPolicy", name: "frontend-egress", field: "spec.podSelector" },
    });
  });

  it("a NodePort on another node's address is DNATed there, so egress at the source sees that node and the nodePort, not the backend", () => {
    const svc = backendSvc({
      type: "NodePort",
      ports: [{ name: "http", port: 80, targetPort: "http", nodePort: 30080 }],
    });
    const toBackends = makePolicy("shop", "frontend-egress", {
      podSelector: { matchLabels: { app: "frontend" } },
      policyTypes: ["Egress"],
      egress: [
        {
          to: [{ podSelector: { matchLabels: { app: "backend" } } }],
          ports: [{ protocol: "TCP", port: 8080 }],
        },
      ],
    });
    // frontend runs on node-a; node-b's NodePort is handled by node-b's kube-proxy.
    const remote = tracer([...base, svc, toBackends])("pod:shop/frontend", "ip:192.168.10.21:30080");
    expect(remote.handledBy).toBe("node-b");
    expect([remote.verdict, remote.endpoints.every((e) => e.egress.verdict === "drop")]).toEqual([
      "drop",
      true,
    ]);
    expect(remote.hops.find((h) => h.step === "egress policy at source")!.detail).toMatch(
      /no egress rule allows TCP\/30080 to 192\.168\.10\.21 \(node node-b's NodePort: kube-proxy there rewrites the destination after the packet has left node-a\)/,
    );
    const toNodeB = makePolicy("shop", "frontend-egress", {
      podSelector: { matchLabels: { app: "frontend" } },
      policyTypes: ["Egress"],
      egress: [{ to: [{ ipBlock: { cidr: "192.168.10.0/24" } }], ports: [{ protocol: "TCP", port: 30080 }] }],
    });
    expect(tracer([...base, svc, toNodeB])("pod:shop/frontend", "ip:192.168.10.21:30080").verdict).toBe(
      "allow",
    );
    // Its own node's NodePort is rewritten before the packet leaves the node: egress sees the backend.
    expect(tracer([...base, svc, toBackends])("pod:shop/frontend", "ip:192.168.10.11:30080").verdict).toBe(
      "allow",
    );
  });

  it("ingress at each backend: one isolated backend makes the verdict partial, with the deciding rule's line", () => {
    const deny = makePolicy("shop", "deny-b1", {
      podSelector: { matchLabels: { "statefulset.kubernetes.io/pod-name": "backend-1" } },
      policyTypes: ["Ingress"],
    });
    const b1 = makePod("shop", "backend-1", {
      node: "node-b",
      ip: "10.244.2.5",
      labels: { app: "backend", "statefulset.kubernetes.io/pod-name": "backend-1" },
      ports: [{ name: "http", containerPort: 8080 }],
    });
    const t = tracer([
      ...base.filter((o) => (o.metadata as { name: string }).name !== "backend-1"),
      b1,
      backendSvc(),
      deny,
    ])("pod:shop/frontend", "service:shop/backend:80");
    expect(t.verdict).toBe("partial");
    expect(t.endpoints.map((e) => [e.pod, e.verdict, e.probability])).toEqual([
      ["shop/backend-0", "allow", 0.5],
      ["shop/backend-1", "drop", 0.5],
    ]);
    expect(t.reason).toMatch(/^1 of 2 candidate endpoints accept the connection/);
  });

  it("the masquerade trap: an ipBlock rule for the client's range stops matching when kube-proxy SNATs to the node", () => {
    const allowClients = makePolicy("shop", "allow-clients", {
      podSelector: { matchLabels: { app: "backend" } },
      policyTypes: ["Ingress"],
      ingress: [{ from: [{ ipBlock: { cidr: "203.0.113.0/24" } }] }],
    });
    const cluster = tracer([
      ...base,
      backendSvc({
        type: "NodePort",
        ports: [{ name: "http", port: 80, targetPort: "http", nodePort: 30080 }],
      }),
      allowClients,
    ])("external:203.0.113.10@node-a", "service:shop/backend:80");
    expect([cluster.verdict, cluster.sourceIPPreserved, cluster.sourceIP]).toEqual([
      "partial",
      false,
      "192.168.10.11",
    ]);
    // backend-0 runs on node-a, whose address the packet now carries: a pod's own node is always admitted.
    expect(cluster.endpoints.map((e) => [e.pod, e.verdict])).toEqual([
      ["shop/backend-0", "allow"],
      ["shop/backend-1", "drop"],
    ]);
    expect(cluster.endpoints[1]!.ingress.reason).toMatch(
      /shop\/allow-clients ingress rule 1 would admit the client's own address 203\.0\.113\.10, but the packet arrives from 192\.168\.10\.11/,
    );
    const local = tracer([
      ...base,
      backendSvc({
        type: "NodePort",
        externalTrafficPolicy: "Local",
        ports: [{ name: "http", port: 80, targetPort: "http", nodePort: 30080 }],
      }),
      allowClients,
    ])("external:203.0.113.10@node-a", "service:shop/backend:80");
    expect([local.verdict, local.sourceIPPreserved, eps(local)]).toEqual(["allow", true, "10.244.1.5:8080"]);
  });

  it("derived endpoints: a named targetPort resolves per pod, so one Service port reaches different container ports", () => {
    const b1 = makePod("shop", "backend-1", {
      node: "node-b",
      ip: "10.244.2.5",
      labels: { app: "backend" },
      ports: [{ name: "http", containerPort: 9090 }],
    });
    const t = tracer([
      ...base.filter((o) => (o.metadata as { name: string }).name !== "backend-1"),
      b1,
      backendSvc(),
    ])("pod:shop/frontend", "service:shop/backend:http");
    expect(t.endpoints.map((e) => [e.pod, `${e.ip}:${e.port}`, e.node])).toEqual([
      ["shop/backend-0", "10.244.1.5:8080", "node-a"],
      ["shop/backend-1", "10.244.2.5:9090", "node-b"],
    ]);
    expect(t.endpoints[0]!.ref).toMatchObject({ kind: "Pod", name: "backend-0" });
  });

  // k8s.io/api networking/v1 NetworkPolicySpec.ingress: "Traffic is allowed to a pod if there are no NetworkPolicies
  // selecting the pod ..., OR if the traffic source is the pod's local node, OR if the traffic matches at least one
  // ingress rule"; the concept page: "traffic to and from the node where a Pod is running is always allowed".
  describe("the pod's own node is always admitted (NetworkPolicySpec.ingress)", () => {
    const denyAll = makePolicy("shop", "deny-all", { podSelector: {}, policyTypes: ["Ingress"] });
    const agent = makePod("shop", "agent", {
      node: "node-a",
      ip: "192.168.10.11",
      hostNetwork: true,
      labels: { app: "agent" },
    });
    it("a process on node-a reaches a pod on node-a; from node-b it is dropped", () => {
      const t = tracer([...base, denyAll]);
      const same = t("node:node-a", "pod:shop/backend-0:8080");
      expect([same.verdict, same.endpoints[0]!.ingress.isolated]).toEqual(["allow", true]);
      expect(same.endpoints[0]!.ingress.reason).toMatch(
        /own node node-a: a pod.s own node is always admitted/,
      );
      expect(t("node:node-b", "pod:shop/backend-0:8080").verdict).toBe("drop");
    });
    it("a hostNetwork pod on node-a through the Service: masqueraded to node-a, admitted by backend-0 (node-a) only", () => {
      const t = tracer([...base, agent, backendSvc(), denyAll])("pod:shop/agent", "service:shop/backend:80");
      expect(t.verdict).toBe("partial");
      expect(t.endpoints.map((e) => [e.pod, e.sourceIP, e.verdict])).toEqual([
        ["shop/backend-0", "192.168.10.11", "allow"],
        ["shop/backend-1", "192.168.10.11", "drop"],
      ]);
    });
    it("hairpin: a pod reaching itself through its Service is masqueraded to its own node's address and admitted", () => {
      const t = tracer([...base, backendSvc(), denyAll])("pod:shop/backend-0", "service:shop/backend:80");
      expect(t.endpoints.map((e) => [e.pod, e.sourceIP, e.sourceIPPreserved, e.verdict])).toEqual([
        ["shop/backend-0", "192.168.10.11", false, "allow"],
        ["shop/backend-1", "10.244.1.5", true, "drop"],
      ]);
    });
  });

  it("a host-network sender is outside NetworkPolicy at the source and is seen as the node's address at the backend", () => {
    const t = tracer([...base, backendSvc()])("node:node-b", "pod:shop/backend-0:8080");
    expect(t.endpoints[0]).toMatchObject({
      sourceIP: "192.168.10.21",
      sourceIPPreserved: true,
      egress: { isolated: false },
    });
  });
});

describe("loadBalancerSourceRanges: kube-proxy's field and the cloud's annotation", () => {
  const objs = (spec: Obj, annotations?: Record<string, string>) => [
    makeNode("test-node", "192.168.0.2"),
    makePod("ns0", "client", { node: "test-node", ip: "10.0.0.2" }),
    makeService(
      "ns1",
      "svc1",
      {
        type: "LoadBalancer",
        clusterIP: "172.30.0.41",
        ports: [{ name: "p80", port: 80, nodePort: 3001 }],
        ...spec,
      },
      { ...(annotations ? { annotations } : {}), status: { loadBalancer: { ingress: [{ ip: "1.2.3.4" }] } } },
    ),
    makeSlice("ns1", "svc1", "s", [{ name: "p80", port: 80 }], [{ ip: "10.180.0.1", node: "test-node" }]),
  ];
  const annotated = tracer(
    objs({}, { "service.beta.kubernetes.io/load-balancer-source-ranges": "203.0.113.0/25" }),
  );

  it("the annotation is enforced by the cloud load balancer for external clients (cloud-provider GetLoadBalancerSourceRanges), before any node", () => {
    const blocked = annotated("external:203.0.113.130@test-node", "service:ns1/svc1:80");
    expect([blocked.verdict, blocked.kubeProxy]).toEqual(["drop", null]);
    expect(blocked.hops.find((h) => h.step === "loadBalancerSourceRanges")).toMatchObject({
      verdict: "drop",
      ref: { field: "metadata.annotations[service.beta.kubernetes.io/load-balancer-source-ranges]" },
    });
    expect(annotated("external:203.0.113.2@test-node", "service:ns1/svc1:80").verdict).toBe("allow");
  });

  it("pods reach the LoadBalancer IP through kube-proxy, which programs no firewall for the annotation (serviceport.go reads the field only)", () => {
    const t = annotated("pod:ns0/client", "ip:1.2.3.4:80");
    expect([t.verdict, eps(t)]).toEqual(["allow", "10.180.0.1:80"]);
    expect(t.hops.find((h) => h.step === "loadBalancerSourceRanges")).toMatchObject({ verdict: "pass" });
  });

  it("a load balancer kube-proxy does not capture (ipMode Proxy) filters external clients itself: the field applies there, not at kube-proxy", () => {
    const proxied = objs({ loadBalancerSourceRanges: ["203.0.113.0/25"] });
    (proxied[2] as { status: Obj }).status = {
      loadBalancer: { ingress: [{ ip: "1.2.3.4", ipMode: "Proxy" }] },
    };
    const t = tracer(proxied)("external:203.0.113.130@test-node", "service:ns1/svc1:80");
    expect([t.verdict, t.kubeProxy]).toEqual(["drop", null]);
    expect(t.hops.find((h) => h.step === "loadBalancerSourceRanges")).toMatchObject({
      verdict: "drop",
      ref: { field: "spec.loadBalancerSourceRanges" },
    });
    expect(tracer(proxied)("external:203.0.113.2@test-node", "service:ns1/svc1:80").verdict).toBe("allow");
  });

  it("the field is kube-proxy's firewall: pods are filtered too (TestLoadBalancer 'pod to LB1 (blocked by LoadBalancerSourceRanges)')", () => {
    const t = tracer(objs({ loadBalancerSourceRanges: ["203.0.113.0/25"] }))(
      "pod:ns0/client",
      "ip:1.2.3.4:80",
    );
    expect(t.verdict).toBe("drop");
    expect(t.hops.find((h) => h.step === "loadBalancerSourceRanges")).toMatchObject({
      verdict: "drop",
      ref: { field: "spec.loadBalancerSourceRanges" },
    });
  });
});

describe("Services kube-proxy does not handle", () => {
  const objs = [
    makeNode("node-a", "192.168.10.11", { podCIDR: "10.244.1.0/24" }),
    makePod("db", "client", { node: "node-a", ip: "10.244.1.20" }),
    makePod("db", "pg-0", {
      node: "node-a",
      ip: "10.244.1.5",
      labels: { app: "pg" },
      ports: [{ name: "pg", containerPort: 5432 }],
    }),
    makePod("db", "pg-1", {
      node: "node-a",
      ip: "10.244.1.6",
      labels: { app: "pg" },
      ready: false,
      ports: [{ name: "pg", containerPort: 5432 }],
    }),
    makeService("db", "pg", {
      clusterIP: "None",
      selector: { app: "pg" },
      ports: [{ name: "pg", port: 5432, targetPort: "pg" }],
    }),
    makeService("db", "web", {
      clusterIP: "10.96.0.80",
      selector: { app: "pg" },
      ports: [{ name: "x", port: 80, targetPort: 5432 }],
    }),
    makeService("db", "alias", { type: "ExternalName", externalName: "pg.db.svc.cluster.local" }),
    makeService("db", "outside", { type: "ExternalName", externalName: "db.example.com" }),
  ];
  const trace = tracer(objs);
  it("headless: DNS hands out the ready pod IPs and the client connects directly, port untranslated", () => {
    const t = trace("pod:db/client", "service:db/pg:5432");
    expect([t.verdict, eps(t), t.service?.frontend, t.kubeProxy]).toEqual([
      "allow",
      "10.244.1.5:5432",
      "headless",
      null,
    ]);
    expect(t.hops.find((h) => h.step === "dns")?.detail).toMatch(/kube-proxy is not involved/);
  });
  it("ExternalName naming an in-cluster Service is followed through its CNAME", () => {
    const t = trace("pod:db/client", "service:db/alias:5432");
    expect([t.verdict, eps(t)]).toEqual(["allow", "10.244.1.5:5432"]);
    expect(t.hops.filter((h) => h.step === "dns")).toHaveLength(2);
  });
  it("ExternalName outside the cluster: nothing is proxied and no endpoint is in the model", () => {
    const t = trace("pod:db/client", "service:db/outside:443");
    expect([t.verdict, t.endpoints]).toEqual(["drop", []]);
    expect(t.reason).toMatch(/ExternalName \(a DNS alias for db\.example\.com\)/);
  });
  it("a ClusterIP-only Service is not reachable from outside", () => {
    const t = trace("external:203.0.113.9@node-a", "service:db/web:80");
    expect([t.verdict, t.endpoints]).toEqual(["drop", []]);
  });
  it("a ClusterIP port the Service does not define is dropped (nftables: cluster-ips-check rejects it)", () => {
    expect(trace("pod:db/client", "ip:10.96.0.80:81").verdict).toBe("drop");
  });
  it("a hostPort on the node's address reaches the pod through the CNI portmap DNAT", () => {
    const t = tracer([
      ...objs,
      makePod("db", "hp", {
        node: "node-a",
        ip: "10.244.1.9",
        ports: [{ containerPort: 8080, hostPort: 18080 }],
      }),
    ])("external:203.0.113.9@node-a", "ip:192.168.10.11:18080");
    expect([t.verdict, eps(t), t.endpoints[0]!.pod]).toEqual(["allow", "10.244.1.9:8080", "db/hp"]);
  });
});

describe("the explanation names what decided, as kube-proxy itself would", () => {
  const objs = [
    makeNode("node-a", "192.168.10.11"),
    makePod("shop", "web-0", {
      node: "node-a",
      ip: "10.244.1.5",
      labels: { app: "web" },
      ports: [{ name: "http", containerPort: 8080 }],
    }),
    makePod("shop", "web-1", { node: "node-a", ip: "10.244.1.6", labels: { app: "other" }, ready: false }),
    makeService("shop", "web", {
      selector: { app: "web" },
      clusterIP: "10.96.0.50",
      ports: [{ name: "http", port: 80, targetPort: "http" }],
    }),
    makeService("shop", "down", {
      selector: { app: "other" },
      clusterIP: "10.96.0.51",
      ports: [{ name: "http", port: 80 }],
    }),
  ];
  const trace = tracer(objs);
  it("the kube-proxy hop says which policy applied (defaulted or written) and which EndpointSlice the endpoints come from", () => {
    const hop = trace("node:node-a", "service:shop/web:80").hops.find((h) => h.step === "kube-proxy")!;
    expect(hop.detail).toMatch(
      /internalTrafficPolicy Cluster \(the default\): 1 ready endpoint cluster-wide/,
    );
    expect(hop.detail).toMatch(
      /endpoints from EndpointSlice shop\/web-\w+, derived from the selector app=web as the EndpointSlice controller would/,
    );
  });
  it("a REJECT names the endpoints that cannot serve, the pod condition that decided and kube-proxy's rule comment", () => {
    const t = trace("node:node-a", "service:shop/down:80");
    const hop = t.hops.find((h) => h.step === "kube-proxy")!;
    expect(hop.detail).toBe(
      'kube-proxy on node-a REJECTs the packet: Service shop/down has no usable endpoint for port http (80/TCP): 10.244.1.6 (shop/web-1) is not ready; kube-proxy\'s rule: "shop/down:http has no endpoints" REJECT',
    );
    expect(hop.ref).toMatchObject({ kind: "Pod", name: "web-1", field: "status.conditions" });
  });
  it("hints the EndpointSlice controller derived point at the Service field that asked for them, not at a pod", () => {
    const t = tracer([
      ...objs,
      makeService("shop", "near", {
        selector: { app: "web" },
        clusterIP: "10.96.0.52",
        trafficDistribution: "PreferSameNode",
        ports: [{ name: "http", port: 80, targetPort: "http" }],
      }),
    ]);
    const hop = t("node:node-a", "service:shop/near:80").hops.find((h) => h.step === "kube-proxy")!;
    expect(hop.detail).toMatch(
      /^kube-proxy on node-a \(no zone label\): topology hints \(PreferSameNode\): every ready endpoint has a node hint/,
    );
    expect(hop.ref).toMatchObject({ kind: "Service", name: "near", field: "spec.trafficDistribution" });
  });
  it("topology-mode Auto that yields no hints says why (the topology cache's event), at the annotation", () => {
    const t = tracer([
      ...objs,
      makeService(
        "shop",
        "auto",
        {
          selector: { app: "web" },
          clusterIP: "10.96.0.53",
          ports: [{ name: "http", port: 80, targetPort: "http" }],
        },
        { annotations: { "service.kubernetes.io/topology-mode": "Auto" } },
      ),
    ]);
    const hop = t("node:node-a", "service:shop/auto:80").hops.find((h) => h.step === "kube-proxy")!;
    expect(hop.detail).toMatch(
      /; topology-mode Auto: the EndpointSlice controller set no hints \(Insufficient Node information: allocatable CPU or zone not specified on one or more nodes/,
    );
    expect(hop.ref).toMatchObject({
      kind: "Service",
      name: "auto",
      field: "metadata.annotations (topology mode)",
    });
  });
  it("a node masqueraded to its own address is not described as losing the client's address", () => {
    const hop = trace("node:node-a", "service:shop/web:80").hops.find((h) => h.step === "source address")!;
    expect(hop.detail).toMatch(/the sender is node-a itself, so backends see 192\.168\.10\.11 either way$/);
  });
});

describe("trace query syntax (shared/contract/ktl-cli.md)", () => {
  it.each<[string, unknown]>([
    ["pod:shop/frontend-0", { kind: "pod", pod: "shop/frontend-0" }],
    ["node:node-a", { kind: "node", node: "node-a" }],
    ["external:203.0.113.10@node-b", { kind: "external", ip: "203.0.113.10", node: "node-b" }],
    ["external:[2001:db8::1]@node-b", { kind: "external", ip: "2001:db8::1", node: "node-b" }],
    ["external:nonsense@node-b", { error: expect.stringContaining("external:IP@NODE") }],
    ["svc:x/y", { error: expect.stringContaining("expected pod:NAMESPACE/NAME") }],
  ])("--from %s", (text, want) => {
    expect(parseTraceSource(text)).toEqual(want);
  });
  it.each<[string, unknown]>([
    ["service:shop/web:80", { kind: "service", service: "shop/web", port: 80 }],
    ["service:shop/web:http", { kind: "service", service: "shop/web", port: "http" }],
    ["pod:shop/web-0:8080", { kind: "pod", pod: "shop/web-0", port: 8080 }],
    ["ip:10.96.0.10:53", { kind: "ip", ip: "10.96.0.10", port: 53 }],
    ["ip:[fd00:10:96::a]:443", { kind: "ip", ip: "fd00:10:96::a", port: 443 }],
    ["ip:fd00:10:96::a:443", { kind: "ip", ip: "fd00:10:96::a", port: 443 }],
    ["ip:10.96.0.10:http", { error: expect.stringContaining("ip:ADDRESS:PORT") }],
    ["service:shop/web:70000", { error: expect.stringContaining("service:NAMESPACE/NAME:PORT") }],
  ])("--to %s", (text, want) => {
    expect(parseTraceDestination(text)).toEqual(want);
  });
  it("an unknown pod is an error, not a verdict", () => {
    expect(tracer([makeNode("n", "192.168.0.2")])("pod:x/y", "ip:10.0.0.1:80").error).toBe(
      "--from pod:x/y: no pod x/y in the input",
    );
  });
});

describe("DNS is part of the path (trace/dns.ts): a pod asking for a Service by name looks it up through the cluster DNS Service first", () => {
  const fixture = readFileSync(
    join(
      import.meta.dirname,
      "../../../scenarios/fixtures/why-frontend-cannot-reach-payments/manifests.yaml",
    ),
    "utf8",
  );
  const m = loadModel([{ name: "manifests.yaml", text: fixture }]);
  const px = buildProxyIndex(m);
  it("a lookup that egress policy drops is the verdict, with the policy's cause and its near miss", () => {
    const t = traceRequest(m, px, "pod:payments/payments-k79vf8n2xv-2nps5", "service:checkout/checkout:80");
    expect(t.verdict).toBe("drop");
    expect(t.reason).toMatch(
      /^dropped at DNS: the lookup of checkout\.checkout\.svc\.cluster\.local through kube-system\/kube-dns fails/,
    );
    const dns = t.hops.find((h) => h.step === "dns")!;
    expect(dns.verdict).toBe("drop");
    expect(dns.cause).toMatchObject({ layer: "NetworkPolicy", direction: "egress", category: "denied" });
    expect(dns.cause.layer === "NetworkPolicy" && dns.cause.nearMisses?.[0]?.text).toContain(
      "namespace kube-system has label `name=kube-system`",
    );
    expect(t.endpoints).toEqual([]);
    // By address there is no lookup: egress rule 2 allows the call itself.
    const ip = t.to.ip || traceRequest(m, px, "node:node-a", "service:checkout/checkout:80").to.ip;
    expect(traceRequest(m, px, "pod:payments/payments-k79vf8n2xv-2nps5", `ip:${ip}:80`).verdict).toBe(
      "allow",
    );
  });
  it("a lookup that passes is a hop; hostNetwork senders, nodes and the DNS Service itself do no lookup", () => {
    const t = traceRequest(m, px, "pod:checkout/checkout-clhttt4lm4-z2gp8", "service:payments/payments:8443");
    expect(t.verdict).toBe("allow");
    expect(t.hops.map((h) => `${h.step}:${h.verdict}`).slice(0, 3)).toEqual([
      "source:info",
      "dns:pass",
      "destination:pass",
    ]);
    expect(
      traceRequest(m, px, "node:node-a", "service:payments/payments:8443").hops.some((h) => h.step === "dns"),
    ).toBe(false);
    expect(
      traceRequest(
        m,
        px,
        "pod:web/frontend-5z9smncpq2-prk7w",
        "service:kube-system/kube-dns:53",
        "UDP",
      ).hops.some((h) => h.step === "dns"),
    ).toBe(false);
  });
  it("an input without a DNS Service says which DNS was assumed", () => {
    const shop = loadModel([
      {
        name: "m.yaml",
        text: readFileSync(
          join(import.meta.dirname, "../../../scenarios/01-trace-a-shop-across-zones/manifests.yaml"),
          "utf8",
        ),
      },
    ]);
    const t = traceRequest(shop, buildProxyIndex(shop), "pod:shop/frontend-0", "service:shop/backend:80");
    expect(t.hops.some((h) => h.step === "dns")).toBe(false);
    expect(t.hops.find((h) => h.step === "destination")!.detail).toContain(
      "the input has no cluster DNS Service: kube-system/kube-dns is assumed to answer, not evaluated",
    );
  });
});
