/**
 * One iptables rule, from the argument list kube-proxy hands to
 * iptables-restore to the line iptables-save prints back.
 *
 * kube-proxy writes rules in its own argument order ("-m comment --comment
 * X -m tcp -p tcp -d IP --dport 80 -j CHAIN"). The kernel keeps the generic
 * part (addresses, interfaces, protocol) apart from the list of matches, so
 * iptables-save (iptables/iptables.c print_rule4, nft-shared.c
 * save_rule_details) prints: -s, -d, -i, -o, -p, then each match in the order
 * it was loaded with that module's save() output, then -j and the target's
 * save() output. The save() formats below follow the iptables extensions
 * (libxt_comment, libxt_tcp, libxt_udp, libxt_sctp, libxt_statistic,
 * libxt_recent, libxt_mark, libxt_conntrack, libxt_addrtype, libxt_nfacct,
 * libipt_DNAT, libxt_MARK, libipt_MASQUERADE, libipt_REJECT).
 */
import { formatIP, parseCidr, parseIP } from "../../model/ip.ts";
import { kernelProbability, savedProbability } from "../probability.ts";

export interface AddressMatch {
  /** Network address and prefix length, as the kernel stores them. */
  addr: string;
  prefix: number;
  negated: boolean;
}

export interface ValueMatch {
  value: string;
  negated: boolean;
}

export interface MatchOption {
  name: string;
  value?: string;
  negated: boolean;
}

export interface MatchModule {
  module: string;
  options: MatchOption[];
}

export interface ParsedRule {
  chain: string;
  src?: AddressMatch;
  dst?: AddressMatch;
  inIface?: ValueMatch;
  outIface?: ValueMatch;
  proto?: ValueMatch;
  matches: MatchModule[];
  /** Absent for a rule with no -j (kube-proxy's "other traffic ... will be dropped" marker in KUBE-FW). */
  target?: { name: string; options: MatchOption[] };
}

/** Options that take a value, per match module or target; the rest are flags. */
const VALUED: Record<string, readonly string[]> = {
  comment: ["--comment"],
  tcp: ["--dport", "--sport"],
  udp: ["--dport", "--sport"],
  sctp: ["--dport", "--sport"],
  statistic: ["--mode", "--probability", "--every", "--packet"],
  recent: ["--name", "--seconds", "--hitcount", "--mask"],
  mark: ["--mark"],
  conntrack: ["--ctstate", "--ctstatus"],
  addrtype: ["--src-type", "--dst-type"],
  nfacct: ["--nfacct-name"],
  DNAT: ["--to-destination"],
  MARK: ["--or-mark", "--xor-mark", "--set-xmark", "--set-mark", "--and-mark"],
  REJECT: ["--reject-with"],
};
const FLAGS: Record<string, readonly string[]> = {
  recent: ["--set", "--rcheck", "--update", "--remove", "--reap", "--rttl", "--rsource", "--rdest"],
  MASQUERADE: ["--random", "--random-fully"],
};

function knows(module: string, option: string): "value" | "flag" | undefined {
  if (VALUED[module]?.includes(option)) return "value";
  if (FLAGS[module]?.includes(option)) return "flag";
  return undefined;
}

/** Strips the double quotes iptables-restore's tokenizer removes. */
function unquote(s: string): string {
  return s.length >= 2 && s.startsWith('"') && s.endsWith('"') ? s.slice(1, -1) : s;
}

function address(text: string, negated: boolean): AddressMatch {
  const withPrefix = text.includes("/") ? text : `${text}/${text.includes(":") ? 128 : 32}`;
  const c = parseCidr(withPrefix).cidr;
  if (!c) return { addr: text, prefix: text.includes(":") ? 128 : 32, negated };
  return { addr: formatIP(c.family, c.first), prefix: c.prefix, negated };
}

/**
 * Parses one rule as kube-proxy writes it ("-A", chain, then options), the
 * way iptables-restore would: "!" negates the option after it, "-m" loads a
 * match whose options follow, an option no generic flag claims goes to the
 * latest loaded match (or the target) that knows it.
 */
export function parseRule(args: readonly string[]): ParsedRule {
  let i = 0;
  let chain = "";
  if (args[0] === "-A") {
    chain = args[1] ?? "";
    i = 2;
  }
  const rule: ParsedRule = { chain, matches: [] };
  let negate = false;
  while (i < args.length) {
    const a = args[i++]!;
    if (a === "!") {
      negate = true;
      continue;
    }
    const next = (): string => unquote(args[i++] ?? "");
    switch (a) {
      case "-s":
      case "--source":
        rule.src = address(next(), negate);
        break;
      case "-d":
      case "--destination":
        rule.dst = address(next(), negate);
        break;
      case "-i":
      case "--in-interface":
        rule.inIface = { value: next(), negated: negate };
        break;
      case "-o":
      case "--out-interface":
        rule.outIface = { value: next(), negated: negate };
        break;
      case "-p":
      case "--protocol":
        rule.proto = { value: next(), negated: negate };
        break;
      case "-m":
      case "--match":
        rule.matches.push({ module: next(), options: [] });
        break;
      case "-j":
      case "--jump":
        rule.target = { name: next(), options: [] };
        break;
      default: {
        const owners: { module: string; options: MatchOption[] }[] = rule.target
          ? [{ module: rule.target.name, options: rule.target.options }]
          : [...rule.matches].reverse();
        const owner = owners.find((m) => knows(m.module, a));
        const kind = owner ? knows(owner.module, a) : "value";
        const opt: MatchOption = { name: a, negated: negate };
        if (kind === "value") opt.value = next();
        (owner ?? owners[0] ?? { options: [] as MatchOption[] }).options.push(opt);
      }
    }
    negate = false;
  }
  return rule;
}

export interface SaveOptions {
  /** iptables 1.8.9 and later omit all-ones netmasks (recent --mask); 1.8.7 prints them. */
  iptablesVersion: string;
  family: "IPv4" | "IPv6";
}

const SAFE = /^[_\-0-9a-zA-Z]+$/;

/** xtables_save_string: bare when only [_-0-9a-zA-Z], else double-quoted with \ " ' escaped. */
export function saveString(value: string): string {
  if (SAFE.test(value)) return value;
  return `"${value.replace(/["\\']/g, (c) => `\\${c}`)}"`;
}

function opt(m: MatchModule | { options: MatchOption[] }, name: string): MatchOption | undefined {
  return m.options.find((o) => o.name === name);
}

function neg(o: MatchOption | undefined): string {
  return o?.negated ? " !" : "";
}

/** Parses "0x004000" or "0x4000/0x4000" into [mark, mask]. */
function markPair(text: string): [number, number] {
  const [m, k] = text.split("/");
  const mark = Number.parseInt(m ?? "0", 16) >>> 0;
  return [mark, k === undefined ? 0xffffffff : Number.parseInt(k, 16) >>> 0];
}

const hex = (n: number): string => `0x${(n >>> 0).toString(16)}`;

const CT_STATES = ["INVALID", "NEW", "RELATED", "ESTABLISHED", "UNTRACKED", "SNAT", "DNAT"];

function versionAtLeast(v: string, want: [number, number, number]): boolean {
  const parts = v.split(".").map((x) => Number.parseInt(x, 10) || 0);
  for (let i = 0; i < 3; i++) {
    const a = parts[i] ?? 0;
    if (a !== want[i]) return a > want[i]!;
  }
  return true;
}

function saveMatch(m: MatchModule, o: SaveOptions): string {
  let out = ` -m ${m.module}`;
  switch (m.module) {
    case "comment": {
      const c = opt(m, "--comment");
      out += ` --comment ${saveString(c?.value ?? "")}`;
      break;
    }
    case "tcp":
    case "udp":
    case "sctp":
      // tcp_save / udp_save / sctp_save: source port before destination port.
      for (const name of ["--sport", "--dport"]) {
        const p = opt(m, name);
        if (p) out += `${neg(p)} ${name} ${p.value}`;
      }
      break;
    case "statistic": {
      const mode = opt(m, "--mode");
      const p = opt(m, "--probability");
      if (mode?.value === "random" && p)
        out += ` --mode random${neg(p)} --probability ${savedProbability(kernelProbability(p.value ?? "0"))}`;
      break;
    }
    case "recent": {
      // recent_save: --set/--rcheck/--update/--remove, --seconds, --reap, --hitcount, --rttl, --name, --mask, --rsource/--rdest.
      for (const f of ["--set", "--rcheck", "--update", "--remove"]) if (opt(m, f)) out += ` ${f}`;
      const seconds = opt(m, "--seconds");
      if (seconds) out += ` --seconds ${seconds.value}`;
      if (opt(m, "--reap")) out += " --reap";
      const hit = opt(m, "--hitcount");
      if (hit) out += ` --hitcount ${hit.value}`;
      if (opt(m, "--rttl")) out += " --rttl";
      out += ` --name ${opt(m, "--name")?.value ?? "DEFAULT"}`;
      if (!versionAtLeast(o.iptablesVersion, [1, 8, 9])) {
        out +=
          o.family === "IPv4" ? " --mask 255.255.255.255" : " --mask ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff";
      }
      out += opt(m, "--rdest") ? " --rdest" : " --rsource";
      break;
    }
    case "mark": {
      const mk = opt(m, "--mark");
      const [mark, mask] = markPair(mk?.value ?? "0");
      out += `${neg(mk)} --mark ${hex(mark)}${mask === 0xffffffff ? "" : `/${hex(mask)}`}`;
      break;
    }
    case "conntrack": {
      const st = opt(m, "--ctstate");
      if (st) {
        const states = new Set((st.value ?? "").split(","));
        out += `${neg(st)} --ctstate ${CT_STATES.filter((s) => states.has(s)).join(",")}`;
      }
      break;
    }
    case "addrtype":
      for (const name of ["--src-type", "--dst-type"]) {
        const t = opt(m, name);
        if (t) out += `${neg(t)} ${name} ${t.value}`;
      }
      break;
    case "nfacct": {
      const n = opt(m, "--nfacct-name");
      out += ` --nfacct-name ${saveString(n?.value ?? "")}`;
      break;
    }
    default:
      for (const x of m.options) out += `${neg(x)} ${x.name}${x.value !== undefined ? ` ${x.value}` : ""}`;
  }
  return out;
}

function saveTarget(t: { name: string; options: MatchOption[] }, o: SaveOptions): string {
  let out = ` -j ${t.name}`;
  switch (t.name) {
    case "DNAT": {
      const d = opt(t, "--to-destination");
      if (d) out += ` --to-destination ${d.value}`;
      break;
    }
    case "MARK": {
      // libxt_MARK mark_tg_parse: --or-mark v is mark=v/mask=v, --xor-mark v is mark=v/mask=0; saved as --set-xmark.
      const or = opt(t, "--or-mark");
      const xor = opt(t, "--xor-mark");
      const set = opt(t, "--set-xmark");
      if (or) {
        const v = markPair(or.value ?? "0")[0];
        out += ` --set-xmark ${hex(v)}/${hex(v)}`;
      } else if (xor) out += ` --set-xmark ${hex(markPair(xor.value ?? "0")[0])}/0x0`;
      else if (set) {
        const [mark, mask] = markPair(set.value ?? "0");
        out += ` --set-xmark ${hex(mark)}/${hex(mask)}`;
      }
      break;
    }
    case "MASQUERADE":
      if (opt(t, "--random")) out += " --random";
      if (opt(t, "--random-fully")) out += " --random-fully";
      break;
    case "REJECT":
      out += ` --reject-with ${opt(t, "--reject-with")?.value ?? (o.family === "IPv4" ? "icmp-port-unreachable" : "icmp6-port-unreachable")}`;
      break;
    default:
      for (const x of t.options) out += ` ${x.name}${x.value !== undefined ? ` ${x.value}` : ""}`;
  }
  return out;
}

/** The line iptables-save prints for a rule. */
export function saveRule(r: ParsedRule, o: SaveOptions): string {
  let out = `-A ${r.chain}`;
  const addr = (flag: string, a: AddressMatch | undefined) => {
    if (a) out += `${a.negated ? " !" : ""} ${flag} ${a.addr}/${a.prefix}`;
  };
  addr("-s", r.src);
  addr("-d", r.dst);
  if (r.inIface) out += `${r.inIface.negated ? " !" : ""} -i ${r.inIface.value}`;
  if (r.outIface) out += `${r.outIface.negated ? " !" : ""} -o ${r.outIface.value}`;
  if (r.proto) out += `${r.proto.negated ? " !" : ""} -p ${r.proto.value}`;
  for (const m of r.matches) out += saveMatch(m, o);
  if (r.target) out += saveTarget(r.target, o);
  return out;
}

/** Whether an address falls in a rule's -s/-d match. */
export function addressMatches(a: AddressMatch, ip: string): boolean {
  const c = parseCidr(`${a.addr}/${a.prefix}`).cidr;
  const p = parseIP(ip);
  const inside = !!c && !!p && c.family === p.family && p.value >= c.first && p.value <= c.last;
  return inside !== a.negated;
}

/** iptables interface match: a trailing "+" matches any name with that prefix. */
export function ifaceMatches(m: ValueMatch, iface: string | undefined): boolean {
  const name = iface ?? "";
  const hit = m.value.endsWith("+") ? name.startsWith(m.value.slice(0, -1)) && name !== "" : name === m.value;
  return hit !== m.negated;
}

export function optionOf(m: MatchModule | { options: MatchOption[] }, name: string): MatchOption | undefined {
  return opt(m, name);
}

export function markOf(text: string): [number, number] {
  return markPair(text);
}
