import { describe, expect, it } from "vitest";
import { buildIptables, type IptablesRuleset } from "./build.ts";
import { saveIptables } from "./save.ts";
import { ep, servicePort, upstreamTestConfig } from "../test-fixtures.ts";
import type { NodeDataplaneInput, ProxyConfig } from "../types.ts";

const node = (servicePorts: NodeDataplaneInput["servicePorts"]): NodeDataplaneInput => ({
  nodeName: "test-node",
  nodeIP: "192.168.0.2",
  nodeIPs: ["192.168.0.2"],
  servicePorts,
});

/** Rules kube-proxy hands to iptables-restore, grouped by table and chain (built-in chain jumps excluded). */
function restoreInput(rs: IptablesRuleset): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const t of ["filter", "nat"] as const) {
    for (const r of rs.tables[t].rules) {
      if (rs.tables[t].builtins.some(([b]) => b === r.chain)) continue;
      (out[`${t} ${r.chain}`] ??= []).push(r.args.join(" ").replaceAll("0x004000", "0x4000"));
    }
  }
  return out;
}

function parseExpected(text: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  let table = "";
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line.startsWith("*")) table = line.slice(1);
    else if (line.startsWith("-A ")) (out[`${table} ${line.split(" ")[1]}`] ??= []).push(line);
  }
  return out;
}

describe("iptables rules (pkg/proxy/iptables/proxier_test.go TestOverallIPTablesRules)", () => {
  // The six Services of TestOverallIPTablesRules with their EndpointSlices, on node test-node.
  const ports = [
    servicePort({ ns: "ns1", name: "svc1", clusterIP: "172.30.0.41", endpoints: [ep("10.180.0.1", 80)] }),
    servicePort({
      ns: "ns2",
      name: "svc2",
      clusterIP: "172.30.0.42",
      nodePort: 3001,
      lbIPs: ["1.2.3.4"],
      externalIPs: ["192.168.99.22"],
      hcNodePort: 30000,
      etpLocal: true,
      endpoints: [ep("10.180.0.2", 80)],
    }),
    servicePort({
      ns: "ns3",
      name: "svc3",
      clusterIP: "172.30.0.43",
      nodePort: 3003,
      endpoints: [ep("10.180.0.3", 80)],
    }),
    servicePort({
      ns: "ns4",
      name: "svc4",
      clusterIP: "172.30.0.44",
      externalIPs: ["192.168.99.33"],
      endpoints: [ep("10.180.0.4", 80), ep("10.180.0.5", 80, true)],
    }),
    servicePort({
      ns: "ns5",
      name: "svc5",
      clusterIP: "172.30.0.45",
      nodePort: 3002,
      lbIPs: ["5.6.7.8"],
      sourceRanges: [" 203.0.113.0/25"],
      affinity: 10800,
      endpoints: [ep("10.180.0.3", 80)],
    }),
    servicePort({ ns: "ns6", name: "svc6", clusterIP: "172.30.0.46" }),
  ];
  // Upstream's expected restore input (NewFakeProxier: mark 0x4000, no --random-fully, nfacct present).
  const expected = `
    *filter
    -A KUBE-NODEPORTS -m comment --comment "ns2/svc2:p80 health check node port" -m tcp -p tcp --dport 30000 -j ACCEPT
    -A KUBE-SERVICES -m comment --comment "ns6/svc6:p80 has no endpoints" -m tcp -p tcp -d 172.30.0.46 --dport 80 -j REJECT
    -A KUBE-EXTERNAL-SERVICES -m comment --comment "ns2/svc2:p80 has no local endpoints" -m tcp -p tcp -d 192.168.99.22 --dport 80 -j DROP
    -A KUBE-EXTERNAL-SERVICES -m comment --comment "ns2/svc2:p80 has no local endpoints" -m tcp -p tcp -d 1.2.3.4 --dport 80 -j DROP
    -A KUBE-EXTERNAL-SERVICES -m comment --comment "ns2/svc2:p80 has no local endpoints" -m addrtype --dst-type LOCAL -m tcp -p tcp --dport 3001 -j DROP
    -A KUBE-FIREWALL -m comment --comment "block incoming localnet connections" -d 127.0.0.0/8 ! -s 127.0.0.0/8 -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP
    -A KUBE-FORWARD -m conntrack --ctstate INVALID -m nfacct --nfacct-name ct_state_invalid_dropped_pkts -j DROP
    -A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark 0x4000/0x4000 -j ACCEPT
    -A KUBE-FORWARD -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
    -A KUBE-PROXY-FIREWALL -m comment --comment "ns5/svc5:p80 traffic not accepted by KUBE-FW-NUKIZ6OKUXPJNT4C" -m tcp -p tcp -d 5.6.7.8 --dport 80 -j DROP
    COMMIT
    *nat
    -A KUBE-NODEPORTS -m comment --comment ns2/svc2:p80 -m tcp -p tcp -d 127.0.0.0/8 --dport 3001 -m nfacct --nfacct-name localhost_nps_accepted_pkts -j KUBE-EXT-GNZBNJ2PO5MGZ6GT
    -A KUBE-NODEPORTS -m comment --comment ns2/svc2:p80 -m tcp -p tcp --dport 3001 -j KUBE-EXT-GNZBNJ2PO5MGZ6GT
    -A KUBE-NODEPORTS -m comment --comment ns3/svc3:p80 -m tcp -p tcp -d 127.0.0.0/8 --dport 3003 -m nfacct --nfacct-name localhost_nps_accepted_pkts -j KUBE-EXT-X27LE4BHSL4DOUIK
    -A KUBE-NODEPORTS -m comment --comment ns3/svc3:p80 -m tcp -p tcp --dport 3003 -j KUBE-EXT-X27LE4BHSL4DOUIK
    -A KUBE-NODEPORTS -m comment --comment ns5/svc5:p80 -m tcp -p tcp -d 127.0.0.0/8 --dport 3002 -m nfacct --nfacct-name localhost_nps_accepted_pkts -j KUBE-EXT-NUKIZ6OKUXPJNT4C
    -A KUBE-NODEPORTS -m comment --comment ns5/svc5:p80 -m tcp -p tcp --dport 3002 -j KUBE-EXT-NUKIZ6OKUXPJNT4C
    -A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 -j KUBE-SVC-XPGD46QRK7WJZT7O
    -A KUBE-SERVICES -m comment --comment "ns2/svc2:p80 cluster IP" -m tcp -p tcp -d 172.30.0.42 --dport 80 -j KUBE-SVC-GNZBNJ2PO5MGZ6GT
    -A KUBE-SERVICES -m comment --comment "ns2/svc2:p80 external IP" -m tcp -p tcp -d 192.168.99.22 --dport 80 -j KUBE-EXT-GNZBNJ2PO5MGZ6GT
    -A KUBE-SERVICES -m comment --comment "ns2/svc2:p80 loadbalancer IP" -m tcp -p tcp -d 1.2.3.4 --dport 80 -j KUBE-EXT-GNZBNJ2PO5MGZ6GT
    -A KUBE-SERVICES -m comment --comment "ns3/svc3:p80 cluster IP" -m tcp -p tcp -d 172.30.0.43 --dport 80 -j KUBE-SVC-X27LE4BHSL4DOUIK
    -A KUBE-SERVICES -m comment --comment "ns4/svc4:p80 cluster IP" -m tcp -p tcp -d 172.30.0.44 --dport 80 -j KUBE-SVC-4SW47YFZTEDKD3PK
    -A KUBE-SERVICES -m comment --comment "ns4/svc4:p80 external IP" -m tcp -p tcp -d 192.168.99.33 --dport 80 -j KUBE-EXT-4SW47YFZTEDKD3PK
    -A KUBE-SERVICES -m comment --comment "ns5/svc5:p80 cluster IP" -m tcp -p tcp -d 172.30.0.45 --dport 80 -j KUBE-SVC-NUKIZ6OKUXPJNT4C
    -A KUBE-SERVICES -m comment --comment "ns5/svc5:p80 loadbalancer IP" -m tcp -p tcp -d 5.6.7.8 --dport 80 -j KUBE-FW-NUKIZ6OKUXPJNT4C
    -A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS
    -A KUBE-EXT-4SW47YFZTEDKD3PK -m comment --comment "masquerade traffic for ns4/svc4:p80 external destinations" -j KUBE-MARK-MASQ
    -A KUBE-EXT-4SW47YFZTEDKD3PK -j KUBE-SVC-4SW47YFZTEDKD3PK
    -A KUBE-EXT-GNZBNJ2PO5MGZ6GT -m comment --comment "pod traffic for ns2/svc2:p80 external destinations" -s 10.0.0.0/8 -j KUBE-SVC-GNZBNJ2PO5MGZ6GT
    -A KUBE-EXT-GNZBNJ2PO5MGZ6GT -m comment --comment "masquerade LOCAL traffic for ns2/svc2:p80 external destinations" -m addrtype --src-type LOCAL -j KUBE-MARK-MASQ
    -A KUBE-EXT-GNZBNJ2PO5MGZ6GT -m comment --comment "route LOCAL traffic for ns2/svc2:p80 external destinations" -m addrtype --src-type LOCAL -j KUBE-SVC-GNZBNJ2PO5MGZ6GT
    -A KUBE-EXT-NUKIZ6OKUXPJNT4C -m comment --comment "masquerade traffic for ns5/svc5:p80 external destinations" -j KUBE-MARK-MASQ
    -A KUBE-EXT-NUKIZ6OKUXPJNT4C -j KUBE-SVC-NUKIZ6OKUXPJNT4C
    -A KUBE-EXT-X27LE4BHSL4DOUIK -m comment --comment "masquerade traffic for ns3/svc3:p80 external destinations" -j KUBE-MARK-MASQ
    -A KUBE-EXT-X27LE4BHSL4DOUIK -j KUBE-SVC-X27LE4BHSL4DOUIK
    -A KUBE-FW-NUKIZ6OKUXPJNT4C -m comment --comment "ns5/svc5:p80 loadbalancer IP" -s 203.0.113.0/25 -j KUBE-EXT-NUKIZ6OKUXPJNT4C
    -A KUBE-FW-NUKIZ6OKUXPJNT4C -m comment --comment "other traffic to ns5/svc5:p80 will be dropped by KUBE-PROXY-FIREWALL"
    -A KUBE-MARK-MASQ -j MARK --or-mark 0x4000
    -A KUBE-POSTROUTING -m mark ! --mark 0x4000/0x4000 -j RETURN
    -A KUBE-POSTROUTING -j MARK --xor-mark 0x4000
    -A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE
    -A KUBE-SEP-C6EBXVWJJZMIWKLZ -m comment --comment ns4/svc4:p80 -s 10.180.0.5 -j KUBE-MARK-MASQ
    -A KUBE-SEP-C6EBXVWJJZMIWKLZ -m comment --comment ns4/svc4:p80 -m tcp -p tcp -j DNAT --to-destination 10.180.0.5:80
    -A KUBE-SEP-I77PXRDZVX7PMWMN -m comment --comment ns5/svc5:p80 -s 10.180.0.3 -j KUBE-MARK-MASQ
    -A KUBE-SEP-I77PXRDZVX7PMWMN -m comment --comment ns5/svc5:p80 -m recent --name KUBE-SEP-I77PXRDZVX7PMWMN --set -m tcp -p tcp -j DNAT --to-destination 10.180.0.3:80
    -A KUBE-SEP-OYPFS5VJICHGATKP -m comment --comment ns3/svc3:p80 -s 10.180.0.3 -j KUBE-MARK-MASQ
    -A KUBE-SEP-OYPFS5VJICHGATKP -m comment --comment ns3/svc3:p80 -m tcp -p tcp -j DNAT --to-destination 10.180.0.3:80
    -A KUBE-SEP-RS4RBKLTHTF2IUXJ -m comment --comment ns2/svc2:p80 -s 10.180.0.2 -j KUBE-MARK-MASQ
    -A KUBE-SEP-RS4RBKLTHTF2IUXJ -m comment --comment ns2/svc2:p80 -m tcp -p tcp -j DNAT --to-destination 10.180.0.2:80
    -A KUBE-SEP-SXIVWICOYRO3J4NJ -m comment --comment ns1/svc1:p80 -s 10.180.0.1 -j KUBE-MARK-MASQ
    -A KUBE-SEP-SXIVWICOYRO3J4NJ -m comment --comment ns1/svc1:p80 -m tcp -p tcp -j DNAT --to-destination 10.180.0.1:80
    -A KUBE-SEP-UKSFD7AGPMPPLUHC -m comment --comment ns4/svc4:p80 -s 10.180.0.4 -j KUBE-MARK-MASQ
    -A KUBE-SEP-UKSFD7AGPMPPLUHC -m comment --comment ns4/svc4:p80 -m tcp -p tcp -j DNAT --to-destination 10.180.0.4:80
    -A KUBE-SVC-4SW47YFZTEDKD3PK -m comment --comment "ns4/svc4:p80 cluster IP" -m tcp -p tcp -d 172.30.0.44 --dport 80 ! -s 10.0.0.0/8 -j KUBE-MARK-MASQ
    -A KUBE-SVC-4SW47YFZTEDKD3PK -m comment --comment "ns4/svc4:p80 -> 10.180.0.4:80" -m statistic --mode random --probability 0.5000000000 -j KUBE-SEP-UKSFD7AGPMPPLUHC
    -A KUBE-SVC-4SW47YFZTEDKD3PK -m comment --comment "ns4/svc4:p80 -> 10.180.0.5:80" -j KUBE-SEP-C6EBXVWJJZMIWKLZ
    -A KUBE-SVC-GNZBNJ2PO5MGZ6GT -m comment --comment "ns2/svc2:p80 cluster IP" -m tcp -p tcp -d 172.30.0.42 --dport 80 ! -s 10.0.0.0/8 -j KUBE-MARK-MASQ
    -A KUBE-SVC-GNZBNJ2PO5MGZ6GT -m comment --comment "ns2/svc2:p80 -> 10.180.0.2:80" -j KUBE-SEP-RS4RBKLTHTF2IUXJ
    -A KUBE-SVC-NUKIZ6OKUXPJNT4C -m comment --comment "ns5/svc5:p80 cluster IP" -m tcp -p tcp -d 172.30.0.45 --dport 80 ! -s 10.0.0.0/8 -j KUBE-MARK-MASQ
    -A KUBE-SVC-NUKIZ6OKUXPJNT4C -m comment --comment "ns5/svc5:p80 -> 10.180.0.3:80" -m recent --name KUBE-SEP-I77PXRDZVX7PMWMN --rcheck --seconds 10800 --reap -j KUBE-SEP-I77PXRDZVX7PMWMN
    -A KUBE-SVC-NUKIZ6OKUXPJNT4C -m comment --comment "ns5/svc5:p80 -> 10.180.0.3:80" -j KUBE-SEP-I77PXRDZVX7PMWMN
    -A KUBE-SVC-X27LE4BHSL4DOUIK -m comment --comment "ns3/svc3:p80 cluster IP" -m tcp -p tcp -d 172.30.0.43 --dport 80 ! -s 10.0.0.0/8 -j KUBE-MARK-MASQ
    -A KUBE-SVC-X27LE4BHSL4DOUIK -m comment --comment "ns3/svc3:p80 -> 10.180.0.3:80" -j KUBE-SEP-OYPFS5VJICHGATKP
    -A KUBE-SVC-XPGD46QRK7WJZT7O -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 ! -s 10.0.0.0/8 -j KUBE-MARK-MASQ
    -A KUBE-SVC-XPGD46QRK7WJZT7O -m comment --comment "ns1/svc1:p80 -> 10.180.0.1:80" -j KUBE-SEP-SXIVWICOYRO3J4NJ
    COMMIT`;

  it("writes exactly upstream's rules, chain by chain, in kube-proxy's order", () => {
    const rs = buildIptables(node(ports), upstreamTestConfig);
    const got = restoreInput(rs);
    const want = parseExpected(expected);
    expect(Object.keys(got).sort()).toEqual(Object.keys(want).sort());
    for (const k of Object.keys(want)) expect(got[k], k).toEqual(want[k]);
  });

  it("declares exactly upstream's nat chains", () => {
    const rs = buildIptables(node(ports), upstreamTestConfig);
    const chains = [...rs.tables.nat.chains].filter((c) => c !== "KUBE-PROXY-CANARY").sort();
    expect(chains).toEqual(
      [
        "KUBE-NODEPORTS",
        "KUBE-SERVICES",
        "KUBE-EXT-4SW47YFZTEDKD3PK",
        "KUBE-EXT-GNZBNJ2PO5MGZ6GT",
        "KUBE-EXT-NUKIZ6OKUXPJNT4C",
        "KUBE-EXT-X27LE4BHSL4DOUIK",
        "KUBE-FW-NUKIZ6OKUXPJNT4C",
        "KUBE-MARK-MASQ",
        "KUBE-POSTROUTING",
        "KUBE-SEP-C6EBXVWJJZMIWKLZ",
        "KUBE-SEP-I77PXRDZVX7PMWMN",
        "KUBE-SEP-OYPFS5VJICHGATKP",
        "KUBE-SEP-RS4RBKLTHTF2IUXJ",
        "KUBE-SEP-SXIVWICOYRO3J4NJ",
        "KUBE-SEP-UKSFD7AGPMPPLUHC",
        "KUBE-SVC-4SW47YFZTEDKD3PK",
        "KUBE-SVC-GNZBNJ2PO5MGZ6GT",
        "KUBE-SVC-NUKIZ6OKUXPJNT4C",
        "KUBE-SVC-X27LE4BHSL4DOUIK",
        "KUBE-SVC-XPGD46QRK7WJZT7O",
      ].sort(),
    );
  });
});

describe("iptables-save output (libxt save formats, seed 004 from an AKS node)", () => {
  const aks: ProxyConfig = {
    ...upstreamTestConfig,
    localDetector: { mode: "InterfaceNamePrefix", prefix: "azv" },
    randomFully: true,
  };
  const seedNode = (ports: NodeDataplaneInput["servicePorts"]): NodeDataplaneInput => ({
    nodeName: "aks-nodepool1-23236778-vmss000002",
    nodeIP: "10.240.0.66",
    nodeIPs: ["10.240.0.66"],
    servicePorts: ports,
  });
  const save = (ports: NodeDataplaneInput["servicePorts"], config = aks) =>
    saveIptables(buildIptables(seedNode(ports), config)).text.split("\n");

  it("prints the seed's Cluster-policy lines, with the kernel's probabilities", () => {
    const lines = save([
      servicePort({
        ns: "default",
        name: "nginx-sample-svc",
        portName: "",
        clusterIP: "10.0.130.191",
        endpoints: [
          ep("10.240.0.148", 8080),
          ep("10.240.0.29", 8080),
          ep("10.240.0.41", 8080),
          ep("10.240.0.73", 8080, true),
        ],
      }),
    ]);
    for (const want of [
      `-A KUBE-SVC-JT67RD6F3OETQGP2 -d 10.0.130.191/32 ! -i azv+ -p tcp -m comment --comment "default/nginx-sample-svc cluster IP" -m tcp --dport 80 -j KUBE-MARK-MASQ`,
      `-A KUBE-SVC-JT67RD6F3OETQGP2 -m comment --comment "default/nginx-sample-svc -> 10.240.0.148:8080" -m statistic --mode random --probability 0.25000000000 -j KUBE-SEP-44HLQTUCEZ7VEBKD`,
      `-A KUBE-SVC-JT67RD6F3OETQGP2 -m comment --comment "default/nginx-sample-svc -> 10.240.0.29:8080" -m statistic --mode random --probability 0.33333333349 -j KUBE-SEP-7CLJKZYKU4YYJTUQ`,
      `-A KUBE-SVC-JT67RD6F3OETQGP2 -m comment --comment "default/nginx-sample-svc -> 10.240.0.41:8080" -m statistic --mode random --probability 0.50000000000 -j KUBE-SEP-I4JGEQAI6S5SYXV7`,
      `-A KUBE-SVC-JT67RD6F3OETQGP2 -m comment --comment "default/nginx-sample-svc -> 10.240.0.73:8080" -j KUBE-SEP-PD4DNTIBFNIHTOXJ`,
      `-A KUBE-SEP-PD4DNTIBFNIHTOXJ -s 10.240.0.73/32 -m comment --comment "default/nginx-sample-svc" -j KUBE-MARK-MASQ`,
      `-A KUBE-SEP-PD4DNTIBFNIHTOXJ -p tcp -m comment --comment "default/nginx-sample-svc" -m tcp -j DNAT --to-destination 10.240.0.73:8080`,
      `-A KUBE-SERVICES -d 10.0.130.191/32 -p tcp -m comment --comment "default/nginx-sample-svc cluster IP" -m tcp --dport 80 -j KUBE-SVC-JT67RD6F3OETQGP2`,
    ])
      expect(lines).toContain(want);
  });

  it("prints the seed's 'has no local endpoints' DROP in filter KUBE-SERVICES (internalTrafficPolicy Local, endpoint elsewhere)", () => {
    const text = saveIptables(
      buildIptables(
        seedNode([
          servicePort({
            ns: "default",
            name: "nginx-sample-svc",
            portName: "",
            clusterIP: "10.0.130.191",
            itpLocal: true,
            endpoints: [ep("10.240.0.50", 8080)],
          }),
        ]),
        aks,
      ),
    );
    const filter = text.text.slice(0, text.text.indexOf("*nat"));
    expect(filter).toContain(
      `-A KUBE-SERVICES -d 10.0.130.191/32 -p tcp -m comment --comment "default/nginx-sample-svc has no local endpoints" -m tcp --dport 80 -j DROP`,
    );
    expect(text.text).not.toContain("KUBE-SVL-");
    expect(text.text).not.toContain("KUBE-SEP-");
  });

  it("prints the seed's KUBE-SVL chain with the local endpoint only", () => {
    const lines = save([
      servicePort({
        ns: "default",
        name: "nginx-sample-svc",
        portName: "",
        clusterIP: "10.0.130.191",
        itpLocal: true,
        endpoints: [ep("10.240.0.50", 8080), ep("10.240.0.68", 8080, true)],
      }),
    ]);
    expect(lines).toContain(":KUBE-SVL-JT67RD6F3OETQGP2 - [0:0]");
    expect(lines).toContain(
      `-A KUBE-SVL-JT67RD6F3OETQGP2 -d 10.0.130.191/32 ! -i azv+ -p tcp -m comment --comment "default/nginx-sample-svc cluster IP" -m tcp --dport 80 -j KUBE-MARK-MASQ`,
    );
    expect(lines).toContain(
      `-A KUBE-SVL-JT67RD6F3OETQGP2 -m comment --comment "default/nginx-sample-svc -> 10.240.0.68:8080" -j KUBE-SEP-HLUNARSNCDYYPHUV`,
    );
    expect(lines.filter((l) => l.startsWith("-A KUBE-SVL-"))).toHaveLength(2);
  });

  it("orders chains as iptables-save does: built-ins, then user chains by name; rules grouped by chain", () => {
    const lines = save([
      servicePort({
        ns: "default",
        name: "nginx-sample-svc",
        portName: "",
        clusterIP: "10.0.130.191",
        endpoints: [ep("10.240.0.50", 8080)],
      }),
    ]);
    const nat = lines.slice(lines.indexOf("*nat"));
    const decl = nat.filter((l) => l.startsWith(":")).map((l) => l.split(" ")[0]!.slice(1));
    expect(decl.slice(0, 4)).toEqual(["PREROUTING", "INPUT", "OUTPUT", "POSTROUTING"]);
    expect(decl.slice(4)).toEqual([...decl.slice(4)].sort());
    // The seed's grep shows KUBE-SEP before KUBE-SERVICES before KUBE-SVC.
    const firstOf = (p: string) => nat.findIndex((l) => l.startsWith(`-A ${p}`));
    expect(firstOf("KUBE-SEP-")).toBeLessThan(firstOf("KUBE-SERVICES"));
    expect(firstOf("KUBE-SERVICES")).toBeLessThan(firstOf("KUBE-SVC-"));
  });

  it("prints MARK targets as --set-xmark and masks as the kernel keeps them", () => {
    const lines = save([]);
    expect(lines).toContain("-A KUBE-MARK-MASQ -j MARK --set-xmark 0x4000/0x4000");
    expect(lines).toContain("-A KUBE-POSTROUTING -m mark ! --mark 0x4000/0x4000 -j RETURN");
    expect(lines).toContain("-A KUBE-POSTROUTING -j MARK --set-xmark 0x4000/0x0");
    expect(lines).toContain(
      `-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully`,
    );
    expect(lines).toContain(
      `-A KUBE-FIREWALL ! -s 127.0.0.0/8 -d 127.0.0.0/8 -m comment --comment "block incoming localnet connections" -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP`,
    );
    expect(lines).toContain(
      `-A INPUT -m conntrack --ctstate NEW -m comment --comment "kubernetes load balancer firewall" -j KUBE-PROXY-FIREWALL`,
    );
  });

  it("prints REJECT with its default --reject-with and recent with its defaults (iptables 1.8.7)", () => {
    const lines = save([
      servicePort({ ns: "a", name: "none", clusterIP: "10.0.0.10" }),
      servicePort({
        ns: "b",
        name: "sticky",
        clusterIP: "10.0.0.11",
        affinity: 10800,
        endpoints: [ep("10.244.1.2", 80)],
      }),
    ]);
    expect(lines).toContain(
      `-A KUBE-SERVICES -d 10.0.0.10/32 -p tcp -m comment --comment "a/none:p80 has no endpoints" -m tcp --dport 80 -j REJECT --reject-with icmp-port-unreachable`,
    );
    expect(
      lines.some((l) =>
        / -m recent --rcheck --seconds 10800 --reap --name KUBE-SEP-\w+ --mask 255\.255\.255\.255 --rsource -j KUBE-SEP-/.test(
          l,
        ),
      ),
    ).toBe(true);
    expect(
      lines.some((l) =>
        / -m recent --set --name KUBE-SEP-\w+ --mask 255\.255\.255\.255 --rsource -m tcp -j DNAT/.test(l),
      ),
    ).toBe(true);
    const newer = save(
      [
        servicePort({
          ns: "b",
          name: "sticky",
          clusterIP: "10.0.0.11",
          affinity: 10800,
          endpoints: [ep("10.244.1.2", 80)],
        }),
      ],
      { ...aks, iptablesVersion: "1.8.10" },
    );
    expect(newer.some((l) => / -m recent --set --name KUBE-SEP-\w+ --rsource -m tcp -j DNAT/.test(l))).toBe(
      true,
    );
  });

  it("masquerades by the cluster CIDR by default and not at all without a detector (NoOpLocalDetector)", () => {
    const one = [
      servicePort({ ns: "default", name: "web", clusterIP: "10.96.0.20", endpoints: [ep("10.244.1.2", 80)] }),
    ];
    const cidr = save(one, { ...aks, localDetector: { mode: "ClusterCIDR", cidr: "10.244.0.0/16" } });
    expect(
      cidr.some(
        (l) => l.includes("! -s 10.244.0.0/16 -d 10.96.0.20/32 -p tcp") && l.endsWith("-j KUBE-MARK-MASQ"),
      ),
    ).toBe(true);
    const bridge = save(one, { ...aks, localDetector: { mode: "BridgeInterface", interfaceName: "cbr0" } });
    expect(bridge.some((l) => l.includes("-d 10.96.0.20/32 ! -i cbr0 -p tcp"))).toBe(true);
    const none = save(one, { ...aks, localDetector: { mode: "None" } });
    expect(none.filter((l) => l.startsWith("-A KUBE-SVC-") && l.endsWith("KUBE-MARK-MASQ"))).toHaveLength(0);
    const all = save(one, { ...aks, masqueradeAll: true });
    expect(
      all.some(
        (l) =>
          l.startsWith("-A KUBE-SVC-") &&
          l.includes("-d 10.96.0.20/32 -p tcp") &&
          l.endsWith("-j KUBE-MARK-MASQ"),
      ),
    ).toBe(true);
  });

  it("drops per-endpoint comments above 1000 endpoints (largeClusterEndpointsThreshold)", () => {
    const eps = Array.from({ length: 1001 }, (_, i) =>
      ep(`10.1.${Math.floor(i / 250)}.${(i % 250) + 1}`, 80),
    );
    const lines = save([servicePort({ ns: "big", name: "svc", clusterIP: "10.0.0.99", endpoints: eps })]);
    const sep = lines.filter((l) => l.startsWith("-A KUBE-SEP-"));
    expect(sep).toHaveLength(2002);
    expect(sep.every((l) => !l.includes("--comment"))).toBe(true);
    expect(lines.filter((l) => l.startsWith("-A KUBE-SVC-") && l.includes("-> "))).toHaveLength(0);
  });
});

describe("chain choice per traffic policy (proxier.go syncProxyRules: internalPolicyChain, externalPolicyChain, hasInternalEndpoints, hasExternalEndpoints)", () => {
  // Upstream sources: pkg/proxy/iptables/proxier_test.go TestInternalTrafficPolicy,
  // TestExternalTrafficPolicyLocal, TestExternalTrafficPolicyCluster, TestNoEndpointsReject.
  const SVC = "KUBE-SVC-XPGD46QRK7WJZT7O";
  const SVL = "KUBE-SVL-XPGD46QRK7WJZT7O";
  const EXT = "KUBE-EXT-XPGD46QRK7WJZT7O";
  const remote = ep("10.180.0.1", 80);
  const local = ep("10.180.2.1", 80, true);
  interface Row {
    name: string;
    itpLocal?: boolean;
    etpLocal?: boolean;
    nodePort?: number;
    endpoints: ReturnType<typeof ep>[];
    /** Where KUBE-SERVICES sends the ClusterIP, or the filter verdict on it. */
    clusterIP: string;
    /** Where KUBE-NODEPORTS sends the NodePort (the EXT chain) and where EXT ends, or the filter verdict. */
    viaNodePort?: string;
    chains: string[];
  }
  const rows: Row[] = [
    {
      name: "internalTrafficPolicy Cluster: the ClusterIP goes to KUBE-SVC",
      endpoints: [remote],
      clusterIP: SVC,
      chains: [SVC],
    },
    {
      name: "internalTrafficPolicy Local, endpoint elsewhere: filter DROP 'has no local endpoints'",
      itpLocal: true,
      endpoints: [remote],
      clusterIP: "DROP ns1/svc1:p80 has no local endpoints",
      chains: [],
    },
    {
      name: "internalTrafficPolicy Local, endpoint here: the ClusterIP goes to KUBE-SVL",
      itpLocal: true,
      endpoints: [remote, local],
      clusterIP: SVL,
      chains: [SVL],
    },
    {
      name: "no endpoints at all: filter REJECT 'has no endpoints'",
      endpoints: [],
      clusterIP: "REJECT ns1/svc1:p80 has no endpoints",
      chains: [],
    },
    {
      name: "NodePort, externalTrafficPolicy Cluster: KUBE-EXT masquerades then goes to KUBE-SVC",
      nodePort: 3001,
      endpoints: [remote],
      clusterIP: SVC,
      viaNodePort: `${EXT} -> ${SVC}`,
      chains: [EXT, SVC],
    },
    {
      name: "NodePort, externalTrafficPolicy Local, endpoint here: KUBE-EXT ends in KUBE-SVL",
      nodePort: 3001,
      etpLocal: true,
      endpoints: [remote, local],
      clusterIP: SVC,
      viaNodePort: `${EXT} -> ${SVL}`,
      chains: [EXT, SVC, SVL],
    },
    {
      name: "NodePort, externalTrafficPolicy Local, endpoint elsewhere: KUBE-EXT keeps only the short-circuits, filter DROP on the NodePort",
      nodePort: 3001,
      etpLocal: true,
      endpoints: [remote],
      clusterIP: SVC,
      viaNodePort: `${EXT} -> (none); DROP ns1/svc1:p80 has no local endpoints`,
      chains: [EXT, SVC],
    },
    {
      name: "NodePort, internalTrafficPolicy Local, endpoint elsewhere: ClusterIP dropped, NodePort served by KUBE-SVC",
      nodePort: 3001,
      itpLocal: true,
      endpoints: [remote],
      clusterIP: "DROP ns1/svc1:p80 has no local endpoints",
      viaNodePort: `${EXT} -> ${SVC}`,
      chains: [EXT, SVC],
    },
    {
      name: "NodePort with no endpoints: REJECT on both, no KUBE-EXT",
      nodePort: 3001,
      endpoints: [],
      clusterIP: "REJECT ns1/svc1:p80 has no endpoints",
      viaNodePort: "REJECT ns1/svc1:p80 has no endpoints",
      chains: [],
    },
  ];
  it.each(rows)("$name", (row) => {
    const spec = {
      ns: "ns1",
      name: "svc1",
      clusterIP: "172.30.0.41",
      endpoints: row.endpoints,
      ...(row.itpLocal ? { itpLocal: true } : {}),
      ...(row.etpLocal ? { etpLocal: true } : {}),
      ...(row.nodePort ? { nodePort: row.nodePort } : {}),
    };
    const rs = buildIptables(node([servicePort(spec)]), upstreamTestConfig);
    const nat = rs.tables.nat.rules;
    const filter = rs.tables.filter.rules;
    const target = (r: { parsed: { target?: { name: string } } }) => r.parsed.target?.name ?? "";
    const comment = (r: {
      parsed: { matches: { module: string; options: { name: string; value?: string }[] }[] };
    }) => r.parsed.matches.find((m) => m.module === "comment")?.options[0]?.value ?? "";
    const cipNat = nat.find((r) => r.chain === "KUBE-SERVICES" && r.parsed.dst?.addr === "172.30.0.41");
    const cipFilter = filter.find((r) => r.chain === "KUBE-SERVICES" && r.parsed.dst?.addr === "172.30.0.41");
    expect(cipNat ? target(cipNat) : `${target(cipFilter!)} ${comment(cipFilter!)}`).toBe(row.clusterIP);
    if (row.viaNodePort) {
      const np = nat.filter((r) => r.chain === "KUBE-NODEPORTS" && !r.parsed.dst);
      const ext = nat.filter((r) => r.chain === EXT && r.parsed.matches.length === 0).map(target);
      const drop = filter.find(
        (r) => r.chain === "KUBE-EXTERNAL-SERVICES" && r.parsed.matches.some((m) => m.module === "addrtype"),
      );
      const desc = np.length
        ? `${target(np[0]!)} -> ${ext[0] ?? "(none)"}${drop ? `; ${target(drop)} ${comment(drop)}` : ""}`
        : `${target(drop!)} ${comment(drop!)}`;
      expect(desc).toBe(row.viaNodePort);
    }
    const perService = [...rs.tables.nat.chains].filter((c) => /^KUBE-(SVC|SVL|EXT|FW)-/.test(c)).sort();
    expect(perService).toEqual([...row.chains].sort());
  });
});
