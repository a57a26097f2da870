/**
 * The policy stack: an ordered list of layers, each deciding a connection
 * per direction with Accept, Deny, Pass or no decision, and naming the cause.
 *
 *   Admin tier (ClusterNetworkPolicy tier Admin, AdminNetworkPolicy)
 *   -> NetworkPolicy
 *   -> Baseline tier (ClusterNetworkPolicy tier Baseline, BaselineAdminNetworkPolicy)
 *   -> default: allow
 *
 * Per direction, the first layer that Accepts or Denies decides; Pass skips
 * the rest of its own layer and goes on with the next; no decision goes on
 * too. A connection is allowed when egress at the source and ingress at the
 * destination both are (network-policy-api's ClusterNetworkPolicySpec.tier;
 * networking/v1 NetworkPolicy).
 *
 * Both evaluation paths go through the same layers:
 * - `decideStack`: one connection, exactly, every layer's step with its cause;
 * - `stackRow`: a class's row of the class matrix, from each layer's
 *   first-match entries over peer classes (selectors resolved once per layer).
 * Property tests check that the two agree.
 *
 * A new layer (a CNI dialect) implements `PolicyLayer` and is put into the
 * stack by `order` (see CONTEXT.md in this folder).
 */
import type { Model, Pod, Protocol } from "../model/types.ts";
import { Bitset, popcount, setForm, SparseSet, wordsEmpty, type ClassSet } from "../netpol/bitset.ts";
import type { DirectionVerdict } from "../netpol/explain.ts";

export type Direction = "ingress" | "egress";

/** The layer names of the CLI contract's `decidedBy.layer`. */
export type LayerName =
  | "AdminNetworkPolicy"
  | "NetworkPolicy"
  | "BaselineAdminNetworkPolicy"
  | "CiliumNetworkPolicy"
  | "CalicoNetworkPolicy";

export type LayerAction = "Accept" | "Deny" | "Pass";

/** What made a layer's decision: the object, the rule (name and 0-based index) and its YAML line. */
export interface LayerCause {
  layer: LayerName;
  kind: string;
  namespace?: string;
  name: string;
  /** The rule's name where it has one, else `ingress[i]`/`egress[i]`. */
  rule?: string;
  ruleIndex?: number;
  file: string;
  doc: number;
  line: number;
}

/** One layer's answer for one direction of one connection. */
export interface LayerStep {
  layer: LayerName;
  /** Short label for people: "Admin", "NetworkPolicy", "Baseline", ... */
  label: string;
  action: LayerAction | "none";
  cause?: LayerCause;
  reason: string;
  /** NetworkPolicy's layer: its verdict with every selecting policy and every rule that admits (the explanation lists them all). */
  netpol?: DirectionVerdict;
}

/** The other end of a connection as policy sees it: an IP, and the pod behind it if any. */
export interface StackPeer {
  ip: string;
  pod?: Pod | undefined;
}

export interface DirectionQuery {
  model: Model;
  direction: Direction;
  /** The pod whose side is judged: the source for egress, the destination for ingress. */
  self: Pod;
  other: StackPeer;
  port: number;
  protocol: Protocol;
  /** The destination pod (for named ports), when it is a pod. */
  dst: Pod | undefined;
  /** A pod's traffic to its own IP (cluster-scoped tiers do not apply to it). */
  hairpin: boolean;
}

/** A first-match entry over peer classes: `set` null means every class. */
export interface ClassEntry {
  action: LayerAction;
  set: ClassSet | null;
}

/** What a layer needs to build class entries: the classes and the port. */
export interface ClassQuery {
  direction: Direction;
  /** The subject class (the destination for ingress, the source for egress). */
  subject: number;
  port: number;
  protocol: Protocol;
}

export interface PolicyLayer {
  layer: LayerName;
  label: string;
  /** Position in the stack (lower first): Admin 100, NetworkPolicy 200, Baseline 300. */
  order: number;
  /** Exact, for one direction of one connection. */
  decide(q: DirectionQuery): LayerStep;
  /**
   * For one subject class, the layer's first-match entries over peer
   * classes; an empty list when the layer decides nothing for that class.
   * `key` groups subject classes that get the same entries (rows are built
   * once per group); undefined when every class gets none.
   */
  classEntries(q: ClassQuery): { key: string; entries: ClassEntry[] };
}

export interface DirectionDecision {
  direction: Direction;
  allowed: boolean;
  /** Every layer's step, in stack order, up to the deciding one. */
  steps: LayerStep[];
  /** The step that decided (undefined: no layer decided; the default allows). */
  decidedBy?: LayerStep;
}

export function sortLayers(layers: readonly PolicyLayer[]): PolicyLayer[] {
  return [...layers].sort((a, b) => a.order - b.order);
}

/** Walks the stack for one direction: the first Accept or Deny decides; Pass and no decision go on. */
export function decideStack(layers: readonly PolicyLayer[], q: DirectionQuery): DirectionDecision {
  const steps: LayerStep[] = [];
  for (const layer of layers) {
    const step = layer.decide(q);
    steps.push(step);
    if (step.action === "Accept" || step.action === "Deny")
      return { direction: q.direction, allowed: step.action === "Accept", steps, decidedBy: step };
  }
  return { direction: q.direction, allowed: true, steps };
}

// ---------- class rows ----------

interface RowScratch {
  full: Uint32Array;
  undecided: Uint32Array;
  out: Uint32Array;
  live: Uint32Array;
}
let scratch: { n: number; s: RowScratch } | undefined;

function scratchFor(n: number): RowScratch {
  if (scratch?.n !== n) {
    const full = Bitset.full(n).words;
    const words = () => new Uint32Array(full.length);
    scratch = { n, s: { full, undecided: words(), out: words(), live: words() } };
  }
  return scratch.s;
}

/**
 * One class's row (the peers it accepts, null for all) from the layers'
 * entries in stack order, by the walk of `decideStack` done on sets:
 * `undecided` are the peers no layer has decided yet, `live` those that the
 * current layer may still decide (its Pass entries take peers out of `live`
 * but leave them undecided for the next layers).
 */
export function stackRow(n: number, layers: readonly (readonly ClassEntry[])[]): ClassSet | null {
  // Scratch words reused across calls (a stack matrix builds thousands of rows over tens of thousands of classes).
  const { full, undecided, out, live } = scratchFor(n);
  undecided.set(full);
  out.fill(0);
  for (const entries of layers) {
    if (entries.length === 0) continue;
    live.set(undecided);
    for (const e of entries) {
      const accept = e.action === "Accept";
      const decides = e.action !== "Pass";
      const s = e.set;
      if (s instanceof SparseSet) {
        // A few peers (most NetworkPolicy rows of a large cluster): member by member, not word by word.
        const members = s.members;
        for (let k = 0; k < members.length; k++) {
          const m = members[k]!;
          const i = m >>> 5;
          const x = live[i]! & (1 << (m & 31));
          if (x === 0) continue;
          if (accept) out[i]! |= x;
          if (decides) undecided[i]! &= ~x;
          live[i]! &= ~x;
        }
        continue;
      }
      const w = s === null ? undefined : s.words;
      for (let i = 0; i < live.length; i++) {
        const x = w === undefined ? live[i]! : live[i]! & w[i]!;
        if (x === 0) continue;
        if (accept) out[i]! |= x;
        if (decides) undecided[i]! &= ~x;
        live[i]! &= ~x;
      }
    }
    // Every peer decided (a NetworkPolicy that isolates the class ends in Deny of the rest): the layers below see none.
    if (wordsEmpty(undecided)) break;
  }
  let all = true;
  let count = 0;
  for (let i = 0; i < out.length; i++) {
    out[i]! |= undecided[i]!;
    if (out[i] !== full[i]) all = false;
    if (out[i] !== 0) count += popcount(out[i]!);
  }
  if (all) return null;
  // In the smaller form, as the NetworkPolicy matrix's sets are (setForm): most rows of a large stack are a few peers.
  if (count * setForm.sparseFactor <= n) {
    const members = new Int32Array(count);
    let k = 0;
    for (let i = 0; i < out.length; i++)
      for (let w = out[i]!; w !== 0; w &= w - 1) members[k++] = (i << 5) + (31 - Math.clz32(w & -w));
    return new SparseSet(n, members);
  }
  const b = new Bitset(n);
  b.words.set(out);
  return b;
}
