/**
 * The packet walk through kube-proxy's nftables table, against upstream's own
 * packet-flow cases: pkg/proxy/nftables/proxier_test.go runPacketFlowTests
 * (its tracer, helpers_test.go nftablesTracer, walks the same rules).
 */
import { describe, expect, it } from "vitest";
import { buildNftables, listNftables } from "./nftables.ts";
import { walkNftables, type NftWalk } from "./nftwalk.ts";
import { ep, servicePort, upstreamTestConfig, type PortSpec } from "./test-fixtures.ts";
import type { ProxyConfig } from "./types.ts";

// nftables proxier_test.go NewFakeProxier: pod CIDR 10.0.0.0/8, service CIDR
// 172.30.0.0/16, NodePorts on 192.168.0.2 only; the node's addresses (its
// fake interfaces) are testNodeIP, testNodeIPAlt and testExternalIP.
const config: ProxyConfig = { ...upstreamTestConfig, nodePortAddresses: ["192.168.0.2/32"] };
const testNodeIPs = ["192.168.0.2", "192.168.1.2", "192.168.99.11"];
const testExternalClient = "203.0.113.2";

interface Flow {
  name: string;
  sourceIP: string;
  destIP: string;
  destPort: number;
  /** runPacketFlowTests' output: DNAT targets joined by ", ", DROP, REJECT, or "" when no rule takes it. */
  output: string;
  masq?: boolean;
}

function summarize(w: NftWalk): { output: string; masq: boolean } {
  if (w.branches.some((b) => b.verdict === "drop")) return { output: "DROP", masq: false };
  if (w.branches.some((b) => b.verdict === "reject")) return { output: "REJECT", masq: false };
  const targets = [...new Set(w.branches.map((b) => b.dnat).filter((d) => d !== undefined))].sort();
  return { output: targets.join(", "), masq: w.branches.some((b) => b.masquerade) };
}

function tableOf(specs: PortSpec[]) {
  return buildNftables(
    {
      nodeName: "test-node",
      nodeIP: "192.168.0.2",
      nodeIPs: testNodeIPs,
      servicePorts: specs.map(servicePort),
    },
    config,
  );
}

function walk(specs: PortSpec[], f: Pick<Flow, "sourceIP" | "destIP" | "destPort">): NftWalk {
  const fromHost = testNodeIPs.includes(f.sourceIP);
  return walkNftables(
    tableOf(specs),
    {
      src: f.sourceIP,
      dst: f.destIP,
      protocol: "TCP",
      dport: f.destPort,
      fromHost,
      ...(fromHost ? {} : { inIface: "eth0" }),
    },
    testNodeIPs,
  );
}

function runFlows(specs: PortSpec[], flows: Flow[]) {
  for (const f of flows) {
    const w = walk(specs, f);
    const total = w.branches.reduce((n, b) => n + b.probability, 0);
    expect(total, `${f.name}: branch chances sum to 1`).toBeCloseTo(1, 12);
    const got = summarize(w);
    expect(got.output, f.name).toBe(f.output);
    if (f.masq !== undefined) expect(got.masq, `${f.name} (masquerade)`).toBe(f.masq);
  }
}

const svc = (extra: Partial<PortSpec>): PortSpec => ({
  ns: "ns1",
  name: "svc1",
  clusterIP: "172.30.0.41",
  nodePort: 3001,
  externalIPs: ["192.168.99.11"],
  lbIPs: ["1.2.3.4"],
  endpoints: [ep("10.180.0.1", 80), ep("10.180.2.1", 80, true)],
  ...extra,
});
const both = "10.180.0.1:80, 10.180.2.1:80";

describe("packet walk through kube-proxy's nftables rules (nftables proxier_test.go runPacketFlowTests)", () => {
  it("TestExternalTrafficPolicyLocal: pods reach every endpoint, outside clients only the local one, unmasqueraded", () => {
    runFlows(
      [svc({ etpLocal: true, hcNodePort: 30000 })],
      [
        {
          name: "pod to cluster IP",
          sourceIP: "10.0.0.2",
          destIP: "172.30.0.41",
          destPort: 80,
          output: both,
          masq: false,
        },
        {
          name: "pod to external IP",
          sourceIP: "10.0.0.2",
          destIP: "192.168.99.11",
          destPort: 80,
          output: both,
          masq: false,
        },
        {
          name: "external to external IP",
          sourceIP: testExternalClient,
          destIP: "192.168.99.11",
          destPort: 80,
          output: "10.180.2.1:80",
          masq: false,
        },
        {
          name: "pod to LB IP",
          sourceIP: "10.0.0.2",
          destIP: "1.2.3.4",
          destPort: 80,
          output: both,
          masq: false,
        },
        {
          name: "external to LB IP",
          sourceIP: testExternalClient,
          destIP: "1.2.3.4",
          destPort: 80,
          output: "10.180.2.1:80",
          masq: false,
        },
        {
          name: "pod to NodePort",
          sourceIP: "10.0.0.2",
          destIP: "192.168.0.2",
          destPort: 3001,
          output: both,
          masq: false,
        },
        {
          name: "external to NodePort",
          sourceIP: testExternalClient,
          destIP: "192.168.0.2",
          destPort: 3001,
          output: "10.180.2.1:80",
          masq: false,
        },
      ],
    );
  });

  it("TestExternalTrafficPolicyCluster: every external way in is masqueraded, the ClusterIP from a pod is not", () => {
    runFlows(
      [svc({})],
      [
        {
          name: "pod to cluster IP",
          sourceIP: "10.0.0.2",
          destIP: "172.30.0.41",
          destPort: 80,
          output: both,
          masq: false,
        },
        {
          name: "pod to external IP",
          sourceIP: "10.0.0.2",
          destIP: "192.168.99.11",
          destPort: 80,
          output: both,
          masq: true,
        },
        {
          name: "external to external IP",
          sourceIP: testExternalClient,
          destIP: "192.168.99.11",
          destPort: 80,
          output: both,
          masq: true,
        },
        {
          name: "pod to LB IP",
          sourceIP: "10.0.0.2",
          destIP: "1.2.3.4",
          destPort: 80,
          output: both,
          masq: true,
        },
        {
          name: "external to LB IP",
          sourceIP: testExternalClient,
          destIP: "1.2.3.4",
          destPort: 80,
          output: both,
          masq: true,
        },
        {
          name: "pod to NodePort",
          sourceIP: "10.0.0.2",
          destIP: "192.168.0.2",
          destPort: 3001,
          output: both,
          masq: true,
        },
        {
          name: "external to NodePort",
          sourceIP: testExternalClient,
          destIP: "192.168.0.2",
          destPort: 3001,
          output: both,
          masq: true,
        },
        // TestNodePorts: NodePorts answer on nodePortAddresses only.
        {
          name: "secondary nodeIP ignores NodePorts",
          sourceIP: testExternalClient,
          destIP: "192.168.1.2",
          destPort: 3001,
          output: "",
        },
      ],
    );
  });

  it("TestNoEndpointsReject: a Service without endpoints is rejected on its ClusterIP and its NodePort", () => {
    runFlows(
      [svc({ endpoints: [], externalIPs: [], lbIPs: [] })],
      [
        {
          name: "pod to cluster IP",
          sourceIP: "10.0.0.2",
          destIP: "172.30.0.41",
          destPort: 80,
          output: "REJECT",
        },
        {
          name: "external to NodePort",
          sourceIP: testExternalClient,
          destIP: "192.168.0.2",
          destPort: 3001,
          output: "REJECT",
        },
      ],
    );
  });

  it("cluster-ips-check: a ClusterIP's other ports are rejected, an unallocated ClusterIP dropped", () => {
    runFlows(
      [svc({})],
      [
        {
          name: "other port of a ClusterIP",
          sourceIP: "10.0.0.2",
          destIP: "172.30.0.41",
          destPort: 81,
          output: "REJECT",
        },
        {
          name: "unallocated ClusterIP",
          sourceIP: "10.0.0.2",
          destIP: "172.30.0.99",
          destPort: 80,
          output: "DROP",
        },
      ],
    );
  });

  it("TestLoadBalancer: loadBalancerSourceRanges drop a client outside them at filter-prerouting-pre-dnat", () => {
    runFlows(
      [svc({ externalIPs: [], sourceRanges: ["203.0.113.0/25"], endpoints: [ep("10.180.0.1", 80)] })],
      [
        {
          name: "accepted external to LB",
          sourceIP: testExternalClient,
          destIP: "1.2.3.4",
          destPort: 80,
          output: "10.180.0.1:80",
          masq: true,
        },
        {
          name: "dropped external to LB",
          sourceIP: "203.0.113.130",
          destIP: "1.2.3.4",
          destPort: 80,
          output: "DROP",
        },
      ],
    );
  });

  it("forks at numgen with chance 1/N, and names each rule and verdict-map element on the listed lines", () => {
    const specs = [svc({ externalIPs: [], lbIPs: [], nodePort: 0 })];
    const w = walk(specs, { sourceIP: "10.0.0.2", destIP: "172.30.0.41", destPort: 80 });
    expect(w.branches.map((b) => [b.dnat, b.probability])).toEqual([
      ["10.180.0.1:80", 0.5],
      ["10.180.2.1:80", 0.5],
    ]);
    const listed = listNftables(tableOf(specs));
    const ids = new Set(listed.lines.map((l) => l.ruleId).filter(Boolean));
    const b = w.branches[0]!;
    for (const s of b.steps) expect(ids.has(s.ruleId), `${s.chain}: ${s.line}`).toBe(true);
    // Every hook in order: prerouting (firewall check, then the DNAT), forward (the endpoint checks), postrouting.
    expect(b.steps.map((s) => `${s.chain} ${s.action}`)).toEqual([
      "filter-prerouting-pre-dnat jump",
      "nat-prerouting jump",
      "services goto",
      "@service-ips match",
      "service-ULMVA6XW-ns1/svc1/tcp/p80 goto",
      "endpoint-5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80 dnat",
      "filter-forward jump",
      "filter-forward jump",
      "nat-postrouting jump",
      "masquerading return",
    ]);
    expect(b.masquerade).toBe(false);
    const element = listed.lines.find((l) => l.ruleId === b.steps[3]!.ruleId)!;
    expect(element.text).toContain("172.30.0.41 . tcp . 80 : goto service-ULMVA6XW-ns1/svc1/tcp/p80");
  });
});
