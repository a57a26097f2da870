import { describe, expect, it } from "vitest";
import { buildNftables, listNftables, type NftTable } from "./nftables.ts";
import { ep, servicePort, upstreamTestConfig } from "./test-fixtures.ts";
import type { ProxyConfig } from "./types.ts";

// pkg/proxy/nftables/proxier_test.go NewFakeProxier: pod CIDR 10.0.0.0/8,
// service CIDR 172.30.0.0/16, nodePortAddresses 192.168.0.2/32.
const config: ProxyConfig = {
  ...upstreamTestConfig,
  nodePortAddresses: ["192.168.0.2/32"],
  serviceCIDRs: ["172.30.0.0/16"],
};

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

// TestOverallNFTablesRules: baseRules plus the six Services, as kube-proxy hands them to nft.
const expected = `
add chain ip kube-proxy cluster-ips-check
add chain ip kube-proxy filter-prerouting-pre-dnat { type filter hook prerouting priority -110 ; }
add chain ip kube-proxy filter-output-pre-dnat { type filter hook output priority -110 ; }
add chain ip kube-proxy filter-forward { type filter hook forward priority 0 ; }
add chain ip kube-proxy filter-input { type filter hook input priority 0 ; }
add chain ip kube-proxy filter-output { type filter hook output priority 0 ; }
add chain ip kube-proxy firewall-check
add chain ip kube-proxy mark-for-masquerade
add chain ip kube-proxy masquerading
add chain ip kube-proxy nat-output { type nat hook output priority -100 ; }
add chain ip kube-proxy nat-postrouting { type nat hook postrouting priority 100 ; }
add chain ip kube-proxy nat-prerouting { type nat hook prerouting priority -100 ; }
add chain ip kube-proxy nodeport-endpoints-check
add chain ip kube-proxy reject-chain { comment "helper for @no-endpoint-services / @no-endpoint-nodeports" ; }
add chain ip kube-proxy services
add chain ip kube-proxy service-endpoints-check
add rule ip kube-proxy cluster-ips-check ip daddr @cluster-ips reject comment "Reject traffic to invalid ports of ClusterIPs"
add rule ip kube-proxy cluster-ips-check ip daddr { 172.30.0.0/16 } drop comment "Drop traffic to unallocated ClusterIPs"
add rule ip kube-proxy filter-prerouting-pre-dnat ct state new jump firewall-check
add rule ip kube-proxy filter-forward ct state new jump service-endpoints-check
add rule ip kube-proxy filter-forward ct state new jump cluster-ips-check
add rule ip kube-proxy filter-input ct state new jump nodeport-endpoints-check
add rule ip kube-proxy filter-input ct state new jump service-endpoints-check
add rule ip kube-proxy filter-output ct state new jump service-endpoints-check
add rule ip kube-proxy filter-output-pre-dnat ct state new jump firewall-check
add rule ip kube-proxy filter-output ct state new jump cluster-ips-check
add rule ip kube-proxy firewall-check ip daddr . meta l4proto . th dport vmap @firewall-ips
add rule ip kube-proxy mark-for-masquerade mark set mark or 0x4000
add rule ip kube-proxy masquerading mark and 0x4000 == 0 return
add rule ip kube-proxy masquerading mark set mark xor 0x4000
add rule ip kube-proxy masquerading masquerade fully-random
add rule ip kube-proxy nat-output jump services
add rule ip kube-proxy nat-postrouting jump masquerading
add rule ip kube-proxy nat-prerouting jump services
add rule ip kube-proxy nodeport-endpoints-check ip daddr @nodeport-ips meta l4proto . th dport vmap @no-endpoint-nodeports
add rule ip kube-proxy reject-chain reject
add rule ip kube-proxy services ip daddr . meta l4proto . th dport vmap @service-ips
add rule ip kube-proxy services ip daddr @nodeport-ips meta l4proto . th dport vmap @service-nodeports
add element ip kube-proxy nodeport-ips { 192.168.0.2 }
add rule ip kube-proxy service-endpoints-check ip daddr . meta l4proto . th dport vmap @no-endpoint-services
add chain ip kube-proxy service-ULMVA6XW-ns1/svc1/tcp/p80
add rule ip kube-proxy service-ULMVA6XW-ns1/svc1/tcp/p80 ip daddr 172.30.0.41 ip saddr != 10.0.0.0/8 jump mark-for-masquerade
add rule ip kube-proxy service-ULMVA6XW-ns1/svc1/tcp/p80 numgen random mod 1 vmap { 0 : goto endpoint-5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80 }
add chain ip kube-proxy endpoint-5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80
add rule ip kube-proxy endpoint-5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80 ip saddr 10.180.0.1 jump mark-for-masquerade
add rule ip kube-proxy endpoint-5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80 meta l4proto tcp dnat to 10.180.0.1:80
add element ip kube-proxy cluster-ips { 172.30.0.41 }
add element ip kube-proxy service-ips { 172.30.0.41 . tcp . 80 : goto service-ULMVA6XW-ns1/svc1/tcp/p80 }
add chain ip kube-proxy service-42NFTM6N-ns2/svc2/tcp/p80
add rule ip kube-proxy service-42NFTM6N-ns2/svc2/tcp/p80 ip daddr 172.30.0.42 ip saddr != 10.0.0.0/8 jump mark-for-masquerade
add rule ip kube-proxy service-42NFTM6N-ns2/svc2/tcp/p80 numgen random mod 1 vmap { 0 : goto endpoint-SGOXE6O3-ns2/svc2/tcp/p80__10.180.0.2/80 }
add chain ip kube-proxy external-42NFTM6N-ns2/svc2/tcp/p80
add rule ip kube-proxy external-42NFTM6N-ns2/svc2/tcp/p80 ip saddr 10.0.0.0/8 goto service-42NFTM6N-ns2/svc2/tcp/p80 comment "short-circuit pod traffic"
add rule ip kube-proxy external-42NFTM6N-ns2/svc2/tcp/p80 fib saddr type local jump mark-for-masquerade comment "masquerade local traffic"
add rule ip kube-proxy external-42NFTM6N-ns2/svc2/tcp/p80 fib saddr type local goto service-42NFTM6N-ns2/svc2/tcp/p80 comment "short-circuit local traffic"
add chain ip kube-proxy endpoint-SGOXE6O3-ns2/svc2/tcp/p80__10.180.0.2/80
add rule ip kube-proxy endpoint-SGOXE6O3-ns2/svc2/tcp/p80__10.180.0.2/80 ip saddr 10.180.0.2 jump mark-for-masquerade
add rule ip kube-proxy endpoint-SGOXE6O3-ns2/svc2/tcp/p80__10.180.0.2/80 meta l4proto tcp dnat to 10.180.0.2:80
add element ip kube-proxy cluster-ips { 172.30.0.42 }
add element ip kube-proxy service-ips { 172.30.0.42 . tcp . 80 : goto service-42NFTM6N-ns2/svc2/tcp/p80 }
add element ip kube-proxy service-ips { 192.168.99.22 . tcp . 80 : goto external-42NFTM6N-ns2/svc2/tcp/p80 }
add element ip kube-proxy service-ips { 1.2.3.4 . tcp . 80 : goto external-42NFTM6N-ns2/svc2/tcp/p80 }
add element ip kube-proxy service-nodeports { tcp . 3001 : goto external-42NFTM6N-ns2/svc2/tcp/p80 }
add element ip kube-proxy no-endpoint-nodeports { tcp . 3001 comment "ns2/svc2:p80" : drop }
add element ip kube-proxy no-endpoint-services { 1.2.3.4 . tcp . 80 comment "ns2/svc2:p80" : drop }
add element ip kube-proxy no-endpoint-services { 192.168.99.22 . tcp . 80 comment "ns2/svc2:p80" : drop }
add chain ip kube-proxy service-4AT6LBPK-ns3/svc3/tcp/p80
add rule ip kube-proxy service-4AT6LBPK-ns3/svc3/tcp/p80 ip daddr 172.30.0.43 ip saddr != 10.0.0.0/8 jump mark-for-masquerade
add rule ip kube-proxy service-4AT6LBPK-ns3/svc3/tcp/p80 numgen random mod 1 vmap { 0 : goto endpoint-UEIP74TE-ns3/svc3/tcp/p80__10.180.0.3/80 }
add chain ip kube-proxy external-4AT6LBPK-ns3/svc3/tcp/p80
add rule ip kube-proxy external-4AT6LBPK-ns3/svc3/tcp/p80 jump mark-for-masquerade
add rule ip kube-proxy external-4AT6LBPK-ns3/svc3/tcp/p80 goto service-4AT6LBPK-ns3/svc3/tcp/p80
add chain ip kube-proxy endpoint-UEIP74TE-ns3/svc3/tcp/p80__10.180.0.3/80
add rule ip kube-proxy endpoint-UEIP74TE-ns3/svc3/tcp/p80__10.180.0.3/80 ip saddr 10.180.0.3 jump mark-for-masquerade
add rule ip kube-proxy endpoint-UEIP74TE-ns3/svc3/tcp/p80__10.180.0.3/80 meta l4proto tcp dnat to 10.180.0.3:80
add element ip kube-proxy cluster-ips { 172.30.0.43 }
add element ip kube-proxy service-ips { 172.30.0.43 . tcp . 80 : goto service-4AT6LBPK-ns3/svc3/tcp/p80 }
add element ip kube-proxy service-nodeports { tcp . 3003 : goto external-4AT6LBPK-ns3/svc3/tcp/p80 }
add chain ip kube-proxy service-LAUZTJTB-ns4/svc4/tcp/p80
add rule ip kube-proxy service-LAUZTJTB-ns4/svc4/tcp/p80 ip daddr 172.30.0.44 ip saddr != 10.0.0.0/8 jump mark-for-masquerade
add rule ip kube-proxy service-LAUZTJTB-ns4/svc4/tcp/p80 numgen random mod 2 vmap { 0 : goto endpoint-UNZV3OEC-ns4/svc4/tcp/p80__10.180.0.4/80 , 1 : goto endpoint-5RFCDDV7-ns4/svc4/tcp/p80__10.180.0.5/80 }
add chain ip kube-proxy external-LAUZTJTB-ns4/svc4/tcp/p80
add rule ip kube-proxy external-LAUZTJTB-ns4/svc4/tcp/p80 jump mark-for-masquerade
add rule ip kube-proxy external-LAUZTJTB-ns4/svc4/tcp/p80 goto service-LAUZTJTB-ns4/svc4/tcp/p80
add chain ip kube-proxy endpoint-5RFCDDV7-ns4/svc4/tcp/p80__10.180.0.5/80
add rule ip kube-proxy endpoint-5RFCDDV7-ns4/svc4/tcp/p80__10.180.0.5/80 ip saddr 10.180.0.5 jump mark-for-masquerade
add rule ip kube-proxy endpoint-5RFCDDV7-ns4/svc4/tcp/p80__10.180.0.5/80 meta l4proto tcp dnat to 10.180.0.5:80
add chain ip kube-proxy endpoint-UNZV3OEC-ns4/svc4/tcp/p80__10.180.0.4/80
add rule ip kube-proxy endpoint-UNZV3OEC-ns4/svc4/tcp/p80__10.180.0.4/80 ip saddr 10.180.0.4 jump mark-for-masquerade
add rule ip kube-proxy endpoint-UNZV3OEC-ns4/svc4/tcp/p80__10.180.0.4/80 meta l4proto tcp dnat to 10.180.0.4:80
add element ip kube-proxy cluster-ips { 172.30.0.44 }
add element ip kube-proxy service-ips { 172.30.0.44 . tcp . 80 : goto service-LAUZTJTB-ns4/svc4/tcp/p80 }
add element ip kube-proxy service-ips { 192.168.99.33 . tcp . 80 : goto external-LAUZTJTB-ns4/svc4/tcp/p80 }
add set ip kube-proxy affinity-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80 { type ipv4_addr ; flags dynamic,timeout ; timeout 10800s ; }
add chain ip kube-proxy service-HVFWP5L3-ns5/svc5/tcp/p80
add rule ip kube-proxy service-HVFWP5L3-ns5/svc5/tcp/p80 ip daddr 172.30.0.45 ip saddr != 10.0.0.0/8 jump mark-for-masquerade
add rule ip kube-proxy service-HVFWP5L3-ns5/svc5/tcp/p80 ip saddr @affinity-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80 goto endpoint-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80
add rule ip kube-proxy service-HVFWP5L3-ns5/svc5/tcp/p80 numgen random mod 1 vmap { 0 : goto endpoint-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80 }
add chain ip kube-proxy external-HVFWP5L3-ns5/svc5/tcp/p80
add rule ip kube-proxy external-HVFWP5L3-ns5/svc5/tcp/p80 jump mark-for-masquerade
add rule ip kube-proxy external-HVFWP5L3-ns5/svc5/tcp/p80 goto service-HVFWP5L3-ns5/svc5/tcp/p80
add chain ip kube-proxy endpoint-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80
add rule ip kube-proxy endpoint-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80 ip saddr 10.180.0.3 jump mark-for-masquerade
add rule ip kube-proxy endpoint-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80 update @affinity-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80 { ip saddr }
add rule ip kube-proxy endpoint-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80 meta l4proto tcp dnat to 10.180.0.3:80
add chain ip kube-proxy firewall-HVFWP5L3-ns5/svc5/tcp/p80
add rule ip kube-proxy firewall-HVFWP5L3-ns5/svc5/tcp/p80 ip saddr != { 203.0.113.0/25 } drop
add element ip kube-proxy cluster-ips { 172.30.0.45 }
add element ip kube-proxy service-ips { 172.30.0.45 . tcp . 80 : goto service-HVFWP5L3-ns5/svc5/tcp/p80 }
add element ip kube-proxy service-ips { 5.6.7.8 . tcp . 80 : goto external-HVFWP5L3-ns5/svc5/tcp/p80 }
add element ip kube-proxy service-nodeports { tcp . 3002 : goto external-HVFWP5L3-ns5/svc5/tcp/p80 }
add element ip kube-proxy firewall-ips { 5.6.7.8 . tcp . 80 : goto firewall-HVFWP5L3-ns5/svc5/tcp/p80 }
add element ip kube-proxy cluster-ips { 172.30.0.46 }
add element ip kube-proxy no-endpoint-services { 172.30.0.46 . tcp . 80 comment "ns6/svc6:p80" : goto reject-chain }
`;

/** The listing form nft prints for kube-proxy's input syntax (meta mark expressions, one-element sets). */
function listed(rule: string): string {
  return rule
    .replace("mark set mark or 0x4000", "meta mark set meta mark | 0x00004000")
    .replace("mark and 0x4000 == 0 return", "meta mark & 0x00004000 == 0x00000000 return")
    .replace("mark set mark xor 0x4000", "meta mark set meta mark ^ 0x00004000")
    .replace(/\{ ([^{},]+) \} (drop|goto)/g, "$1 $2")
    .replaceAll(" , ", ", ");
}

function parseExpected(text: string) {
  const chains = new Map<string, string[]>();
  const elements: string[] = [];
  for (const line of text.trim().split("\n")) {
    let m = /^add chain ip kube-proxy (\S+)/.exec(line);
    if (m) {
      if (!chains.has(m[1]!)) chains.set(m[1]!, []);
      continue;
    }
    m = /^add rule ip kube-proxy (\S+) (.*)$/.exec(line);
    if (m) {
      chains.get(m[1]!)!.push(listed(m[2]!));
      continue;
    }
    m = /^add element ip kube-proxy (\S+) \{ (.*) \}$/.exec(line);
    if (m) elements.push(`${m[1]} ${m[2]}`);
  }
  return { chains, elements };
}

function actual(t: NftTable) {
  const chains = new Map(
    t.chains.map((c) => [
      c.name,
      c.rules.map((r) => `${r.text}${r.comment ? ` comment "${r.comment}"` : ""}`),
    ]),
  );
  const elements = t.sets.flatMap((s) =>
    s.elements.map(
      (e) =>
        `${s.name} ${e.key}${e.comment ? ` comment "${e.comment}"` : ""}${e.value !== undefined ? ` : ${e.value}` : ""}`,
    ),
  );
  return { chains, elements };
}

describe("nftables rules (pkg/proxy/nftables/proxier_test.go TestOverallNFTablesRules)", () => {
  const table = buildNftables(
    { nodeName: "test-node", nodeIP: "192.168.0.2", nodeIPs: ["192.168.0.2"], servicePorts: ports },
    config,
  );
  const want = parseExpected(expected);
  const got = actual(table);

  it("declares exactly upstream's chains", () => {
    expect([...got.chains.keys()].sort()).toEqual([...want.chains.keys()].sort());
  });
  it("writes upstream's rules in every chain, in order", () => {
    for (const [name, rules] of want.chains) expect(got.chains.get(name), name).toEqual(rules);
  });
  it("fills the sets and verdict maps with upstream's elements", () => {
    expect([...got.elements].sort()).toEqual([...want.elements].sort());
  });
  it("declares the affinity set with its flags and timeout", () => {
    const s = table.sets.find((x) => x.name.startsWith("affinity-"))!;
    expect(s).toMatchObject({
      name: "affinity-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80",
      type: "ipv4_addr",
      timeoutSeconds: 10800,
    });
  });
});

describe("nft list table formatting (nft src/rule.c table_print, src/expression.c calculate_delim)", () => {
  const text = listNftables(
    buildNftables(
      { nodeName: "test-node", nodeIP: "192.168.0.2", nodeIPs: ["192.168.0.2"], servicePorts: ports },
      config,
    ),
  ).text;
  it("prints the table comment, sets before chains, and base chains with named priorities", () => {
    expect(
      text.startsWith(
        'table ip kube-proxy {\n\tcomment "rules for kube-proxy"\n\tset cluster-ips {\n\t\ttype ipv4_addr\n\t\tcomment "Active ClusterIPs"\n',
      ),
    ).toBe(true);
    expect(text).toContain(
      "\tchain filter-prerouting-pre-dnat {\n\t\ttype filter hook prerouting priority dstnat - 10; policy accept;\n\t\tct state new jump firewall-check\n\t}",
    );
    expect(text).toContain(
      "\tchain nat-postrouting {\n\t\ttype nat hook postrouting priority srcnat; policy accept;\n\t\tjump masquerading\n\t}",
    );
    expect(text).toContain("\t\ttype filter hook forward priority filter; policy accept;");
    expect(text.indexOf("\tmap service-ips {")).toBeLessThan(text.indexOf("\tchain "));
  });
  it("wraps IPv4 set elements two per line and map elements one per line", () => {
    expect(text).toContain(
      "\t\telements = { 172.30.0.41, 172.30.0.42,\n\t\t\t     172.30.0.43, 172.30.0.44,\n\t\t\t     172.30.0.45, 172.30.0.46 }",
    );
    expect(text).toContain(
      "\t\telements = { 172.30.0.41 . tcp . 80 : goto service-ULMVA6XW-ns1/svc1/tcp/p80,\n\t\t\t     172.30.0.42 . tcp . 80 : goto service-42NFTM6N-ns2/svc2/tcp/p80,",
    );
    expect(text).toContain('\t\t\t     172.30.0.46 . tcp . 80 comment "ns6/svc6:p80" : goto reject-chain }');
  });
  it("prints the affinity set's flags in nft's order and its timeout in nft's units", () => {
    expect(text).toContain(
      "\tset affinity-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80 {\n\t\ttype ipv4_addr\n\t\tflags timeout,dynamic\n\t\ttimeout 3h\n\t}",
    );
  });
  it("uses the local-traffic detector's nft form (iifname for interface modes)", () => {
    const prefix = listNftables(
      buildNftables(
        { nodeName: "n", nodeIP: "10.240.0.66", nodeIPs: ["10.240.0.66"], servicePorts: [ports[0]!] },
        { ...config, localDetector: { mode: "InterfaceNamePrefix", prefix: "azv" } },
      ),
    ).text;
    expect(prefix).toContain('ip daddr 172.30.0.41 iifname != "azv*" jump mark-for-masquerade');
  });
});
