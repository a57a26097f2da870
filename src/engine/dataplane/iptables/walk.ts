/**
 * Walks one packet (the first packet of a connection, conntrack state NEW)
 * through a node's kube-proxy rules, the way netfilter evaluates them, and
 * records every rule that matched, in order.
 *
 * Hooks, in the order a new connection meets them (include/uapi/linux/
 * netfilter_ipv4.h priorities: NAT_DST -100 before FILTER 0 before NAT_SRC 100):
 * - arriving packet: nat PREROUTING, then the routing decision on the
 *   (possibly DNATed) destination: a local address goes to filter INPUT,
 *   anything else to filter FORWARD and nat POSTROUTING;
 * - packet from a local process: nat OUTPUT, filter OUTPUT, nat POSTROUTING.
 *
 * Rule semantics (iptables-extensions(8)): a jump to a user chain returns at
 * its end or at RETURN; ACCEPT ends the table's traversal for this hook;
 * DROP and REJECT end the packet; DNAT and MASQUERADE are terminal in nat;
 * MARK continues. "-m statistic --mode random" matches with the chance the
 * kernel stores (probability.ts), so the walk forks there: each branch
 * carries its chance, and the branches of one packet sum to 1.
 * "-m recent --rcheck" does not match (no earlier connection from this
 * client); "--set" always does.
 */
import type { Protocol } from "../../model/types.ts";
import { parseCidr, parseIP } from "../../model/ip.ts";
import { kernelProbability, matchChance } from "../probability.ts";
import type { IptablesRule, IptablesRuleset, IptablesTableName } from "./build.ts";
import { addressMatches, ifaceMatches, markOf, optionOf, saveRule, type ParsedRule } from "./rule.ts";

export interface Packet {
  src: string;
  dst: string;
  protocol: Protocol;
  dport: number;
  /** The interface the packet arrived on; undefined when a local process sent it. */
  inIface?: string;
  /** Sent by a process in the node's network namespace (hostNetwork): it enters at OUTPUT. */
  fromHost: boolean;
}

export type StepAction =
  "jump" | "return" | "accept" | "drop" | "reject" | "dnat" | "mark" | "masquerade" | "match";

export interface WalkStep {
  ruleId: string;
  table: IptablesTableName;
  chain: string;
  /** The rule as iptables-save prints it. */
  line: string;
  action: StepAction;
  /** For a statistic rule: the chance that this branch took it (matched) or passed it (not matched). */
  chance?: number;
}

export interface WalkBranch {
  /** Chance of this branch (product of the statistic choices on it). */
  probability: number;
  verdict: "accept" | "drop" | "reject";
  steps: WalkStep[];
  /** Where the packet was DNATed to ("ip:port"), if anywhere. */
  dnat?: string;
  /** KUBE-POSTROUTING masqueraded it. */
  masquerade: boolean;
  /** The rule that dropped or rejected it. */
  stoppedBy?: WalkStep;
}

export interface IptablesWalk {
  node: string;
  packet: Packet;
  branches: WalkBranch[];
}

interface State {
  dst: string;
  dport: number;
  mark: number;
  ct: Set<string>;
  dnat?: string;
  masquerade: boolean;
  chance: number;
  steps: WalkStep[];
}

type Verdict = "ACCEPT" | "DROP" | "REJECT" | "CONTINUE";

interface Outcome {
  state: State;
  verdict: Verdict;
  stoppedBy?: WalkStep;
}

const clone = (s: State): State => ({ ...s, ct: new Set(s.ct), steps: [...s.steps] });

/** A walk's end as a branch (shared by the nftables walk): its chance, verdict, steps, DNAT and the rule that stopped it. */
export function branchOf<Step>(o: {
  state: { chance: number; steps: Step[]; masquerade: boolean; dnat?: string };
  verdict: "ACCEPT" | "DROP" | "REJECT" | "CONTINUE";
  stoppedBy?: Step;
}): {
  probability: number;
  verdict: "accept" | "drop" | "reject";
  steps: Step[];
  masquerade: boolean;
  dnat?: string;
  stoppedBy?: Step;
} {
  const b: ReturnType<typeof branchOf<Step>> = {
    probability: o.state.chance,
    verdict: o.verdict === "DROP" ? "drop" : o.verdict === "REJECT" ? "reject" : "accept",
    steps: o.state.steps,
    masquerade: o.state.masquerade,
  };
  if (o.state.dnat) b.dnat = o.state.dnat;
  if (o.stoppedBy) b.stoppedBy = o.stoppedBy;
  return b;
}

const PROTO_NAMES: Record<string, Protocol> = { tcp: "TCP", udp: "UDP", sctp: "SCTP" };

class Walker {
  private readonly byChain = new Map<string, IptablesRule[]>();
  private readonly local: string[];
  private readonly savedLines = new Map<string, string>();
  constructor(
    private readonly rs: IptablesRuleset,
    private readonly packet: Packet,
    localAddresses: readonly string[],
  ) {
    for (const t of ["filter", "nat"] as const) {
      for (const r of rs.tables[t].rules) {
        const k = `${t}/${r.chain}`;
        const list = this.byChain.get(k);
        if (list) list.push(r);
        else this.byChain.set(k, [r]);
      }
    }
    this.local = [...localAddresses];
  }

  private isLocal(ip: string): boolean {
    const p = parseIP(ip);
    if (!p) return false;
    if (p.family === 4) {
      const lo = parseCidr("127.0.0.0/8").cidr!;
      if (p.value >= lo.first && p.value <= lo.last) return true;
    } else if (ip === "::1") return true;
    return this.local.some((a) => parseIP(a)?.value === p.value && parseIP(a)?.family === p.family);
  }

  private line(r: IptablesRule): string {
    let l = this.savedLines.get(r.id);
    if (l === undefined) {
      l = saveRule(r.parsed, {
        iptablesVersion: this.rs.config.iptablesVersion,
        family: this.rs.config.family,
      });
      this.savedLines.set(r.id, l);
    }
    return l;
  }

  /** Deterministic part of a rule's match (everything but statistic). */
  private matches(p: ParsedRule, s: State): boolean {
    const pk = this.packet;
    if (p.src && !addressMatches(p.src, pk.src)) return false;
    if (p.dst && !addressMatches(p.dst, s.dst)) return false;
    if (p.inIface && !ifaceMatches(p.inIface, pk.inIface)) return false;
    if (p.outIface) return false;
    if (p.proto && (PROTO_NAMES[p.proto.value] === pk.protocol) === p.proto.negated) return false;
    for (const m of p.matches) {
      switch (m.module) {
        case "comment":
        case "nfacct":
        case "statistic":
          break;
        case "tcp":
        case "udp":
        case "sctp": {
          if (PROTO_NAMES[m.module] !== pk.protocol) return false;
          const d = optionOf(m, "--dport");
          if (d && (Number(d.value) === s.dport) === d.negated) return false;
          if (optionOf(m, "--sport")) return false;
          break;
        }
        case "addrtype": {
          const st = optionOf(m, "--src-type");
          if (st && (st.value === "LOCAL" && this.isLocal(pk.src)) === st.negated) return false;
          const dt = optionOf(m, "--dst-type");
          if (dt && (dt.value === "LOCAL" && this.isLocal(s.dst)) === dt.negated) return false;
          break;
        }
        case "mark": {
          const o = optionOf(m, "--mark");
          const [v, mask] = markOf(o?.value ?? "0");
          if (((s.mark & mask) >>> 0 === v) === !!o?.negated) return false;
          break;
        }
        case "conntrack": {
          const o = optionOf(m, "--ctstate");
          const want = (o?.value ?? "").split(",");
          if (want.some((x) => s.ct.has(x)) === !!o?.negated) return false;
          break;
        }
        case "recent":
          if (optionOf(m, "--rcheck") || optionOf(m, "--update")) return false;
          break;
        default:
          return false;
      }
    }
    return true;
  }

  private statisticChance(p: ParsedRule): number | undefined {
    const m = p.matches.find((x) => x.module === "statistic");
    const prob = m && optionOf(m, "--probability");
    if (!prob) return undefined;
    const c = matchChance(kernelProbability(prob.value ?? "0"));
    return prob.negated ? 1 - c : c;
  }

  /** Runs `chain` from rule `from`; CONTINUE means the packet fell off the end or hit RETURN. */
  run(table: IptablesTableName, chain: string, from: number, state: State, depth = 0): Outcome[] {
    if (depth > 64) return [{ state, verdict: "CONTINUE" }];
    const rules = this.byChain.get(`${table}/${chain}`) ?? [];
    for (let i = from; i < rules.length; i++) {
      const r = rules[i]!;
      if (!this.matches(r.parsed, state)) continue;
      const chance = this.statisticChance(r.parsed);
      if (chance !== undefined && chance < 1) {
        // Fork: the rule matches with `chance`, or is passed over.
        const passed = clone(state);
        passed.chance *= 1 - chance;
        const taken = clone(state);
        taken.chance *= chance;
        const out = chance > 0 ? this.apply(table, chain, i, r, taken, depth, chance) : [];
        return [...out, ...(chance < 1 ? this.run(table, chain, i + 1, passed, depth) : [])];
      }
      return this.apply(table, chain, i, r, state, depth, undefined);
    }
    return [{ state, verdict: "CONTINUE" }];
  }

  private apply(
    table: IptablesTableName,
    chain: string,
    i: number,
    r: IptablesRule,
    state: State,
    depth: number,
    chance: number | undefined,
  ): Outcome[] {
    const t = r.parsed.target;
    const step = (action: StepAction): WalkStep => {
      const s: WalkStep = { ruleId: r.id, table, chain, line: this.line(r), action };
      if (chance !== undefined) s.chance = chance;
      state.steps.push(s);
      return s;
    };
    const next = (): Outcome[] => this.run(table, chain, i + 1, state, depth);
    if (!t) {
      step("match");
      return next();
    }
    switch (t.name) {
      case "ACCEPT":
        step("accept");
        return [{ state, verdict: "ACCEPT" }];
      case "DROP":
        return [{ state, verdict: "DROP", stoppedBy: step("drop") }];
      case "REJECT":
        return [{ state, verdict: "REJECT", stoppedBy: step("reject") }];
      case "RETURN":
        step("return");
        return [{ state, verdict: "CONTINUE" }];
      case "DNAT": {
        step("dnat");
        const to = optionOf(t, "--to-destination")?.value ?? "";
        const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(to);
        if (m) {
          state.dst = m[1]!;
          state.dport = Number(m[2]);
        }
        state.dnat = to;
        state.ct.add("DNAT");
        return [{ state, verdict: "ACCEPT" }];
      }
      case "MARK": {
        step("mark");
        const or = optionOf(t, "--or-mark");
        const xor = optionOf(t, "--xor-mark");
        if (or) state.mark = (state.mark | markOf(or.value ?? "0")[0]) >>> 0;
        if (xor) state.mark = (state.mark ^ markOf(xor.value ?? "0")[0]) >>> 0;
        return next();
      }
      case "MASQUERADE":
        step("masquerade");
        state.masquerade = true;
        return [{ state, verdict: "ACCEPT" }];
      default: {
        step("jump");
        const out: Outcome[] = [];
        for (const o of this.run(table, t.name, 0, state, depth + 1)) {
          if (o.verdict === "CONTINUE") out.push(...this.run(table, chain, i + 1, o.state, depth));
          else out.push(o);
        }
        return out;
      }
    }
  }

  /** A built-in chain: falling off the end applies its policy (ACCEPT for every chain kube-proxy touches). */
  hook(table: IptablesTableName, chain: string, states: State[]): Outcome[] {
    const out: Outcome[] = [];
    for (const s of states)
      for (const o of this.run(table, chain, 0, s))
        out.push(o.verdict === "CONTINUE" ? { ...o, verdict: "ACCEPT" } : o);
    return out;
  }
}

/** Walks `packet` through `ruleset`. `localAddresses` are the node's own addresses (addrtype LOCAL). */
export function walkIptables(
  ruleset: IptablesRuleset,
  packet: Packet,
  localAddresses: readonly string[],
): IptablesWalk {
  const w = new Walker(ruleset, packet, localAddresses);
  const start: State = {
    dst: packet.dst,
    dport: packet.dport,
    mark: 0,
    ct: new Set(["NEW"]),
    masquerade: false,
    chance: 1,
    steps: [],
  };
  const branches: WalkBranch[] = [];
  const finish = (o: Outcome) => branches.push(branchOf(o));
  const isLocal = (ip: string) => localAddresses.includes(ip) || ip.startsWith("127.") || ip === "::1";
  const nat = w.hook("nat", packet.fromHost ? "OUTPUT" : "PREROUTING", [start]);
  for (const o of nat) {
    if (o.verdict !== "ACCEPT") {
      finish(o);
      continue;
    }
    const filterChain = packet.fromHost ? "OUTPUT" : isLocal(o.state.dst) ? "INPUT" : "FORWARD";
    for (const f of w.hook("filter", filterChain, [o.state])) {
      if (f.verdict !== "ACCEPT" || filterChain === "INPUT") {
        finish(f);
        continue;
      }
      for (const p of w.hook("nat", "POSTROUTING", [f.state])) finish(p);
    }
  }
  return { node: ruleset.nodeName, packet, branches };
}
