import { describe, expect, it } from "vitest";
import { buildIpvs, listIpvs, walkIpvs } from "./ipvs.ts";
import { ep, servicePort, upstreamTestConfig } from "./test-fixtures.ts";
import type { NodeDataplaneInput } from "./types.ts";

const node = (servicePorts: NodeDataplaneInput["servicePorts"]): NodeDataplaneInput => ({
  nodeName: "test-node",
  nodeIP: "192.168.0.2",
  nodeIPs: ["192.168.0.2", "192.168.1.2"],
  servicePorts,
});

describe("IPVS virtual servers (pkg/proxy/ipvs/proxier.go syncService/syncEndpoint)", () => {
  it("makes one virtual server per ClusterIP, external IP, load-balancer IP and NodePort on each node address", () => {
    const vs = buildIpvs(
      node([
        servicePort({
          ns: "ns1",
          name: "svc1",
          clusterIP: "172.30.0.41",
          nodePort: 3001,
          externalIPs: ["192.168.99.11"],
          lbIPs: ["1.2.3.4"],
          endpoints: [ep("10.180.0.1", 80)],
        }),
      ]),
      upstreamTestConfig,
    );
    expect(vs.map((v) => `${v.frontend} ${v.address}:${v.port}`)).toEqual([
      "loadBalancer 1.2.3.4:80",
      "clusterIP 172.30.0.41:80",
      "nodePort 192.168.0.2:3001",
      "nodePort 192.168.1.2:3001",
      "externalIP 192.168.99.11:80",
    ]);
    expect(vs.every((v) => v.realServers.length === 1 && v.scheduler === "rr")).toBe(true);
  });

  it("uses internalTrafficPolicy's endpoints for the ClusterIP and externalTrafficPolicy's for the rest (CategorizeEndpoints)", () => {
    const vs = buildIpvs(
      node([
        servicePort({
          ns: "ns1",
          name: "svc1",
          clusterIP: "172.30.0.41",
          nodePort: 3001,
          etpLocal: true,
          endpoints: [ep("10.180.0.1", 80), ep("10.180.2.1", 80, true)],
        }),
      ]),
      upstreamTestConfig,
    );
    expect(vs.find((v) => v.frontend === "clusterIP")!.realServers.map((r) => r.address)).toEqual([
      "10.180.0.1",
      "10.180.2.1",
    ]);
    expect(vs.find((v) => v.frontend === "nodePort")!.realServers.map((r) => r.address)).toEqual([
      "10.180.2.1",
    ]);
  });

  it("a Local policy with no local endpoint falls back to the cluster endpoints (proxier.go syncEndpoint, PR #97081)", () => {
    const etp = buildIpvs(
      node([
        servicePort({
          ns: "ns1",
          name: "svc1",
          clusterIP: "172.30.0.41",
          nodePort: 3001,
          etpLocal: true,
          endpoints: [ep("10.180.0.1", 80)],
        }),
      ]),
      upstreamTestConfig,
    );
    expect(etp.find((v) => v.frontend === "nodePort")!.realServers.map((r) => r.address)).toEqual([
      "10.180.0.1",
    ]);
    // internalTrafficPolicy Local on an externally accessible Service: the cluster list exists (UsesClusterEndpoints), so the ClusterIP falls back too.
    const itpNodePort = buildIpvs(
      node([
        servicePort({
          ns: "ns1",
          name: "svc1",
          clusterIP: "172.30.0.41",
          nodePort: 3001,
          itpLocal: true,
          endpoints: [ep("10.180.0.1", 80)],
        }),
      ]),
      upstreamTestConfig,
    );
    expect(itpNodePort.find((v) => v.frontend === "clusterIP")!.realServers.map((r) => r.address)).toEqual([
      "10.180.0.1",
    ]);
    // ...but a ClusterIP-only Service with internalTrafficPolicy Local has no cluster list to fall back to (CategorizeEndpoints): no real server.
    const itp = buildIpvs(
      node([
        servicePort({
          ns: "ns1",
          name: "svc1",
          clusterIP: "172.30.0.41",
          itpLocal: true,
          endpoints: [ep("10.180.0.1", 80)],
        }),
      ]),
      upstreamTestConfig,
    );
    expect(itp[0]!.realServers).toEqual([]);
  });

  it("takes the scheduler from ipvs.scheduler and prints ClientIP affinity as persistent", () => {
    const { text } = listIpvs(
      node([
        servicePort({
          ns: "ns1",
          name: "svc1",
          clusterIP: "172.30.0.41",
          affinity: 10800,
          endpoints: [ep("10.180.0.1", 80)],
        }),
      ]),
      { ...upstreamTestConfig, ipvsScheduler: "lc" },
    );
    expect(text).toContain("TCP  172.30.0.41:80 lc persistent 10800\n");
  });

  it("prints ipvsadm -Ln's layout, services sorted by protocol, address, port (libipvs ipvs_cmp_services)", () => {
    const { text } = listIpvs(
      node([
        servicePort({
          ns: "kube-system",
          name: "kube-dns",
          portName: "dns",
          protocol: "UDP",
          clusterIP: "10.96.0.10",
          port: 53,
          endpoints: [ep("10.244.0.3", 53), ep("10.244.0.2", 53)],
        }),
        servicePort({
          ns: "kube-system",
          name: "kube-dns",
          portName: "dns-tcp",
          clusterIP: "10.96.0.10",
          port: 53,
          endpoints: [ep("10.244.0.2", 53)],
        }),
        servicePort({
          ns: "default",
          name: "kubernetes",
          portName: "https",
          clusterIP: "10.96.0.1",
          port: 443,
          endpoints: [ep("192.168.49.2", 8443)],
        }),
      ]),
      upstreamTestConfig,
    );
    expect(text).toBe(
      [
        "IP Virtual Server version 1.2.1 (size=4096)",
        "Prot LocalAddress:Port Scheduler Flags",
        "  -> RemoteAddress:Port           Forward Weight ActiveConn InActConn",
        "TCP  10.96.0.1:443 rr",
        "  -> 192.168.49.2:8443            Masq    1      0          0",
        "TCP  10.96.0.10:53 rr",
        "  -> 10.244.0.2:53                Masq    1      0          0",
        "UDP  10.96.0.10:53 rr",
        "  -> 10.244.0.2:53                Masq    1      0          0",
        "  -> 10.244.0.3:53                Masq    1      0          0",
        "",
      ].join("\n"),
    );
  });
});

describe("a packet's way through IPVS (ip_vs_in: ip_vs_service_find, the scheduler, ip_vs_leave)", () => {
  const listing = listIpvs(
    node([
      servicePort({
        ns: "ns1",
        name: "svc1",
        clusterIP: "172.30.0.41",
        nodePort: 3001,
        etpLocal: true,
        endpoints: [ep("10.180.0.1", 80), ep("10.180.0.2", 80)],
      }),
      servicePort({ ns: "ns2", name: "empty", clusterIP: "172.30.0.42" }),
    ]),
    upstreamTestConfig,
  );
  const line = (id: string) => listing.lines.find((l) => l.ruleId === id)!.text;

  it("meets the virtual server of its address, port and protocol, then each real server with an equal share", () => {
    const w = walkIpvs(listing, { dst: "172.30.0.41", dport: 80, protocol: "TCP" });
    expect(w.branches.map((b) => [b.dnat, b.probability])).toEqual([
      ["10.180.0.1:80", 0.5],
      ["10.180.0.2:80", 0.5],
    ]);
    expect(line(w.branches[1]!.steps[0]!.ruleId)).toBe("TCP  172.30.0.41:80 rr");
    expect(line(w.branches[1]!.steps[1]!.ruleId)).toMatch(/^ {2}-> 10\.180\.0\.2:80 +Masq/);
  });

  it("follows syncEndpoint's fallback: a NodePort with a Local policy and no local endpoint reaches the cluster's (PR #97081)", () => {
    const w = walkIpvs(listing, { dst: "192.168.0.2", dport: 3001, protocol: "TCP" });
    expect(w.branches.map((b) => b.dnat)).toEqual(["10.180.0.1:80", "10.180.0.2:80"]);
  });

  it("a virtual server without real servers rejects (ip_vs_leave: ICMP port unreachable, then NF_DROP; kubernetes PR #72534); another port or protocol meets no virtual server", () => {
    const empty = walkIpvs(listing, { dst: "172.30.0.42", dport: 80, protocol: "TCP" });
    expect(empty.branches.map((b) => b.verdict)).toEqual(["reject"]);
    expect(line(empty.branches[0]!.stoppedBy!.ruleId)).toBe("TCP  172.30.0.42:80 rr");
    expect(walkIpvs(listing, { dst: "172.30.0.41", dport: 81, protocol: "TCP" }).branches).toEqual([]);
    expect(walkIpvs(listing, { dst: "172.30.0.41", dport: 80, protocol: "UDP" }).branches).toEqual([]);
  });
});
