/**
 * The Admin and Baseline tiers as layers of the policy stack (policy/stack.ts).
 *
 * Semantics (network-policy-api apis/v1alpha2/clusternetworkpolicy_types.go,
 * v1alpha1 for AdminNetworkPolicy/BaselineAdminNetworkPolicy; site-src/api-overview.md):
 * 1. Within a tier, policies are checked by priority (lower first) and, within
 *    a policy, rules in written order; the first rule that matches decides
 *    Accept, Deny or Pass. Pass skips the rest of the tier.
 * 2. A policy applies to the pods its subject selects (`namespaces`, or
 *    `pods`: namespaceSelector AND podSelector); host-network pods are never
 *    subjects. A policy without rules for a direction does not affect it.
 * 3. Peers: `namespaces`/`pods` match pods (never host-network ones);
 *    `networks` match the peer's IP by CIDR (pods included); `nodes` match the
 *    addresses of the nodes whose labels match (so host-network pods on them);
 *    `domainNames` are DNS names the engine cannot resolve: they match no IP.
 *    A peer with no known field fails closed: an Accept rule matches nothing
 *    through it, a Deny or Pass rule everything.
 * 4. Ports: a rule without protocols/ports matches all; a number or range
 *    matches its protocol; a named port matches when the destination pod has
 *    a container port of that name, number and protocol.
 * 5. A pod's traffic to its own IP is not subject to the tiers ("hairpin",
 *    site-src/api-overview.md); NetworkPolicy still judges it.
 */
import type { Model, Pod, Protocol } from "../model/types.ts";
import { matchesSelector, type LabelSelector } from "../model/labels.ts";
import { cidrContains, parseIP, parseIPKept } from "../model/ip.ts";
import { SetBuilder, type ClassSet } from "../netpol/bitset.ts";
import type { PodClass, PolicyIndex } from "../netpol/index.ts";
import type {
  ClassEntry,
  ClassQuery,
  Direction,
  DirectionQuery,
  LayerCause,
  LayerName,
  LayerStep,
  PolicyLayer,
  StackPeer,
} from "../policy/stack.ts";
import type { ClusterPolicy, Tier, TierPeer, TierPort, TierRule } from "./types.ts";

export const TIER_LAYER: Record<Tier, LayerName> = {
  Admin: "AdminNetworkPolicy",
  Baseline: "BaselineAdminNetworkPolicy",
};

function nsLabels(model: Model, ns: string): Record<string, string> {
  return model.namespaces.get(ns)?.labels ?? { "kubernetes.io/metadata.name": ns };
}

export function subjectSelects(model: Model, p: ClusterPolicy, pod: Pod): boolean {
  if (pod.hostNetwork) return false;
  if (p.subject.namespaces) return matchesSelector(p.subject.namespaces, nsLabels(model, pod.namespace));
  if (p.subject.pods)
    return (
      matchesSelector(p.subject.pods.namespaceSelector, nsLabels(model, pod.namespace)) &&
      matchesSelector(p.subject.pods.podSelector, pod.labels)
    );
  return false;
}

/** IPs of the nodes whose labels a selector matches (status.addresses, InternalIP first). */
function nodeAddresses(model: Model, sel: LabelSelector): Set<string> {
  const ips = new Set<string>();
  for (const n of model.nodes) {
    if (!matchesSelector(sel, n.labels)) continue;
    ips.add(n.internalIP);
    for (const a of n.addresses)
      if (a.type !== "Hostname" && a.type !== "InternalDNS" && a.type !== "ExternalDNS") ips.add(a.address);
  }
  return ips;
}

function peerMatches(model: Model, peer: TierPeer, rule: TierRule, other: StackPeer): boolean {
  if (peer.unknown) return rule.action !== "Accept";
  const pod = other.pod;
  if (peer.namespaces)
    return !!pod && !pod.hostNetwork && matchesSelector(peer.namespaces, nsLabels(model, pod.namespace));
  if (peer.pods)
    return (
      !!pod &&
      !pod.hostNetwork &&
      matchesSelector(peer.pods.namespaceSelector, nsLabels(model, pod.namespace)) &&
      matchesSelector(peer.pods.podSelector, pod.labels)
    );
  if (peer.nodes) return !!other.ip && nodeAddresses(model, peer.nodes).has(other.ip);
  if (peer.networks) {
    const ip = parseIPKept(other.ip);
    return !!ip && peer.networks.some((n) => n.parsed !== undefined && cidrContains(n.parsed, ip));
  }
  return false;
}

function numericPortMatches(p: TierPort, port: number, protocol: Protocol): boolean {
  if (p.name !== undefined || p.protocol !== protocol) return false;
  if (p.port === undefined) return true;
  return p.endPort !== undefined ? port >= p.port && port <= p.endPort : port === p.port;
}

function namedPortMatches(name: string, port: number, protocol: Protocol, dst: Pod | undefined): boolean {
  return (
    !!dst && dst.ports.some((cp) => cp.name === name && cp.protocol === protocol && cp.containerPort === port)
  );
}

export function tierPortMatches(
  p: TierPort,
  port: number,
  protocol: Protocol,
  dst: Pod | undefined,
): boolean {
  return p.name !== undefined
    ? namedPortMatches(p.name, port, protocol, dst)
    : numericPortMatches(p, port, protocol);
}

export function ruleLabel(rule: TierRule, direction: Direction): string {
  return rule.name ? `rule ${rule.index + 1} "${rule.name}"` : `${direction} rule ${rule.index + 1}`;
}

export function tierCause(p: ClusterPolicy, direction: Direction, rule: TierRule, line: number): LayerCause {
  return {
    layer: TIER_LAYER[p.tier],
    kind: p.kind,
    name: p.name,
    rule: rule.name || `${direction}[${rule.index}]`,
    ruleIndex: rule.index,
    file: p.source.file,
    doc: p.source.doc,
    line,
  };
}

/** The first rule of the tier's policies (sorted) that matches, with the peer and port entry that did. */
export function firstMatch(
  model: Model,
  policies: readonly ClusterPolicy[],
  q: DirectionQuery,
  /** The policies are known to select `q.self` (TierClasses.selectingPolicies): their subjects are not matched again. */
  selecting = false,
): { policy: ClusterPolicy; rule: TierRule; line: number } | undefined {
  if (q.hairpin || q.self.hostNetwork) return undefined;
  for (const p of policies) {
    const rules = q.direction === "ingress" ? p.ingress : p.egress;
    if (rules.length === 0 || (!selecting && !subjectSelects(q.model, p, q.self))) continue;
    for (const rule of rules) {
      const peer = rule.peers.find((x) => peerMatches(q.model, x, rule, q.other));
      if (!peer) continue;
      let line = peer.line || rule.line;
      if (rule.ports !== null) {
        const port = rule.ports.find((x) => tierPortMatches(x, q.port, q.protocol, q.dst));
        if (!port) continue;
        line = rule.line || port.line;
      }
      return { policy: p, rule, line: rule.line || line };
    }
  }
  return undefined;
}

/** The policies of one tier, in evaluation order. */
export function tierPolicies(model: Model, tier: Tier): ClusterPolicy[] {
  return model.clusterPolicies.filter((p) => p.tier === tier);
}

/**
 * The tier as a stack layer. `index` gives the classes for the class path
 * (its `classEntries` needs it; `decide` does not).
 */
export function tierLayer(model: Model, tier: Tier, index?: PolicyIndex): PolicyLayer {
  const policies = tierPolicies(model, tier);
  const layer = TIER_LAYER[tier];
  const label = tier;
  const classes = index ? new TierClasses(model, index, policies) : undefined;
  return {
    layer,
    label,
    order: tier === "Admin" ? 100 : 300,
    decide(q: DirectionQuery): LayerStep {
      if (q.hairpin)
        return {
          layer,
          label,
          action: "none",
          reason: `a pod's traffic to its own IP is not subject to the ${tier} tier`,
        };
      // A pod of the index's model: the policies that select its class, resolved once per class (the graph's
      // flows walk thousands of pairs an analysis, each through every tier policy's selectors before).
      const selecting = classes?.selectingPolicies(q.direction, q.self);
      const m = firstMatch(q.model, selecting ?? policies, q, selecting !== undefined);
      if (!m) {
        const any = selecting
          ? selecting.length > 0
          : policies.some(
              (p) =>
                (q.direction === "ingress" ? p.ingress : p.egress).length > 0 &&
                subjectSelects(q.model, p, q.self),
            );
        return {
          layer,
          label,
          action: "none",
          reason: any
            ? `no ${tier} tier rule matches`
            : `no ${tier} tier policy selects ${q.self.key} for ${q.direction}`,
        };
      }
      return {
        layer,
        label,
        action: m.rule.action,
        cause: tierCause(m.policy, q.direction, m.rule, m.line),
        reason: `${m.rule.action} by ${m.policy.kind} ${m.policy.name} ${ruleLabel(m.rule, q.direction)}`,
      };
    },
    classEntries(q: ClassQuery) {
      if (!classes) throw new Error("tierLayer: classEntries needs the policy index");
      return classes.entries(q);
    },
  };
}

const PROTOCOL_CODE: Record<Protocol, number> = { TCP: 0, UDP: 1, SCTP: 2 };

/** The tier over pod classes: subjects and peer sets resolved once per selector. */
class TierClasses {
  private readonly builder: SetBuilder;
  private readonly nsMatch = new Map<string, Set<string>>();
  private readonly peerSets = new Map<TierPeer, ClassSet | null>();
  /** Per class and direction: the positions of the policies that select it. */
  private readonly selecting: { ingress: number[][]; egress: number[][] };
  /** The same as policies, filled as asked (selectingPolicies). */
  private readonly selectedLists: Record<Direction, (readonly ClusterPolicy[] | undefined)[]> = {
    ingress: [],
    egress: [],
  };
  /** Entries by what decides them (direction, port, selecting policies, named ports), with their short key. */
  private readonly cache = new Map<string, { key: string; entries: ClassEntry[] }>();
  private readonly bySubject = new Map<number, { key: string; entries: ClassEntry[] }[]>();
  private readonly named = new Map<string, ClassSet>();
  private readonly subjectKeys: Record<Direction, (string | undefined)[]> = { ingress: [], egress: [] };
  private readonly subjectIds = new Map<string, string>();
  private reprIPs: ReturnType<typeof parseIP>[] | undefined;
  private classNamespaces: string[] | undefined;

  constructor(
    private readonly model: Model,
    private readonly index: PolicyIndex,
    private readonly policies: readonly ClusterPolicy[],
  ) {
    const n = index.classes.length;
    this.builder = new SetBuilder(n);
    const ingress: number[][] = index.classes.map(() => []);
    const egress: number[][] = index.classes.map(() => []);
    // subjectSelects over classes, with each namespace selector resolved once over the namespaces.
    const subject = (p: ClusterPolicy, c: PodClass): boolean => {
      if (c.repr.hostNetwork) return false;
      const nsSel = p.subject.namespaces ?? p.subject.pods?.namespaceSelector;
      if (!nsSel || !this.namespaces(nsSel).has(c.namespace)) return false;
      return !p.subject.pods || matchesSelector(p.subject.pods.podSelector, c.repr.labels);
    };
    policies.forEach((p, i) => {
      if (p.ingress.length === 0 && p.egress.length === 0) return;
      for (const c of index.classes) {
        if (!subject(p, c)) continue;
        if (p.ingress.length) ingress[c.index]!.push(i);
        if (p.egress.length) egress[c.index]!.push(i);
      }
    });
    this.selecting = { ingress, egress };
  }

  private namespaces(sel: LabelSelector): Set<string> {
    let hit = this.nsMatch.get(sel.key);
    if (!hit) {
      hit = new Set();
      this.classNamespaces ??= [...new Set(this.index.classes.map((c) => c.namespace))];
      for (const ns of this.classNamespaces) if (matchesSelector(sel, nsLabels(this.model, ns))) hit.add(ns);
      this.nsMatch.set(sel.key, hit);
    }
    return hit;
  }

  private peerSet(peer: TierPeer, rule: TierRule): ClassSet | null {
    if (peer.unknown) {
      if (rule.action !== "Accept") return null;
    }
    const cached = this.peerSets.get(peer);
    if (cached !== undefined) return cached;
    const b = this.builder;
    const test = (c: PodClass) =>
      peerMatches(this.model, peer, rule, { ip: c.repr.ips[0] ?? "", pod: c.repr });
    if (peer.namespaces || peer.pods) {
      const nss = this.namespaces(peer.namespaces ?? peer.pods!.namespaceSelector);
      for (const c of this.index.classes) {
        if (c.hostNetwork || !nss.has(c.namespace)) continue;
        if (peer.pods && !matchesSelector(peer.pods.podSelector, c.labels)) continue;
        b.add(c.index);
      }
    } else if (peer.networks) {
      const ips = (this.reprIPs ??= this.index.classes.map((c) =>
        c.repr.ips[0] ? parseIP(c.repr.ips[0]) : undefined,
      ));
      for (let c = 0; c < ips.length; c++) {
        const ip = ips[c];
        if (ip && peer.networks.some((x) => x.parsed !== undefined && cidrContains(x.parsed, ip))) b.add(c);
      }
    } else if (peer.nodes) {
      for (const c of this.index.classes) if (test(c)) b.add(c.index);
    }
    const set = b.take();
    this.peerSets.set(peer, set);
    return set;
  }

  /** Classes with a container port of this name, number and protocol (named ports resolve on the destination). */
  private withName(name: string, port: number, protocol: Protocol): ClassSet {
    const key = `${name}\0${port}/${protocol}`;
    let s = this.named.get(key);
    if (!s) {
      for (const c of this.index.classes)
        if (namedPortMatches(name, port, protocol, c.repr)) this.builder.add(c.index);
      this.named.set(key, (s = this.builder.take()));
    }
    return s;
  }

  private rulePeers(rule: TierRule): ClassSet | null {
    const sets = rule.peers.map((p) => this.peerSet(p, rule));
    if (sets.some((s) => s === null)) return null;
    if (sets.length === 1) return sets[0]!;
    for (const s of sets) this.builder.addSet(s!);
    return this.builder.take();
  }

  /**
   * The policies that select `pod` for `direction` and have rules there, in evaluation order: its class's
   * (the pods of a class agree on every label a selector reads). undefined for a pod of another model, or
   * on the host network (no tier policy selects it; firstMatch says so first).
   */
  selectingPolicies(direction: Direction, pod: Pod): readonly ClusterPolicy[] | undefined {
    if (this.index.model.pods[pod.index] !== pod || pod.hostNetwork) return undefined;
    const c = this.index.classOf[pod.index]!;
    const lists = this.selectedLists[direction];
    return (lists[c] ??= this.selecting[direction][c]!.map((i) => this.policies[i]!));
  }

  entries(q: ClassQuery): { key: string; entries: ClassEntry[] } {
    // Asked per class for the rows, again for the own-node rows and the summary: kept per class and port.
    // A number, not a string: asked about 80,000 times an analysis at L.
    const pk = ((q.port * 3 + PROTOCOL_CODE[q.protocol]) << 1) | (q.direction === "ingress" ? 0 : 1);
    let known = this.bySubject.get(pk);
    if (!known) this.bySubject.set(pk, (known = []));
    return (known[q.subject] ??= this.entriesOf(q));
  }

  /**
   * What decides a class's entries besides the port, per direction: the policies that select it, and its
   * ports when an ingress rule of them names one. Once per class, not per port (L asks 2,000 classes for
   * ten ports and two directions).
   */
  private subjectKey(direction: Direction, subject: number): string {
    const keys = this.subjectKeys[direction];
    let k = keys[subject];
    if (k === undefined) {
      const list = this.selecting[direction][subject]!;
      const named =
        direction === "ingress" &&
        list.some((i) => this.policies[i]!.ingress.some((r) => r.ports?.some((x) => x.name !== undefined)));
      const portsKey = named
        ? this.index.classes[subject]!.repr.ports.map(
            (p) => `${p.name ?? ""}:${p.containerPort}/${p.protocol}`,
          )
            .sort()
            .join(",")
        : "";
      // Interned to a short id: the entries' cache key joins it with the port, per class and port.
      const long = `${direction}|${list.join(",")}|${portsKey}`;
      let id = this.subjectIds.get(long);
      if (id === undefined) this.subjectIds.set(long, (id = `s${this.subjectIds.size}`));
      keys[subject] = k = id;
    }
    return k;
  }

  private entriesOf(q: ClassQuery): { key: string; entries: ClassEntry[] } {
    const list = this.selecting[q.direction][q.subject]!;
    if (list.length === 0) return { key: "", entries: [] };
    const repr = this.index.classes[q.subject]!.repr;
    const written = `${q.port}/${q.protocol}|${this.subjectKey(q.direction, q.subject)}`;
    const hit = this.cache.get(written);
    if (hit) return hit;
    // A short key for the stack's row caches, which join the layers' keys per class.
    const key = `t${this.cache.size}`;
    const entries: ClassEntry[] = [];
    for (const i of list) {
      const p = this.policies[i]!;
      for (const rule of q.direction === "ingress" ? p.ingress : p.egress) {
        const peers = this.rulePeers(rule);
        if (rule.ports === null || rule.ports.some((x) => numericPortMatches(x, q.port, q.protocol))) {
          entries.push({ action: rule.action, set: peers });
          continue;
        }
        const names = rule.ports.filter((x) => x.name !== undefined).map((x) => x.name!);
        if (names.length === 0) continue;
        if (q.direction === "ingress") {
          if (names.some((nm) => namedPortMatches(nm, q.port, q.protocol, repr)))
            entries.push({ action: rule.action, set: peers });
          continue;
        }
        // Egress: the destination (the peer) must have the named port.
        for (const nm of names) this.builder.addSet(this.withName(nm, q.port, q.protocol));
        const dsts = this.builder.take();
        if (peers === null) entries.push({ action: rule.action, set: dsts });
        else {
          this.builder.addAnd(peers, dsts);
          entries.push({ action: rule.action, set: this.builder.take() });
        }
      }
    }
    const out = { key, entries };
    this.cache.set(written, out);
    return out;
  }
}
