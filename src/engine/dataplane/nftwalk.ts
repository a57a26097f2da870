/**
 * Walks one packet (the first of a connection, conntrack state new) through
 * kube-proxy's nftables table on a node, the way the kernel evaluates it, and
 * records every rule, and every verdict-map element, that matched, in order.
 * It reads the rules as kube-proxy writes them (nftables.ts), the same forms
 * upstream's own tracer reads in pkg/proxy/nftables/helpers_test.go
 * (nftablesTracer, used by runPacketFlowTests).
 *
 * Hooks (include/uapi/linux/netfilter.h; base chains of one hook in priority
 * order): an arriving packet meets the prerouting chains
 * (filter-prerouting-pre-dnat -110, nat-prerouting -100), then the routing
 * decision on its (possibly DNATed) destination: a local address goes to
 * input, anything else to forward and postrouting. A packet from a process
 * in the node's network namespace meets the output chains, then postrouting.
 *
 * Semantics (nft(8) VERDICT STATEMENT): `jump` returns to the next rule at
 * the end of the chain or at `return`; `goto` does not return to the chain
 * that made it; `accept` ends the base chain; `drop` and `reject` end the
 * packet; `dnat` and `masquerade` are terminal in a nat chain (the NAT
 * expression's verdict is NF_ACCEPT). `numgen random mod N` picks each of its
 * N elements with chance 1/N, so the walk forks there. The affinity sets
 * (`ip saddr @affinity-…`) are empty for a first connection.
 */
import type { Protocol } from "../model/types.ts";
import { parseCidr, parseIP } from "../model/ip.ts";
import { nftElementId, type NftRule, type NftTable } from "./nftables.ts";
import { branchOf, type Packet } from "./iptables/walk.ts";

export type NftStepAction =
  "jump" | "goto" | "return" | "accept" | "drop" | "reject" | "dnat" | "mark" | "masquerade" | "match";

export interface NftWalkStep {
  /** The rule's id (`nft/CHAIN/N`) or a verdict-map element's (`nft/@MAP/N`). */
  ruleId: string;
  chain: string;
  /** The rule (or the element) as nft lists it. */
  line: string;
  action: NftStepAction;
  /** At a numgen fork: the chance of the element this branch took. */
  chance?: number;
}

export interface NftWalkBranch {
  probability: number;
  verdict: "accept" | "drop" | "reject";
  steps: NftWalkStep[];
  dnat?: string;
  masquerade: boolean;
  stoppedBy?: NftWalkStep;
}

export interface NftWalk {
  node: string;
  packet: Packet;
  branches: NftWalkBranch[];
}

interface State {
  dst: string;
  dport: number;
  mark: number;
  dnat?: string;
  masquerade: boolean;
  chance: number;
  steps: NftWalkStep[];
}

type Verdict = "ACCEPT" | "DROP" | "REJECT" | "CONTINUE";

interface Outcome {
  state: State;
  verdict: Verdict;
  stoppedBy?: NftWalkStep;
}

const clone = (s: State): State => ({ ...s, steps: [...s.steps] });

/** The rule being evaluated, and where: its chain, its index there and the call depth. */
interface RuleAt {
  chainName: string;
  r: NftRule;
  i: number;
  depth: number;
  /** The rule as nft lists it, with its comment. */
  line: string;
}

const PROTO: Record<Protocol, string> = { TCP: "tcp", UDP: "udp", SCTP: "sctp" };

/** Splits a rule into tokens, braces and commas apart, quoted names kept whole. */
function tokenize(text: string): string[] {
  return text.replace(/([{},])/g, " $1 ").match(/"[^"]*"|\S+/g) ?? [];
}

function inside(value: string, ip: string): boolean {
  const p = parseIP(ip);
  if (!p) return false;
  if (value.includes("/")) {
    const c = parseCidr(value).cidr;
    return !!c && c.family === p.family && p.value >= c.first && p.value <= c.last;
  }
  const v = parseIP(value);
  return !!v && v.family === p.family && v.value === p.value;
}

/** An interface name pattern as nft matches it: a trailing `*` is a prefix. */
function ifaceIs(pattern: string, name: string | undefined): boolean {
  const p = pattern.replace(/^"|"$/g, "");
  if (name === undefined) return false;
  return p.endsWith("*") ? name.startsWith(p.slice(0, -1)) : name === p;
}

class Walker {
  private readonly chains = new Map<string, NftTable["chains"][number]>();
  private readonly sets = new Map<string, NftTable["sets"][number]>();
  constructor(
    private readonly table: NftTable,
    private readonly packet: Packet,
    private readonly local: readonly string[],
  ) {
    for (const c of table.chains) this.chains.set(c.name, c);
    for (const s of table.sets) this.sets.set(s.name, s);
  }

  isLocal(ip: string): boolean {
    const p = parseIP(ip);
    if (!p) return false;
    if (p.family === 4 && inside("127.0.0.0/8", ip)) return true;
    if (p.family === 6 && inside("::1", ip)) return true;
    return this.local.some((a) => inside(a, ip));
  }

  private inSet(name: string, ip: string): boolean {
    const s = this.sets.get(name);
    return !!s && s.elements.some((e) => inside(e.key, ip));
  }

  /** A value after `saddr`/`daddr`: an address, a CIDR, an anonymous set `{ … }` or a named set `@name`. */
  private addressIn(tokens: string[], at: number, ip: string): { hit: boolean; next: number } {
    const t = tokens[at]!;
    if (t === "{") {
      let j = at + 1;
      let hit = false;
      for (; j < tokens.length && tokens[j] !== "}"; j++)
        if (tokens[j] !== "," && inside(tokens[j]!, ip)) hit = true;
      return { hit, next: j + 1 };
    }
    if (t.startsWith("@")) return { hit: this.inSet(t.slice(1), ip), next: at + 1 };
    return { hit: inside(t, ip), next: at + 1 };
  }

  /** The element of verdict map `name` whose key is `key`, with its index. */
  private lookup(name: string, key: string) {
    const s = this.sets.get(name);
    const i = s ? s.elements.findIndex((e) => e.key === key) : -1;
    return i >= 0 ? { set: s!, index: i, element: s!.elements[i]! } : undefined;
  }

  run(chainName: string, state: State, depth: number): Outcome[] {
    const chain = this.chains.get(chainName);
    if (!chain || depth > 64) return [{ state, verdict: "CONTINUE" }];
    return this.from(chain.name, 0, state, depth);
  }

  private from(chainName: string, first: number, state: State, depth: number): Outcome[] {
    const rules = this.chains.get(chainName)?.rules ?? [];
    for (let i = first; i < rules.length; i++) {
      const r = rules[i]!;
      const out = this.rule(chainName, r, i, state, depth);
      if (out) return out;
    }
    return [{ state, verdict: "CONTINUE" }];
  }

  /**
   * One rule, expression by expression as nft evaluates it: match
   * expressions narrow the packet (a miss ends the rule), then a statement
   * or a verdict says what happens. undefined: the rule did not match, and
   * the walk goes on with the next rule.
   */
  private rule(chainName: string, r: NftRule, i: number, state: State, depth: number): Outcome[] | undefined {
    const at: RuleAt = {
      chainName,
      r,
      i,
      depth,
      line: `${r.text}${r.comment ? ` comment "${r.comment}"` : ""}`,
    };
    const tk = tokenize(r.text);
    let j = 0;
    while (j < tk.length) {
      const next = this.match(tk, j, state);
      if (next === false) return undefined;
      if (next === undefined) return this.statement(at, tk, j, state);
      j = next;
    }
    this.step(at, state, "match");
    return this.next(at, state);
  }

  /**
   * The match expression at tk[j]: the index after it when the packet
   * matches, false when it does not, undefined when tk[j] starts no match
   * expression (a statement or a verdict follows).
   */
  private match(tk: string[], j: number, state: State): number | false | undefined {
    const pk = this.packet;
    const t = tk[j]!;
    const t1 = tk[j + 1];
    if (t === "ct" && t1 === "state") {
      return tk[j + 2] === "new" ? j + 3 : false;
    } else if ((t === "ip" || t === "ip6") && !((t1 === "daddr" || t1 === "saddr") && tk[j + 2] === ".")) {
      const negated = tk[j + 2] === "!=";
      const { hit, next } = this.addressIn(tk, j + (negated ? 3 : 2), t1 === "daddr" ? state.dst : pk.src);
      return hit === negated ? false : next;
    } else if (t === "iifname") {
      const negated = t1 === "!=";
      const name = tk[j + (negated ? 2 : 1)]!;
      if (ifaceIs(name, pk.fromHost ? undefined : pk.inIface) === negated) return false;
      return j + (negated ? 3 : 2);
    } else if (t === "fib" && tk[j + 2] === "type" && tk[j + 3] === "local") {
      return this.isLocal(t1 === "daddr" ? state.dst : pk.src) ? j + 4 : false;
    } else if (t === "meta" && t1 === "l4proto" && tk[j + 2] !== ".") {
      return tk[j + 2] === PROTO[pk.protocol] ? j + 3 : false;
    } else if (t === "meta" && t1 === "mark" && tk[j + 2] === "&") {
      // meta mark & M == V
      const m = Number(tk[j + 3]);
      const v = Number(tk[j + 5]);
      return (state.mark & m) >>> 0 === v ? j + 6 : false;
    }
    return undefined;
  }

  /**
   * The statement or verdict at tk[j], which ends the rule: a verdict-map
   * lookup, a mark, a numgen fork, an affinity update, NAT, or a verdict.
   * undefined: the rule does not match (no map element for the packet, or a
   * form this walker does not read: it does not match, rather than guess).
   */
  private statement(at: RuleAt, tk: string[], j: number, state: State): Outcome[] | undefined {
    const pk = this.packet;
    const t = tk[j]!;
    const t1 = tk[j + 1];
    if ((t === "ip" || t === "ip6") && (t1 === "daddr" || t1 === "saddr") && tk[j + 2] === ".") {
      // ip daddr . meta l4proto . th dport vmap @MAP
      const map = tk[tk.indexOf("vmap", j) + 1]!.slice(1);
      const key = `${t1 === "daddr" ? state.dst : pk.src} . ${PROTO[pk.protocol]} . ${state.dport}`;
      return this.vmap(at, map, key, state);
    } else if (t === "meta" && t1 === "l4proto" && tk[j + 2] === ".") {
      const map = tk[tk.indexOf("vmap", j) + 1]!.slice(1);
      return this.vmap(at, map, `${PROTO[pk.protocol]} . ${state.dport}`, state);
    } else if (t === "meta" && t1 === "mark" && tk[j + 2] === "set") {
      // meta mark set meta mark | M (or ^ M)
      const op = tk[j + 5];
      const m = Number(tk[j + 6]);
      state.mark = (op === "^" ? state.mark ^ m : state.mark | m) >>> 0;
      this.step(at, state, "mark");
      return this.next(at, state);
    } else if (t === "numgen") {
      return this.numgen(at, tk, j, state);
    } else if (t === "update") {
      this.step(at, state, "match");
      return this.next(at, state);
    } else if (t === "dnat" && t1 === "to") {
      const to = tk[j + 2]!;
      const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(to);
      if (m) {
        state.dst = m[1]!;
        state.dport = Number(m[2]);
      }
      state.dnat = to;
      this.step(at, state, "dnat");
      return [{ state, verdict: "ACCEPT" }];
    } else if (t === "masquerade") {
      state.masquerade = true;
      this.step(at, state, "masquerade");
      return [{ state, verdict: "ACCEPT" }];
    } else if (t === "jump" || t === "goto") {
      return this.verdict(at, state, [t, t1!]);
    } else if (t === "return" || t === "accept" || t === "drop" || t === "reject") {
      return this.verdict(at, state, [t]);
    }
    return undefined;
  }

  /** numgen random mod N vmap { 0 : goto A , 1 : goto B }: one branch per element, each with chance 1/N. */
  private numgen(at: RuleAt, tk: string[], j: number, state: State): Outcome[] {
    const n = Number(tk[j + 3]);
    const open = tk.indexOf("{", j);
    const targets: string[][] = [];
    for (let k = open + 1; k < tk.length && tk[k] !== "}"; k++) {
      if (tk[k] === ",") continue;
      // INDEX : VERDICT TARGET
      targets.push([tk[k + 2]!, tk[k + 3]!]);
      k += 3;
    }
    const out: Outcome[] = [];
    for (const v of targets.slice(0, n)) {
      const s = clone(state);
      s.chance *= 1 / n;
      const st: NftWalkStep = {
        ruleId: at.r.id,
        chain: at.chainName,
        line: at.line,
        action: "goto",
        chance: 1 / n,
      };
      s.steps.push(st);
      for (const o of this.run(v[1]!, s, at.depth + 1)) out.push(o);
    }
    return out;
  }

  /** Records the rule as a step of the walk. */
  private step(at: RuleAt, s: State, action: NftStepAction, extra: Partial<NftWalkStep> = {}): NftWalkStep {
    const st: NftWalkStep = { ruleId: at.r.id, chain: at.chainName, line: at.line, action, ...extra };
    s.steps.push(st);
    return st;
  }

  /** The rules after this one, in its chain. */
  private next(at: RuleAt, s: State): Outcome[] {
    return this.from(at.chainName, at.i + 1, s, at.depth);
  }

  /** What a verdict does to the walk: `jump`/`goto` into a chain, or an end. */
  private verdict(at: RuleAt, s: State, v: string[], elementStep?: () => void): Outcome[] {
    const [kind, target] = v;
    const act: NftStepAction = kind === "goto" ? "goto" : kind === "jump" ? "jump" : (kind as NftStepAction);
    switch (kind) {
      case "jump":
      case "goto": {
        this.step(at, s, act);
        elementStep?.();
        const out: Outcome[] = [];
        for (const o of this.run(target!, s, at.depth + 1)) {
          if (o.verdict === "CONTINUE" && kind === "jump") out.push(...this.next(at, o.state));
          else out.push(o);
        }
        return out;
      }
      case "return":
        this.step(at, s, "return");
        return [{ state: s, verdict: "CONTINUE" }];
      case "accept":
        this.step(at, s, "accept");
        elementStep?.();
        return [{ state: s, verdict: "ACCEPT" }];
      case "drop": {
        const st = this.step(at, s, "drop");
        elementStep?.();
        return [{ state: s, verdict: "DROP", stoppedBy: st }];
      }
      case "reject": {
        const st = this.step(at, s, "reject");
        elementStep?.();
        return [{ state: s, verdict: "REJECT", stoppedBy: st }];
      }
      default:
        return this.next(at, s);
    }
  }

  /** A verdict-map lookup: the element for `key` decides, and the walk records the element after the rule. */
  private vmap(at: RuleAt, name: string, key: string, state: State): Outcome[] | undefined {
    const found = this.lookup(name, key);
    if (!found) return undefined;
    const e = found.element;
    const text = `${e.key}${e.comment ? ` comment "${e.comment}"` : ""} : ${e.value ?? ""}`;
    const v = (e.value ?? "").split(" ");
    return this.verdict(at, state, v, () =>
      state.steps.push({
        ruleId: nftElementId(name, found.index),
        chain: `@${name}`,
        line: text,
        action: "match",
      }),
    );
  }

  /** The base chains of `hook`, in priority order; falling off one applies its policy (accept). */
  hook(hook: string, states: State[]): Outcome[] {
    const chains = this.table.chains
      .filter((c) => c.base?.hook === hook)
      .sort((a, b) => a.base!.priority - b.base!.priority);
    let live: State[] = states;
    const ended: Outcome[] = [];
    for (const c of chains) {
      const nextLive: State[] = [];
      for (const s of live)
        for (const o of this.run(c.name, s, 0)) {
          if (o.verdict === "DROP" || o.verdict === "REJECT") ended.push(o);
          else nextLive.push(o.state);
        }
      live = nextLive;
    }
    return [...ended, ...live.map((state) => ({ state, verdict: "ACCEPT" as const }))];
  }
}

/** Walks `packet` through kube-proxy's nftables table. `localAddresses` are the node's own (fib type local). */
export function walkNftables(table: NftTable, packet: Packet, localAddresses: readonly string[]): NftWalk {
  const w = new Walker(table, packet, localAddresses);
  const start: State = {
    dst: packet.dst,
    dport: packet.dport,
    mark: 0,
    masquerade: false,
    chance: 1,
    steps: [],
  };
  const branches: NftWalkBranch[] = [];
  const finish = (o: Outcome) => branches.push(branchOf(o));
  for (const o of w.hook(packet.fromHost ? "output" : "prerouting", [start])) {
    if (o.verdict !== "ACCEPT") {
      finish(o);
      continue;
    }
    if (!packet.fromHost && w.isLocal(o.state.dst)) {
      for (const f of w.hook("input", [o.state])) finish(f);
      continue;
    }
    const forwarded = packet.fromHost ? [o] : w.hook("forward", [o.state]);
    for (const f of forwarded) {
      if (f.verdict !== "ACCEPT") finish(f);
      else for (const p of w.hook("postrouting", [f.state])) finish(p);
    }
  }
  return { node: table.node, packet, branches };
}
