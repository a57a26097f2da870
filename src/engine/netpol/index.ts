/**
 * NetworkPolicy verdicts (networking.k8s.io/v1), two ways that must agree:
 *
 * - `explain*`: one connection, exactly, with the policies and rules that
 *   decided it (for traces and the UI);
 * - `classMatrix`: every pod pair at once, over equivalence classes of pods
 *   (same namespace, labels, container ports, hostNetwork and ipBlock atom:
 *   no policy can tell such pods apart), with peer sets as bitsets.
 *
 * Semantics (upstream API docs and test/e2e/network/netpol):
 * 1. A pod is isolated for a direction when some policy in its namespace
 *    selects it and has that policyType. Isolated pods accept only what some
 *    selecting policy's rule allows; policies are additive (a union).
 * 2. A connection needs both egress at the source and ingress at the
 *    destination to allow it.
 * 3. A rule with no peers (from/to empty or absent) matches every peer; with
 *    no ports, every port and protocol.
 * 4. A peer's podSelector alone means pods in the policy's namespace;
 *    namespaceSelector alone, every pod in matching namespaces; both in one
 *    peer, pods matching both (AND); separate peers are ORed.
 * 5. ipBlock matches by IP: cidr minus every except. IPv4 blocks never match
 *    IPv6 addresses and vice versa.
 * 6. A port entry matches its protocol (default TCP) and a port number, a
 *    range port..endPort, or a named port, resolved on the destination pod's
 *    containers (same name and protocol); no port means all of the protocol.
 * 7. hostNetwork pods are outside NetworkPolicy (the API leaves them
 *    undefined and common CNIs ignore them): no policy isolates them and no
 *    pod or namespace selector matches them; ipBlock can match their node IP.
 * 8. A pod's own node is always admitted at ingress (networking/v1
 *    NetworkPolicySpec.ingress: "Traffic is allowed to a pod if there are no
 *    NetworkPolicies selecting the pod ..., OR if the traffic source is the
 *    pod's local node, OR if the traffic matches at least one ingress rule").
 *    The API says nothing alike for egress. Classes do not know nodes, so
 *    `pairAllowed` adds this to `classAllowed` for host-network senders.
 */
import type { Model, Pod, Protocol } from "../model/types.ts";
import { labelsKey, matchesSelector, type LabelSelector } from "../model/labels.ts";
import { cidrContains, parseIP, type IP } from "../model/ip.ts";
import { Bitset, SetBuilder, SparseSet, weightOfIntersection, type ClassSet } from "./bitset.ts";
import type { IPBlock, NetworkPolicy, PolicyPeer, PolicyPort, PolicyRule } from "./types.ts";

export type Direction = "ingress" | "egress";

/** The other end of a connection as policy sees it: an IP, and the pod behind it if any. */
export interface PeerEndpoint {
  ip: string;
  pod?: Pod | undefined;
}

export interface RuleMatch {
  policy: NetworkPolicy;
  direction: Direction;
  rule: PolicyRule;
  /** The peer that matched (undefined when the rule has no peers). */
  peer?: PolicyPeer;
  /** The port entry that matched (undefined when the rule has no ports). */
  port?: PolicyPort;
}

export interface DirectionVerdict {
  direction: Direction;
  allowed: boolean;
  /** Some policy selects the pod for this direction. */
  isolated: boolean;
  /** Policies that select the pod for this direction. */
  selecting: NetworkPolicy[];
  /** Every rule that allows the connection. */
  allowedBy: RuleMatch[];
  /** Set when the connection is admitted only because it comes from the pod's own node (rule 8). */
  ownNode?: string;
  reason: string;
}

export interface PairVerdict {
  allowed: boolean;
  egress: DirectionVerdict;
  ingress: DirectionVerdict;
}

export interface PodClass {
  index: number;
  namespace: string;
  labels: Record<string, string>;
  hostNetwork: boolean;
  /** One pod of the class; every pod of the class gets the same verdicts. */
  repr: Pod;
  pods: Pod[];
}

export interface PolicyIndex {
  model: Model;
  classes: PodClass[];
  /** classOf[pod.index] */
  classOf: Int32Array;
  ingressPolicies: NetworkPolicy[][];
  egressPolicies: NetworkPolicy[][];
  /** Per-class isolation flags. */
  isolatedIngress: Uint8Array;
  isolatedEgress: Uint8Array;
  /** Peer sets cached by canonical key. */
  peerCache: Map<string, ClassSet>;
  /** Lookups for resolving peers, built on first use (see `lookups`). */
  lookups?: ClassLookups;
}

/**
 * Where to look for the classes a selector can match, so that resolving a
 * peer visits candidates, not every class: classes by namespace, and
 * policy-visible (not hostNetwork) classes by label pair and by label key.
 */
interface ClassLookups {
  byNamespace: Map<string, PodClass[]>;
  byLabel: Map<string, number[]>;
  byKey: Map<string, number[]>;
  /** Namespaces matching a namespaceSelector, by selector key. */
  namespacesOf: Map<string, Set<string>>;
  /** Parsed IP of each class's representative (undefined: none or unparsable), filled on first ipBlock. */
  reprIP: (IP | undefined)[] | undefined;
  /** Row groups, filled by the first classMatrix (see `rowGroupsOf`). */
  groups: RowGroups | undefined;
  /** Scratch for building peer sets, and unions of them, over the classes. */
  builder: SetBuilder;
  unionBuilder: SetBuilder;
}

/**
 * Classes whose matrix rows are computed once and shared. Two classes with
 * the same egress policies have the same egress row (the destination set does
 * not depend on the source). Two classes with the same ingress policies have
 * the same ingress row, unless a rule names a port: then the destination's
 * ports decide too, so the group is split by the class's port list.
 */
interface RowGroups {
  /** Group of each class by its ingress policy list, with the port list when a rule of it names a port. */
  ingress: string[];
  /** Group of each class by its egress policy list. */
  egress: Int32Array;
}

// ---------- single-connection evaluation ----------

function inBlock(b: IPBlock, ip: IP | undefined): boolean {
  if (!ip || !b.parsed || !cidrContains(b.parsed, ip)) return false;
  return !b.exceptParsed.some((e) => cidrContains(e, ip));
}

function namespaceLabels(model: Model, ns: string): Record<string, string> {
  return model.namespaces.get(ns)?.labels ?? { "kubernetes.io/metadata.name": ns };
}

/** Rule 4 and 5: does a peer entry match the endpoint? */
export function peerMatches(model: Model, policy: NetworkPolicy, peer: PolicyPeer, ep: PeerEndpoint): boolean {
  if (peer.ipBlock) return inBlock(peer.ipBlock, parseIP(ep.ip));
  const pod = ep.pod;
  if (!pod || pod.hostNetwork) return false;
  if (!peer.podSelector && !peer.namespaceSelector) return false;
  if (peer.namespaceSelector) {
    if (!matchesSelector(peer.namespaceSelector, namespaceLabels(model, pod.namespace))) return false;
  } else if (pod.namespace !== policy.namespace) return false;
  return !peer.podSelector || matchesSelector(peer.podSelector, pod.labels);
}

/** Rule 6: does a port entry match (port, protocol) at the destination? */
export function portMatches(p: PolicyPort, port: number, protocol: Protocol, dst: Pod | undefined): boolean {
  if (p.protocol !== protocol) return false;
  if (p.port === undefined) return true;
  if (typeof p.port === "number") return p.endPort !== undefined ? port >= p.port && port <= p.endPort : port === p.port;
  if (!dst) return false;
  return dst.ports.some((cp) => cp.name === p.port && cp.protocol === protocol && cp.containerPort === port);
}

export function selects(policy: NetworkPolicy, pod: Pod): boolean {
  return !pod.hostNetwork && policy.namespace === pod.namespace && matchesSelector(policy.podSelector, pod.labels);
}

/** A model's policies by namespace, built once per policy list: a policy selects pods of its own namespace only. */
const byNamespace = new WeakMap<readonly NetworkPolicy[], Map<string, NetworkPolicy[]>>();

function policiesIn(model: Model, ns: string): readonly NetworkPolicy[] {
  let m = byNamespace.get(model.policies);
  if (!m) {
    m = new Map();
    for (const p of model.policies) {
      const l = m.get(p.namespace);
      if (l) l.push(p);
      else m.set(p.namespace, [p]);
    }
    byNamespace.set(model.policies, m);
  }
  return m.get(ns) ?? [];
}

export function policiesFor(model: Model, pod: Pod, direction: Direction): NetworkPolicy[] {
  return policiesIn(model, pod.namespace).filter((p) => (direction === "ingress" ? p.ingressIsolation : p.egressIsolation) && selects(p, pod));
}

function ruleMatches(model: Model, policy: NetworkPolicy, direction: Direction, rule: PolicyRule, peer: PeerEndpoint, port: number, protocol: Protocol, dst: Pod | undefined): RuleMatch | undefined {
  let matchedPeer: PolicyPeer | undefined;
  if (rule.peers !== null) {
    matchedPeer = rule.peers.find((p) => peerMatches(model, policy, p, peer));
    if (!matchedPeer) return undefined;
  }
  let matchedPort: PolicyPort | undefined;
  if (rule.ports !== null) {
    matchedPort = rule.ports.find((p) => portMatches(p, port, protocol, dst));
    if (!matchedPort) return undefined;
  }
  const m: RuleMatch = { policy, direction, rule };
  if (matchedPeer) m.peer = matchedPeer;
  if (matchedPort) m.port = matchedPort;
  return m;
}

function explainDirection(model: Model, direction: Direction, self: Pod, other: PeerEndpoint, port: number, protocol: Protocol, dst: Pod | undefined): DirectionVerdict {
  const selecting = policiesFor(model, self, direction);
  if (selecting.length === 0) {
    return { direction, allowed: true, isolated: false, selecting, allowedBy: [], reason: `no NetworkPolicy selects ${self.key} for ${direction}, so it is not isolated` };
  }
  const allowedBy: RuleMatch[] = [];
  for (const policy of selecting) {
    for (const rule of direction === "ingress" ? policy.ingress : policy.egress) {
      const m = ruleMatches(model, policy, direction, rule, other, port, protocol, dst);
      if (m) allowedBy.push(m);
    }
  }
  const names = selecting.map((p) => p.key).join(", ");
  const reason = allowedBy.length
    ? `allowed by ${allowedBy[0]!.policy.key} ${direction} rule ${allowedBy[0]!.rule.index + 1}`
    : `${self.key} is isolated for ${direction} by ${names} and no rule allows ${protocol}/${port} ${direction === "ingress" ? "from" : "to"} ${other.pod ? other.pod.key : other.ip}`;
  return { direction, allowed: allowedBy.length > 0, isolated: true, selecting, allowedBy, reason };
}

/** The node `pod` runs on, when `ip` is one of that node's addresses. */
export function ownNodeOf(model: Model, pod: Pod, ip: string): string | undefined {
  const node = pod.nodeName ? model.nodesByName.get(pod.nodeName) : undefined;
  return node && ip && node.addresses.some((a) => a.address === ip) ? node.name : undefined;
}

/** Ingress at `dst` for a connection from `src` to dst's (port, protocol). */
export function explainIngress(model: Model, dst: Pod, src: PeerEndpoint, port: number, protocol: Protocol): DirectionVerdict {
  const v = explainDirection(model, "ingress", dst, src, port, protocol, dst);
  if (v.allowed) return v;
  const node = ownNodeOf(model, dst, src.ip);
  if (!node) return v;
  const names = v.selecting.map((p) => p.key).join(", ");
  return { ...v, allowed: true, ownNode: node, reason: `${src.ip} is the address of ${dst.key}'s own node ${node}: a pod's own node is always admitted, whatever ${names} allow${v.selecting.length === 1 ? "s" : ""}` };
}

/** Egress at `src` for a connection to `dst` on (port, protocol); named ports resolve on dst.pod. */
export function explainEgress(model: Model, src: Pod, dst: PeerEndpoint, port: number, protocol: Protocol): DirectionVerdict {
  return explainDirection(model, "egress", src, dst, port, protocol, dst.pod);
}

/** Pod to pod by the destination's primary IP. */
export function explainPair(model: Model, src: Pod, dst: Pod, port: number, protocol: Protocol): PairVerdict {
  const egress = explainEgress(model, src, { ip: dst.ips[0] ?? "", pod: dst }, port, protocol);
  const ingress = explainIngress(model, dst, { ip: src.ips[0] ?? "", pod: src }, port, protocol);
  return { allowed: egress.allowed && ingress.allowed, egress, ingress };
}

// ---------- all pairs, over classes ----------

/**
 * An IPv4 address as a number, exactly as parseIPv4 reads it (four decimal
 * parts of one to three digits, no leading zero, each at most 255), or -1.
 * Classes need one per pod: this skips the bigint.
 */
export function ipv4Number(s: string): number {
  let value = 0;
  let part = 0;
  let digits = 0;
  let dots = 0;
  let lead = 0;
  for (let i = 0; i <= s.length; i++) {
    const c = i < s.length ? s.charCodeAt(i) : 46;
    if (c >= 48 && c <= 57) {
      if (digits === 0) lead = c;
      else if (lead === 48) return -1;
      if (++digits > 3) return -1;
      part = part * 10 + (c - 48);
    } else if (c === 46) {
      if (digits === 0 || part > 255) return -1;
      value = value * 256 + part;
      part = 0;
      digits = 0;
      if (i < s.length && ++dots > 3) return -1;
    } else return -1;
  }
  return dots === 3 ? value : -1;
}

/** Cuts each IP family at every ipBlock boundary: addresses in one atom match exactly the same blocks. */
function ipAtoms(policies: readonly NetworkPolicy[]): (ip: string | undefined) => string {
  const cuts: Record<4 | 6, bigint[]> = { 4: [], 6: [] };
  for (const p of policies) {
    for (const r of [...p.ingress, ...p.egress]) {
      for (const peer of r.peers ?? []) {
        const b = peer.ipBlock;
        if (!b) continue;
        for (const c of [b.parsed, ...b.exceptParsed]) if (c) cuts[c.family].push(c.first, c.last + 1n);
      }
    }
  }
  for (const f of [4, 6] as const) cuts[f] = [...new Set(cuts[f])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  // IPv4 cuts are at most 2^32: exact as numbers.
  const cuts4 = cuts[4].map(Number);
  return (text) => {
    const v4 = text ? ipv4Number(text) : -1;
    if (v4 >= 0) {
      let lo = 0, hi = cuts4.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (cuts4[mid]! <= v4) lo = mid + 1;
        else hi = mid;
      }
      return `4:${lo}`;
    }
    const ip = text ? parseIP(text) : undefined;
    if (!ip) return "-";
    const c = cuts[ip.family];
    let lo = 0, hi = c.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (c[mid]! <= ip.value) lo = mid + 1;
      else hi = mid;
    }
    return `${ip.family}:${lo}`;
  };
}

export function buildPolicyIndex(model: Model): PolicyIndex {
  const atom = ipAtoms(model.policies);
  const byKey = new Map<string, PodClass>();
  const classes: PodClass[] = [];
  const classOf = new Int32Array(model.pods.length);
  const labelKeys = new Map<Record<string, string>, string>();
  for (const pod of model.pods) {
    let lk = labelKeys.get(pod.labels);
    if (lk === undefined) labelKeys.set(pod.labels, (lk = labelsKey(pod.labels)));
    const portsKey = pod.ports.map((p) => `${p.name ?? ""}:${p.containerPort}/${p.protocol}`).sort().join(",");
    const key = `${pod.namespace}\0${lk}\0${portsKey}\0${pod.hostNetwork ? "h" : ""}\0${atom(pod.ips[0])}`;
    let c = byKey.get(key);
    if (!c) {
      c = { index: classes.length, namespace: pod.namespace, labels: pod.labels, hostNetwork: pod.hostNetwork, repr: pod, pods: [] };
      byKey.set(key, c);
      classes.push(c);
    }
    c.pods.push(pod);
    classOf[pod.index] = c.index;
  }
  const ingressPolicies: NetworkPolicy[][] = classes.map(() => []);
  const egressPolicies: NetworkPolicy[][] = classes.map(() => []);
  const byNamespace = groupByNamespace(classes);
  // Rule 1: a policy selects pods of its own namespace; each (namespace, podSelector) is resolved once.
  const selected = new Map<string, PodClass[]>();
  for (const policy of model.policies) {
    const key = `${policy.namespace}\0${policy.podSelector.key}`;
    let hits = selected.get(key);
    if (!hits) {
      hits = (byNamespace.get(policy.namespace) ?? []).filter((c) => !c.hostNetwork && matchesSelector(policy.podSelector, c.labels));
      selected.set(key, hits);
    }
    for (const c of hits) {
      if (policy.ingressIsolation) ingressPolicies[c.index]!.push(policy);
      if (policy.egressIsolation) egressPolicies[c.index]!.push(policy);
    }
  }
  return {
    model, classes, classOf, ingressPolicies, egressPolicies,
    isolatedIngress: Uint8Array.from(ingressPolicies, (l) => (l.length ? 1 : 0)),
    isolatedEgress: Uint8Array.from(egressPolicies, (l) => (l.length ? 1 : 0)),
    peerCache: new Map(),
  };
}

function groupByNamespace(classes: readonly PodClass[]): Map<string, PodClass[]> {
  const m = new Map<string, PodClass[]>();
  for (const c of classes) {
    const l = m.get(c.namespace);
    if (l) l.push(c);
    else m.set(c.namespace, [c]);
  }
  return m;
}

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const l = m.get(k);
  if (l) l.push(v);
  else m.set(k, [v]);
}

const labelPair = (k: string, v: string) => `${k}\0${v}`;

function lookupsOf(index: PolicyIndex): ClassLookups {
  if (index.lookups) return index.lookups;
  const byLabel = new Map<string, number[]>();
  const byKey = new Map<string, number[]>();
  for (const c of index.classes) {
    if (c.hostNetwork) continue;
    for (const k in c.labels) {
      push(byLabel, labelPair(k, c.labels[k]!), c.index);
      push(byKey, k, c.index);
    }
  }
  index.lookups = { byNamespace: groupByNamespace(index.classes), byLabel, byKey, namespacesOf: new Map(), reprIP: undefined, groups: undefined, builder: new SetBuilder(index.classes.length), unionBuilder: new SetBuilder(index.classes.length) };
  return index.lookups;
}

/** Namespaces (those that have classes) whose labels a namespaceSelector matches. */
function matchingNamespaces(index: PolicyIndex, sel: LabelSelector): Set<string> {
  const l = lookupsOf(index);
  let hit = l.namespacesOf.get(sel.key);
  if (!hit) {
    hit = new Set();
    for (const ns of l.byNamespace.keys()) if (matchesSelector(sel, namespaceLabels(index.model, ns))) hit.add(ns);
    l.namespacesOf.set(sel.key, hit);
  }
  return hit;
}

/**
 * A superset of the classes a pod selector can match, from the label index:
 * the shortest among its matchLabels pairs' lists, its `In` expressions'
 * (the lists of its values together) and its `Exists` keys'; undefined when
 * the selector names no such requirement.
 */
function labelCandidates(l: ClassLookups, sel: LabelSelector): { lists: number[][]; size: number } | undefined {
  let best: { lists: number[][]; size: number } | undefined;
  const consider = (lists: number[][]) => {
    let size = 0;
    for (const x of lists) size += x.length;
    if (!best || size < best.size) best = { lists, size };
  };
  for (const k in sel.matchLabels) consider([l.byLabel.get(labelPair(k, sel.matchLabels[k]!)) ?? []]);
  for (const e of sel.matchExpressions) {
    if (e.operator === "Exists") consider([l.byKey.get(e.key) ?? []]);
    else if (e.operator === "In") consider([...new Set(e.values)].map((v) => l.byLabel.get(labelPair(e.key, v)) ?? []));
  }
  return best;
}

/** Classes a peer entry matches (as sources for ingress, destinations for egress). */
function peerSet(index: PolicyIndex, policy: NetworkPolicy, peer: PolicyPeer): ClassSet {
  const b = peer.ipBlock;
  const key = b
    ? `ip:${b.cidr}|${b.except.join(",")}`
    : `sel:${peer.namespaceSelector ? `ns(${peer.namespaceSelector.key})` : `in(${policy.namespace})`}|${peer.podSelector ? peer.podSelector.key : "*"}`;
  const hit = index.peerCache.get(key);
  if (hit) return hit;
  const l = lookupsOf(index);
  const set = l.builder;
  if (b) {
    const ips = (l.reprIP ??= index.classes.map((c) => (c.repr.ips[0] ? parseIP(c.repr.ips[0]) : undefined)));
    for (let c = 0; c < ips.length; c++) if (inBlock(b, ips[c])) set.add(c);
  } else if (peer.podSelector || peer.namespaceSelector) {
    // Rule 4, resolved over candidates: the classes of the namespaces in scope, or the label index's, whichever is shorter.
    const namespaces = peer.namespaceSelector ? matchingNamespaces(index, peer.namespaceSelector) : new Set([policy.namespace]);
    let inScope = 0;
    for (const ns of namespaces) inScope += l.byNamespace.get(ns)?.length ?? 0;
    const byLabels = peer.podSelector ? labelCandidates(l, peer.podSelector) : undefined;
    const test = (c: PodClass) => {
      if (c.hostNetwork || !namespaces.has(c.namespace)) return;
      if (peer.podSelector && !matchesSelector(peer.podSelector, c.labels)) return;
      set.add(c.index);
    };
    if (byLabels && byLabels.size < inScope) for (const list of byLabels.lists) for (const c of list) test(index.classes[c]!);
    else for (const ns of namespaces) for (const c of l.byNamespace.get(ns) ?? []) test(c);
  }
  const result = set.take();
  index.peerCache.set(key, result);
  return result;
}

/** Union of a rule's peers; null when the rule matches every peer. */
function rulePeers(index: PolicyIndex, policy: NetworkPolicy, rule: PolicyRule): ClassSet | null {
  if (rule.peers === null) return null;
  if (rule.peers.length === 1) return peerSet(index, policy, rule.peers[0]!);
  const sets = rule.peers.map((p) => peerSet(index, policy, p));
  const set = lookupsOf(index).unionBuilder;
  for (const s of sets) set.addSet(s);
  return set.take();
}

function rulePortMatches(rule: PolicyRule, port: number, protocol: Protocol, dst: Pod | undefined): boolean {
  return rule.ports === null || rule.ports.some((p) => portMatches(p, port, protocol, dst));
}

/**
 * For one port and protocol: for each class, the classes it accepts ingress
 * from and sends egress to. `null` means "every class" (not isolated, or a
 * rule that matches every peer).
 */
export interface ClassMatrix {
  port: number;
  protocol: Protocol;
  /** Rows are shared between classes (and with the index's caches): read them, never change them. */
  ingressFrom: (ClassSet | null)[];
  egressTo: (ClassSet | null)[];
}

function rowGroupsOf(index: PolicyIndex): RowGroups {
  const l = lookupsOf(index);
  if (l.groups) return l.groups;
  const position = new Map<NetworkPolicy, number>();
  index.model.policies.forEach((p, i) => position.set(p, i));
  const ids = new Map<string, number>();
  const idOf = (list: readonly NetworkPolicy[]) => {
    const key = list.map((p) => position.get(p) ?? -1).join(",");
    let id = ids.get(key);
    if (id === undefined) ids.set(key, (id = ids.size));
    return id;
  };
  const names = (list: readonly NetworkPolicy[]) => list.some((p) => p.ingress.some((r) => r.ports?.some((x) => typeof x.port === "string")));
  const ingress = index.classes.map((c) => {
    const list = index.ingressPolicies[c.index]!;
    if (list.length === 0) return "";
    const id = idOf(list);
    if (!names(list)) return String(id);
    const ports = c.repr.ports.map((p) => `${p.name ?? ""}:${p.containerPort}/${p.protocol}`).sort().join(",");
    return `${id}\0${ports}`;
  });
  ids.clear();
  const egress = Int32Array.from(index.classes, (c) => idOf(index.egressPolicies[c.index]!));
  l.groups = { ingress, egress };
  return l.groups;
}

export function classMatrix(index: PolicyIndex, port: number, protocol: Protocol): ClassMatrix {
  const n = index.classes.length;
  const ingressFrom: (ClassSet | null)[] = new Array(n).fill(null);
  const egressTo: (ClassSet | null)[] = new Array(n).fill(null);
  const groups = rowGroupsOf(index);
  // Rows, and port sets (built while a row is open), each have their own scratch.
  const acc = new SetBuilder(n);
  const portAcc = new SetBuilder(n);
  const ruleCache = new Map<PolicyRule, ClassSet | null>();
  const peersOf = (policy: NetworkPolicy, rule: PolicyRule) => {
    let s = ruleCache.get(rule);
    if (s === undefined) ruleCache.set(rule, (s = rulePeers(index, policy, rule)));
    return s;
  };
  // Rows are shared within a group (RowGroups).
  const ingressRows = new Map<string, ClassSet | null>();
  for (let b = 0; b < n; b++) {
    const policies = index.ingressPolicies[b]!;
    if (policies.length === 0) continue;
    const group = groups.ingress[b]!;
    let row = ingressRows.get(group);
    if (row === undefined) {
      const dst = index.classes[b]!.repr;
      let open = false;
      outer: for (const policy of policies) {
        for (const rule of policy.ingress) {
          if (!rulePortMatches(rule, port, protocol, dst)) continue;
          const peers = peersOf(policy, rule);
          if (peers === null) {
            open = true;
            break outer;
          }
          acc.addSet(peers);
        }
      }
      row = acc.take();
      if (open) row = null;
      ingressRows.set(group, row);
    }
    ingressFrom[b] = row;
  }
  // Rule 6 at the destination, for egress rules: the classes a rule's ports admit (null: all, as a rule without ports).
  // A named port admits the classes that have a container port of that name, protocol and number.
  let named: Map<string, ClassSet> | undefined;
  const withName = (name: string) => {
    if (!named) {
      const lists = new Map<string, number[]>();
      for (const c of index.classes) {
        for (const cp of c.repr.ports) {
          if (cp.name === undefined || cp.containerPort !== port || cp.protocol !== protocol) continue;
          const l = lists.get(cp.name);
          if (l) l.push(c.index);
          else lists.set(cp.name, [c.index]);
        }
      }
      named = new Map();
      for (const [k, list] of lists) {
        for (const c of list) portAcc.add(c);
        named.set(k, portAcc.take());
      }
    }
    return named.get(name);
  };
  const none = new SparseSet(n, new Int32Array(0));
  const all = Bitset.full(n);
  const portCache = new Map<PolicyRule, ClassSet | null>();
  const dstsWithPort = (rule: PolicyRule): ClassSet | null => {
    let s = portCache.get(rule);
    if (s !== undefined) return s;
    if (rule.ports === null) s = null;
    else if (rule.ports.some((p) => typeof p.port !== "string" && portMatches(p, port, protocol, undefined))) {
      // A rule that also names ports still admits every destination through its numeric entry.
      s = rule.ports.every((p) => typeof p.port !== "string") ? null : all;
    } else {
      const sets: ClassSet[] = [];
      for (const p of rule.ports) {
        if (typeof p.port !== "string" || p.protocol !== protocol) continue;
        const set = withName(p.port);
        if (set) sets.push(set);
      }
      if (sets.length === 0) s = none;
      else if (sets.length === 1) s = sets[0]!;
      else {
        for (const x of sets) portAcc.addSet(x);
        s = portAcc.take();
      }
    }
    portCache.set(rule, s);
    return s;
  };
  const egressRows = new Map<number, ClassSet | null>();
  for (let a = 0; a < n; a++) {
    const policies = index.egressPolicies[a]!;
    if (policies.length === 0) continue;
    const group = groups.egress[a]!;
    let row = egressRows.get(group);
    if (row === undefined) {
      let open = false;
      outer: for (const policy of policies) {
        for (const rule of policy.egress) {
          const ports = dstsWithPort(rule);
          const peers = peersOf(policy, rule);
          if (ports === null && peers === null) {
            open = true;
            break outer;
          }
          if (ports === null) acc.addSet(peers!);
          else if (peers === null) acc.addSet(ports);
          else acc.addAnd(ports, peers);
        }
      }
      row = acc.take();
      if (open) row = null;
      egressRows.set(group, row);
    }
    egressTo[a] = row;
  }
  return { port, protocol, ingressFrom, egressTo };
}

/**
 * Pod to pod by the destination's IP, as `explainPair` decides it: the class
 * verdict, plus rule 8 for a host-network sender on the destination's node.
 */
export function pairAllowed(index: PolicyIndex, m: ClassMatrix, src: Pod, dst: Pod): boolean {
  const a = index.classOf[src.index]!;
  const b = index.classOf[dst.index]!;
  if (classAllowed(m, a, b)) return true;
  if (!src.hostNetwork || !src.nodeName || src.nodeName !== dst.nodeName) return false;
  const e = m.egressTo[a]!;
  return (e === null || e.has(b)) && ownNodeOf(index.model, dst, src.ips[0] ?? "") !== undefined;
}

export function classAllowed(m: ClassMatrix, a: number, b: number): boolean {
  const i = m.ingressFrom[b]!;
  const e = m.egressTo[a]!;
  return (i === null || i.has(a)) && (e === null || e.has(b));
}

export interface ReachSummary {
  port: number;
  protocol: Protocol;
  pods: number;
  allowedPairs: number;
  isolatedIngress: number;
  isolatedEgress: number;
  classes: number;
}

/**
 * Destinations of a set of classes (all when `to` is null), weighed by their
 * pods and grouped by ingress row: `open` for rows that admit every source.
 */
function destinationWeights(m: ClassMatrix, size: ArrayLike<number>, to: ClassSet | null): { open: number; rows: Map<ClassSet, number> } {
  let open = 0;
  const rows = new Map<ClassSet, number>();
  const visit = (b: number) => {
    const i = m.ingressFrom[b]!;
    if (i === null) open += size[b]!;
    else rows.set(i, (rows.get(i) ?? 0) + size[b]!);
  };
  if (to === null) for (let b = 0; b < m.ingressFrom.length; b++) visit(b);
  else to.forEach(visit);
  return { open, rows };
}

/**
 * Counts allowed pod pairs as Σ over sources a, destinations b of
 * size(a)·size(b)·[b ∈ egress(a)]·[a ∈ ingress(b)], per group of shared rows
 * rather than per pair of classes: the sources that share an egress row E
 * see the same destinations, grouped by their ingress row I; each (E, I)
 * adds weight(destinations of E with row I) x weight(sources of E in I).
 * The second weight is one word-wise intersection when the group has more
 * sources than the set has words, one membership test per source otherwise.
 * A row that few sources share is walked per source, as pairs are.
 */
export function reachSummary(index: PolicyIndex, m: ClassMatrix): ReachSummary {
  const { classes } = index;
  const n = classes.length;
  const size = Float64Array.from(classes, (c) => c.pods.length);
  const bySource = new Map<ClassSet | null, number[]>();
  for (let a = 0; a < n; a++) {
    const e = m.egressTo[a]!;
    const l = bySource.get(e);
    if (l) l.push(a);
    else bySource.set(e, [a]);
  }
  const words = (n + 31) >>> 5;
  let pairs = 0;
  for (const [egress, sources] of bySource) {
    if (egress !== null && sources.length <= 4) {
      // Few sources share this row: test each destination's ingress row directly.
      for (const a of sources) {
        let row = 0;
        egress.forEach((b) => {
          const i = m.ingressFrom[b]!;
          if (i === null || i.has(a)) row += size[b]!;
        });
        pairs += row * size[a]!;
      }
      continue;
    }
    const to = destinationWeights(m, size, egress);
    let sourcePods = 0;
    for (const a of sources) sourcePods += size[a]!;
    pairs += sourcePods * to.open;
    if (to.rows.size === 0) continue;
    if (sources.length > words) {
      const group = new Bitset(n);
      for (const a of sources) group.add(a);
      for (const [row, dstPods] of to.rows) pairs += dstPods * weightOfIntersection(row, group, size);
    } else {
      for (const a of sources) {
        let row = 0;
        for (const [ingress, dstPods] of to.rows) if (ingress.has(a)) row += dstPods;
        pairs += row * size[a]!;
      }
    }
  }
  pairs += ownNodePairs(index, m);
  let isolatedIngress = 0, isolatedEgress = 0;
  for (let c = 0; c < n; c++) {
    if (index.isolatedIngress[c]) isolatedIngress += size[c]!;
    if (index.isolatedEgress[c]) isolatedEgress += size[c]!;
  }
  return { port: m.port, protocol: m.protocol, pods: index.model.pods.length, allowedPairs: pairs, isolatedIngress, isolatedEgress, classes: n };
}

/** Pairs that only rule 8 allows: host-network senders to pods on their own node (few: pods per node are bounded). */
function ownNodePairs(index: PolicyIndex, m: ClassMatrix): number {
  const { pods } = index.model;
  const byNode = new Map<string, Pod[]>();
  for (const p of pods) {
    if (!p.nodeName) continue;
    const l = byNode.get(p.nodeName);
    if (l) l.push(p);
    else byNode.set(p.nodeName, [p]);
  }
  let extra = 0;
  for (const src of pods) {
    if (!src.hostNetwork || !src.nodeName) continue;
    for (const dst of byNode.get(src.nodeName) ?? []) {
      if (!classAllowed(m, index.classOf[src.index]!, index.classOf[dst.index]!) && pairAllowed(index, m, src, dst)) extra++;
    }
  }
  return extra;
}

/** The pod-by-pod matrix, rows are sources, columns destinations, in model.pods order. */
export function podMatrix(index: PolicyIndex, m: ClassMatrix): boolean[][] {
  const pods = index.model.pods;
  return pods.map((src) => pods.map((dst) => pairAllowed(index, m, src, dst)));
}
