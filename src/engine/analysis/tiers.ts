/**
 * Flows under the cluster tiers (policy/stack.ts): the verdict of a set of
 * senders toward one pod port through Admin tier -> NetworkPolicy -> Baseline
 * tier, with the layer that decided (a tier's policy and rule, or a
 * NetworkPolicy) and which tier it was, for the graph's tier mark.
 */
import type { Model, Pod, Protocol } from "../model/types.ts";
import type { PolicyIndex } from "../netpol/index.ts";
import { classAllowed } from "../netpol/index.ts";
import {
  buildStack,
  explainStackPair,
  stackMatrix,
  stackPairAllowed,
  decidedByClassRow,
  type LayerStep,
  type PolicyStack,
} from "../policy/index.ts";
import type { Direction, PolicyLayer } from "../policy/stack.ts";
import type { RefView, Verdict } from "./types.ts";
import { admittedSenders } from "./words.ts";
import { keptRows, rowInputsOf, tierInputsKey, tierWorldKey } from "./inputKeys.ts";
import { deciderOf, enforcementOf, type Decider } from "../decide/index.ts";
import { keptMatrices, type KeptAnswer } from "./kept.ts";

export interface TierFlowSummary {
  verdict: Verdict;
  reason: string;
  decidedBy: RefView[];
  client?: Pod;
  /** A cluster tier decided the edge (the first refused sender's, else the first admitted one's). */
  tier?: "Admin" | "Baseline";
}

const stacks = new WeakMap<Model, PolicyStack>();

/**
 * The model's stack, built once (undefined when the input has no cluster tier
 * policy). With `keep`, its class matrices are those of the previous analysis
 * when nothing they read changed (`tierInputsKey`): an edit to a replica
 * count, a Service or an image rebuilds no stack matrix. When the classes and
 * the namespaces are the same (`keptRows`), a class whose NetworkPolicies read
 * alike keeps its NetworkPolicy rows, and its stack rows too when the cluster
 * policies read alike: a NetworkPolicy edit computes the rows of the classes
 * it selects.
 */
export function tierStack(model: Model, index: PolicyIndex, keep?: KeptAnswer): PolicyStack | undefined {
  if (model.clusterPolicies.length === 0) return undefined;
  let s = stacks.get(model);
  if (s) return s;
  // NetworkPolicy's matrices are the analysis's own, shared with its flows (kept.ts keptMatrices).
  s = buildStack(model, index, { netpol: keptMatrices(index, keep) });
  stacks.set(model, s);
  // Only NetworkPolicy and the two tiers: a CNI dialect's layer reads inputs the keys do not name.
  if (!keep || s.layers.length !== 3) return s;
  const last = keep.stack;
  const world = tierWorldKey(model, index);
  const key = tierInputsKey(model, index, world);
  const rows = rowInputsOf(index);
  if (last?.key === key) s.matrices = last.matrices;
  else if (last?.world === world) {
    const kept = keptRows(last.rows, rows);
    if (kept) s.prior = { matrices: last.matrices, ...kept };
  }
  keep.stack = { key, world, rows, matrices: s.matrices };
  return s;
}

/**
 * The analysis's decider (decide/): over the analysis's class index, with the
 * model's tier stack (its matrices taken from `keep`'s where they hold) when the stack decides.
 */
export function analysisDecider(model: Model, index: PolicyIndex, keep?: KeptAnswer): Decider {
  const stack = enforcementOf(model).kind === "stack" ? tierStack(model, index, keep) : undefined;
  return deciderOf(model, stack ? { index, stack } : { index });
}

/** The cause of a layer's step as the graph names it (none when no layer decided). */
export function stepRefs(s: LayerStep | undefined): RefView[] {
  const c = s?.cause;
  if (!c) return [];
  const r: RefView = { kind: c.kind, name: c.name, line: c.line };
  if (c.namespace) r.namespace = c.namespace;
  return [r];
}

export function tierOf(s: LayerStep | undefined): "Admin" | "Baseline" | undefined {
  return s?.layer === "AdminNetworkPolicy"
    ? "Admin"
    : s?.layer === "BaselineAdminNetworkPolicy"
      ? "Baseline"
      : undefined;
}

/** What the senders of one NetworkPolicy class do toward one destination class, by the stack's rows. */
interface ClassTally {
  /** Pod-network senders admitted, over the classes other than the destination's. */
  allowed: number;
  /** The first refused and the first admitted of those senders (positions in sender order, -1: none). */
  refused: number;
  admitted: number;
}

/**
 * Judges senders toward endpoints under the stack, for the graph's endpoint
 * flows: every sender toward one pod port, with the verdict `explainStackPair`
 * gives each pair, but counted by class. A pod-network sender is decided by its
 * class's row (`stackPairAllowed`), so the senders are tallied once per
 * destination class and port; the destination itself and host-network senders
 * (NetworkPolicy admits a pod's own node, which a layer above may overrule)
 * are judged one by one. The reason and the tier come from the exact walk of
 * one pair: the first refused sender, else the first admitted one.
 */
export function tierFlowJudge(
  stack: PolicyStack,
  senders: readonly Pod[],
): (dst: Pod, port: number, protocol: Protocol) => TierFlowSummary {
  const index = stack.index!;
  const n = index.classes.length;
  const from = senders.filter((p) => p.ips.length > 0);
  // Per class: its pod-network senders' count and first two positions; host-network senders apart.
  const count = new Int32Array(n);
  const first = new Int32Array(n).fill(-1);
  const second = new Int32Array(n).fill(-1);
  // Host-network senders by class (positions ascending), and those of each node: NetworkPolicy admits a pod's
  // own node, so only the few on the destination's node are judged pair by pair; the others by their class's
  // row, once per class (at L a DaemonSet's 100 host pods were a million pair walks an analysis).
  const hostByClass = new Map<number, number[]>();
  const hostOnNode = new Map<string, number[]>();
  from.forEach((p, i) => {
    if (p.hostNetwork) {
      const c = index.classOf[p.index]!;
      const list = hostByClass.get(c);
      if (list) list.push(i);
      else hostByClass.set(c, [i]);
      if (p.nodeName) {
        const near = hostOnNode.get(p.nodeName);
        if (near) near.push(i);
        else hostOnNode.set(p.nodeName, [i]);
      }
      return;
    }
    const c = index.classOf[p.index]!;
    const k = ++count[c]!;
    if (k === 1) first[c] = i;
    else if (k === 2) second[c] = i;
  });
  const classes = [...count.keys()].filter((c) => count[c]! > 0);
  // The sender classes by their first sender's position: the first refused one is the first of these not admitted.
  const byFirst = [...classes].sort((a, b) => first[a]! - first[b]!);
  const admittedMark = new Uint8Array(n);
  const tallies = new Map<string, ClassTally>();
  const min = (a: number, b: number) => (a < 0 ? b : b < 0 ? a : Math.min(a, b));

  const posOf = new Map(from.map((p, i) => [p, i]));
  const steps = new Map<string, { layer: PolicyLayer | undefined; direction: Direction }>();

  return (dst, port, protocol) => {
    const mk = `${port}/${protocol}`;
    const sm = stackMatrix(stack, port, protocol);
    const b = index.classOf[dst.index]!;
    const tk = `${mk}/${b}`;
    let t = tallies.get(tk);
    if (!t) {
      t = { allowed: 0, refused: -1, admitted: -1 };
      const row = sm.ingressFrom[b]!;
      if (row === null) {
        for (const a of classes) {
          if (a === b) continue;
          if (classAllowed(sm, a, b)) {
            t.allowed += count[a]!;
            t.admitted = min(t.admitted, first[a]!);
          } else t.refused = min(t.refused, first[a]!);
        }
      } else {
        // An isolated destination admits only its row's classes: those are visited, not every sender class
        // (at L most rows are a few classes of 2,811), and the first refused sender is found in byFirst.
        const admittedNow: number[] = [];
        const tally = t;
        row.forEach((a) => {
          if (a === b || count[a]! === 0 || !classAllowed(sm, a, b)) return;
          tally.allowed += count[a]!;
          tally.admitted = min(tally.admitted, first[a]!);
          admittedMark[a] = 1;
          admittedNow.push(a);
        });
        for (const a of byFirst)
          if (a !== b && admittedMark[a] === 0) {
            t.refused = first[a]!;
            break;
          }
        for (const a of admittedNow) admittedMark[a] = 0;
      }
      tallies.set(tk, t);
    }
    let { allowed, refused, admitted } = t;
    const at = posOf.get(dst) ?? -1;
    // The destination's own class: its pod-network senders but the destination itself, by the class's row to itself.
    const dstCounted = at >= 0 && !dst.hostNetwork ? 1 : 0;
    if (count[b]! - dstCounted > 0) {
      const one = first[b] === at ? second[b]! : first[b]!;
      if (classAllowed(sm, b, b)) {
        allowed += count[b]! - dstCounted;
        admitted = min(admitted, one);
      } else refused = min(refused, one);
    }
    // Host-network senders elsewhere than the destination's node: their class's row (stackPairAllowed's answer
    // for a sender on another node); those on its node, pair by pair.
    const near = dst.nodeName ? hostOnNode.get(dst.nodeName) : undefined;
    for (const [a, list] of hostByClass) {
      // Less those on the destination's node, and the destination itself when it is one of them elsewhere.
      let n = list.length;
      if (near) for (const i of near) if (index.classOf[from[i]!.index] === a) n--;
      if (dst.hostNetwork && !dst.nodeName && index.classOf[dst.index] === a && posOf.has(dst)) n--;
      if (n === 0) continue;
      let one = -1;
      for (const i of list)
        if (decidedByClassRow(from[i]!, dst)) {
          one = i;
          break;
        }
      if (classAllowed(sm, a, b)) {
        allowed += n;
        admitted = min(admitted, one);
      } else refused = min(refused, one);
    }
    for (const i of near ?? []) {
      const src = from[i]!;
      if (src === dst) continue;
      if (stackPairAllowed(stack, sm, src, dst)) {
        allowed++;
        admitted = min(admitted, i);
      } else refused = min(refused, i);
    }
    const total = from.length - (at >= 0 ? 1 : 0);
    // The reason: one pair walked exactly, the first refused sender, else the first admitted one.
    const pod = from[refused] ?? from[admitted];
    const step = pod && stepOf(pod, dst, port, protocol, refused >= 0);
    return summarize(allowed, total, pod && { pod, step, refused: refused >= 0 });
  };

  /**
   * The deciding step of one pair. Which layer decides a pod-network sender's
   * pair, and in which direction, is its class pair's (the rows were built
   * over classes), so the whole walk is kept per sender, destination class
   * and port; another destination of the class asks that one layer again, for
   * its own step (a NetworkPolicy's Deny names the pod it isolates).
   */
  function stepOf(src: Pod, dst: Pod, port: number, protocol: Protocol, refused: boolean) {
    const key = src.hostNetwork
      ? undefined
      : `${src.index}|${index.classOf[dst.index]}|${port}/${protocol}|${refused ? "r" : "a"}`;
    const hit = key === undefined ? undefined : steps.get(key);
    if (hit) {
      const { layer, direction } = hit;
      return layer?.decide({
        model: stack.model,
        direction,
        self: direction === "ingress" ? dst : src,
        other:
          direction === "ingress" ? { ip: src.ips[0] ?? "", pod: src } : { ip: dst.ips[0] ?? "", pod: dst },
        port,
        protocol,
        dst,
        hairpin: false,
      });
    }
    const d = explainStackPair(stack, src, dst, port, protocol);
    const decided = refused
      ? d.egress.allowed
        ? d.ingress
        : d.egress
      : d.ingress.decidedBy
        ? d.ingress
        : d.egress;
    const layer = stack.layers.find((l) => l.layer === decided.decidedBy?.layer);
    if (key !== undefined) steps.set(key, { layer, direction: decided.direction });
    return decided.decidedBy;
  }
}

/** The flow's verdict from the counts, and its reason from the step of one pair (the first refused sender, else the first admitted). */
function summarize(
  allowed: number,
  n: number,
  pair: { pod: Pod; step: LayerStep | undefined; refused: boolean } | undefined,
): TierFlowSummary {
  const refused = pair?.refused ? pair : undefined;
  const admitted = pair && !pair.refused ? pair : undefined;
  const verdict: Verdict = n === 0 || allowed === n ? "allow" : allowed === 0 ? "drop" : "partial";
  const base = refused ?? admitted;
  const words = (s: LayerStep | undefined) => (s ? `${s.label}: ${s.reason}` : "no policy decides: allowed");
  const out: TierFlowSummary = {
    verdict,
    reason: refused
      ? `${refused.pod.key}: ${words(refused.step)}${allowed ? admittedSenders(allowed) : ""}`
      : admitted
        ? words(admitted.step)
        : "no sender",
    decidedBy: stepRefs(base?.step),
  };
  if (base) out.client = base.pod;
  const tier = tierOf(base?.step);
  if (tier) out.tier = tier;
  return out;
}
