/**
 * The "Node rules" view: what `ktl iptables|nft|ipvs --node NAME` prints for
 * one node, and the rules a traced packet walks there in that mode, each linked
 * to the trace hop it carries out. Everything comes from the dataplane
 * module (src/engine/dataplane: nodeRules, walkTrace), which builds the rules
 * from the same kube-proxy decisions as the trace; this file only reshapes
 * them and names the hop each rule belongs to.
 */
import type { Model } from "../model/types.ts";
import type { ProxyIndex } from "../proxy/index.ts";
import { traceRequest, type TraceHop, type TraceResult } from "../trace/index.ts";
import {
  dataplaneOptions,
  iptablesRules,
  nodeRules,
  walkTrace,
  type DataplaneOptions,
  type IptablesRules,
  type IpvsRules,
  type NftablesRules,
  type Packet,
  type TraceRuleWalk,
} from "../dataplane/index.ts";
import type { RuleOrigin } from "../dataplane/types.ts";
import type { NodeRulesQuery, NodeRulesView, RuleBranchView, RuleWalkView, TraceQuery } from "./types.ts";

/** Chains whose rules decide the source address (iptables: nat POSTROUTING, KUBE-POSTROUTING, KUBE-MARK-MASQ; nftables: nat-postrouting, masquerading, mark-for-masquerade). */
const SNAT_CHAINS = new Set([
  "POSTROUTING",
  "KUBE-POSTROUTING",
  "KUBE-MARK-MASQ",
  "nat-postrouting",
  "masquerading",
  "mark-for-masquerade",
]);

/** kube-proxy's loadBalancerSourceRanges chains (iptables KUBE-FW-*, KUBE-PROXY-FIREWALL; nftables firewall-check, firewall-*, @firewall-ips). */
const isFirewallChain = (chain: string) =>
  chain === "KUBE-PROXY-FIREWALL" ||
  chain.startsWith("KUBE-FW-") ||
  chain.startsWith("firewall-") ||
  chain === "@firewall-ips";

/**
 * The hop of a trace that a matched rule carries out, by what kube-proxy
 * wrote the rule for (RuleOrigin.role) and where it sits:
 * - loadBalancerSourceRanges (KUBE-FW-* chains, the KUBE-PROXY-FIREWALL DROP):
 *   kube-proxy's firewall, the last "loadBalancerSourceRanges" hop (the cloud
 *   load balancer's own check, when there is one, comes first);
 * - masquerade marks, hairpin marks and the SNAT chains: the "source address" hop;
 * - the `-m recent` affinity rules: the "session affinity" hop;
 * - every other rule (capture, DROP/REJECT for no endpoints, load balancing,
 *   DNAT): the "kube-proxy" hop.
 * A missing hop falls back to the "kube-proxy" hop, then to the hop that
 * dropped the packet; undefined when the trace has none of them.
 */
export function hopOfRule(
  origin: Pick<RuleOrigin, "role"> | undefined,
  chain: string,
  hops: readonly Pick<TraceHop, "step" | "verdict">[],
): number | undefined {
  const role = origin?.role ?? "";
  const last = (step: string): number | undefined => {
    for (let i = hops.length - 1; i >= 0; i--) if (hops[i]!.step === step) return i;
    return undefined;
  };
  let wanted: string;
  if (role === "firewall" || isFirewallChain(chain)) wanted = "loadBalancerSourceRanges";
  else if (role === "masquerade" || role === "hairpin" || SNAT_CHAINS.has(chain)) wanted = "source address";
  else if (role === "affinity") wanted = "session affinity";
  else wanted = "kube-proxy";
  const found = last(wanted) ?? last("kube-proxy");
  if (found !== undefined) return found;
  const drop = hops.findIndex((h) => h.verdict === "drop");
  return drop >= 0 ? drop : undefined;
}

/** "10.244.2.2 -> 10.110.9.10:80/TCP arriving on veth0a1b2c3d (PREROUTING)", as `ktl iptables --from --to` prints it. */
export function describePacket(p: Packet): string {
  return `${p.src} -> ${p.dst}:${p.dport}/${p.protocol}${p.fromHost ? " from the node's host network (OUTPUT)" : ` arriving on ${p.inIface ?? "?"} (PREROUTING)`}`;
}

/** The dataplane's walk in the view's shape, each step linked to its trace hop. */
export function walkView(
  walk: TraceRuleWalk,
  rules: IptablesRules | NftablesRules | IpvsRules,
  trace: TraceResult,
  q: TraceQuery,
): RuleWalkView {
  // What kube-proxy wrote each rule for (IPVS servers have no origin: they are the "kube-proxy" hop).
  const origins = new Map<string, RuleOrigin>();
  if ("ruleset" in rules && rules.ruleset)
    for (const t of Object.values(rules.ruleset.tables)) for (const r of t.rules) origins.set(r.id, r.origin);
  if ("table" in rules && rules.table)
    for (const c of rules.table.chains) for (const r of c.rules) origins.set(r.id, r.origin);
  const v: RuleWalkView = { trace: q, note: walk.note, branches: [] };
  if (walk.packet) v.packet = describePacket(walk.packet);
  else if (!trace.error && trace.handledBy && trace.handledBy !== rules.node)
    v.handledElsewhere = trace.handledBy;
  v.branches = walk.branches.map((b) => {
    const steps = b.steps.map((s) => {
      const step: RuleBranchView["steps"][number] = {
        line: s.lineIndex,
        table: s.table,
        chain: s.chain,
        action: s.action,
      };
      if (s.chance !== undefined) step.chance = s.chance;
      const hop = hopOfRule(origins.get(s.ruleId), s.chain, trace.hops);
      if (hop !== undefined) step.hop = hop;
      return step;
    });
    const br: RuleBranchView = {
      probability: b.probability,
      verdict: b.verdict,
      masquerade: b.masquerade,
      steps,
    };
    if (b.endpoint) br.endpoint = b.endpoint;
    if (b.stoppedBy) {
      const stop = b.stoppedBy;
      const at = b.steps.findIndex((s) => s.ruleId === stop.ruleId && s.lineIndex === stop.lineIndex);
      if (at >= 0) br.stoppedAt = at;
    }
    return br;
  });
  return v;
}

export interface RulesSession {
  rules(q: NodeRulesQuery): NodeRulesView;
}

/** Rules per node and mode are built once per model and reused for every question. */
export function openRules(model: Model, proxy: ProxyIndex | undefined): RulesSession {
  const options: DataplaneOptions = dataplaneOptions(model);
  const cache = new Map<string, IptablesRules | NftablesRules | IpvsRules>();
  const nodes = model.nodes.map((n) => n.name);
  const rulesOf = (node: string, mode: NodeRulesQuery["mode"]): IptablesRules | NftablesRules | IpvsRules => {
    const key = `${mode}\u0000${node}`;
    let r = cache.get(key);
    if (!r) {
      r =
        mode === "iptables"
          ? iptablesRules(model, proxy!, node, options)
          : nodeRules(model, proxy!, node, mode, options);
      cache.set(key, r);
    }
    return r;
  };
  return {
    rules(q) {
      const base = { mode: q.mode, nodes, lines: [] as string[], notes: [] as string[] };
      if (!proxy) return { ...base, node: q.node ?? "", error: "the kube-proxy model failed to build" };
      const trace = q.trace
        ? traceRequest(model, proxy, q.trace.from, q.trace.to, q.trace.protocol)
        : undefined;
      const node =
        q.node ??
        (trace && !trace.error ? (trace.handledBy ?? trace.from.node) : undefined) ??
        nodes[0] ??
        "";
      const r = rulesOf(node, q.mode);
      if (r.error) return { ...base, node, error: r.error };
      const v: NodeRulesView = { ...base, node, lines: r.lines.map((l) => l.text), notes: r.notes };
      if (r.deprecated) v.deprecated = r.deprecated;
      if (q.trace && trace) {
        if (trace.error) v.walkNote = `the question cannot be traced: ${trace.error}`;
        else v.walk = walkView(walkTrace(model, r, trace), r, trace, q.trace);
      }
      return v;
    },
  };
}
