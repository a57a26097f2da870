import { describe, expect, it } from "vitest";
import { cidrContains, parseCidr, parseIP } from "./ip.ts";
import { makeNode, makePod, makeService, modelOf } from "../testing/fixtures.ts";

const node = makeNode("node-1", "192.168.0.2", { podCIDR: "10.244.1.0/24" });
const svc = (name: string, spec: Record<string, unknown>, extra: Parameters<typeof makeService>[3] = {}) =>
  makeService("ns", name, spec, extra);
const one = (spec: Record<string, unknown>, extra: Parameters<typeof makeService>[3] = {}) =>
  modelOf([node, svc("s", spec, extra)]).services[0]!;

describe("Service defaults (pkg/apis/core/v1/defaults.go SetDefaults_Service, SetDefaults_ServicePort)", () => {
  it("type ClusterIP, protocol TCP, targetPort = port, sessionAffinity None, internalTrafficPolicy Cluster", () => {
    const s = one({ ports: [{ port: 80 }] });
    expect(s.type).toBe("ClusterIP");
    expect(s.ports[0]).toMatchObject({ name: "", protocol: "TCP", port: 80, targetPort: 80 });
    expect([s.sessionAffinity, s.internalTrafficPolicy, s.externalTrafficPolicy]).toEqual([
      "None",
      "Cluster",
      "Cluster",
    ]);
  });
  it("ClientIP affinity without a config gets the 10800 s timeout (DefaultClientIPServiceAffinitySeconds)", () => {
    expect(one({ sessionAffinity: "ClientIP", ports: [{ port: 80 }] }).sessionAffinityTimeoutSeconds).toBe(
      10800,
    );
    expect(
      one({
        sessionAffinity: "ClientIP",
        sessionAffinityConfig: { clientIP: { timeoutSeconds: 60 } },
        ports: [{ port: 80 }],
      }).sessionAffinityTimeoutSeconds,
    ).toBe(60);
  });
  it("a numeric string targetPort is a number, a name stays a name", () => {
    const s = one({
      ports: [
        { name: "a", port: 80, targetPort: "8080" },
        { name: "b", port: 81, targetPort: "http" },
      ],
    });
    expect(s.ports.map((p) => p.targetPort)).toEqual([8080, "http"]);
  });
  it("headless (clusterIP None) and ExternalName have no ClusterIP", () => {
    expect(one({ clusterIP: "None", ports: [{ port: 80 }] })).toMatchObject({
      headless: true,
      clusterIPs: [],
    });
    expect(one({ type: "ExternalName", externalName: "db.example.com" })).toMatchObject({
      headless: false,
      clusterIPs: [],
      externalName: "db.example.com",
    });
  });
  it("the older topology-aware-hints annotation wins over topology-mode (endpointslice utils.go hintsEnabled)", () => {
    const s = one(
      { ports: [{ port: 80 }] },
      {
        annotations: {
          "service.kubernetes.io/topology-mode": "Auto",
          "service.kubernetes.io/topology-aware-hints": "disabled",
        },
      },
    );
    expect(s.topologyMode).toBe("disabled");
  });
  it("kube-proxy reads only spec.loadBalancerSourceRanges, trimmed (pkg/proxy/serviceport.go newBaseServiceInfo); the annotation is the cloud provider's fallback (cloud-provider GetLoadBalancerSourceRanges)", () => {
    const annotated = one(
      { type: "LoadBalancer", ports: [{ port: 80 }] },
      {
        annotations: {
          "service.beta.kubernetes.io/load-balancer-source-ranges": "10.0.0.0/8, 192.168.0.0/16",
        },
      },
    );
    expect([annotated.loadBalancerSourceRanges, annotated.loadBalancerSourceRangesAnnotation]).toEqual([
      [],
      ["10.0.0.0/8", "192.168.0.0/16"],
    ]);
    const field = one(
      { type: "LoadBalancer", loadBalancerSourceRanges: [" 203.0.113.0/25"], ports: [{ port: 80 }] },
      { annotations: { "service.beta.kubernetes.io/load-balancer-source-ranges": "10.0.0.0/8" } },
    );
    expect([field.loadBalancerSourceRanges, field.loadBalancerSourceRangesAnnotation]).toEqual([
      ["203.0.113.0/25"],
      ["10.0.0.0/8"],
    ]);
  });
});

describe("ClusterIP allocation (deterministic stand-in for the apiserver's random allocator)", () => {
  const many = Array.from({ length: 60 }, (_, i) => svc(`s${i}`, { ports: [{ port: 80 }] }));
  it("allocates unique addresses inside the service CIDR, never the network address or .1 (kubernetes.default)", () => {
    const model = modelOf([node, ...many, svc("given", { clusterIP: "10.96.0.10", ports: [{ port: 80 }] })]);
    const ips = model.services.map((s) => s.clusterIPs[0]!);
    expect(new Set(ips).size).toBe(ips.length);
    const cidr = parseCidr("10.96.0.0/12").cidr!;
    for (const ip of ips) expect(cidrContains(cidr, parseIP(ip)!)).toBe(true);
    expect(ips).not.toContain("10.96.0.0");
    expect(ips).not.toContain("10.96.0.1");
    expect(model.services.filter((s) => s.clusterIPsAllocated)).toHaveLength(60);
  });
  it("gives the same address whatever the input order (a Service's address is its own)", () => {
    const a = modelOf([node, ...many]).services;
    const b = modelOf([node, ...[...many].reverse()]).services;
    const byKey = (l: typeof a) => Object.fromEntries(l.map((s) => [s.key, s.clusterIPs[0]]));
    expect(byKey(b)).toEqual(byKey(a));
  });
  it("never hands out an address that the input gives another Service", () => {
    const first = modelOf([node, svc("x", { ports: [{ port: 80 }] })]).services[0]!.clusterIPs[0]!;
    const model = modelOf([
      node,
      svc("x", { ports: [{ port: 80 }] }),
      svc("y", { clusterIP: first, ports: [{ port: 80 }] }),
    ]);
    expect(model.services.find((s) => s.name === "x")!.clusterIPs[0]).not.toBe(first);
  });
});

describe("IP families (pkg/registry/core/service/ipallocator, ipFamilyPolicy)", () => {
  const v6pod = makePod("ns", "p", { node: "node-1", ips: ["10.244.1.5", "fd00:10:244:1::5"] });
  it.each<[string, Record<string, unknown>, boolean, string[]]>([
    ["SingleStack defaults to IPv4", {}, false, ["IPv4"]],
    ["ipFamilies [IPv6] allocates from the IPv6 service CIDR", { ipFamilies: ["IPv6"] }, false, ["IPv6"]],
    [
      "PreferDualStack on a single-stack cluster gets one family",
      { ipFamilyPolicy: "PreferDualStack" },
      false,
      ["IPv4"],
    ],
    [
      "PreferDualStack on a dual-stack cluster gets both",
      { ipFamilyPolicy: "PreferDualStack" },
      true,
      ["IPv4", "IPv6"],
    ],
    ["RequireDualStack gets both", { ipFamilyPolicy: "RequireDualStack" }, false, ["IPv4", "IPv6"]],
    [
      "PreferDualStack with ipFamilies [IPv6, IPv4] keeps IPv6 primary",
      { ipFamilyPolicy: "PreferDualStack", ipFamilies: ["IPv6", "IPv4"] },
      true,
      ["IPv6", "IPv4"],
    ],
  ])("%s", (_, spec, dual, families) => {
    const s = modelOf([node, ...(dual ? [v6pod] : []), svc("s", { ports: [{ port: 80 }], ...spec })])
      .services[0]!;
    expect(s.ipFamilies).toEqual(families);
    expect(s.clusterIPs.map((ip) => (parseIP(ip)!.family === 4 ? "IPv4" : "IPv6"))).toEqual(families);
  });
  it("given clusterIPs decide the families", () => {
    expect(one({ clusterIPs: ["fd00:10:96::a", "10.96.0.10"], ports: [{ port: 80 }] }).ipFamilies).toEqual([
      "IPv6",
      "IPv4",
    ]);
  });
});

describe("NodePort and healthCheckNodePort allocation (portallocator, node port range 30000-32767)", () => {
  it("NodePort and LoadBalancer ports get node ports in range, unique, given ones reserved", () => {
    const model = modelOf([
      node,
      svc("a", {
        type: "NodePort",
        ports: [
          { name: "x", port: 80 },
          { name: "y", port: 81 },
        ],
      }),
      svc("b", { type: "LoadBalancer", ports: [{ port: 80, nodePort: 30500 }] }),
    ]);
    const ports = model.services.flatMap((s) => s.ports.map((p) => p.nodePort!));
    expect(ports).toContain(30500);
    expect(new Set(ports).size).toBe(3);
    for (const p of ports) expect(p >= 30000 && p <= 32767).toBe(true);
    expect(model.services[0]!.ports[0]!.nodePortAllocated).toBe(true);
  });
  it("ports with the same number share the nodePort one of them requests (alloc.go initNodePorts, findRequestedNodePort)", () => {
    const dns = one({
      type: "NodePort",
      ports: [
        { name: "dns-tcp", port: 53, protocol: "TCP" },
        { name: "dns", port: 53, protocol: "UDP", nodePort: 30053 },
        { name: "x", port: 80 },
      ],
    });
    expect(dns.ports.map((p) => p.nodePort)).toEqual([30053, 30053, expect.any(Number)]);
    expect(dns.ports[2]!.nodePort).not.toBe(30053);
    const both = one({
      type: "NodePort",
      ports: [
        { name: "a", port: 53, protocol: "TCP" },
        { name: "b", port: 53, protocol: "UDP" },
      ],
    });
    expect(both.ports[0]!.nodePort).toBe(both.ports[1]!.nodePort);
  });
  it("allocateLoadBalancerNodePorts: false leaves LoadBalancer ports without node ports; ClusterIP ports never have one", () => {
    expect(
      one({ type: "LoadBalancer", allocateLoadBalancerNodePorts: false, ports: [{ port: 80 }] }).ports[0]!
        .nodePort,
    ).toBeUndefined();
    expect(one({ ports: [{ port: 80, nodePort: 30001 }] }).ports[0]!.nodePort).toBeUndefined();
  });
  it("healthCheckNodePort only for LoadBalancer with externalTrafficPolicy Local (NeedsHealthCheck)", () => {
    expect(
      one({ type: "LoadBalancer", externalTrafficPolicy: "Local", ports: [{ port: 80 }] })
        .healthCheckNodePort,
    ).toBeGreaterThanOrEqual(30000);
    expect(
      one({
        type: "LoadBalancer",
        externalTrafficPolicy: "Local",
        healthCheckNodePort: 32000,
        ports: [{ port: 80 }],
      }).healthCheckNodePort,
    ).toBe(32000);
    expect(
      one({ type: "NodePort", externalTrafficPolicy: "Local", ports: [{ port: 80 }] }).healthCheckNodePort,
    ).toBeUndefined();
    expect(one({ type: "LoadBalancer", ports: [{ port: 80 }] }).healthCheckNodePort).toBeUndefined();
  });
});

describe("LoadBalancer addresses (serviceport.go newBaseServiceInfo: VIP-mode ingress IPs only)", () => {
  it("VIP ingress IPs are captured; hostnames and Proxy-mode IPs are not", () => {
    const s = one(
      { type: "LoadBalancer", ports: [{ port: 80 }] },
      {
        status: {
          loadBalancer: {
            ingress: [{ ip: "1.2.3.4" }, { ip: "5.6.7.8", ipMode: "Proxy" }, { hostname: "lb.example.com" }],
          },
        },
      },
    );
    expect(s.loadBalancerIPs).toEqual(["1.2.3.4"]);
    expect(s.loadBalancerPending).toBe(false);
  });
  it("no ingress: the load balancer is pending, with no address, even with spec.loadBalancerIP (kubectl <pending>; the service controller writes status.loadBalancer)", () => {
    const s = one({ type: "LoadBalancer", ports: [{ port: 80 }] });
    expect([s.loadBalancerPending, s.loadBalancerIPs, s.loadBalancerIngress]).toEqual([true, [], []]);
    expect(
      one({ type: "LoadBalancer", loadBalancerIP: "203.0.113.7", ports: [{ port: 80 }] }).loadBalancerIPs,
    ).toEqual([]);
    expect(one({ type: "NodePort", ports: [{ port: 80 }] }).loadBalancerPending).toBe(false);
  });
});

describe("a port the apiserver refuses is not modelled (validateServicePort: 1..65535, KTL501)", () => {
  it.each([
    [
      [
        { name: "a", port: 70000 },
        { name: "b", port: 80 },
      ],
      [80],
    ],
    [
      [
        { name: "a", port: 0 },
        { name: "b", port: 443 },
      ],
      [443],
    ],
    [[{ name: "a", port: 65535 }], [65535]],
  ])("%j -> %j; the valid ones keep their spec.ports index and take the next slot", (ports, want) => {
    const s = one({ ports });
    expect(s.ports.map((p) => p.port)).toEqual(want);
    expect(s.ports.map((p) => p.slot)).toEqual(want.map((_, i) => i));
  });
});
