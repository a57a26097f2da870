import { describe, expect, it } from "vitest";
import { buildIptables } from "./build.ts";
import { walkIptables, type IptablesWalk } from "./walk.ts";
import { ep, servicePort, upstreamTestConfig, type PortSpec } from "../test-fixtures.ts";
import type { ProxyConfig } from "../types.ts";

// pkg/proxy/nftables/proxier_test.go and iptables/proxier_test.go conventions:
// pod IPs 10.0.0.0/8, node test-node at 192.168.0.2 (also 192.168.1.2 and
// the external IP 192.168.99.11 are local addresses), external client 203.0.113.2.
const testNodeIPs = ["192.168.0.2", "192.168.1.2", "192.168.99.11"];
const externalClient = "203.0.113.2";
const blockedClient = "203.0.113.130";

interface Flow {
  name: string;
  sourceIP: string;
  destIP: string;
  destPort: number;
  /** Upstream's runPacketFlowTests output: DNAT targets joined by ", ", or DROP / REJECT, or "" for no match. */
  output: string;
  masq?: boolean;
}

/** Reduces a walk to upstream's packet-flow summary. */
function summarize(w: IptablesWalk): { output: string; masq: boolean } {
  if (w.branches.some((b) => b.verdict === "drop")) return { output: "DROP", masq: false };
  if (w.branches.some((b) => b.verdict === "reject")) return { output: "REJECT", masq: false };
  const targets = [...new Set(w.branches.map((b) => b.dnat).filter((d) => d !== undefined))].sort();
  return { output: targets.join(", "), masq: w.branches.some((b) => b.masquerade) };
}

function runFlows(specs: PortSpec[], flows: Flow[], config: ProxyConfig = upstreamTestConfig) {
  const rs = buildIptables(
    {
      nodeName: "test-node",
      nodeIP: "192.168.0.2",
      nodeIPs: testNodeIPs,
      servicePorts: specs.map(servicePort),
    },
    config,
  );
  for (const f of flows) {
    const fromHost = testNodeIPs.includes(f.sourceIP);
    const w = walkIptables(
      rs,
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
    const total = w.branches.reduce((n, b) => n + b.probability, 0);
    expect(total, `${f.name}: branch chances sum to 1`).toBeCloseTo(1, 12);
    const got = summarize(w);
    expect(got.output, f.name).toBe(f.output);
    if (f.masq !== undefined) expect(got.masq, `${f.name} (masquerade)`).toBe(f.masq);
  }
}

describe("packet walk through kube-proxy's iptables rules (upstream runPacketFlowTests cases)", () => {
  it("TestLoadBalancer: loadBalancerSourceRanges, NodePort bypass, node and LB-IP sources", () => {
    const epIP = "10.180.0.1";
    runFlows(
      [
        {
          ns: "ns1",
          name: "svc1",
          clusterIP: "172.30.0.41",
          nodePort: 3001,
          lbIPs: ["1.2.3.4", "5.6.7.8"],
          sourceRanges: ["192.168.0.0/24", " 203.0.113.0/25"],
          endpoints: [ep(epIP, 80)],
        },
      ],
      [
        {
          name: "pod to cluster IP",
          sourceIP: "10.0.0.2",
          destIP: "172.30.0.41",
          destPort: 80,
          output: `${epIP}:80`,
          masq: false,
        },
        {
          name: "external to nodePort",
          sourceIP: externalClient,
          destIP: "192.168.0.2",
          destPort: 3001,
          output: `${epIP}:80`,
          masq: true,
        },
        {
          name: "nodePort bypasses LoadBalancerSourceRanges",
          sourceIP: blockedClient,
          destIP: "192.168.0.2",
          destPort: 3001,
          output: `${epIP}:80`,
          masq: true,
        },
        {
          name: "accepted external to LB1",
          sourceIP: externalClient,
          destIP: "1.2.3.4",
          destPort: 80,
          output: `${epIP}:80`,
          masq: true,
        },
        {
          name: "accepted external to LB2",
          sourceIP: externalClient,
          destIP: "5.6.7.8",
          destPort: 80,
          output: `${epIP}:80`,
          masq: true,
        },
        {
          name: "blocked external to LB1",
          sourceIP: blockedClient,
          destIP: "1.2.3.4",
          destPort: 80,
          output: "DROP",
        },
        {
          name: "blocked external to LB2",
          sourceIP: blockedClient,
          destIP: "5.6.7.8",
          destPort: 80,
          output: "DROP",
        },
        {
          name: "pod to LB1 (blocked by LoadBalancerSourceRanges)",
          sourceIP: "10.0.0.2",
          destIP: "1.2.3.4",
          destPort: 80,
          output: "DROP",
        },
        {
          name: "pod to LB2 (blocked by LoadBalancerSourceRanges)",
          sourceIP: "10.0.0.2",
          destIP: "5.6.7.8",
          destPort: 80,
          output: "DROP",
        },
        {
          name: "node to LB1 (allowed by LoadBalancerSourceRanges)",
          sourceIP: "192.168.0.2",
          destIP: "1.2.3.4",
          destPort: 80,
          output: `${epIP}:80`,
          masq: true,
        },
        {
          name: "node to LB2 (allowed by LoadBalancerSourceRanges)",
          sourceIP: "192.168.0.2",
          destIP: "5.6.7.8",
          destPort: 80,
          output: `${epIP}:80`,
          masq: true,
        },
        {
          name: "same node to LB1, SNATted to LB1 (implicitly allowed)",
          sourceIP: "1.2.3.4",
          destIP: "1.2.3.4",
          destPort: 80,
          output: `${epIP}:80`,
          masq: true,
        },
        {
          name: "same node to LB2, SNATted to LB2 (implicitly allowed)",
          sourceIP: "5.6.7.8",
          destIP: "5.6.7.8",
          destPort: 80,
          output: `${epIP}:80`,
          masq: true,
        },
      ],
    );
  });

  it("TestNodePorts (ipv4): NodePort on the node IP from pods, outside and the node itself", () => {
    const output = "10.180.0.1:80, 10.180.2.1:80";
    const spec = [
      {
        ns: "ns1",
        name: "svc1",
        clusterIP: "172.30.0.41",
        nodePort: 3001,
        endpoints: [ep("10.180.0.1", 80), ep("10.180.2.1", 80, true)],
      },
    ];
    runFlows(spec, [
      {
        name: "pod to cluster IP",
        sourceIP: "10.0.0.2",
        destIP: "172.30.0.41",
        destPort: 80,
        output,
        masq: false,
      },
      {
        name: "external to nodePort",
        sourceIP: externalClient,
        destIP: "192.168.0.2",
        destPort: 3001,
        output,
        masq: true,
      },
      {
        name: "node to nodePort",
        sourceIP: "192.168.0.2",
        destIP: "192.168.0.2",
        destPort: 3001,
        output,
        masq: true,
      },
    ]);
    // ipv4, multiple nodeport-addresses: the secondary node IP accepts NodePorts too.
    runFlows(
      spec,
      [
        {
          name: "external to nodePort on secondary IP",
          sourceIP: externalClient,
          destIP: "192.168.1.2",
          destPort: 3001,
          output,
          masq: true,
        },
      ],
      {
        ...upstreamTestConfig,
        nodePortAddresses: ["192.168.0.0/24", "192.168.1.0/24", "2001:db8::/64"],
      },
    );
    runFlows(
      spec,
      [
        {
          name: "secondary nodeIP ignores NodePorts",
          sourceIP: externalClient,
          destIP: "192.168.1.2",
          destPort: 3001,
          output: "",
        },
      ],
      {
        ...upstreamTestConfig,
        nodePortAddresses: ["192.168.0.0/24"],
      },
    );
  });

  it("TestExternalTrafficPolicyLocal: pods short-circuit to all endpoints, outside clients reach only local ones, unmasqueraded", () => {
    const both = "10.180.0.1:80, 10.180.2.1:80";
    const local = "10.180.2.1:80";
    runFlows(
      [
        {
          ns: "ns1",
          name: "svc1",
          clusterIP: "172.30.0.41",
          nodePort: 3001,
          hcNodePort: 30000,
          externalIPs: ["192.168.99.11"],
          lbIPs: ["1.2.3.4"],
          etpLocal: true,
          endpoints: [ep("10.180.0.1", 80), ep("10.180.2.1", 80, true)],
        },
      ],
      [
        {
          name: "pod to cluster IP hits both endpoints, unmasqueraded",
          sourceIP: "10.0.0.2",
          destIP: "172.30.0.41",
          destPort: 80,
          output: both,
          masq: false,
        },
        {
          name: "pod to external IP hits both endpoints, unmasqueraded",
          sourceIP: "10.0.0.2",
          destIP: "192.168.99.11",
          destPort: 80,
          output: both,
          masq: false,
        },
        {
          name: "external to external IP hits only local endpoint, unmasqueraded",
          sourceIP: externalClient,
          destIP: "192.168.99.11",
          destPort: 80,
          output: local,
          masq: false,
        },
        {
          name: "pod to LB IP hits only both endpoints, unmasqueraded",
          sourceIP: "10.0.0.2",
          destIP: "1.2.3.4",
          destPort: 80,
          output: both,
          masq: false,
        },
        {
          name: "external to LB IP hits only local endpoint, unmasqueraded",
          sourceIP: externalClient,
          destIP: "1.2.3.4",
          destPort: 80,
          output: local,
          masq: false,
        },
        {
          name: "pod to NodePort hits both endpoints, unmasqueraded",
          sourceIP: "10.0.0.2",
          destIP: "192.168.0.2",
          destPort: 3001,
          output: both,
          masq: false,
        },
        {
          name: "external to NodePort hits only local endpoint, unmasqueraded",
          sourceIP: externalClient,
          destIP: "192.168.0.2",
          destPort: 3001,
          output: local,
          masq: false,
        },
      ],
    );
  });

  it("TestExternalTrafficPolicyCluster: every external way in is masqueraded", () => {
    const both = "10.180.0.1:80, 10.180.2.1:80";
    runFlows(
      [
        {
          ns: "ns1",
          name: "svc1",
          clusterIP: "172.30.0.41",
          nodePort: 3001,
          externalIPs: ["192.168.99.11"],
          lbIPs: ["1.2.3.4"],
          endpoints: [ep("10.180.0.1", 80), ep("10.180.2.1", 80, true)],
        },
      ],
      [
        {
          name: "pod to cluster IP hits both endpoints, unmasqueraded",
          sourceIP: "10.0.0.2",
          destIP: "172.30.0.41",
          destPort: 80,
          output: both,
          masq: false,
        },
        {
          name: "pod to external IP hits both endpoints, masqueraded",
          sourceIP: "10.0.0.2",
          destIP: "192.168.99.11",
          destPort: 80,
          output: both,
          masq: true,
        },
        {
          name: "external to external IP hits both endpoints, masqueraded",
          sourceIP: externalClient,
          destIP: "192.168.99.11",
          destPort: 80,
          output: both,
          masq: true,
        },
        {
          name: "pod to LB IP hits both endpoints, masqueraded",
          sourceIP: "10.0.0.2",
          destIP: "1.2.3.4",
          destPort: 80,
          output: both,
          masq: true,
        },
        {
          name: "external to LB IP hits both endpoints, masqueraded",
          sourceIP: externalClient,
          destIP: "1.2.3.4",
          destPort: 80,
          output: both,
          masq: true,
        },
        {
          name: "pod to NodePort hits both endpoints, masqueraded",
          sourceIP: "10.0.0.2",
          destIP: "192.168.0.2",
          destPort: 3001,
          output: both,
          masq: true,
        },
        {
          name: "external to NodePort hits both endpoints, masqueraded",
          sourceIP: externalClient,
          destIP: "192.168.0.2",
          destPort: 3001,
          output: both,
          masq: true,
        },
      ],
    );
  });

  it("TestNoEndpointsReject: a Service with no endpoints rejects on every way in", () => {
    runFlows(
      [
        {
          ns: "ns1",
          name: "svc1",
          clusterIP: "172.30.0.41",
          nodePort: 3001,
          externalIPs: ["192.168.99.11"],
          lbIPs: ["1.2.3.4"],
        },
      ],
      [
        {
          name: "pod to cluster IP with no endpoints",
          sourceIP: "10.0.0.2",
          destIP: "172.30.0.41",
          destPort: 80,
          output: "REJECT",
        },
        {
          name: "external to external IP with no endpoints",
          sourceIP: externalClient,
          destIP: "192.168.99.11",
          destPort: 80,
          output: "REJECT",
        },
        {
          name: "pod to NodePort with no endpoints",
          sourceIP: "10.0.0.2",
          destIP: "192.168.0.2",
          destPort: 3001,
          output: "REJECT",
        },
        {
          name: "external to NodePort with no endpoints",
          sourceIP: externalClient,
          destIP: "192.168.0.2",
          destPort: 3001,
          output: "REJECT",
        },
        {
          name: "pod to LoadBalancer IP with no endpoints",
          sourceIP: "10.0.0.2",
          destIP: "1.2.3.4",
          destPort: 80,
          output: "REJECT",
        },
        {
          name: "external to LoadBalancer IP with no endpoints",
          sourceIP: externalClient,
          destIP: "1.2.3.4",
          destPort: 80,
          output: "REJECT",
        },
      ],
    );
  });

  it("TestInternalTrafficPolicy: Local with no local endpoint drops ClusterIP traffic; with one, uses only it", () => {
    runFlows(
      [
        {
          ns: "ns1",
          name: "svc1",
          clusterIP: "172.30.0.41",
          itpLocal: true,
          endpoints: [ep("10.180.0.1", 80)],
        },
      ],
      [
        {
          name: "no local endpoints: DROP",
          sourceIP: "10.0.0.2",
          destIP: "172.30.0.41",
          destPort: 80,
          output: "DROP",
        },
      ],
    );
    runFlows(
      [
        {
          ns: "ns1",
          name: "svc1",
          clusterIP: "172.30.0.41",
          itpLocal: true,
          endpoints: [ep("10.180.0.1", 80), ep("10.180.2.1", 80, true)],
        },
      ],
      [
        {
          name: "local endpoint only",
          sourceIP: "10.0.0.2",
          destIP: "172.30.0.41",
          destPort: 80,
          output: "10.180.2.1:80",
          masq: false,
        },
      ],
    );
  });

  it("hairpin: a backend reaching itself through its Service is masqueraded (KUBE-SEP -s endpoint -j KUBE-MARK-MASQ)", () => {
    runFlows(
      [{ ns: "ns1", name: "svc1", clusterIP: "172.30.0.41", endpoints: [ep("10.180.0.1", 80)] }],
      [
        {
          name: "hairpin to cluster IP",
          sourceIP: "10.180.0.1",
          destIP: "172.30.0.41",
          destPort: 80,
          output: "10.180.0.1:80",
          masq: true,
        },
      ],
    );
  });

  it("forks at each statistic rule with the kernel's chances: four endpoints get 1/4 each", () => {
    const rs = buildIptables(
      {
        nodeName: "n",
        nodeIP: "10.240.0.66",
        nodeIPs: ["10.240.0.66"],
        servicePorts: [
          servicePort({
            ns: "default",
            name: "nginx-sample-svc",
            portName: "",
            clusterIP: "10.0.130.191",
            endpoints: ["148", "29", "41", "73"].map((x) => ep(`10.240.0.${x}`, 8080)),
          }),
        ],
      },
      upstreamTestConfig,
    );
    const w = walkIptables(
      rs,
      { src: "10.1.2.3", dst: "10.0.130.191", protocol: "TCP", dport: 80, fromHost: false, inIface: "veth1" },
      ["10.240.0.66"],
    );
    expect(w.branches.map((b) => b.dnat)).toEqual([
      "10.240.0.148:8080",
      "10.240.0.29:8080",
      "10.240.0.41:8080",
      "10.240.0.73:8080",
    ]);
    for (const b of w.branches) expect(b.probability).toBeCloseTo(0.25, 9);
    // The rules walked, in order, for the third endpoint.
    expect(w.branches[2]!.steps.map((s) => `${s.table} ${s.line}`)).toEqual([
      `nat -A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES`,
      `nat -A KUBE-SERVICES -d 10.0.130.191/32 -p tcp -m comment --comment "default/nginx-sample-svc cluster IP" -m tcp --dport 80 -j KUBE-SVC-JT67RD6F3OETQGP2`,
      `nat -A KUBE-SVC-JT67RD6F3OETQGP2 -m comment --comment "default/nginx-sample-svc -> 10.240.0.41:8080" -m statistic --mode random --probability 0.50000000000 -j KUBE-SEP-I4JGEQAI6S5SYXV7`,
      `nat -A KUBE-SEP-I4JGEQAI6S5SYXV7 -p tcp -m comment --comment "default/nginx-sample-svc" -m tcp -j DNAT --to-destination 10.240.0.41:8080`,
      `filter -A FORWARD -m conntrack --ctstate NEW -m comment --comment "kubernetes load balancer firewall" -j KUBE-PROXY-FIREWALL`,
      `filter -A FORWARD -m comment --comment "kubernetes forwarding rules" -j KUBE-FORWARD`,
      `filter -A FORWARD -m conntrack --ctstate NEW -m comment --comment "kubernetes service portals" -j KUBE-SERVICES`,
      `filter -A FORWARD -m conntrack --ctstate NEW -m comment --comment "kubernetes externally-visible service portals" -j KUBE-EXTERNAL-SERVICES`,
      `nat -A POSTROUTING -m comment --comment "kubernetes postrouting rules" -j KUBE-POSTROUTING`,
      `nat -A KUBE-POSTROUTING -m mark ! --mark 0x4000/0x4000 -j RETURN`,
    ]);
  });
});
