/**
 * The one decider: whether a connection between two pods is allowed, and
 * what decided it, for every surface that asks (ktl reach, connlist, diff,
 * test, trace's choice of path, the playground's flows, matrix and what-if
 * marks). It chooses, once per model, what enforces policy in this cluster
 * (`enforcementOf`), and answers both exactly (one pair) and per class (a
 * matrix, a summary) with every special rule in one place:
 *
 * - the cluster profile: flannel enforces no policy of any kind (flannel's
 *   README: it "does not implement NetworkPolicy"), so everything is allowed
 *   and the policies of the input are named as not enforced;
 * - a CNI dialect in the input (CiliumNetworkPolicy, Calico's v3 policies):
 *   that CNI judges every pod, NetworkPolicy inside it and the cluster tiers
 *   around it (cni/stack.ts), over its own classes (`cniClassMatrix`);
 * - otherwise the policy stack (policy/): Admin tier -> NetworkPolicy ->
 *   Baseline tier over NetworkPolicy's classes, with NetworkPolicy's own
 *   rules that classes cannot see (a pod's traffic to itself, a host-network
 *   sender to a pod on its node) applied by `stackPairAllowed`.
 *
 * A new policy layer plugs in at one place: a `PolicyLayer` in
 * `policy/index.ts` LAYER_FACTORIES (NetworkPolicy-shaped stacks), or a new
 * `Enforcement` here when it replaces NetworkPolicy's evaluation (a CNI).
 */
import type { Model, Pod, Protocol } from "../model/types.ts";
import { GENERIC, describeProfile } from "../cni/profile.ts";
import {
  cniClasses,
  cniClassMatrix,
  cniName,
  cniPodMatrix,
  explainCniDirection,
  hasCniPolicies,
  peerOf,
  type CniClassMatrix,
  type CniPolicies,
  type CniVerdict,
} from "../cni/index.ts";
import { classAllowed, policyIndexOf, type PolicyIndex, type ReachSummary } from "../netpol/index.ts";
import {
  buildStack,
  explainStackEgress,
  explainStackIngress,
  explainStackPair,
  stackMatrix,
  stackPairAllowed,
  stackPodMatrix,
  stackReachSummary,
  type DirectionDecision,
  type LayerName,
  type PolicyStack,
  type StackMatrix,
  type StackPeer,
} from "../policy/index.ts";
import { cniReasons, stackReasons, type DirectionReasons } from "./reasons.ts";

export type { DirectionReasons, Reason, ReasonEffect } from "./reasons.ts";

/** What enforces policy in the modelled cluster. */
export type Enforcement =
  /** Nothing: the profile's CNI enforces no policy (flannel). */
  | { kind: "none"; why: string }
  /** NetworkPolicy with the cluster tiers around it (policy/stack.ts). */
  | { kind: "stack" }
  /** A CNI dialect of the input, NetworkPolicy inside it, the tiers around it (cni/). */
  | { kind: "cni"; cni: CniPolicies };

/**
 * The only place that chooses among the paths. flannel first: under it
 * nothing is enforced whatever the input holds; then a CNI dialect's objects;
 * else the policy stack.
 */
export function enforcementOf(model: Model): Enforcement {
  const profile = model.profile ?? GENERIC;
  if (profile.cni === "flannel") {
    const n = model.policies.length + model.clusterPolicies.length;
    return {
      kind: "none",
      why: `the cluster runs ${describeProfile(profile)}, which enforces no NetworkPolicy${n ? `: the ${n} ${n === 1 ? "policy" : "policies"} of the input change nothing` : ""}`,
    };
  }
  if (hasCniPolicies(model.cni)) return { kind: "cni", cni: model.cni };
  return { kind: "stack" };
}

/** The object and rule that decided a connection (absent when no policy decided: the default allows). */
export interface DecidedBy {
  layer: LayerName | CniVerdict["layer"];
  kind?: string;
  namespace?: string;
  name?: string;
  rule?: string;
  line?: number;
}

export interface PairDecision {
  allowed: boolean;
  /** The direction that refused (the first of egress, ingress), or the one that admitted by a rule. */
  direction?: "egress" | "ingress";
  decidedBy?: DecidedBy;
  /** In words, as the trace would say it. */
  reason: string;
}

/** One port and protocol, every pod pair: class rows plus the rules classes cannot see. */
export interface DecisionMatrix {
  port: number;
  protocol: Protocol;
  /** Class a to class b (the decider's classes), for pod-network pods of different classes or of one class but distinct pods. */
  classAllowed(a: number, b: number): boolean;
  /** One pod pair, with every special rule (a pod to itself, a host-network sender on its node). */
  allowed(src: Pod, dst: Pod): boolean;
  podMatrix(): boolean[][];
  summary(): ReachSummary;
  /** The stack's class matrix, under `stack` enforcement (its ingress rows prefilter senders). */
  stack?: StackMatrix;
}

export interface Decider {
  model: Model;
  /** NetworkPolicy's classes (the stack's; also the flows' grouping of senders). */
  index: PolicyIndex;
  /**
   * The decider's own classes, the same for every port: pods of one class get
   * the same answer toward any peer (NetworkPolicy's classes under the stack,
   * the CNI's under a dialect, one class when nothing is enforced).
   */
  classes: readonly (readonly Pod[])[];
  classOf: ArrayLike<number>;
  enforcement: Enforcement;
  /** Under `stack` enforcement. */
  stack?: PolicyStack;
  /** "NetworkPolicy", "the cluster tiers and NetworkPolicy", "Cilium, with the NetworkPolicies inside it", ... */
  judgedBy: string;
  matrix(port: number, protocol: Protocol): DecisionMatrix;
  /** One connection, exactly, with its cause. */
  explain(src: Pod, dst: Pod, port: number, protocol: Protocol): PairDecision;
  /** Ingress at a pod from any peer (a pod or an address): only the destination's side. */
  ingress(dst: Pod, peer: StackPeer, port: number, protocol: Protocol): boolean;
  /** Egress at a pod to any peer: only the source's side. */
  egress(src: Pod, peer: StackPeer, port: number, protocol: Protocol): boolean;
  /**
   * One side (`self`'s ingress or egress toward `peer`) with every object that
   * took part, not only the deciding one (reasons.ts): for `connlist --explain`.
   */
  reasons(
    self: Pod,
    peer: StackPeer,
    direction: "ingress" | "egress",
    port: number,
    protocol: Protocol,
  ): DirectionReasons;
}

export interface DeciderOptions {
  /** NetworkPolicy's class index, when the caller built it already. */
  index?: PolicyIndex;
  /** The policy stack, when the caller keeps one (analysis/tiers.ts reuses matrices across analyses). */
  stack?: PolicyStack;
}

/**
 * Which senders the graph may draw as one edge (one source group, traced
 * from its first pod): pods of one NetworkPolicy class (its matrices are read
 * per group) and, under a CNI dialect, of one class of the decider's own,
 * which also tells apart service accounts and every label. Under the stack
 * the two are the same classes, and no decider is built here (the analysis
 * builds its own, with the stack whose matrices it keeps: analysis/tiers.ts).
 */
export function senderClassOf(model: Model, index: PolicyIndex): (pod: Pod) => string {
  const net = index.classOf;
  if (enforcementOf(model).kind !== "cni") return (p) => String(net[p.index]);
  const own = deciderOf(model, { index }).classOf;
  return (p) => `${net[p.index]}/${own[p.index]}`;
}

const cache = new WeakMap<Model, Decider>();

/** The model's decider, built once per model. */
export function deciderOf(model: Model, options: DeciderOptions = {}): Decider {
  let d = cache.get(model);
  // A caller with its own class index gets a decider over that index (classOf must be the caller's).
  if (!d || (options.index && d.index !== options.index))
    cache.set(model, (d = buildDecider(model, options)));
  return d;
}

function buildDecider(model: Model, options: DeciderOptions): Decider {
  const index = options.index ?? options.stack?.index ?? policyIndexOf(model);
  const enforcement = enforcementOf(model);
  if (enforcement.kind === "none") return noneDecider(model, index, enforcement.why);
  if (enforcement.kind === "cni") return cniDecider(model, index, enforcement.cni);
  return stackDecider(model, index, options.stack ?? buildStack(model, index));
}

function memo<T>(build: (port: number, protocol: Protocol) => T): (port: number, protocol: Protocol) => T {
  const m = new Map<string, T>();
  return (port, protocol) => {
    const k = `${port}/${protocol}`;
    let v = m.get(k);
    if (v === undefined) m.set(k, (v = build(port, protocol)));
    return v;
  };
}

function noneDecider(model: Model, index: PolicyIndex, why: string): Decider {
  const n = model.pods.length;
  const matrix = memo((port, protocol): DecisionMatrix => ({
    port,
    protocol,
    classAllowed: () => true,
    allowed: () => true,
    podMatrix: () => model.pods.map(() => new Array<boolean>(n).fill(true)),
    summary: () => ({
      port,
      protocol,
      pods: n,
      allowedPairs: n * n,
      isolatedIngress: 0,
      isolatedEgress: 0,
      classes: n > 0 ? 1 : 0,
    }),
  }));
  return {
    model,
    index,
    classes: n > 0 ? [model.pods] : [],
    classOf: new Int32Array(n),
    enforcement: { kind: "none", why },
    judgedBy: "nothing (the CNI enforces no policy)",
    matrix,
    explain: () => ({ allowed: true, reason: why }),
    ingress: () => true,
    egress: () => true,
    reasons: (_self, _peer, direction) => ({ direction, allowed: true, reasons: [] }),
  };
}

function stackDecider(model: Model, index: PolicyIndex, stack: PolicyStack): Decider {
  const matrix = memo((port, protocol): DecisionMatrix => {
    const m = stackMatrix(stack, port, protocol);
    return {
      port,
      protocol,
      classAllowed: (a, b) => classAllowed(m, a, b),
      allowed: (src, dst) => stackPairAllowed(stack, m, src, dst),
      podMatrix: () => stackPodMatrix(stack, m),
      summary: () => stackReachSummary(stack, m),
      stack: m,
    };
  });
  return {
    model,
    index,
    classes: index.classes.map((c) => c.pods),
    classOf: index.classOf,
    enforcement: { kind: "stack" },
    stack,
    judgedBy: stack.layered ? "the cluster tiers and NetworkPolicy" : "NetworkPolicy",
    matrix,
    explain: (src, dst, port, protocol) => stackDecision(explainStackPair(stack, src, dst, port, protocol)),
    ingress: (dst, peer, port, protocol) => explainStackIngress(stack, dst, peer, port, protocol).allowed,
    egress: (src, peer, port, protocol) => explainStackEgress(stack, src, peer, port, protocol).allowed,
    reasons: (self, peer, direction, port, protocol) =>
      stackReasons(stack, direction, self, peer, port, protocol),
  };
}

/** The refusing direction's deciding step, else the admitting one's (ingress first: it is the destination's word). */
function stackDecision(d: {
  allowed: boolean;
  egress: DirectionDecision;
  ingress: DirectionDecision;
}): PairDecision {
  const decided = !d.egress.allowed
    ? d.egress
    : !d.ingress.allowed
      ? d.ingress
      : d.ingress.decidedBy
        ? d.ingress
        : d.egress;
  const step = decided.decidedBy;
  const out: PairDecision = {
    allowed: d.allowed,
    reason: step ? `${step.label}: ${step.reason}` : "no policy decides: allowed",
  };
  if (!step) return out;
  out.direction = decided.direction;
  const by: DecidedBy = { layer: step.layer };
  const c = step.cause;
  if (c) {
    by.kind = c.kind;
    by.name = c.name;
    by.line = c.line;
    if (c.namespace) by.namespace = c.namespace;
    if (c.rule) by.rule = c.rule;
  }
  out.decidedBy = by;
  return out;
}

function cniDecider(model: Model, index: PolicyIndex, cni: CniPolicies): Decider {
  const grouping = cniClasses(model, cni);
  const matrix = memo((port, protocol): DecisionMatrix => {
    const m = cniClassMatrix(model, cni, port, protocol, grouping);
    const ok = (a: number, b: number) => m.allowed[a]![b] === 1;
    return {
      port,
      protocol,
      classAllowed: ok,
      allowed: (src, dst) => ok(m.classOf[src.index]!, m.classOf[dst.index]!),
      podMatrix: () => cniPodMatrix(m),
      summary: () => cniSummary(m, port, protocol),
    };
  });
  const side =
    (direction: "ingress" | "egress") => (self: Pod, peer: StackPeer, port: number, protocol: Protocol) =>
      // A host-network pod is no CNI endpoint: its own side enforces nothing (cniPairAllowed).
      self.hostNetwork ||
      explainCniDirection(model, cni, direction, self, peerOf(model, peer.ip, peer.pod), port, protocol)
        .allowed;
  return {
    model,
    index,
    classes: grouping.classes,
    classOf: grouping.classOf,
    enforcement: { kind: "cni", cni },
    judgedBy: `${cniName(cni)}, with the NetworkPolicies inside it`,
    matrix,
    explain: (src, dst, port, protocol) => cniDecision(model, cni, src, dst, port, protocol),
    ingress: side("ingress"),
    egress: side("egress"),
    reasons: (self, peer, direction, port, protocol) =>
      cniReasons(model, cni, direction, self, peer, port, protocol),
  };
}

function cniSummary(m: CniClassMatrix, port: number, protocol: Protocol): ReachSummary {
  let allowedPairs = 0;
  for (let a = 0; a < m.classes.length; a++)
    for (let b = 0; b < m.classes.length; b++)
      if (m.allowed[a]![b] === 1) allowedPairs += m.classes[a]!.length * m.classes[b]!.length;
  return {
    port,
    protocol,
    pods: m.classOf.length,
    allowedPairs,
    isolatedIngress: m.isolatedIngress,
    isolatedEgress: m.isolatedEgress,
    classes: m.classes.length,
  };
}

/** As cniPairAllowed walks it: egress at a pod-network source, then ingress at a pod-network destination. */
function cniDecision(
  model: Model,
  cni: CniPolicies,
  src: Pod,
  dst: Pod,
  port: number,
  protocol: Protocol,
): PairDecision {
  const verdicts: CniVerdict[] = [];
  if (!src.hostNetwork) {
    const e = explainCniDirection(
      model,
      cni,
      "egress",
      src,
      peerOf(model, dst.ips[0] ?? "", dst),
      port,
      protocol,
    );
    if (!e.allowed) return cniWords(e, false);
    verdicts.push(e);
  }
  if (!dst.hostNetwork) {
    const i = explainCniDirection(
      model,
      cni,
      "ingress",
      dst,
      peerOf(model, src.ips[0] ?? "", src),
      port,
      protocol,
    );
    if (!i.allowed) return cniWords(i, false);
    verdicts.push(i);
  }
  const by = verdicts.reverse().find((v) => v.ref);
  return by ? cniWords(by, true) : { allowed: true, reason: "no policy decides: allowed" };
}

function cniWords(v: CniVerdict, allowed: boolean): PairDecision {
  const out: PairDecision = { allowed, direction: v.direction, reason: v.reason };
  const by: DecidedBy = { layer: v.layer };
  if (v.ref) {
    by.kind = v.ref.kind;
    by.name = v.ref.name;
    by.line = v.ref.line;
    if (v.ref.namespace) by.namespace = v.ref.namespace;
    if (v.ref.rule) by.rule = v.ref.rule;
  }
  out.decidedBy = by;
  return out;
}
