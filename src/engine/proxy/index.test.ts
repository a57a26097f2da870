import { describe, expect, it } from "vitest";
import {
  buildProxyIndex,
  checkSourceRanges,
  chooseEndpoints,
  healthCheck,
  loadBalancerHealth,
  portTraits,
  type ProxyDecision,
  type ProxyRequest,
} from "./index.ts";
import { makeNode, makeService, makeSlice, modelOf } from "../testing/fixtures.ts";

const nodes = [
  makeNode("test-node", "192.168.0.2", { zone: "zone-a" }),
  makeNode("host1", "192.168.0.3", { zone: "zone-b" }),
];
const p80 = [{ name: "p80", port: 80 }];

function decide(
  objects: Record<string, unknown>[],
  req: Partial<ProxyRequest> & { service: string },
): ProxyDecision {
  const index = buildProxyIndex(modelOf([...nodes, ...objects]));
  const d = chooseEndpoints(index, {
    port: 80,
    node: "test-node",
    frontend: "clusterIP",
    origin: "pod",
    ...req,
  });
  if ("error" in d) throw new Error(d.error);
  return d;
}
const keys = (d: ProxyDecision) => d.candidates.map((c) => c.key);

describe("internalTrafficPolicy (nftables proxier_test.go TestInternalTrafficPolicy)", () => {
  const eps = [
    { ip: "10.0.1.1", node: "test-node" },
    { ip: "10.0.1.2", node: "test-node" },
    { ip: "10.0.1.3", node: "host1" },
  ];
  const svc = (itp: string) =>
    makeService("ns1", "svc1", {
      clusterIP: "172.30.1.1",
      internalTrafficPolicy: itp,
      ports: [{ name: "", port: 80 }],
    });
  it.each<[string, string, { ip: string; node: string }[], string[], ProxyDecision["action"]]>([
    [
      "internalTrafficPolicy is cluster",
      "Cluster",
      eps,
      ["10.0.1.1:80", "10.0.1.2:80", "10.0.1.3:80"],
      "forward",
    ],
    [
      "internalTrafficPolicy is local and there is one local endpoint",
      "Local",
      [eps[0]!, eps[2]!],
      ["10.0.1.1:80"],
      "forward",
    ],
    [
      "internalTrafficPolicy is local and there are multiple local endpoints",
      "Local",
      eps,
      ["10.0.1.1:80", "10.0.1.2:80"],
      "forward",
    ],
    [
      "internalTrafficPolicy is local and there are no local endpoints (output DROP)",
      "Local",
      [eps[2]!],
      [],
      "drop",
    ],
  ])("%s", (_, itp, endpoints, want, action) => {
    const d = decide([svc(itp), makeSlice("ns1", "svc1", "svc1-1", [{ name: "", port: 80 }], endpoints)], {
      service: "ns1/svc1",
    });
    expect(keys(d)).toEqual(want);
    expect(d.action).toBe(action);
    if (action === "drop")
      expect(d.reason).toBe(
        'Service ns1/svc1 has internalTrafficPolicy Local and test-node has no ready (or serving terminating) endpoint of its own; kube-proxy\'s rule: "ns1/svc1 has no local endpoints" DROP',
      );
  });
});

describe("IPVS mode: a Local policy without local endpoint falls back to the cluster endpoints (pkg/proxy/ipvs/proxier.go syncEndpoint, PR #97081)", () => {
  const remote = [{ ip: "10.0.1.3", node: "host1" }];
  const slice = makeSlice("ns1", "svc1", "svc1-1", [{ name: "p80", port: 80 }], remote);
  const etp = makeService("ns1", "svc1", {
    clusterIP: "172.30.1.1",
    type: "NodePort",
    externalTrafficPolicy: "Local",
    internalTrafficPolicy: "Local",
    ports: [{ name: "p80", port: 80, nodePort: 3001 }],
  });
  it("ClusterIP from a pod: iptables drops, IPVS forwards to the cluster endpoint", () => {
    expect(decide([etp, slice], { service: "ns1/svc1" }).action).toBe("drop");
    const d = decide([etp, slice], { service: "ns1/svc1", mode: "ipvs" });
    expect([d.action, keys(d)]).toEqual(["forward", ["10.0.1.3:80"]]);
    expect(d.reason).toMatch(/PR #97081/);
  });
  it("NodePort from an external client: forwarded unmasqueraded, so the reply is lost (a drop, with the reason)", () => {
    const d = decide([etp, slice], {
      service: "ns1/svc1",
      frontend: "nodePort",
      origin: "external",
      mode: "ipvs",
    });
    expect(d.action).toBe("drop");
    expect(d.reason).toMatch(/client discards it/);
  });
  it("the mode comes from the input's KubeProxyConfiguration", () => {
    const model = modelOf([...nodes, etp, slice]);
    model.proxyConfiguration = { mode: "ipvs" };
    const d = chooseEndpoints(buildProxyIndex(model), {
      service: "ns1/svc1",
      port: 80,
      node: "test-node",
      frontend: "clusterIP",
      origin: "pod",
    });
    expect("error" in d ? d.error : d.action).toBe("forward");
  });
  it("ClusterIP-only Service with internalTrafficPolicy Local: no cluster list to fall back to (CategorizeEndpoints), so it still drops", () => {
    const itp = makeService("ns1", "svc1", {
      clusterIP: "172.30.1.1",
      internalTrafficPolicy: "Local",
      ports: [{ name: "p80", port: 80 }],
    });
    expect(decide([itp, slice], { service: "ns1/svc1", mode: "ipvs" }).action).toBe("drop");
  });
});

describe('REJECT when no endpoint is usable anywhere (iptables proxier.go syncProxyRules: "has no endpoints")', () => {
  const svc = makeService("ns1", "svc1", {
    clusterIP: "172.30.0.42",
    type: "LoadBalancer",
    externalTrafficPolicy: "Local",
    healthCheckNodePort: 30000,
    ports: [{ name: "p80", port: 80, nodePort: 3001 }],
  });
  it("a Service without endpoints rejects ClusterIP and NodePort traffic alike (TestHealthCheckNodePort rules)", () => {
    for (const frontend of ["clusterIP", "nodePort"] as const) {
      const d = decide([svc], { service: "ns1/svc1", frontend, origin: "external" });
      expect(d.action).toBe("reject");
      expect(d.candidates).toEqual([]);
    }
  });
  it("endpoints that are neither ready nor serving-terminating do not count (TestCategorizeEndpoints 'Cluster traffic policy, endpoints not Ready')", () => {
    const d = decide(
      [
        svc,
        makeSlice("ns1", "svc1", "s", p80, [
          { ip: "10.0.0.0", ready: false, serving: false },
          { ip: "10.0.0.1", ready: false, serving: true },
          { ip: "10.0.0.2", ready: false, serving: false, terminating: true },
        ]),
      ],
      { service: "ns1/svc1" },
    );
    expect(d.action).toBe("reject");
    // The rule comment is iptables/nftables syncProxyRules' "%s has no endpoints" with the ServicePortName.
    expect(d.reason).toBe(
      'Service ns1/svc1 has no usable endpoint for port p80 (80/TCP): 10.0.0.0 is not ready, 10.0.0.1 is not ready and not terminating (serving alone is no fallback), 10.0.0.2 is terminating and no longer serving; kube-proxy\'s rule: "ns1/svc1:p80 has no endpoints" REJECT',
    );
    expect(d.decidedBy).toMatchObject({ kind: "EndpointSlice", field: "conditions" });
  });
  it("a port with no endpoints at all names the rule kube-proxy writes", () => {
    expect(decide([svc], { service: "ns1/svc1", frontend: "nodePort", origin: "external" }).reason).toBe(
      'Service ns1/svc1 has no endpoints for port p80 (80/TCP); kube-proxy\'s rule: "ns1/svc1:p80 has no endpoints" REJECT',
    );
  });
  it("ETP Local with remote endpoints only: DROP for external traffic, but pods still reach the cluster-wide endpoints (short-circuit)", () => {
    const objs = [svc, makeSlice("ns1", "svc1", "s", p80, [{ ip: "10.180.1.2", node: "host1" }])];
    expect(decide(objs, { service: "ns1/svc1", frontend: "nodePort", origin: "external" }).action).toBe(
      "drop",
    );
    const pod = decide(objs, { service: "ns1/svc1", frontend: "nodePort", origin: "pod" });
    expect([pod.action, pod.shortCircuit, pod.masquerade, keys(pod)]).toEqual([
      "forward",
      "pod",
      false,
      ["10.180.1.2:80"],
    ]);
  });
});

describe("terminating endpoints (iptables proxier_test.go TestTerminatingEndpointsTrafficPolicyLocal/Cluster)", () => {
  const svc = makeService(
    "ns1",
    "svc1",
    {
      clusterIP: "172.30.1.1",
      type: "LoadBalancer",
      externalTrafficPolicy: "Local",
      ports: [{ name: "p80", port: 80, nodePort: 30010 }],
    },
    { status: { loadBalancer: { ingress: [{ ip: "1.2.3.4" }] } } },
  );
  const local = (
    over: Partial<{ ready: boolean; serving: boolean; terminating: boolean }>,
    ip: string,
    node = "test-node",
  ) => ({ ip, node, ...over });
  it.each<[string, ReturnType<typeof local>[], string[], ProxyDecision["category"]]>([
    [
      "ready endpoints exist: terminating ones are not used",
      [
        local({ ready: true }, "10.0.1.1"),
        local({ ready: false, serving: true, terminating: true }, "10.0.1.2"),
      ],
      ["10.0.1.1:80"],
      "local",
    ],
    [
      "only serving terminating local endpoints: they are used",
      [
        local({ ready: false, serving: true, terminating: true }, "10.0.1.1"),
        local({ ready: false, serving: false, terminating: true }, "10.0.1.2"),
        local({ ready: true }, "10.0.1.5", "host1"),
      ],
      ["10.0.1.1:80"],
      "local-terminating",
    ],
    [
      "no usable local endpoint, only a remote ready one: DROP",
      [
        local({ ready: false, serving: false, terminating: true }, "10.0.1.1"),
        local({ ready: true }, "10.0.1.5", "host1"),
      ],
      [],
      "none",
    ],
  ])("external traffic, externalTrafficPolicy Local: %s", (_, eps, want, category) => {
    const d = decide([svc, makeSlice("ns1", "svc1", "s", p80, eps)], {
      service: "ns1/svc1",
      frontend: "loadBalancer",
      origin: "external",
    });
    expect(keys(d)).toEqual(want);
    expect(d.category).toBe(category);
  });
});

describe("kube-proxy's endpoint list (endpointslicecache.go)", () => {
  const svc = makeService("ns1", "svc1", {
    clusterIP: "172.30.0.41",
    ports: [
      { name: "http", port: 80 },
      { name: "https", port: 443 },
    ],
  });
  it("groups by the slice port's name: each Service port gets its own target port (TestClusterIPGeneral 'clusterIP with TargetPort')", () => {
    const slice = makeSlice(
      "ns1",
      "svc1",
      "s",
      [
        { name: "http", port: 8080 },
        { name: "https", port: 8443 },
      ],
      [{ ip: "10.180.0.1" }],
    );
    expect(keys(decide([svc, slice], { service: "ns1/svc1", port: 443 }))).toEqual(["10.180.0.1:8443"]);
    expect(keys(decide([svc, slice], { service: "ns1/svc1", port: "http" }))).toEqual(["10.180.0.1:8080"]);
  });
  it("a slice port whose name matches no Service port serves nothing; a port without a number is ignored", () => {
    const slices = [
      makeSlice("ns1", "svc1", "a", [{ name: "web", port: 8080 }], [{ ip: "10.180.0.1" }]),
      makeSlice("ns1", "svc1", "b", [{ name: "http" }], [{ ip: "10.180.0.2" }]),
    ];
    expect(decide([svc, ...slices], { service: "ns1/svc1" }).action).toBe("reject");
  });
  it('sorts by "ip:port" as a string, as the seed dump\'s KUBE-SVC chain lists them (.148, .29, .41, .73)', () => {
    const slice = makeSlice(
      "ns1",
      "svc1",
      "s",
      [{ name: "http", port: 8080 }],
      ["10.240.0.73", "10.240.0.29", "10.240.0.148", "10.240.0.41"].map((ip) => ({ ip })),
    );
    const d = decide([svc, slice], { service: "ns1/svc1" });
    expect(keys(d)).toEqual([
      "10.240.0.148:8080",
      "10.240.0.29:8080",
      "10.240.0.41:8080",
      "10.240.0.73:8080",
    ]);
    expect(d.candidates.map((c) => c.probability)).toEqual([0.25, 0.25, 0.25, 0.25]);
  });
  it("keeps one endpoint per ip:port across slices, uses only the first address, and only the proxier's family", () => {
    const a = makeSlice("ns1", "svc1", "a", [{ name: "http", port: 8080 }], [{ ip: "10.180.0.1" }]);
    const b = makeSlice(
      "ns1",
      "svc1",
      "b",
      [{ name: "http", port: 8080 }],
      [{ ip: "10.180.0.1" }, { ip: "fd00::5" }],
    );
    const multi = makeSlice("ns1", "svc1", "c", [{ name: "http", port: 8080 }], []);
    (multi.endpoints as unknown[]).push({ addresses: ["10.180.0.9", "10.180.0.10"] });
    expect(keys(decide([svc, a, b, multi], { service: "ns1/svc1" }))).toEqual([
      "10.180.0.1:8080",
      "10.180.0.9:8080",
    ]);
  });
  it("ignores a slice without the kubernetes.io/service-name label", () => {
    const slice = makeSlice("ns1", "svc1", "s", [{ name: "http", port: 8080 }], [{ ip: "10.180.0.1" }]);
    (slice.metadata as { labels: Record<string, string> }).labels = {};
    const model = modelOf([...nodes, svc, slice]);
    expect(model.diagnostics.map((d) => d.code)).toContain("KTL301");
    const d = chooseEndpoints(buildProxyIndex(model), {
      service: "ns1/svc1",
      port: 80,
      node: "test-node",
      frontend: "clusterIP",
      origin: "pod",
    });
    expect("error" in d ? d.error : d.action).toBe("reject");
  });
});

describe("service port traits (serviceport.go, pkg/api/v1/service ExternalPolicyLocal)", () => {
  it("externalTrafficPolicy is ignored on a Service that is not externally accessible (TestCategorizeEndpoints 'externalTrafficPolicy ignored if not externally accessible')", () => {
    const model = modelOf([
      ...nodes,
      makeService("ns1", "svc1", { clusterIP: "172.30.0.41", externalTrafficPolicy: "Local", ports: p80 }),
    ]);
    const s = model.services[0]!;
    expect(portTraits(s, s.ports[0]!, 4)).toEqual({
      internalPolicyLocal: false,
      externalPolicyLocal: false,
      externallyAccessible: false,
    });
  });
  it("a ClusterIP Service with externalIPs is externally accessible, so Local applies to its external IPs", () => {
    const model = modelOf([
      ...nodes,
      makeService("ns1", "svc1", {
        clusterIP: "172.30.0.41",
        externalIPs: ["192.168.99.11"],
        externalTrafficPolicy: "Local",
        ports: p80,
      }),
    ]);
    const s = model.services[0]!;
    expect(portTraits(s, s.ports[0]!, 4)).toEqual({
      internalPolicyLocal: false,
      externalPolicyLocal: true,
      externallyAccessible: true,
    });
  });
  it("headless and ExternalName Services are skipped (proxy/util ShouldSkipService)", () => {
    const index = buildProxyIndex(
      modelOf([
        ...nodes,
        makeService("ns1", "h", { clusterIP: "None", ports: p80 }),
        makeService("ns1", "x", { type: "ExternalName", externalName: "example.com" }),
      ]),
    );
    for (const service of ["ns1/h", "ns1/x"])
      expect(
        chooseEndpoints(index, {
          service,
          port: 80,
          node: "test-node",
          frontend: "clusterIP",
          origin: "pod",
        }),
      ).toHaveProperty("error");
  });
  it("a Proxy-mode load balancer IP is not captured by kube-proxy (serviceport.go: VIP mode only)", () => {
    const index = buildProxyIndex(
      modelOf([
        ...nodes,
        makeService(
          "ns1",
          "svc1",
          {
            type: "LoadBalancer",
            clusterIP: "172.30.0.41",
            ports: [{ name: "p80", port: 80, nodePort: 3001 }],
          },
          { status: { loadBalancer: { ingress: [{ ip: "1.2.3.4", ipMode: "Proxy" }] } } },
        ),
      ]),
    );
    expect(index.byLoadBalancerIP.has("1.2.3.4")).toBe(false);
    expect(
      chooseEndpoints(index, {
        service: "ns1/svc1",
        port: 80,
        node: "test-node",
        frontend: "loadBalancer",
        origin: "external",
      }),
    ).toHaveProperty("error");
  });
  it("sessionAffinity ClientIP keeps every candidate and carries the timeout (nftables TestOverallNFTablesRules svc5)", () => {
    const svc = makeService("ns5", "svc5", {
      clusterIP: "172.30.0.45",
      sessionAffinity: "ClientIP",
      sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } },
      ports: p80,
    });
    const d = decide(
      [svc, makeSlice("ns5", "svc5", "s", p80, [{ ip: "10.180.0.3" }, { ip: "10.180.0.4" }])],
      { service: "ns5/svc5" },
    );
    expect(d.sessionAffinity).toEqual({ type: "ClientIP", timeoutSeconds: 10800 });
    expect(keys(d)).toEqual(["10.180.0.3:80", "10.180.0.4:80"]);
  });
  it("a pod reaching itself through the Service is masqueraded (endpoint chain: -s endpointIP -j KUBE-MARK-MASQ)", () => {
    const svc = makeService("ns1", "svc1", { clusterIP: "172.30.0.41", ports: p80 });
    const d = decide(
      [svc, makeSlice("ns1", "svc1", "s", p80, [{ ip: "10.180.0.1" }, { ip: "10.180.0.2" }])],
      { service: "ns1/svc1", sourceIP: "10.180.0.1" },
    );
    expect(d.masquerade).toBe(false);
    expect(d.candidates.map((c) => [c.key, c.masquerade])).toEqual([
      ["10.180.0.1:80", true],
      ["10.180.0.2:80", false],
    ]);
  });
});

describe("LoadBalancer health checks (pkg/proxy/healthcheck, EndpointsMap.LocalReadyEndpoints)", () => {
  const svc = makeService(
    "ns1",
    "svc1",
    {
      type: "LoadBalancer",
      clusterIP: "172.30.0.41",
      externalTrafficPolicy: "Local",
      healthCheckNodePort: 30000,
      ports: [
        { name: "http", port: 80, nodePort: 3001 },
        { name: "https", port: 443, nodePort: 3002 },
      ],
    },
    { status: { loadBalancer: { ingress: [{ ip: "1.2.3.4" }] } } },
  );
  const slice = makeSlice(
    "ns1",
    "svc1",
    "s",
    [
      { name: "http", port: 8080 },
      { name: "https", port: 8443 },
    ],
    [
      { ip: "10.180.0.1", node: "test-node" },
      { ip: "10.180.0.2", node: "host1", ready: false, serving: true, terminating: true },
    ],
  );
  const index = buildProxyIndex(modelOf([...nodes, svc, slice]));
  it("counts unique local Ready IPs over all ports (10.180.0.1:8080 and :8443 are one endpoint)", () => {
    expect(healthCheck(index, "ns1/svc1", "test-node")).toEqual({
      node: "test-node",
      port: 30000,
      localEndpoints: 1,
      healthy: true,
      status: 200,
    });
  });
  it('a node whose only local endpoint is terminating answers 503 ("the health check signal should fail if there are only terminating endpoints on a node")', () => {
    expect(healthCheck(index, "ns1/svc1", "host1")).toMatchObject({
      localEndpoints: 0,
      healthy: false,
      status: 503,
    });
    expect(
      loadBalancerHealth(index, "ns1/svc1")
        .filter((h) => h.healthy)
        .map((h) => h.node),
    ).toEqual(["test-node"]);
  });
  it("no health check without externalTrafficPolicy Local (pkg/api/v1/service NeedsHealthCheck)", () => {
    const other = buildProxyIndex(
      modelOf([
        ...nodes,
        makeService("ns1", "c", { type: "LoadBalancer", clusterIP: "172.30.0.44", ports: p80 }),
      ]),
    );
    expect(healthCheck(other, "ns1/c", "test-node")).toBeUndefined();
  });
});

describe("loadBalancerSourceRanges (iptables proxier_test.go TestLoadBalancer)", () => {
  const model = modelOf([
    makeNode("test-node", "192.168.0.2"),
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
  ]);
  const s = model.services[0]!;
  const node = model.nodesByName.get("test-node")!;
  it.each<[string, string, boolean]>([
    ["accepted external to LB1", "203.0.113.2", true],
    ["blocked external to LB1", "203.0.113.130", false],
    ["pod to LB1 (blocked by LoadBalancerSourceRanges)", "10.0.0.2", false],
    ["node to LB1 (allowed by LoadBalancerSourceRanges)", "192.168.0.2", true],
    ["same node to LB1, SNATted to LB1 (implicitly allowed)", "1.2.3.4", true],
  ])("%s", (_, source, allowed) => {
    expect(checkSourceRanges(s, source, node)?.allowed).toBe(allowed);
  });

  it("only the ranges of the proxier's family count: an IPv6-only list programs no IPv4 firewall (serviceport.go MapCIDRsByIPFamily)", () => {
    const v6 = modelOf([
      makeNode("test-node", "192.168.0.2"),
      makeService(
        "ns1",
        "svc1",
        {
          type: "LoadBalancer",
          clusterIP: "172.30.0.41",
          loadBalancerSourceRanges: ["2001:db8::/64"],
          ports: [{ name: "p80", port: 80, nodePort: 3001 }],
        },
        { status: { loadBalancer: { ingress: [{ ip: "1.2.3.4" }] } } },
      ),
    ]);
    expect(
      checkSourceRanges(v6.services[0]!, "203.0.113.130", v6.nodesByName.get("test-node")),
    ).toBeUndefined();
  });

  it("the annotation alone programs no firewall in kube-proxy (serviceport.go reads spec.loadBalancerSourceRanges only)", () => {
    const annotated = modelOf([
      makeNode("test-node", "192.168.0.2"),
      makeService(
        "ns1",
        "svc1",
        {
          type: "LoadBalancer",
          clusterIP: "172.30.0.41",
          ports: [{ name: "p80", port: 80, nodePort: 3001 }],
        },
        {
          annotations: { "service.beta.kubernetes.io/load-balancer-source-ranges": "203.0.113.0/25" },
          status: { loadBalancer: { ingress: [{ ip: "1.2.3.4" }] } },
        },
      ),
    ]);
    expect(
      checkSourceRanges(annotated.services[0]!, "10.0.0.2", annotated.nodesByName.get("test-node")),
    ).toBeUndefined();
  });

  it("allowFromNode looks at kube-proxy's node IP (the primary InternalIP), not every address of the node", () => {
    const m = modelOf([
      {
        ...makeNode("test-node", "192.168.0.2"),
        status: {
          addresses: [
            { type: "InternalIP", address: "192.168.0.2" },
            { type: "ExternalIP", address: "203.0.113.50" },
          ],
          conditions: [{ type: "Ready", status: "True" }],
        },
      },
      makeService(
        "ns1",
        "svc1",
        {
          type: "LoadBalancer",
          clusterIP: "172.30.0.41",
          loadBalancerSourceRanges: ["203.0.113.0/25"],
          ports: [{ name: "p80", port: 80, nodePort: 3001 }],
        },
        { status: { loadBalancer: { ingress: [{ ip: "1.2.3.4" }] } } },
      ),
    ]);
    expect(checkSourceRanges(m.services[0]!, "1.2.3.4", m.nodesByName.get("test-node"))?.allowed).toBe(false);
  });
});

describe("trafficDistribution PreferClose is PreferSameZone's deprecated alias (KEP-3015, PreferSameTrafficDistribution locked on in 1.35)", () => {
  it("the decision is the same and the reason says so", () => {
    const svc = (td: string) =>
      makeService("ns1", "svc1", { clusterIP: "172.30.1.1", trafficDistribution: td, ports: p80 });
    const slice = makeSlice("ns1", "svc1", "svc1-1", p80, [
      { ip: "10.0.1.1", node: "test-node", zone: "zone-a", forZones: ["zone-a"] },
      { ip: "10.0.1.2", node: "host1", zone: "zone-b", forZones: ["zone-b"] },
    ]);
    const close = decide([svc("PreferClose"), slice], { service: "ns1/svc1" });
    const same = decide([svc("PreferSameZone"), slice], { service: "ns1/svc1" });
    expect(keys(close)).toEqual(keys(same));
    expect(close.reason).toMatch(/deprecated alias of PreferSameZone in 1\.35 \(KEP-3015\)/);
    expect(same.reason).not.toMatch(/alias/);
  });
});
