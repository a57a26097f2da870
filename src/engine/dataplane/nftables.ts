/**
 * kube-proxy v1.35 in nftables mode on one node (pkg/proxy/nftables/
 * proxier.go setupNFTables and syncProxyRules, full sync; rule texts as in
 * proxier_test.go TestOverallNFTablesRules) and `nft list table ip
 * kube-proxy` as nft prints it:
 *
 * - the table's comment, then its sets and maps, then its chains, each group
 *   in the order the kernel dumps them (creation order: a fresh kube-proxy's
 *   first sync), blank lines between objects (nft src/rule.c table_print);
 * - base chains as "type T hook H priority P; policy accept;" with the
 *   standard priority names (nft prio2str: dstnat -100, filter 0, srcnat
 *   100, offsets as "dstnat - 10");
 * - set elements ", "-separated, a line break after every second IPv4
 *   address and after every concatenated or mapped element (nft
 *   src/expression.c calculate_delim);
 * - marks as 0x%08x ("meta mark set meta mark | 0x00004000"), a set of one
 *   element as a plain value (nft turns it into a comparison).
 *
 * Map elements are listed in the order kube-proxy adds them; the kernel's
 * hash tables may list them in another order on a real node.
 *
 * This file adds the table's base chains, sets and maps and prints the
 * listing; nftservice.ts adds each Service port's; nfttable.ts holds the
 * table's objects and the writer they share.
 */
import type { DataplaneServicePort, NodeDataplaneInput, ProxyConfig, RuleOrigin } from "./types.ts";
import { servicePortNameString } from "./names.ts";
import type { SavedLine } from "./iptables/save.ts";
import { parseCidr, parseIP } from "../model/ip.ts";
import { anonSet, familyOf, Table, type NftSet, type NftTable } from "./nfttable.ts";
import { addService, type NftSync } from "./nftservice.ts";

export type { NftChain, NftElement, NftRule, NftSet, NftTable } from "./nfttable.ts";

/** The id of a verdict-map or set element's line in `nft list table` (the walk in nftwalk.ts lights it). */
export const nftElementId = (set: string, index: number) => `nft/@${set}/${index + 1}`;

// knftables priorities: DNATPriority "dstnat" = -100, FilterPriority 0, SNATPriority "srcnat" = 100.
const BASE_CHAINS: [string, string, string, number][] = [
  ["filter-prerouting-pre-dnat", "filter", "prerouting", -110],
  ["filter-output-pre-dnat", "filter", "output", -110],
  ["filter-input", "filter", "input", 0],
  ["filter-forward", "filter", "forward", 0],
  ["filter-output", "filter", "output", 0],
  ["nat-prerouting", "nat", "prerouting", -100],
  ["nat-output", "nat", "output", -100],
  ["nat-postrouting", "nat", "postrouting", 100],
];

const JUMP_CHAINS: [string, string, string][] = [
  ["nodeport-endpoints-check", "filter-input", "ct state new"],
  ["service-endpoints-check", "filter-input", "ct state new"],
  ["service-endpoints-check", "filter-forward", "ct state new"],
  ["service-endpoints-check", "filter-output", "ct state new"],
  ["firewall-check", "filter-prerouting-pre-dnat", "ct state new"],
  ["firewall-check", "filter-output-pre-dnat", "ct state new"],
  ["services", "nat-output", ""],
  ["services", "nat-prerouting", ""],
  ["masquerading", "nat-postrouting", ""],
  ["cluster-ips-check", "filter-forward", "ct state new"],
  ["cluster-ips-check", "filter-output", "ct state new"],
];

const mark32 = (config: ProxyConfig) =>
  `0x${((1 << config.masqueradeBit) >>> 0).toString(16).padStart(8, "0")}`;

/** Builds kube-proxy's `kube-proxy` table for the node. */
export function buildNftables(input: NodeDataplaneInput, config: ProxyConfig): NftTable {
  const t = new Table();
  const v6 = config.family === "IPv6";
  const ipX = v6 ? "ip6" : "ip";
  const addrType = v6 ? "ipv6_addr" : "ipv4_addr";
  const noLocalhost = v6 ? "ip6 daddr != ::1" : "ip daddr != 127.0.0.0/8";
  const mark = mark32(config);
  const matchAll = config.nodePortAddresses.length === 0;
  const base: RuleOrigin = { role: "base" };

  for (const [name, type, hook, priority] of BASE_CHAINS) t.chain(name, { base: { type, hook, priority } });
  for (const [dst, src, extra] of JUMP_CHAINS) {
    t.chain(dst);
    t.rule(src, `${extra ? `${extra} ` : ""}jump ${dst}`, { role: "jump" });
  }
  for (const c of ["services", "cluster-ips-check", "masquerading", "mark-for-masquerade"]) t.chain(c);
  t.rule("mark-for-masquerade", `meta mark set meta mark | ${mark}`, { role: "masquerade" });
  t.rule("masquerading", `meta mark & ${mark} == 0x00000000 return`, base);
  t.rule("masquerading", `meta mark set meta mark ^ ${mark}`, base);
  t.rule("masquerading", "masquerade fully-random", { role: "masquerade" });

  t.set({ kind: "set", name: "cluster-ips", type: addrType, comment: "Active ClusterIPs", elements: [] });
  t.rule(
    "cluster-ips-check",
    `${ipX} daddr @cluster-ips reject`,
    { role: "no-endpoints" },
    "Reject traffic to invalid ports of ClusterIPs",
  );
  if (config.serviceCIDRs.length)
    t.rule(
      "cluster-ips-check",
      `${ipX} daddr ${anonSet(config.serviceCIDRs)} drop`,
      base,
      "Drop traffic to unallocated ClusterIPs",
    );

  if (!matchAll) {
    t.set({
      kind: "set",
      name: "nodeport-ips",
      type: addrType,
      comment: "IPs that accept NodePort traffic",
      elements: [],
    });
    const cidrs = config.nodePortAddresses.map((c) => parseCidr(c).cidr).filter((c) => c !== undefined);
    for (const ip of input.nodeIPs) {
      const p = parseIP(ip);
      if (
        p &&
        familyOf(ip) === config.family &&
        cidrs.some((c) => c.family === p.family && p.value >= c.first && p.value <= c.last)
      )
        t.elem("nodeport-ips", { key: ip });
    }
  }
  t.set({
    kind: "map",
    name: "no-endpoint-services",
    type: `${addrType} . inet_proto . inet_service : verdict`,
    comment: "vmap to drop or reject packets to services with no endpoints",
    elements: [],
  });
  t.set({
    kind: "map",
    name: "no-endpoint-nodeports",
    type: "inet_proto . inet_service : verdict",
    comment: "vmap to drop or reject packets to service nodeports with no endpoints",
    elements: [],
  });
  t.chain("reject-chain", { comment: "helper for @no-endpoint-services / @no-endpoint-nodeports" });
  t.rule("reject-chain", "reject", { role: "no-endpoints" });
  t.rule(
    "service-endpoints-check",
    `${ipX} daddr . meta l4proto . th dport vmap @no-endpoint-services`,
    base,
  );
  t.rule(
    "nodeport-endpoints-check",
    `${matchAll ? noLocalhost : `${ipX} daddr @nodeport-ips`} meta l4proto . th dport vmap @no-endpoint-nodeports`,
    base,
  );
  t.set({
    kind: "map",
    name: "firewall-ips",
    type: `${addrType} . inet_proto . inet_service : verdict`,
    comment: "destinations that are subject to LoadBalancerSourceRanges",
    elements: [],
  });
  t.rule("firewall-check", `${ipX} daddr . meta l4proto . th dport vmap @firewall-ips`, base);
  t.set({
    kind: "map",
    name: "service-ips",
    type: `${addrType} . inet_proto . inet_service : verdict`,
    comment: "ClusterIP, ExternalIP and LoadBalancer IP traffic",
    elements: [],
  });
  t.set({
    kind: "map",
    name: "service-nodeports",
    type: "inet_proto . inet_service : verdict",
    comment: "NodePort traffic",
    elements: [],
  });
  t.rule("services", `${ipX} daddr . meta l4proto . th dport vmap @service-ips`, base);
  t.rule(
    "services",
    `${matchAll ? `fib daddr type local ${noLocalhost}` : `${ipX} daddr @nodeport-ips`} meta l4proto . th dport vmap @service-nodeports`,
    { role: "nodeport" },
  );

  const key = (s: DataplaneServicePort) =>
    `${servicePortNameString(s.namespace, s.name, s.portName)}\u0000${s.protocol}`;
  const ports = [...input.servicePorts]
    .filter((s) => familyOf(s.clusterIP) === config.family)
    .sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  const sync: NftSync = { t, config, input, ipX, addrType };
  for (const s of ports) addService(sync, s);

  return {
    family: v6 ? "ip6" : "ip",
    name: "kube-proxy",
    comment: "rules for kube-proxy",
    sets: t.sets,
    chains: t.chains,
    node: input.nodeName,
  };
}

const STD_PRIOS: [string, number][] = [
  ["raw", -300],
  ["mangle", -150],
  ["dstnat", -100],
  ["filter", 0],
  ["security", 50],
  ["srcnat", 100],
];

/** nft prio2str: the nearest standard priority name, with an offset of up to 10. */
function priorityName(p: number): string {
  for (const [name, v] of STD_PRIOS) {
    const off = p - v;
    if (off === 0) return name;
    if (Math.abs(off) <= 10) return `${name} ${off > 0 ? "+" : "-"} ${Math.abs(off)}`;
  }
  return String(p);
}

/** nft time_print: days, hours, minutes, seconds. */
function nftTime(seconds: number): string {
  let s = seconds;
  let out = "";
  for (const [unit, n] of [
    ["d", 86400],
    ["h", 3600],
    ["m", 60],
  ] as const) {
    if (s >= n) {
      out += `${Math.floor(s / n)}${unit}`;
      s %= n;
    }
  }
  if (s > 0 || out === "") out += `${s}s`;
  return out;
}

/** calculate_delim: IPv4/IPv6 addresses two per line, concatenations and maps one per line; each line with the index of its first element. */
function elementLines(set: NftSet): { text: string; first: number }[] {
  const items = set.elements.map(
    (e) =>
      `${e.key}${e.comment ? ` comment "${e.comment}"` : ""}${e.value !== undefined ? ` : ${e.value}` : ""}`,
  );
  const perLine = set.kind === "set" && (set.type === "ipv4_addr" || set.type === "ipv6_addr") ? 2 : 1;
  const lines: { text: string; first: number }[] = [];
  items.forEach((it, i) => {
    if (i === 0) lines.push({ text: `elements = { ${it}`, first: 0 });
    else if (i % perLine === 0) {
      lines[lines.length - 1]!.text += ",";
      lines.push({ text: `\t     ${it}`, first: i });
    } else lines[lines.length - 1]!.text += `, ${it}`;
  });
  if (lines.length) lines[lines.length - 1]!.text += " }";
  return lines;
}

export interface NftListing {
  text: string;
  lines: SavedLine[];
}

/** `nft list table <family> kube-proxy`. */
export function listNftables(table: NftTable): NftListing {
  const lines: SavedLine[] = [];
  const push = (text: string, ruleId?: string) => lines.push(ruleId ? { text, ruleId } : { text });
  push(`table ${table.family} ${table.name} {`);
  push(`\tcomment "${table.comment}"`);
  let first = true;
  const sep = () => {
    if (!first) push("");
    first = false;
  };
  for (const s of table.sets) {
    sep();
    push(`\t${s.kind} ${s.name} {`);
    push(`\t\ttype ${s.type}`);
    if (s.flags?.length) push(`\t\tflags ${s.flags.join(",")}`);
    if (s.timeoutSeconds !== undefined) push(`\t\ttimeout ${nftTime(s.timeoutSeconds)}`);
    if (s.comment) push(`\t\tcomment "${s.comment}"`);
    // A verdict map's element lines carry ids: a traced packet's walk highlights the element it took.
    for (const l of elementLines(s))
      push(`\t\t${l.text}`, s.kind === "map" ? nftElementId(s.name, l.first) : undefined);
    push("\t}");
  }
  for (const c of table.chains) {
    sep();
    push(`\tchain ${c.name} {`);
    if (c.comment) push(`\t\tcomment "${c.comment}"`);
    if (c.base)
      push(
        `\t\ttype ${c.base.type} hook ${c.base.hook} priority ${priorityName(c.base.priority)}; policy accept;`,
      );
    for (const r of c.rules) push(`\t\t${r.text}${r.comment ? ` comment "${r.comment}"` : ""}`, r.id);
    push("\t}");
  }
  push("}");
  return { text: lines.map((l) => l.text).join("\n") + "\n", lines };
}
