/** Every pod pair at once, over classes: per port and protocol, each class's peers as bitsets. */
import type { Model, Pod, Protocol } from "../model/types.ts";
import { Bitset, SetBuilder, SparseSet, weightOfIntersection, type ClassSet } from "./bitset.ts";
import type { NetworkPolicy, PolicyRule } from "../model/networkpolicy.ts";
import { ownNodeOf, portMatches } from "./explain.ts";
import { lookupsOf, rulePeers, rulePortMatches, type PolicyIndex, type RowGroups } from "./classes.ts";

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
  const names = (list: readonly NetworkPolicy[]) =>
    list.some((p) => p.ingress.some((r) => r.ports?.some((x) => typeof x.port === "string")));
  const ingress = index.classes.map((c) => {
    const list = index.ingressPolicies[c.index]!;
    if (list.length === 0) return "";
    const id = idOf(list);
    if (!names(list)) return String(id);
    const ports = c.repr.ports
      .map((p) => `${p.name ?? ""}:${p.containerPort}/${p.protocol}`)
      .sort()
      .join(",");
    return `${id}\0${ports}`;
  });
  ids.clear();
  const egress = Int32Array.from(index.classes, (c) => idOf(index.egressPolicies[c.index]!));
  l.groups = { ingress, egress };
  return l.groups;
}

/**
 * Rows an earlier index's matrices lend a new one (analysis/inputKeys.ts `keptRows` says which): the two
 * indexes have the same classes in the same order, and a class marked in `ingress` (`egress`) is selected for
 * that direction by policies that read alike, so its row there is the earlier one, the same object. Only the
 * other classes' rows are computed: a policy edit recomputes the rows of the classes it selects.
 */
export interface PriorRows {
  /** The earlier index's matrices by `port/protocol`: those it computed. */
  matrices: ReadonlyMap<string, ClassMatrix>;
  ingress: Uint8Array;
  egress: Uint8Array;
}

/** One index's class matrices by port and protocol, each computed once, taking the rows `prior` lends. */
export class ClassMatrices {
  readonly byPort = new Map<string, ClassMatrix>();
  constructor(readonly prior?: PriorRows) {}

  of(index: PolicyIndex, port: number, protocol: Protocol): ClassMatrix {
    const k = `${port}/${protocol}`;
    let m = this.byPort.get(k);
    if (!m) this.byPort.set(k, (m = classMatrix(index, port, protocol, this.prior)));
    return m;
  }
}

export function classMatrix(
  index: PolicyIndex,
  port: number,
  protocol: Protocol,
  prior?: PriorRows,
): ClassMatrix {
  const before = prior?.matrices.get(`${port}/${protocol}`);
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
    if (before && prior!.ingress[b]) {
      ingressFrom[b] = before.ingressFrom[b]!;
      continue;
    }
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
    else if (
      rule.ports.some((p) => typeof p.port !== "string" && portMatches(p, port, protocol, undefined))
    ) {
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
    if (before && prior!.egress[a]) {
      egressTo[a] = before.egressTo[a]!;
      continue;
    }
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
function destinationWeights(
  m: ClassMatrix,
  size: ArrayLike<number>,
  to: ClassSet | null,
): { open: number; rows: Map<ClassSet, number> } {
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
  let isolatedIngress = 0,
    isolatedEgress = 0;
  for (let c = 0; c < n; c++) {
    if (index.isolatedIngress[c]) isolatedIngress += size[c]!;
    if (index.isolatedEgress[c]) isolatedEgress += size[c]!;
  }
  return {
    port: m.port,
    protocol: m.protocol,
    pods: index.model.pods.length,
    allowedPairs: pairs,
    isolatedIngress,
    isolatedEgress,
    classes: n,
  };
}

/**
 * The host-network pods on a node, and the pods of each node: the senders the own-node rule reads, and
 * their destinations. Once per model (the NetworkPolicy and the stack's summaries both walk them).
 */
export function ownNodeSenders(model: Model): {
  senders: readonly Pod[];
  byNode: ReadonlyMap<string, readonly Pod[]>;
} {
  let known = ownNode.get(model);
  if (known) return known;
  const byNode = new Map<string, Pod[]>();
  const senders: Pod[] = [];
  for (const p of model.pods) {
    if (!p.nodeName) continue;
    const l = byNode.get(p.nodeName);
    if (l) l.push(p);
    else byNode.set(p.nodeName, [p]);
    if (p.hostNetwork) senders.push(p);
  }
  ownNode.set(model, (known = { senders, byNode }));
  return known;
}
const ownNode = new WeakMap<
  Model,
  { senders: readonly Pod[]; byNode: ReadonlyMap<string, readonly Pod[]> }
>();

/** Pairs that only rule 8 allows: host-network senders to pods on their own node (few: pods per node are bounded). */
function ownNodePairs(index: PolicyIndex, m: ClassMatrix): number {
  const { senders, byNode } = ownNodeSenders(index.model);
  let extra = 0;
  for (const src of senders) {
    for (const dst of byNode.get(src.nodeName!) ?? []) {
      if (
        !classAllowed(m, index.classOf[src.index]!, index.classOf[dst.index]!) &&
        pairAllowed(index, m, src, dst)
      )
        extra++;
    }
  }
  return extra;
}

/** The pod-by-pod matrix, rows are sources, columns destinations, in model.pods order. */
export function podMatrix(index: PolicyIndex, m: ClassMatrix): boolean[][] {
  const pods = index.model.pods;
  return pods.map((src) => pods.map((dst) => pairAllowed(index, m, src, dst)));
}

/**
 * A class matrix's egress rows as columns: per destination class, the sender classes whose sparse row holds
 * it; the classes whose row is dense, and those not isolated for egress (null: every class passes). Built once
 * per matrix (the matrices are few: one per endpoint port number) and read once per Service port, so which
 * sender classes reach an endpoint class costs the column's length, not a row lookup per sender class.
 */
interface EgressColumns {
  open: Uint8Array;
  sparse: (number[] | undefined)[];
  dense: number[];
}
const egressColumnsOf = new WeakMap<ClassMatrix, EgressColumns>();

function egressColumns(m: ClassMatrix): EgressColumns {
  let cols = egressColumnsOf.get(m);
  if (cols) return cols;
  const n = m.egressTo.length;
  cols = { open: new Uint8Array(n), sparse: new Array(n), dense: [] };
  for (let c = 0; c < n; c++) {
    const row = m.egressTo[c]!;
    if (row === null) cols.open[c] = 1;
    else if (row instanceof SparseSet) for (const d of row.members) (cols.sparse[d] ??= []).push(c);
    else cols.dense.push(c);
  }
  egressColumnsOf.set(m, cols);
  return cols;
}

/** Fills `passes`: 1 for the sender classes whose egress row (null: not isolated) reaches any of `to`. */
export function egressPasses(m: ClassMatrix, to: readonly number[], passes: Uint8Array): void {
  const cols = egressColumns(m);
  passes.set(cols.open);
  for (const d of to) for (const c of cols.sparse[d] ?? []) passes[c] = 1;
  for (const c of cols.dense) {
    if (passes[c]) continue;
    const row = m.egressTo[c]!;
    for (const d of to)
      if (row.has(d)) {
        passes[c] = 1;
        break;
      }
  }
}
