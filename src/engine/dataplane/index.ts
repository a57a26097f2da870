/**
 * The node's dataplane: the rules kube-proxy v1.35 writes on one node, in
 * each proxy mode, printed the way the node's own tools print them, and the
 * rules one traced packet walks through.
 *
 * - iptables mode: `iptables-save` (nat and filter tables).
 * - nftables mode: `nft list table ip kube-proxy`.
 * - IPVS mode: `ipvsadm -Ln`.
 *
 * Every mode is built from nodeDataplaneInput, i.e. from the proxy module's
 * CategorizeEndpoints, the decision the trace reads.
 */
import type { Model } from "../model/types.ts";
import { asPodKey } from "../model/ids.ts";
import { nodeAddress, type ProxyIndex } from "../proxy/index.ts";
import type { TraceResult } from "../trace/index.ts";
import { parseIP } from "../model/ip.ts";
import { buildIptables, type IptablesRuleset } from "./iptables/build.ts";
import { saveIptables, type SavedLine } from "./iptables/save.ts";
import { walkIptables, type Packet } from "./iptables/walk.ts";
import { buildNftables, listNftables, type NftTable } from "./nftables.ts";
import { listIpvs, walkIpvs, type IpvsVirtualServer } from "./ipvs.ts";
import { walkNftables } from "./nftwalk.ts";
import {
  kubeProxyConfigurationOverrides,
  nodeDataplaneInput,
  resolveProxyConfig,
  type ProxyConfigOverrides,
} from "./input.ts";
import type { IPFamily, ProxyConfig } from "./types.ts";

export type { ProxyConfigOverrides } from "./input.ts";
export type {
  ProxyConfig,
  IPFamily,
  LocalDetector,
  RuleOrigin,
  DataplaneServicePort,
  DataplaneEndpoint,
  NodeDataplaneInput,
} from "./types.ts";
export type { Packet, WalkStep, WalkBranch, IptablesWalk } from "./iptables/walk.ts";
export type { SavedLine } from "./iptables/save.ts";
export {
  servicePortNameString,
  portProtoHash,
  serviceClusterChain,
  serviceLocalChain,
  serviceEndpointChain,
  nftServiceBase,
  nftEndpointBase,
} from "./names.ts";
export { kubeProxyProbability, kernelProbability, savedProbability } from "./probability.ts";
export { nodeDataplaneInput, resolveProxyConfig, kubeProxyConfigurationOverrides } from "./input.ts";
export { buildIptables } from "./iptables/build.ts";
export { saveIptables } from "./iptables/save.ts";
export { walkIptables } from "./iptables/walk.ts";
export { walkNftables } from "./nftwalk.ts";
export { walkIpvs } from "./ipvs.ts";

export type ProxyMode = "iptables" | "nftables" | "ipvs";

/** The kube-proxy release whose rules are reproduced. */
export const KUBE_PROXY_VERSION = "v1.35";

export interface DataplaneOptions extends ProxyConfigOverrides {
  family?: IPFamily;
}

/** What one node's rules look like in one proxy mode. */
export interface NodeRules {
  node: string;
  mode: ProxyMode;
  family: IPFamily;
  config: ProxyConfig;
  /** How settings the input leaves open were chosen. */
  notes: string[];
  /** The tool's output, as the node prints it. */
  text: string;
  /** One entry per line of `text`; `ruleId` links a rule's line to walk steps. */
  lines: SavedLine[];
  /** The mode is deprecated upstream: what to say next to its rules. */
  deprecated?: string;
  /** Problem with the request (unknown node), instead of rules. */
  error?: string;
}

/** KEP-5495: kube-proxy's IPVS mode is deprecated in Kubernetes 1.35; nftables mode is the one to move to. */
export const IPVS_DEPRECATED =
  "IPVS mode is deprecated in Kubernetes 1.35 (KEP-5495): kube-proxy warns when it starts in it; nftables mode is the one to use next to iptables";

function errorRules(
  node: string,
  mode: ProxyMode,
  family: IPFamily,
  config: ProxyConfig,
  error: string,
): NodeRules {
  return { node, mode, family, config, notes: [], text: "", lines: [], error };
}

/** Merges the input's KubeProxyConfiguration (model.proxyConfiguration, if any) under the explicit options. */
export function dataplaneOptions(model: Model, explicit: DataplaneOptions = {}): DataplaneOptions {
  const raw = model.proxyConfiguration;
  return raw ? { ...kubeProxyConfigurationOverrides(raw), ...explicit } : { ...explicit };
}

function prepare(model: Model, index: ProxyIndex, node: string, options: DataplaneOptions) {
  const family: IPFamily = options.family ?? "IPv4";
  const { config, notes } = resolveProxyConfig(model, node, family, options);
  const known = model.nodesByName.has(node);
  return { family, config, notes, known, input: known ? nodeDataplaneInput(index, node, family) : undefined };
}

function unknownNode(model: Model, node: string): string {
  return `no node ${node} in the input (nodes: ${model.nodes.map((n) => n.name).join(", ")})`;
}

export interface IptablesRules extends NodeRules {
  ruleset?: IptablesRuleset;
}

/** iptables mode: what `iptables-save` prints for the filter and nat tables on `node`. */
export function iptablesRules(
  model: Model,
  index: ProxyIndex,
  node: string,
  options: DataplaneOptions = {},
): IptablesRules {
  const p = prepare(model, index, node, options);
  if (!p.input) return errorRules(node, "iptables", p.family, p.config, unknownNode(model, node));
  const ruleset = buildIptables(p.input, p.config);
  const saved = saveIptables(ruleset);
  const noteLines = p.notes.map((n) => ({ text: `# ktl: ${n}` }));
  const lines = [...noteLines, ...saved.lines];
  return {
    node,
    mode: "iptables",
    family: p.family,
    config: p.config,
    notes: p.notes,
    text: lines.map((l) => l.text).join("\n") + "\n",
    lines,
    ruleset,
  };
}

export interface NftablesRules extends NodeRules {
  table?: NftTable;
}

export interface IpvsRules extends NodeRules {
  servers?: IpvsVirtualServer[];
}

/** nftables mode: what `nft list table ip kube-proxy` (ip6 for IPv6) prints on `node`. */
export function nftablesRules(
  model: Model,
  index: ProxyIndex,
  node: string,
  options: DataplaneOptions = {},
): NftablesRules {
  const p = prepare(model, index, node, options);
  if (!p.input) return errorRules(node, "nftables", p.family, p.config, unknownNode(model, node));
  const table = buildNftables(p.input, p.config);
  const listed = listNftables(table);
  const lines = [...p.notes.map((n) => ({ text: `# ktl: ${n}` })), ...listed.lines];
  return {
    node,
    mode: "nftables",
    family: p.family,
    config: p.config,
    notes: p.notes,
    text: lines.map((l) => l.text).join("\n") + "\n",
    lines,
    table,
  };
}

/** IPVS mode: what `ipvsadm -Ln` prints on `node`. */
export function ipvsRules(
  model: Model,
  index: ProxyIndex,
  node: string,
  options: DataplaneOptions = {},
): IpvsRules {
  const p = prepare(model, index, node, options);
  if (!p.input) return errorRules(node, "ipvs", p.family, p.config, unknownNode(model, node));
  const listed = listIpvs(p.input, p.config, model);
  return {
    node,
    mode: "ipvs",
    family: p.family,
    config: p.config,
    notes: p.notes,
    text: listed.lines.map((l) => l.text).join("\n") + "\n",
    lines: listed.lines,
    deprecated: IPVS_DEPRECATED,
    servers: listed.servers,
  };
}

export function nodeRules(
  model: Model,
  index: ProxyIndex,
  node: string,
  mode: ProxyMode,
  options: DataplaneOptions = {},
): IptablesRules | NftablesRules | IpvsRules {
  return mode === "iptables"
    ? iptablesRules(model, index, node, options)
    : mode === "nftables"
      ? nftablesRules(model, index, node, options)
      : ipvsRules(model, index, node, options);
}

/** A walk step with the line of the printed rules it highlights. */
export interface TraceRuleStep {
  /** The rule's id (iptables, nftables), a verdict-map element's (`nft/@MAP/N`), or a virtual or real server's (`ipvs/N`, `ipvs/N/M`). */
  ruleId: string;
  /** iptables: the table (filter, nat); nftables: "kube-proxy"; IPVS: "ipvs". */
  table: string;
  chain: string;
  /** The rule as the node's tool prints it. */
  line: string;
  /** jump, goto, return, accept, drop, reject, dnat, mark, masquerade or match. */
  action: string;
  /** At a fork (statistic, numgen, the IPVS scheduler): the chance this branch took it. */
  chance?: number;
  /** 0-based index into NodeRules.lines / the text's lines. */
  lineIndex: number;
}

export interface TraceRuleBranch {
  /** The backend this branch DNATs to ("ip:port"), if any. */
  endpoint?: string;
  probability: number;
  verdict: "accept" | "drop" | "reject";
  masquerade: boolean;
  steps: TraceRuleStep[];
  /** The step that dropped or rejected the packet. */
  stoppedBy?: TraceRuleStep;
}

export interface TraceRuleWalk {
  node: string;
  mode: ProxyMode;
  /** The packet as it reaches the node's netfilter hooks; null when kube-proxy on this node does not see it. */
  packet: Packet | null;
  branches: TraceRuleBranch[];
  /** What the walk shows, in one sentence. */
  note: string;
}

/** The interface a pod's packet arrives on, as the local-traffic detector expects it. */
function podInterface(config: ProxyConfig): string {
  const d = config.localDetector;
  if (d.mode === "InterfaceNamePrefix") return `${d.prefix}0a1b2c3d`;
  if (d.mode === "BridgeInterface") return d.interfaceName;
  return "veth0a1b2c3d";
}

function splitHostPort(text: string): { ip: string; port: number } | undefined {
  const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(text);
  return m ? { ip: m[1]!, port: Number(m[2]) } : undefined;
}

/** The first packet of a traced connection as it reaches `node` (the node whose kube-proxy handles it). */
export function packetForTrace(
  model: Model,
  trace: TraceResult,
  node: string,
  config: ProxyConfig,
): Packet | null {
  if (trace.error || trace.handledBy !== node) return null;
  const dest = (trace.service &&
  trace.service.frontend !== "headless" &&
  trace.service.frontend !== "externalName"
    ? splitHostPort(trace.service.address)
    : undefined) ?? { ip: trace.to.ip, port: trace.to.port ?? trace.port };
  const fam = parseIP(dest.ip)?.family ?? 4;
  const from = trace.from;
  let src: string | undefined;
  let host = false;
  if (from.kind === "pod") {
    const pod = model.podsByKey.get(asPodKey(from.name));
    host = !!pod?.hostNetwork;
    src =
      pod?.ips.find((ip) => parseIP(ip)?.family === fam) ??
      (host ? nodeAddress(model.nodesByName.get(from.node ?? ""), fam) : undefined);
  } else if (from.kind === "node") {
    host = true;
    src = nodeAddress(model.nodesByName.get(from.name), fam);
  } else src = from.name;
  if (!src) return null;
  const fromHost = host && from.node === node;
  const packet: Packet = { src, dst: dest.ip, protocol: trace.protocol, dport: dest.port, fromHost };
  if (!fromHost)
    packet.inIface = from.kind === "pod" && !host && from.node === node ? podInterface(config) : "eth0";
  return packet;
}

/**
 * The rules a traced packet walks on `node`, in order, one branch per backend
 * kube-proxy may pick (with its chance), each step pointing at its line in
 * `rules` (iptablesRules, nftablesRules or ipvsRules for the same node and
 * options): iptables chains and rules, nftables chains, rules and
 * verdict-map elements, or the IPVS virtual server and real server.
 */
export function walkTrace(
  model: Model,
  rules: IptablesRules | NftablesRules | IpvsRules,
  trace: TraceResult,
): TraceRuleWalk {
  const out: TraceRuleWalk = { node: rules.node, mode: rules.mode, packet: null, branches: [], note: "" };
  const built =
    "ruleset" in rules && rules.ruleset
      ? { kind: "iptables" as const, ruleset: rules.ruleset }
      : "table" in rules && rules.table
        ? { kind: "nftables" as const, table: rules.table }
        : "servers" in rules && rules.servers
          ? { kind: "ipvs" as const, servers: rules.servers }
          : undefined;
  if (!built) {
    out.note = rules.error ?? "no rules";
    return out;
  }
  const packet = packetForTrace(model, trace, rules.node, rules.config);
  if (!packet) {
    out.note = trace.error
      ? `the trace has no packet: ${trace.error}`
      : trace.handledBy
        ? `kube-proxy on ${trace.handledBy}, not ${rules.node}, handles this packet`
        : trace.service || trace.to?.kind === "service"
          ? `no kube-proxy rule takes this packet: ${trace.reason}`
          : "this packet goes to a pod or an address directly: no kube-proxy rule rewrites it";
    return out;
  }
  out.packet = packet;
  const node = model.nodesByName.get(rules.node);
  const local = (node?.addresses ?? []).map((a) => a.address);
  const lineOf = new Map<string, number>();
  rules.lines.forEach((l, i) => {
    if (l.ruleId) lineOf.set(l.ruleId, i);
  });
  const withLine = (s: Omit<TraceRuleStep, "lineIndex" | "table"> & { table?: string }): TraceRuleStep => ({
    ...s,
    table: s.table ?? (built.kind === "nftables" ? "kube-proxy" : "ipvs"),
    lineIndex: lineOf.get(s.ruleId) ?? -1,
  });
  if (built.kind === "ipvs") {
    // IPVS rewrites the destination; the source address is iptables' doing (KUBE-MARK-MASQ, KUBE-POSTROUTING), which ipvsadm does not list: the trace's decision says it.
    const masquerade = trace.kubeProxy?.masquerade ?? false;
    const w = walkIpvs({ lines: rules.lines, servers: built.servers }, packet);
    out.branches = w.branches.map((b) => {
      const br: TraceRuleBranch = {
        probability: b.probability,
        verdict: b.verdict,
        masquerade: b.verdict === "accept" && masquerade,
        steps: b.steps.map(withLine),
      };
      if (b.dnat) br.endpoint = b.dnat;
      if (b.stoppedBy) br.stoppedBy = withLine(b.stoppedBy);
      return br;
    });
    out.note = !w.server
      ? `no IPVS virtual server on ${rules.node} is ${packet.dst}:${packet.dport}/${packet.protocol}: IPVS does not rewrite this packet`
      : w.server.realServers.length === 0
        ? `IPVS virtual server ${packet.dst}:${packet.dport}/${packet.protocol} has no real server: the client gets ICMP port unreachable (ip_vs_leave)`
        : `${out.branches.length} real server${out.branches.length === 1 ? "" : "s"} (scheduler ${w.server.scheduler}): ${out.branches.map((b) => b.endpoint).join(", ")}`;
    return out;
  }
  const walk =
    built.kind === "iptables"
      ? walkIptables(built.ruleset, packet, local)
      : walkNftables(built.table, packet, local);
  out.branches = walk.branches.map((b) => {
    const br: TraceRuleBranch = {
      probability: b.probability,
      verdict: b.verdict,
      masquerade: b.masquerade,
      steps: b.steps.map(withLine),
    };
    if (b.dnat) br.endpoint = b.dnat;
    if (b.stoppedBy) br.stoppedBy = withLine(b.stoppedBy);
    return br;
  });
  const stopped = out.branches.find((b) => b.stoppedBy);
  out.note = stopped
    ? `${stopped.verdict === "reject" ? "rejected" : "dropped"} by ${stopped.stoppedBy!.table} ${stopped.stoppedBy!.chain}: ${stopped.stoppedBy!.line}`
    : `${out.branches.length} branch${out.branches.length === 1 ? "" : "es"}: ${out.branches.map((b) => b.endpoint ?? "no DNAT").join(", ")}`;
  return out;
}

/**
 * For a trace: the rules (in `mode`, iptables by default) of the node that
 * handles its packet (or `node`), and the rules the packet walks there, in order.
 */
export function rulesWalkedByTrace(
  model: Model,
  index: ProxyIndex,
  trace: TraceResult,
  options: DataplaneOptions = {},
  node?: string,
  mode: ProxyMode = "iptables",
): { rules: IptablesRules | NftablesRules | IpvsRules; walk: TraceRuleWalk } {
  const name = node ?? trace.handledBy ?? trace.from.node ?? model.nodes[0]?.name ?? "";
  const rules = nodeRules(model, index, name, mode, options);
  return { rules, walk: walkTrace(model, rules, trace) };
}
