/**
 * The policy stack over a model: which layers there are, one connection
 * exactly (`explainStackPair`), and all pairs over pod classes
 * (`stackMatrix`, then `stackPairAllowed` / `stackPodMatrix` /
 * `stackReachSummary`). See stack.ts for the semantics and CONTEXT.md for how
 * a layer plugs in.
 */
import type { Model, Pod, Protocol } from "../model/types.ts";
import {
  ClassMatrices,
  classAllowed,
  ownNodeOf,
  ownNodeSenders,
  pairAllowed,
  reachSummary,
  type ClassMatrix,
  type PolicyIndex,
  type PriorRows,
  type ReachSummary,
} from "../netpol/index.ts";
import type { ClassSet } from "../netpol/bitset.ts";
import { tierLayer } from "../tiers/layer.ts";
import { netpolLayer } from "./netpol-layer.ts";
import {
  decideStack,
  sortLayers,
  stackRow,
  type ClassEntry,
  type Direction,
  type DirectionDecision,
  type PolicyLayer,
  type StackPeer,
} from "./stack.ts";

export type {
  PolicyLayer,
  LayerStep,
  LayerCause,
  LayerName,
  LayerAction,
  DirectionDecision,
  ClassEntry,
  ClassQuery,
  DirectionQuery,
  StackPeer,
} from "./stack.ts";
export { decideStack, stackRow, sortLayers } from "./stack.ts";

/**
 * Further layers (the CNI dialects) register a factory here; each returns
 * undefined when the model has nothing of its kind. The classes a layer
 * judges group pods by the label keys some selector reads: a layer whose
 * selectors read pod labels adds its keys in netpol/classes.ts
 * `podLabelKeysRead`.
 */
export type LayerFactory = (model: Model, index?: PolicyIndex) => PolicyLayer | undefined;
export const LAYER_FACTORIES: LayerFactory[] = [];

export interface PolicyStack {
  model: Model;
  index: PolicyIndex | undefined;
  layers: PolicyLayer[];
  /** True when some layer besides NetworkPolicy has policies: otherwise the stack is NetworkPolicy alone. */
  layered: boolean;
  /** NetworkPolicy-only class matrices by `port/protocol`. */
  netpolMatrices: ClassMatrices;
  /**
   * The whole stack's class matrices by `port/protocol`, each built once: the
   * graph's flows, the matrix and the CLI share them (and the next analysis,
   * when their inputs are unchanged: analysis/tiers.ts).
   */
  matrices: Map<string, StackMatrix>;
  /**
   * The rows an earlier analysis's stack matrices lend these (analysis/tiers.ts, when the classes and every
   * layer but NetworkPolicy read alike): a class whose NetworkPolicies read alike keeps its stack row.
   */
  prior?: PriorRows | undefined;
  /** stackPairAllowed's own-node ingress rows (ownNodeIngress) by port and layer entries. */
  ownNode: Map<string, ClassSet | null>;
}

/** `kept`: NetworkPolicy's matrices (with the rows they may take from an earlier analysis's), and the stack's prior rows. */
export function buildStack(
  model: Model,
  index?: PolicyIndex,
  kept: { netpol?: ClassMatrices; prior?: PriorRows | undefined } = {},
): PolicyStack {
  const netpolMatrices = kept.netpol ?? new ClassMatrices();
  const layers: PolicyLayer[] = [netpolLayer(index, netpolMatrices)];
  const tiers = model.clusterPolicies.length > 0;
  if (tiers) layers.push(tierLayer(model, "Admin", index), tierLayer(model, "Baseline", index));
  for (const f of LAYER_FACTORIES) {
    const l = f(model, index);
    if (l) layers.push(l);
  }
  return {
    model,
    index,
    layers: sortLayers(layers),
    layered: layers.length > 1,
    netpolMatrices,
    matrices: new Map(),
    prior: kept.prior,
    ownNode: new Map(),
  };
}

export interface StackPairDecision {
  allowed: boolean;
  egress: DirectionDecision;
  ingress: DirectionDecision;
}

/** One connection from a pod to an endpoint (a pod's IP, or any IP), every layer's step per direction. */
export function explainStack(
  stack: PolicyStack,
  src: Pod,
  dst: StackPeer,
  port: number,
  protocol: Protocol,
  srcIP = src.ips[0] ?? "",
): StackPairDecision {
  const hairpin = !!dst.pod && dst.pod === src && dst.ip === srcIP;
  const egress = decideStack(stack.layers, {
    model: stack.model,
    direction: "egress",
    self: src,
    other: dst,
    port,
    protocol,
    dst: dst.pod,
    hairpin,
  });
  const ingress: DirectionDecision = dst.pod
    ? decideStack(stack.layers, {
        model: stack.model,
        direction: "ingress",
        self: dst.pod,
        other: { ip: srcIP, pod: src },
        port,
        protocol,
        dst: dst.pod,
        hairpin,
      })
    : { direction: "ingress", allowed: true, steps: [] };
  return { allowed: egress.allowed && ingress.allowed, egress, ingress };
}

/** Ingress at a pod from any peer (a pod or an IP), through the stack. */
export function explainStackIngress(
  stack: PolicyStack,
  dst: Pod,
  src: StackPeer,
  port: number,
  protocol: Protocol,
): DirectionDecision {
  const hairpin = !!src.pod && src.pod === dst;
  return decideStack(stack.layers, {
    model: stack.model,
    direction: "ingress",
    self: dst,
    other: src,
    port,
    protocol,
    dst,
    hairpin,
  });
}

/** Egress at a pod to any peer, through the stack. */
export function explainStackEgress(
  stack: PolicyStack,
  src: Pod,
  dst: StackPeer,
  port: number,
  protocol: Protocol,
): DirectionDecision {
  const hairpin = !!dst.pod && dst.pod === src;
  return decideStack(stack.layers, {
    model: stack.model,
    direction: "egress",
    self: src,
    other: dst,
    port,
    protocol,
    dst: dst.pod,
    hairpin,
  });
}

export function explainStackPair(
  stack: PolicyStack,
  src: Pod,
  dst: Pod,
  port: number,
  protocol: Protocol,
): StackPairDecision {
  return explainStack(stack, src, { ip: dst.ips[0] ?? "", pod: dst }, port, protocol);
}

/** The stack's class matrix, with the NetworkPolicy-only one it was built on (for a pod's traffic to itself). */
export interface StackMatrix extends ClassMatrix {
  netpol: ClassMatrix;
  /** Per destination class, filled as asked: its ingress row for a sender on its own node (ownNodeIngress). */
  ownNode?: (ClassSet | null | undefined)[];
}

/**
 * Every class's ingress and egress row under the whole stack. Classes whose
 * only deciding layer is NetworkPolicy keep its rows (shared, unchanged);
 * the others get `stackRow` over their layers' entries, once per group of
 * classes with the same entries.
 */
export function stackMatrix(stack: PolicyStack, port: number, protocol: Protocol): StackMatrix {
  const k = `${port}/${protocol}`;
  let m = stack.matrices.get(k);
  if (!m) stack.matrices.set(k, (m = buildStackMatrix(stack, port, protocol)));
  return m;
}

function buildStackMatrix(stack: PolicyStack, port: number, protocol: Protocol): StackMatrix {
  const index = stack.index;
  if (!index) throw new Error("stackMatrix needs a policy index");
  const np = stack.netpolMatrices.of(index, port, protocol);
  if (!stack.layered) return { ...np, netpol: np };
  const n = index.classes.length;
  const before = stack.prior?.matrices.get(`${port}/${protocol}`);
  const rows = (direction: Direction): (ClassSet | null)[] => {
    const base = direction === "ingress" ? np.ingressFrom : np.egressTo;
    const out = base.slice();
    // A class whose NetworkPolicies read alike keeps its row: every other layer and the classes do (tiers.ts).
    const kept = before && stack.prior![direction];
    const rowsBefore = direction === "ingress" ? before?.ingressFrom : before?.egressTo;
    const cache = new Map<string, ClassSet | null>();
    // The layers above and below NetworkPolicy are asked first: a class none of them has entries for keeps
    // NetworkPolicy's row, and NetworkPolicy's own entries are not read for it (at 10,000 pods, 2,000 classes,
    // the rows took 68 ms of each analysis reading them for every class, 55 ms now).
    const layers = stack.layers;
    const asked = new Array<{ entries: ClassEntry[]; key: string } | undefined>(layers.length);
    for (let c = 0; c < n; c++) {
      if (kept && kept[c]) {
        out[c] = rowsBefore![c]!;
        continue;
      }
      let others = false;
      for (let i = 0; i < layers.length; i++) {
        const l = layers[i]!;
        if (l.layer === "NetworkPolicy") continue;
        const e = (asked[i] = l.classEntries({ direction, subject: c, port, protocol }));
        if (e.entries.length > 0) others = true;
      }
      if (!others) continue;
      const lists: ClassEntry[][] = [];
      let key = "";
      for (let i = 0; i < layers.length; i++) {
        const l = layers[i]!;
        const e =
          l.layer === "NetworkPolicy" ? l.classEntries({ direction, subject: c, port, protocol }) : asked[i]!;
        lists.push(e.entries);
        key += `${e.key};`;
      }
      let row = cache.get(key);
      if (row === undefined) cache.set(key, (row = stackRow(n, lists)));
      out[c] = row;
    }
    return out;
  };
  return { port, protocol, ingressFrom: rows("ingress"), egressTo: rows("egress"), netpol: np };
}

/**
 * Pod to pod by the destination's IP, as `explainStackPair` decides it: a
 * pod's traffic to itself by NetworkPolicy alone (the tiers do not apply to
 * it), and a host-network sender to a pod on its node by the destination
 * class's own-node ingress row (NetworkPolicy admits a pod's own node).
 */
export function stackPairAllowed(stack: PolicyStack, m: StackMatrix, src: Pod, dst: Pod): boolean {
  const index = stack.index!;
  if (src === dst) return pairAllowed(index, m.netpol, src, dst);
  if (stack.layered && ownNodeSender(src, dst) && ownNodeOf(stack.model, dst, src.ips[0] ?? "")) {
    const a = index.classOf[src.index]!;
    const b = index.classOf[dst.index]!;
    const e = m.egressTo[a]!;
    if (e !== null && !e.has(b)) return false;
    const i = ownNodeIngress(stack, m, b);
    return i === null || i.has(a);
  }
  return pairAllowed(index, m, src, dst);
}

const ADMIT_ALL: readonly ClassEntry[] = [{ action: "Accept", set: null }];

/**
 * Class `c`'s ingress row for a sender on its own node: the stack's walk with NetworkPolicy admitting
 * every peer where it isolates `c` (rule 8 admits the pod's own node whatever its policies allow; where
 * none isolates it NetworkPolicy decides nothing and the layers below still do). Once per class and
 * port, shared by classes whose layers give the same entries.
 */
function ownNodeIngress(stack: PolicyStack, m: StackMatrix, c: number): ClassSet | null {
  const rows = (m.ownNode ??= []);
  const known = rows[c];
  if (known !== undefined) return known;
  const n = stack.index!.classes.length;
  const lists: (readonly ClassEntry[])[] = [];
  let key = "";
  for (const l of stack.layers) {
    const e = l.classEntries({ direction: "ingress", subject: c, port: m.port, protocol: m.protocol });
    const admits = l.layer === "NetworkPolicy" && e.entries.length > 0;
    lists.push(admits ? ADMIT_ALL : e.entries);
    key += admits ? "own;" : `${e.key};`;
  }
  const cacheKey = `${m.port}/${m.protocol}|${key}`;
  let row = stack.ownNode.get(cacheKey);
  if (row === undefined) stack.ownNode.set(cacheKey, (row = stackRow(n, lists)));
  rows[c] = row;
  return row;
}

/**
 * Whether `stackPairAllowed` (and NetworkPolicy's `pairAllowed`) answer this pair by the class matrix alone: not a
 * pod to itself, and not a sender on the destination's node (the only pairs the own-node rule can apply to). The graph's
 * flows count such senders once per class instead of walking them pair by pair.
 */
export function decidedByClassRow(src: Pod, dst: Pod): boolean {
  return src !== dst && !(src.nodeName && src.nodeName === dst.nodeName);
}

/** A host-network sender to another pod on its node: NetworkPolicy admits it, unless a layer above decides first. */
function ownNodeSender(src: Pod, dst: Pod): boolean {
  return src.hostNetwork && !!src.nodeName && src.nodeName === dst.nodeName && src !== dst;
}

export function stackPodMatrix(stack: PolicyStack, m: StackMatrix): boolean[][] {
  const pods = stack.model.pods;
  return pods.map((src) => pods.map((dst) => stackPairAllowed(stack, m, src, dst)));
}

/** Counts as `reachSummary` does, with each pod's pair to itself judged by NetworkPolicy alone. */
export function stackReachSummary(stack: PolicyStack, m: StackMatrix): ReachSummary {
  const index = stack.index!;
  const s = reachSummary(index, m);
  if (!stack.layered) return s;
  let fix = 0;
  // reachSummary adds NetworkPolicy's own-node rule over the stack's rows; a layer above NetworkPolicy may have decided first.
  const { senders, byNode } = ownNodeSenders(stack.model);
  for (const src of senders) {
    for (const dst of byNode.get(src.nodeName!) ?? []) {
      if (dst === src) continue;
      fix += Number(stackPairAllowed(stack, m, src, dst)) - Number(pairAllowed(index, m, src, dst));
    }
  }
  for (const c of index.classes) {
    const a = c.index;
    const combined = classAllowed(m, a, a);
    const own = classAllowed(m.netpol, a, a);
    if (combined !== own) fix += (own ? 1 : -1) * c.pods.length;
  }
  return { ...s, allowedPairs: s.allowedPairs + fix };
}
