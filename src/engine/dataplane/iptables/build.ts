/**
 * The iptables rules kube-proxy 1.35 (iptables mode) writes on one node, in
 * the order it writes them: pkg/proxy/iptables/proxier.go syncProxyRules
 * (full sync) and writeServiceToEndpointRules, plus the jump rules it ensures
 * in the built-in chains (iptablesJumpChains, iptablesKubeletJumpChains).
 * This file writes the jump rules, the base chains and the tail (the
 * nodePorts tail call, KUBE-FORWARD's conntrack rules); servicePort.ts
 * writes each Service port (plan.ts: its chain choices); sync.ts holds the
 * chain names, the writer and the SyncContext they share.
 *
 * kube-proxy walks its service map in Go map order; rules here follow the
 * Service port names in sorted order (as upstream's tests sort them), which
 * changes nothing about what a packet matches: each rule of KUBE-SERVICES
 * matches a distinct destination.
 */
import type { DataplaneServicePort, NodeDataplaneInput, ProxyConfig } from "../types.ts";
import { servicePortNameString } from "../names.ts";
import { parseCidr, parseIP } from "../../model/ip.ts";
import {
  familyOf,
  KUBE_EXTERNAL_SERVICES,
  KUBE_FIREWALL,
  KUBE_FORWARD,
  KUBE_MARK_MASQ,
  KUBE_NODEPORTS,
  KUBE_POSTROUTING,
  KUBE_PROXY_CANARY,
  KUBE_PROXY_FIREWALL,
  KUBE_SERVICES,
  NFACCT_INVALID,
  q,
  Writer,
  type IptablesRuleset,
  type SyncContext,
} from "./sync.ts";
import { writeServicePort } from "./servicePort.ts";

export type { IptablesRule, IptablesRuleset, IptablesTable, IptablesTableName } from "./sync.ts";
export {
  KUBE_EXTERNAL_SERVICES,
  KUBE_FIREWALL,
  KUBE_FORWARD,
  KUBE_MARK_MASQ,
  KUBE_NODEPORTS,
  KUBE_POSTROUTING,
  KUBE_PROXY_CANARY,
  KUBE_PROXY_FIREWALL,
  KUBE_SERVICES,
} from "./sync.ts";
export { detectorArgs } from "./servicePort.ts";
export { planServicePort, usesClusterEndpoints, usesLocalEndpoints } from "./plan.ts";
export type { ServicePortPlan } from "./plan.ts";

/** largeClusterEndpointsThreshold: above it kube-proxy drops per-endpoint comments. */
const LARGE_CLUSTER_ENDPOINTS = 1000;

/** fmt.Sprintf("%#08x", 1 << masqueradeBit): kube-proxy's mark, e.g. "0x004000". */
export function masqueradeMark(config: ProxyConfig): string {
  const v = (1 << config.masqueradeBit) >>> 0;
  return `0x${v.toString(16).padStart(6, "0")}`;
}

function sortServicePorts(ports: readonly DataplaneServicePort[]): DataplaneServicePort[] {
  const key = (s: DataplaneServicePort) =>
    `${servicePortNameString(s.namespace, s.name, s.portName)}\u0000${s.protocol}`;
  return [...ports].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/** Builds every rule kube-proxy (iptables mode) writes on the node, in syncProxyRules' order. */
export function buildIptables(input: NodeDataplaneInput, config: ProxyConfig): IptablesRuleset {
  const w = new Writer();
  const isIPv6 = config.family === "IPv6";
  const ports = sortServicePorts(input.servicePorts).filter((s) => familyOf(s.clusterIP) === config.family);
  const totalEndpoints = ports.reduce((n, s) => n + s.allEndpoints.length, 0);
  const largeClusterMode = totalEndpoints > LARGE_CLUSTER_ENDPOINTS;
  const ctx: SyncContext = {
    w,
    input,
    config,
    isIPv6,
    mark: masqueradeMark(config),
    localhostNodePorts: config.localhostNodePorts && !isIPv6 && nodePortAddressesIncludeLoopback(config),
    largeClusterMode,
    comment: (c) => (largeClusterMode ? [] : ["-m", "comment", "--comment", c]),
    base: { role: "base" },
  };
  writeJumpRules(w);
  writeBaseChains(ctx);
  for (const s of ports) writeServicePort(ctx, s);
  writeNodePortsTail(ctx);
  writeForwardRules(ctx);
  return { nodeName: input.nodeName, config, tables: w.tables };
}

/**
 * The jump rules from the built-in chains (iptablesJumpChains,
 * iptablesKubeletJumpChains). kube-proxy prepends each one
 * (EnsureRule(Prepend)), so later entries of iptablesJumpChains end up
 * first; kubelet created its KUBE-FIREWALL jumps before kube-proxy started.
 */
function writeJumpRules(w: Writer): void {
  const jump = (table: "filter" | "nat", src: string, dst: string, comment: string, extra: string[]) => ({
    table,
    src,
    dst,
    comment,
    extra,
  });
  const ctNew = ["-m", "conntrack", "--ctstate", "NEW"];
  const jumps = [
    jump("filter", "INPUT", KUBE_EXTERNAL_SERVICES, "kubernetes externally-visible service portals", ctNew),
    jump("filter", "FORWARD", KUBE_EXTERNAL_SERVICES, "kubernetes externally-visible service portals", ctNew),
    jump("filter", "INPUT", KUBE_NODEPORTS, "kubernetes health check service ports", []),
    jump("filter", "FORWARD", KUBE_SERVICES, "kubernetes service portals", ctNew),
    jump("filter", "OUTPUT", KUBE_SERVICES, "kubernetes service portals", ctNew),
    jump("filter", "FORWARD", KUBE_FORWARD, "kubernetes forwarding rules", []),
    jump("filter", "INPUT", KUBE_PROXY_FIREWALL, "kubernetes load balancer firewall", ctNew),
    jump("filter", "OUTPUT", KUBE_PROXY_FIREWALL, "kubernetes load balancer firewall", ctNew),
    jump("filter", "FORWARD", KUBE_PROXY_FIREWALL, "kubernetes load balancer firewall", ctNew),
    jump("nat", "OUTPUT", KUBE_SERVICES, "kubernetes service portals", []),
    jump("nat", "PREROUTING", KUBE_SERVICES, "kubernetes service portals", []),
    jump("nat", "POSTROUTING", KUBE_POSTROUTING, "kubernetes postrouting rules", []),
  ];
  for (const [table, builtins] of [
    ["filter", ["INPUT", "FORWARD", "OUTPUT"]],
    ["nat", ["PREROUTING", "OUTPUT", "POSTROUTING"]],
  ] as const) {
    for (const src of builtins) {
      for (const j of [...jumps].reverse()) {
        if (j.table !== table || j.src !== src) continue;
        w.rule(table, src, [...j.extra, "-m", "comment", "--comment", q(j.comment), "-j", j.dst], {
          role: "jump",
        });
      }
      if (table === "filter" && (src === "INPUT" || src === "OUTPUT"))
        w.rule(table, src, ["-j", KUBE_FIREWALL], { role: "jump" });
    }
  }
}

/**
 * The top-level chains syncProxyRules fills, the KUBE-POSTROUTING and
 * KUBE-MARK-MASQ rules, and KUBE-FIREWALL's block of localnet connections
 * (when localhost NodePorts are on).
 */
function writeBaseChains({ w, config, mark, localhostNodePorts, base }: SyncContext): void {
  // ipt.Monitor's canary chain, in each table kube-proxy watches.
  w.chain("filter", KUBE_PROXY_CANARY);
  w.chain("nat", KUBE_PROXY_CANARY);

  for (const c of [
    KUBE_SERVICES,
    KUBE_EXTERNAL_SERVICES,
    KUBE_FORWARD,
    KUBE_NODEPORTS,
    KUBE_PROXY_FIREWALL,
    KUBE_FIREWALL,
  ])
    w.chain("filter", c);
  for (const c of [KUBE_SERVICES, KUBE_NODEPORTS, KUBE_POSTROUTING, KUBE_MARK_MASQ]) w.chain("nat", c);

  w.rule("nat", KUBE_POSTROUTING, ["-m", "mark", "!", "--mark", `${mark}/${mark}`, "-j", "RETURN"], base);
  w.rule("nat", KUBE_POSTROUTING, ["-j", "MARK", "--xor-mark", mark], base);
  w.rule(
    "nat",
    KUBE_POSTROUTING,
    [
      "-m",
      "comment",
      "--comment",
      q("kubernetes service traffic requiring SNAT"),
      "-j",
      "MASQUERADE",
      ...(config.randomFully ? ["--random-fully"] : []),
    ],
    { role: "masquerade" },
  );
  w.rule("nat", KUBE_MARK_MASQ, ["-j", "MARK", "--or-mark", mark], { role: "masquerade" });
  if (localhostNodePorts) {
    w.rule(
      "filter",
      KUBE_FIREWALL,
      [
        "-m",
        "comment",
        "--comment",
        q("block incoming localnet connections"),
        "-d",
        "127.0.0.0/8",
        "!",
        "-s",
        "127.0.0.0/8",
        "-m",
        "conntrack",
        "!",
        "--ctstate",
        "RELATED,ESTABLISHED,DNAT",
        "-j",
        "DROP",
      ],
      base,
    );
  }
}

/** "Finally, tail-call to the nodePorts chain": the last rule of KUBE-SERVICES. */
function writeNodePortsTail({ w, input, config, isIPv6, localhostNodePorts }: SyncContext): void {
  if (config.nodePortAddresses.length === 0) {
    const dest = ["-m", "addrtype", "--dst-type", "LOCAL"];
    if (isIPv6) dest.push("!", "-d", "::1/128");
    else if (!localhostNodePorts) dest.push("!", "-d", "127.0.0.0/8");
    w.rule(
      "nat",
      KUBE_SERVICES,
      [
        "-m",
        "comment",
        "--comment",
        q("kubernetes service nodeports; NOTE: this must be the last rule in this chain"),
        ...dest,
        "-j",
        KUBE_NODEPORTS,
      ],
      { role: "nodeport" },
    );
  } else {
    for (const ip of nodePortIPs(input, config)) {
      w.rule(
        "nat",
        KUBE_SERVICES,
        [
          "-m",
          "comment",
          "--comment",
          q("kubernetes service nodeports; NOTE: this must be the last rule in this chain"),
          "-d",
          ip,
          "-j",
          KUBE_NODEPORTS,
        ],
        { role: "nodeport" },
      );
    }
  }
}

/**
 * KUBE-FORWARD: drop packets in conntrack state INVALID (unless
 * nf_conntrack_tcp_be_liberal), accept marked traffic and the rest of its
 * connections.
 */
function writeForwardRules({ w, config, mark, base }: SyncContext): void {
  if (!config.conntrackTCPBeLiberal) {
    w.rule(
      "filter",
      KUBE_FORWARD,
      [
        "-m",
        "conntrack",
        "--ctstate",
        "INVALID",
        ...(config.nfacct ? ["-m", "nfacct", "--nfacct-name", NFACCT_INVALID] : []),
        "-j",
        "DROP",
      ],
      base,
    );
  }
  w.rule(
    "filter",
    KUBE_FORWARD,
    [
      "-m",
      "comment",
      "--comment",
      q("kubernetes forwarding rules"),
      "-m",
      "mark",
      "--mark",
      `${mark}/${mark}`,
      "-j",
      "ACCEPT",
    ],
    base,
  );
  w.rule(
    "filter",
    KUBE_FORWARD,
    [
      "-m",
      "comment",
      "--comment",
      q("kubernetes forwarding conntrack rule"),
      "-m",
      "conntrack",
      "--ctstate",
      "RELATED,ESTABLISHED",
      "-j",
      "ACCEPT",
    ],
    base,
  );
}

/** nodePortAddresses.MatchAll()/GetNodeIPs: the node's addresses inside the configured CIDRs. */
export function nodePortIPs(input: NodeDataplaneInput, config: ProxyConfig): string[] {
  const cidrs = config.nodePortAddresses.map((c) => parseCidr(c).cidr).filter((c) => c !== undefined);
  const out: string[] = [];
  for (const ip of [...input.nodeIPs, "127.0.0.1", "::1"]) {
    const p = parseIP(ip);
    if (!p || familyOf(ip) !== config.family) continue;
    if (!cidrs.some((c) => c.family === p.family && p.value >= c.first && p.value <= c.last)) continue;
    if ((ip === "127.0.0.1" && !config.localhostNodePorts) || ip === "::1") continue;
    if (!out.includes(ip)) out.push(ip);
  }
  return out;
}

/** NewProxier: localhostNodePorts is turned off when nodePortAddresses excludes IPv4 loopback. */
function nodePortAddressesIncludeLoopback(config: ProxyConfig): boolean {
  if (config.nodePortAddresses.length === 0) return true;
  const lo = parseIP("127.0.0.1")!;
  return config.nodePortAddresses.some((c) => {
    const x = parseCidr(c).cidr;
    return !!x && x.family === 4 && lo.value >= x.first && lo.value <= x.last;
  });
}
