/**
 * Pods grouped into classes no policy can tell apart (namespace, the labels
 * some selector reads, container ports, hostNetwork, ipBlock atom), and
 * selectors resolved once per class into peer sets.
 */
import type { ContainerPort, Model, Pod, Protocol } from "../model/types.ts";
import { labelsKey, matchesSelector, type LabelSelector } from "../model/labels.ts";
import { ipv4Number, parseIP, type Cidr, type IP } from "../model/ip.ts";
import { tierCidrs } from "../tiers/parse.ts";
import { SetBuilder, type ClassSet } from "./bitset.ts";
import type { NetworkPolicy, PolicyPeer, PolicyRule } from "../model/networkpolicy.ts";
import type { ClusterPolicy } from "../tiers/types.ts";
import { workloadId } from "../model/ids.ts";
import { groupOf } from "../parse/kinds.ts";
import { hasCniPolicies } from "../cni/policies.ts";
import { inBlock, namespaceLabels, portMatches } from "./explain.ts";

export interface PodClass {
  index: number;
  namespace: string;
  /** The first pod's labels: the pods of a class agree on every label a selector reads, not on the others. */
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
export interface RowGroups {
  /** Group of each class by its ingress policy list, with the port list when a rule of it names a port. */
  ingress: string[];
  /** Group of each class by its egress policy list. */
  egress: Int32Array;
}

/**
 * Cuts each IP family at every ipBlock boundary: addresses in one atom match
 * exactly the same blocks. An atom is a number: an IPv4 one from 0 up, an
 * IPv6 one from -2 down, -1 for no address.
 */
function ipAtoms(
  policies: readonly NetworkPolicy[],
  extra: readonly Cidr[],
): (ip: string | undefined) => number {
  const cuts: Record<4 | 6, bigint[]> = { 4: [], 6: [] };
  for (const c of extra) cuts[c.family].push(c.first, c.last + 1n);
  for (const p of policies) {
    for (const r of [...p.ingress, ...p.egress]) {
      for (const peer of r.peers ?? []) {
        const b = peer.ipBlock;
        if (!b) continue;
        for (const c of [b.parsed, ...b.exceptParsed]) if (c) cuts[c.family].push(c.first, c.last + 1n);
      }
    }
  }
  for (const f of [4, 6] as const)
    cuts[f] = [...new Set(cuts[f])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  // IPv4 cuts are at most 2^32: exact as numbers.
  const cuts4 = cuts[4].map(Number);
  return (text) => {
    const v4 = text ? ipv4Number(text) : -1;
    if (v4 >= 0) {
      let lo = 0,
        hi = cuts4.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (cuts4[mid]! <= v4) lo = mid + 1;
        else hi = mid;
      }
      return lo;
    }
    const ip = text ? parseIP(text) : undefined;
    if (!ip) return -1;
    const c = cuts[ip.family];
    let lo = 0,
      hi = c.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (c[mid]! <= ip.value) lo = mid + 1;
      else hi = mid;
    }
    return ip.family === 4 ? lo : -2 - lo;
  };
}

function portsKey(ports: readonly ContainerPort[]): string {
  return ports
    .map((p) => `${p.name ?? ""}:${p.containerPort}/${p.protocol}`)
    .sort()
    .join(",");
}

/**
 * The pod label keys that some selector of the policy stack reads:
 * NetworkPolicy's podSelectors (the policy's and its peers'), and the
 * cluster tiers' (subjects and peers). A label no selector reads cannot tell
 * two pods apart (a StatefulSet's `statefulset.kubernetes.io/pod-name`,
 * mostly), so classes are keyed by these only. A policy layer whose
 * selectors read pod labels (policy/index.ts LAYER_FACTORIES) adds its keys
 * here. With a CNI dialect or Istio in the input, classes keep every label
 * (`onlyStackReadsLabels`).
 */
export function podLabelKeysRead(
  policies: readonly NetworkPolicy[],
  clusterPolicies: readonly ClusterPolicy[],
): Set<string> {
  const keys = new Set<string>();
  const add = (s: LabelSelector | undefined) => {
    if (!s) return;
    for (const k in s.matchLabels) keys.add(k);
    for (const e of s.matchExpressions) keys.add(e.key);
  };
  for (const p of policies) {
    add(p.podSelector);
    for (const r of p.ingress) for (const x of r.peers ?? []) add(x.podSelector);
    for (const r of p.egress) for (const x of r.peers ?? []) add(x.podSelector);
  }
  for (const p of clusterPolicies) {
    add(p.subject.pods?.podSelector);
    for (const r of p.ingress) for (const x of r.peers) add(x.pods?.podSelector);
    for (const r of p.egress) for (const x of r.peers) add(x.pods?.podSelector);
  }
  return keys;
}

/**
 * Whether NetworkPolicy and the tiers are all that judge a sender by its
 * labels, so that classes may leave out the labels they do not read. Not with
 * a CNI dialect in the input (its selectors read labels over classes of its
 * own, while the flows group senders by these), nor with Istio's objects (a
 * route or a sidecar may match a sender's labels).
 */
function onlyStackReadsLabels(model: Model): boolean {
  if (hasCniPolicies(model.cni)) return false;
  return !(model.others ?? []).some((o) => groupOf(o.apiVersion).endsWith("istio.io"));
}

/**
 * A class key's labels part: the labels some selector reads, and whether it
 * left one out. When it did, the key names what the whole labels named: the
 * pod's controller, or for a pod of no controller its whole labels, so that a
 * class still holds only pods that the whole labels grouped together or
 * replicas of one controller (the graph groups senders by class).
 */
function projectedLabels(
  labels: Record<string, string>,
  read: ReadonlySet<string> | undefined,
): { key: string; dropped: boolean } {
  if (!read) return { key: labelsKey(labels), dropped: false };
  const kept: string[] = [];
  let dropped = false;
  for (const k in labels) {
    if (read.has(k)) kept.push(k);
    else dropped = true;
  }
  if (!dropped) return { key: labelsKey(labels), dropped };
  kept.sort();
  return { key: kept.map((k) => `${k}=${labels[k]}`).join("\n"), dropped };
}

/** Two label sets that projectedLabels keys alike: the same value of every label `read` names, and each leaves some label out or neither does. */
function sameReadLabels(
  a: Record<string, string>,
  b: Record<string, string>,
  read: ReadonlySet<string>,
): boolean {
  let readA = 0;
  let readB = 0;
  let droppedA = false;
  let droppedB = false;
  for (const k in a) {
    if (!read.has(k)) droppedA = true;
    else if (a[k] !== b[k]) return false;
    else readA++;
  }
  for (const k in b) {
    if (!read.has(k)) droppedB = true;
    else readB++;
  }
  return readA === readB && droppedA === droppedB;
}

/**
 * The model's class index, built once: the analysis, its decider and validation read the same one (a model is
 * never changed once built). A caller that needs an index of its own calls buildPolicyIndex.
 */
export function policyIndexOf(model: Model): PolicyIndex {
  let index = indexes.get(model);
  if (!index) indexes.set(model, (index = buildPolicyIndex(model)));
  return index;
}
const indexes = new WeakMap<Model, PolicyIndex>();

export function buildPolicyIndex(model: Model): PolicyIndex {
  // The policy stack's other layers cut the address space too (the tiers' networks and nodes peers).
  const atom = ipAtoms(model.policies, tierCidrs(model));
  const read = onlyStackReadsLabels(model)
    ? podLabelKeysRead(model.policies, model.clusterPolicies)
    : undefined;
  // Classes by everything but the address (namespace, labels read, ports, hostNetwork), then by ipBlock atom.
  const byTemplate = new Map<string, Map<number, PodClass>>();
  const classes: PodClass[] = [];
  const classOf = new Int32Array(model.pods.length);
  // Pods of one template share their labels object, port list and workload: each is keyed once, and
  // a pod like the one before it (replicas sort together) takes its group without a key.
  const labelKeys = new Map<Record<string, string>, { key: string; dropped: boolean }>();
  const workloadKeys = new Map<Pod["workload"], string>();
  const portKeys = new Map<readonly ContainerPort[], string>();
  let prev: Pod | undefined;
  let group: Map<number, PodClass> | undefined;
  for (const pod of model.pods) {
    if (
      !prev ||
      !group ||
      pod.ports !== prev.ports ||
      pod.workload !== prev.workload ||
      pod.namespace !== prev.namespace ||
      pod.hostNetwork !== prev.hostNetwork ||
      // A StatefulSet's replicas each have labels of their own, alike in every label a selector reads.
      (pod.labels !== prev.labels && (!read || !sameReadLabels(pod.labels, prev.labels, read)))
    ) {
      let projected = labelKeys.get(pod.labels);
      if (projected === undefined) labelKeys.set(pod.labels, (projected = projectedLabels(pod.labels, read)));
      let lk = projected.key;
      if (projected.dropped) {
        let wk = workloadKeys.get(pod.workload);
        if (wk === undefined)
          workloadKeys.set(
            pod.workload,
            (wk = pod.workload.kind === "Pod" ? labelsKey(pod.labels) : workloadId(pod.workload)),
          );
        lk = `${lk}\n@${wk}`;
      }
      let pk = portKeys.get(pod.ports);
      if (pk === undefined) portKeys.set(pod.ports, (pk = portsKey(pod.ports)));
      const key = `${pod.namespace}\0${lk}\0${pk}\0${pod.hostNetwork ? "h" : ""}`;
      group = byTemplate.get(key);
      if (!group) byTemplate.set(key, (group = new Map()));
    }
    prev = pod;
    const a = atom(pod.ips[0]);
    let c = group.get(a);
    if (!c) {
      c = {
        index: classes.length,
        namespace: pod.namespace,
        labels: pod.labels,
        hostNetwork: pod.hostNetwork,
        repr: pod,
        pods: [],
      };
      group.set(a, c);
      classes.push(c);
    }
    c.pods.push(pod);
    classOf[pod.index] = c.index;
  }
  const ingressPolicies: NetworkPolicy[][] = classes.map(() => []);
  const egressPolicies: NetworkPolicy[][] = classes.map(() => []);
  const byNamespace = groupByNamespace(classes);
  // Rule 1: a policy selects pods of its own namespace; each (namespace, podSelector) is resolved once.
  // By namespace, then selector key: both strings the model keeps, so no key is built per policy.
  const selected = new Map<string, Map<string, PodClass[]>>();
  for (const policy of model.policies) {
    let inNamespace = selected.get(policy.namespace);
    if (!inNamespace) selected.set(policy.namespace, (inNamespace = new Map()));
    let hits = inNamespace.get(policy.podSelector.key);
    if (!hits) {
      hits = (byNamespace.get(policy.namespace) ?? []).filter(
        (c) => !c.hostNetwork && matchesSelector(policy.podSelector, c.labels),
      );
      inNamespace.set(policy.podSelector.key, hits);
    }
    for (const c of hits) {
      if (policy.ingressIsolation) ingressPolicies[c.index]!.push(policy);
      if (policy.egressIsolation) egressPolicies[c.index]!.push(policy);
    }
  }
  return {
    model,
    classes,
    classOf,
    ingressPolicies,
    egressPolicies,
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

export function lookupsOf(index: PolicyIndex): ClassLookups {
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
  index.lookups = {
    byNamespace: groupByNamespace(index.classes),
    byLabel,
    byKey,
    namespacesOf: new Map(),
    reprIP: undefined,
    groups: undefined,
    builder: new SetBuilder(index.classes.length),
    unionBuilder: new SetBuilder(index.classes.length),
  };
  return index.lookups;
}

/** Namespaces (those that have classes) whose labels a namespaceSelector matches. */
function matchingNamespaces(index: PolicyIndex, sel: LabelSelector): Set<string> {
  const l = lookupsOf(index);
  let hit = l.namespacesOf.get(sel.key);
  if (!hit) {
    hit = new Set();
    for (const ns of l.byNamespace.keys())
      if (matchesSelector(sel, namespaceLabels(index.model, ns))) hit.add(ns);
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
function labelCandidates(
  l: ClassLookups,
  sel: LabelSelector,
): { lists: number[][]; size: number } | undefined {
  let best: { lists: number[][]; size: number } | undefined;
  const consider = (lists: number[][]) => {
    let size = 0;
    for (const x of lists) size += x.length;
    if (!best || size < best.size) best = { lists, size };
  };
  for (const k in sel.matchLabels) consider([l.byLabel.get(labelPair(k, sel.matchLabels[k]!)) ?? []]);
  for (const e of sel.matchExpressions) {
    if (e.operator === "Exists") consider([l.byKey.get(e.key) ?? []]);
    else if (e.operator === "In")
      consider([...new Set(e.values)].map((v) => l.byLabel.get(labelPair(e.key, v)) ?? []));
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
    const namespaces = peer.namespaceSelector
      ? matchingNamespaces(index, peer.namespaceSelector)
      : new Set([policy.namespace]);
    let inScope = 0;
    for (const ns of namespaces) inScope += l.byNamespace.get(ns)?.length ?? 0;
    const byLabels = peer.podSelector ? labelCandidates(l, peer.podSelector) : undefined;
    const test = (c: PodClass) => {
      if (c.hostNetwork || !namespaces.has(c.namespace)) return;
      if (peer.podSelector && !matchesSelector(peer.podSelector, c.labels)) return;
      set.add(c.index);
    };
    if (byLabels && byLabels.size < inScope)
      for (const list of byLabels.lists) for (const c of list) test(index.classes[c]!);
    else for (const ns of namespaces) for (const c of l.byNamespace.get(ns) ?? []) test(c);
  }
  const result = set.take();
  index.peerCache.set(key, result);
  return result;
}

/** Union of a rule's peers; null when the rule matches every peer. */
export function rulePeers(index: PolicyIndex, policy: NetworkPolicy, rule: PolicyRule): ClassSet | null {
  if (rule.peers === null) return null;
  if (rule.peers.length === 1) return peerSet(index, policy, rule.peers[0]!);
  const sets = rule.peers.map((p) => peerSet(index, policy, p));
  const set = lookupsOf(index).unionBuilder;
  for (const s of sets) set.addSet(s);
  return set.take();
}

export function rulePortMatches(
  rule: PolicyRule,
  port: number,
  protocol: Protocol,
  dst: Pod | undefined,
): boolean {
  return rule.ports === null || rule.ports.some((p) => portMatches(p, port, protocol, dst));
}
