/**
 * The whole cluster's connections explained, as netpol-analyzer's
 * `list --explain` reports them (its docs/explain_analysis.md): for every
 * ordered pair of nodes (workloads, and the [External] ranges toward or from
 * a workload), every protocol and port range at once, split into classes of
 * ports that share one explanation, each naming per direction every object
 * that took part: the tiers' Pass rules on the way, every NetworkPolicy rule
 * that admits, or every policy that isolates the pod with why none of its
 * rules admits. Pairs that only the defaults allow are listed apart.
 *
 * No verdict is made here: each direction is the decider's `reasons`
 * (decide/reasons.ts), over connlist's view of the workloads; this file only
 * groups ports and words them in upstream's grammar.
 */
import type { Model, Pod, Protocol } from "../model/types.ts";
import { PROTOCOLS } from "../model/types.ts";
import { deciderOf, type DirectionReasons, type Reason } from "../decide/index.ts";
import type { StackPeer } from "../policy/index.ts";
import {
  INGRESS_CONTROLLER,
  ingressTargets,
  standInController,
  connlistIPNodes,
  connlistProbeStarts,
  connlistView,
  externalName,
  probeIntervals,
  type IngressTarget,
} from "./index.ts";
import { addRange, emptyPortSet, type PortSet } from "./ports.ts";

/** One class of ports of a pair: the same explanation in both directions. */
export interface ExplainClass {
  allowed: boolean;
  /** "TCP, UDP:[1-52,54-65535], SCTP": a protocol whose every port is in the class stands alone. */
  conn: string;
  /** The same ports as a set. */
  conns: PortSet;
  /** Upstream's words for each direction: "(Allowed) due to the system default (Allow all)", or the verdict and its rules. */
  egress: string;
  ingress: string;
  /** Both directions are the defaults alone. */
  byDefault: boolean;
}

export interface PairExplanation {
  src: string;
  dst: string;
  classes: ExplainClass[];
  /** Every port of every protocol allowed, by the defaults alone: listed apart. */
  byDefault: boolean;
}

export interface Explanation {
  /** Sorted by source, then destination, byte by byte. */
  pairs: PairExplanation[];
  /** What the explanation leaves out, in words. */
  notes: string[];
}

const SYSTEM_DEFAULT = "the system default (Allow all)";
const byteOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const dirName = (d: "ingress" | "egress") => (d === "ingress" ? "Ingress" : "Egress");

/** An Ingress or Route's verdict on the ingress controller's connection to its backend, with its words. */
interface Gate {
  allowed: boolean;
  rules: { kind: string; text: string }[];
}

/** Upstream's rank of a rule kind: the Admin tier, then NetworkPolicy (and a CNI's own), then Baseline, then the default. */
function rank(r: Reason | undefined): number {
  if (!r) return 0;
  if (r.layer === "AdminNetworkPolicy") return 3;
  if (r.layer === "BaselineAdminNetworkPolicy") return 1;
  return 2;
}

const fullName = (r: Reason) => (r.namespace ? `${r.namespace}/${r.name}` : r.name);

/** One reason in upstream's words (its netpols_common.go and adminnetpol.go explanation formats). */
function words(r: Reason, direction: "ingress" | "egress", self: string, other: string): string[] {
  const dir = dirName(direction);
  const policy = `${r.kind} '${fullName(r)}'`;
  if (r.kind === "NetworkPolicy" && r.effect === "allows" && r.ruleIndex !== undefined)
    return [`${policy} allows connections by ${dir} rule #${r.ruleIndex + 1}`];
  if (r.effect === "isolates" && r.miss) {
    const notAllowed = `${policy} selects ${self}, but ${other} is not allowed by any ${dir} rule`;
    if (r.miss.kind === "no-rules") return [`${notAllowed} (no rules defined)`];
    if (r.miss.kind === "no-peer") return [notAllowed];
    // Upstream keeps the first such rule's words for a policy's refused ports (its rules' sets are
    // merged without collecting: acs-security-demos, checkout-netpol's rules #1 and #4).
    const rule = r.miss.rules[0]!;
    return [
      `${policy} selects ${self}, and ${dir} rule #${rule.index + 1} selects ${other}, but ${
        rule.named
          ? "named ports of the rule have no match in the configuration of the destination peer"
          : "the protocols and ports do not match"
      }`,
    ];
  }
  if (r.rule !== undefined && r.name) return [`${policy} ${r.effect} connections by ${dir} rule ${r.rule}`];
  return [r.text ?? `${policy} ${r.effect} connections`];
}

/** Upstream's ImplyingXgressRulesType.String: the verdict, then each kind's rules (a list when more than one). */
/**
 * Upstream's ImplyingXgressRulesType.String: the verdict, then each kind's rules (a list when more than one).
 * `gate`: an Ingress or Route's own verdict on the same side (the ingress controller's pairs); the side is
 * allowed when both are, and names the rules of whichever agree with that verdict (upstream's intersection).
 */
function directionWords(
  d: DirectionReasons,
  self: string,
  other: string,
  gate?: Gate,
): { text: string; byDefault: boolean } {
  const allowed = d.allowed && (gate?.allowed ?? true);
  const verdict = allowed ? "(Allowed)" : "(Denied)";
  // Upstream merges one policy's rules without collecting their words: a policy is named by its first admitting rule
  // (onlineboutique_workloads_with_ingress, frontend-netpol's rules #1 and #2).
  const seen = new Set<string>();
  const policies = (d.allowed === allowed ? d.reasons : []).filter((r) => {
    if (r.kind !== "NetworkPolicy" || r.effect !== "allows") return true;
    const k = fullName(r);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  const gated = gate && gate.allowed === allowed ? gate : undefined;
  const decided = policies.some((r) => r.effect !== "passes") || gated !== undefined;
  if (policies.length === 0 && !gated)
    return { text: `${verdict} due to ${SYSTEM_DEFAULT}`, byDefault: true };
  const kinds = new Map<string, { rank: number; rules: Set<string> }>();
  for (const r of policies) {
    let k = kinds.get(r.kind);
    if (!k) kinds.set(r.kind, (k = { rank: rank(r), rules: new Set() }));
    for (const w of words(r, d.direction, self, other)) k.rules.add(w);
  }
  for (const g of gated?.rules ?? []) {
    let k = kinds.get(g.kind);
    if (!k) kinds.set(g.kind, (k = { rank: 2, rules: new Set() }));
    k.rules.add(g.text);
  }
  if (!decided && allowed) kinds.set("", { rank: 0, rules: new Set([SYSTEM_DEFAULT]) });
  const groups = [...kinds.entries()].sort(([ka, a], [kb, b]) => b.rank - a.rank || byteOrder(ka, kb));
  let text = verdict;
  for (const [kind, { rules }] of groups) {
    const sorted = [...rules].sort(byteOrder);
    text +=
      "\n\t\t\t" +
      (sorted.length === 1 ? sorted[0] : `${kind} list:\n` + sorted.map((s) => `\t\t\t\t- ${s}\n`).join(""));
  }
  return { text, byDefault: false };
}

const DEFAULT_SIDE: { text: string; byDefault: boolean } = {
  text: `(Allowed) due to ${SYSTEM_DEFAULT}`,
  byDefault: true,
};

interface Node {
  name: string;
  pod?: Pod;
  peer: StackPeer;
}

const MAX_PORT = 65535;

/** "TCP, UDP:[1-52,54-65535], SCTP", in TCP, UDP, SCTP order, as upstream's sameRulesConnections.string. */
function connText(ranges: Map<Protocol, [number, number][]>): string {
  const parts: string[] = [];
  for (const proto of ["TCP", "UDP", "SCTP"] as Protocol[]) {
    const r = ranges.get(proto);
    if (!r) continue;
    const full = r.length === 1 && r[0]![0] === 1 && r[0]![1] === MAX_PORT;
    parts.push(full ? proto : `${proto}:[${r.map(([a, b]) => (a === b ? `${a}` : `${a}-${b}`)).join(",")}]`);
  }
  return parts.join(", ");
}

/** The probe starts with each of `ports` (TCP) a range of its own. */
function withPorts(starts: Record<Protocol, number[]>, ports: number[]): Record<Protocol, number[]> {
  const tcp = new Set(starts.TCP);
  for (const p of ports) {
    tcp.add(p);
    if (p < MAX_PORT) tcp.add(p + 1);
  }
  return { ...starts, TCP: [...tcp].sort((a, b) => a - b) };
}

/** What the Ingress and Route objects say of one port toward their backend (upstream's getIngressPeerConnection). */
function gateAt(targets: readonly IngressTarget[], port: number, protocol: Protocol): Gate {
  const through = protocol === "TCP" ? targets.filter((t) => t.ports.has(port)) : [];
  if (through.length)
    return {
      allowed: true,
      rules: through.map((t) => ({
        kind: t.kind,
        text: `${t.kind} '${t.object}' allows ingress connections through service ${t.service}`,
      })),
    };
  return {
    allowed: false,
    rules: targets.map((t) => ({
      kind: t.kind,
      text: `${t.kind} '${t.object}' allows ingress to service ${t.service}, but the protocols and ports do not match`,
    })),
  };
}

export function computeExplain(model: Model): Explanation {
  const { view, reprs } = connlistView(model);
  const decider = deciderOf(view);
  const starts = connlistProbeStarts(view, reprs, decider);
  const cni = decider.enforcement.kind === "cni" ? decider.enforcement.cni : undefined;
  const ipNodes = connlistIPNodes(view, cni);
  const podNode = (p: Pod): Node => ({ name: p.key, pod: p, peer: { ip: p.ips[0] ?? "", pod: p } });
  const ipNode = (n: (typeof ipNodes.sources)[number]): Node => ({
    name: externalName(n),
    peer: { ip: n.probe },
  });
  const pairs: [Node, Node][] = [];
  for (const src of reprs) for (const dst of reprs) if (src !== dst) pairs.push([podNode(src), podNode(dst)]);
  for (const n of ipNodes.sources) for (const dst of reprs) pairs.push([ipNode(n), podNode(dst)]);
  for (const src of reprs) for (const n of ipNodes.destinations) pairs.push([podNode(src), ipNode(n)]);

  // The ingress controller toward each workload an Ingress or Route reaches (upstream's ingress analyzer).
  const targets = ingressTargets(model, []);
  const controller = standInController(reprs.length);
  const gates = new Map<Node, IngressTarget[]>();
  for (const [i, list] of targets) {
    const dst = podNode(reprs[i]!);
    pairs.push([{ name: INGRESS_CONTROLLER, pod: controller, peer: { ip: "", pod: controller } }, dst]);
    gates.set(dst, list);
  }

  const out: PairExplanation[] = [];
  for (const [src, dst] of pairs) {
    const gate = gates.get(dst);
    const cuts = gate
      ? withPorts(
          starts,
          gate.flatMap((t) => [...t.ports]),
        )
      : starts;
    const classes = new Map<string, { cls: ExplainClass; ranges: Map<Protocol, [number, number][]> }>();
    for (const proto of PROTOCOLS as readonly Protocol[])
      for (const [first, last] of probeIntervals(cuts[proto])) {
        const egress = src.pod
          ? directionWords(decider.reasons(src.pod, dst.peer, "egress", first, proto), src.name, dst.name)
          : DEFAULT_SIDE;
        const ingress = dst.pod
          ? directionWords(
              decider.reasons(dst.pod, src.peer, "ingress", first, proto),
              dst.name,
              src.name,
              gate && gateAt(gate, first, proto),
            )
          : DEFAULT_SIDE;
        const allowed = egress.text.startsWith("(Allowed)") && ingress.text.startsWith("(Allowed)");
        const key = `${allowed}\n${egress.text}\n${ingress.text}`;
        let c = classes.get(key);
        if (!c)
          classes.set(
            key,
            (c = {
              cls: {
                allowed,
                conn: "",
                conns: emptyPortSet(),
                egress: egress.text,
                ingress: ingress.text,
                byDefault: egress.byDefault && ingress.byDefault,
              },
              ranges: new Map(),
            }),
          );
        addRange(c.cls.conns, proto, first, last);
        let r = c.ranges.get(proto);
        if (!r) c.ranges.set(proto, (r = []));
        const prev = r[r.length - 1];
        if (prev && prev[1] + 1 === first) prev[1] = last;
        else r.push([first, last]);
      }
    const list = [...classes.values()].map(({ cls, ranges }) => ({ ...cls, conn: connText(ranges) }));
    out.push({
      src: src.name,
      dst: dst.name,
      classes: list,
      byDefault: list.length === 1 && list[0]!.allowed && list[0]!.byDefault,
    });
  }
  out.sort((a, b) => byteOrder(a.src, b.src) || byteOrder(a.dst, b.dst));
  const notes: string[] = [];
  if (decider.enforcement.kind === "none") notes.push(`nothing is enforced: ${decider.enforcement.why}`);
  return { pairs: out, notes };
}

const SEPARATOR = "-".repeat(160);

function groupHeader(header: string): string {
  const line = `# ${header} #`;
  return `\n${"#".repeat(line.length)}\n${line}\n${"#".repeat(line.length)}\n`;
}

/** The rules of one class, as upstream's ImplyingRulesType.String. */
function classRules(c: ExplainClass): string {
  if (c.byDefault) return ` due to ${SYSTEM_DEFAULT}\n`;
  return ` due to the following policies and rules:\n\t\tEgress ${c.egress}\n\t\tIngress ${c.ingress}\n`;
}

function classesText(classes: readonly ExplainClass[], allowed: boolean): string {
  const word = allowed ? "Allowed" : "Denied";
  const rows = classes
    .filter((c) => c.allowed === allowed)
    .map((c) => ({ conn: `\t${word} ${c.conn}`, rules: classRules(c) }))
    .sort((a, b) => byteOrder(a.conn, b.conn));
  if (rows.length === 0) return "";
  return `${word} connections:\n` + rows.map((r) => `${r.conn}${r.rules}\n`).join("");
}

/** netpol-analyzer's text (its conns_formatter_txt.go), then any notes of ours under a header of their own. */
export function formatExplainTxt(e: Explanation): string {
  let explained = "";
  const defaults: PairExplanation[] = [];
  for (const p of e.pairs) {
    if (p.byDefault) {
      defaults.push(p);
      continue;
    }
    explained += `${SEPARATOR}\nConnections between ${p.src} => ${p.dst}:\n\n`;
    explained += classesText(p.classes, true) + classesText(p.classes, false);
  }
  let out = explained ? groupHeader("Specific connections and their reasons") + explained : "";
  if (defaults.length)
    out +=
      groupHeader(`All Connections due to ${SYSTEM_DEFAULT}`) +
      defaults.map((p) => `${p.src} => ${p.dst}\n`).join("");
  if (e.notes.length) out += `\nNot explained:\n` + e.notes.map((n) => `${n}\n`).join("");
  return out;
}

/** The same, as data: every pair with its classes of ports. */
export function formatExplainJson(e: Explanation): string {
  return JSON.stringify(e, null, 2) + "\n";
}
