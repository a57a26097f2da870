/**
 * Answer items kept from one analysis to the next.
 *
 * An edit changes a few of an answer's thousands of flows. The playground's
 * worker sends each answer as a delta against the previous one
 * (worker/delta.ts), comparing item by item: at 2,000 pods comparing 20,000
 * workload flows field by field took about 60 ms of each keystroke. A flow
 * that the previous analysis gave with the same fields is returned as that
 * very object, so the delta settles it by identity, and the page keeps it.
 * The comparison here knows the Flow's fields (`FLOW_FIELDS`), which a
 * generic deep comparison does not.
 *
 * Items are never changed once built, so sharing them between analyses is
 * safe. What is kept is the previous analysis's items, in a `KeptAnswer` its
 * owner passes to each analysis (the worker keeps one, beside its
 * YamlPartCache); an analysis without one keeps nothing.
 */
import type { Flow, PodView, RefView } from "./types.ts";
import type { Protocol } from "../model/types.ts";
import type { NetworkPolicy } from "../model/networkpolicy.ts";
import type { LayerStep, PolicyStack } from "../policy/index.ts";
import { ClassMatrices, type PolicyIndex } from "../netpol/index.ts";
import { keptRows, matrixInputsKey, rowInputsOf, type RowInputs } from "./inputKeys.ts";
import { TierWalks } from "./walks.ts";

/** Deep equality of JSON-safe values (undefined-valued keys count as absent). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    // Equal primitives and shared objects are settled here, without a call (most fields of an answer are).
    for (let i = 0; i < a.length; i++) {
      const x: unknown = a[i];
      const y: unknown = b[i];
      if (x !== y && !sameJson(x, y)) return false;
    }
    return true;
  }
  if (Array.isArray(b)) return false;
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  let n = 0;
  for (const k in ra) {
    const x = ra[k];
    if (x === undefined) continue;
    n++;
    const y = rb[k];
    if (x !== y && !sameJson(x, y)) return false;
  }
  for (const k in rb) if (rb[k] !== undefined) n--;
  return n === 0;
}

/**
 * Every field of a Flow, as `sameFlow` compares it: by value, or deeply (the lists). A field added to Flow
 * and not here fails to compile; kept.test.ts changes each field listed here and expects `sameFlow` to see it.
 */
export const FLOW_FIELDS: Record<keyof Flow, "value" | "list"> = {
  id: "value",
  kind: "value",
  from: "list",
  to: "value",
  port: "value",
  protocol: "value",
  portName: "value",
  verdict: "value",
  dropCause: "value",
  reason: "value",
  decidedBy: "list",
  traceTo: "value",
  client: "value",
  l7: "list",
  tier: "value",
  layer: "value",
  weight: "value",
  match: "value",
};

/** Flows with the same fields (written out: a loop over the field names is several times slower per flow). */
export function sameFlow(a: Flow, b: Flow): boolean {
  return (
    a === b ||
    (a.id === b.id &&
      a.kind === b.kind &&
      a.to === b.to &&
      a.port === b.port &&
      a.protocol === b.protocol &&
      a.portName === b.portName &&
      a.verdict === b.verdict &&
      a.dropCause === b.dropCause &&
      a.reason === b.reason &&
      a.traceTo === b.traceTo &&
      a.client === b.client &&
      a.tier === b.tier &&
      a.layer === b.layer &&
      a.weight === b.weight &&
      a.match === b.match &&
      (a.from === b.from || sameJson(a.from, b.from)) &&
      (a.decidedBy === b.decidedBy || sameJson(a.decidedBy, b.decidedBy)) &&
      (a.l7 === b.l7 || sameJson(a.l7, b.l7)))
  );
}

/**
 * Every field of a PodView, as `samePodView` compares it. A field added to PodView and not here fails to
 * compile; kept.test.ts changes each field listed here and expects `samePodView` to see it.
 */
export const POD_VIEW_FIELDS: Record<keyof PodView, true> = {
  id: true,
  namespace: true,
  name: true,
  node: true,
  ips: true,
  ipsSynthesized: true,
  labels: true,
  workload: true,
  ports: true,
  hostNetwork: true,
  ready: true,
  phase: true,
  terminating: true,
  generated: true,
  ref: true,
  isolatedBy: true,
};

/**
 * Pod views with the same fields (written out, as `sameFlow`): an edit rebuilds every pod's view, and the
 * worker's delta compared 10,000 of them deeply on each keystroke at L (30 to 50 ms) to find them unchanged.
 * The isolating policies' references are compared by identity (refs.ts keeps one object per policy and line);
 * a pool cleared in between only makes a pod's view a new one.
 */
export function samePodView(a: PodView, b: PodView): boolean {
  return (
    a === b ||
    (a.id === b.id &&
      a.namespace === b.namespace &&
      a.name === b.name &&
      a.node === b.node &&
      a.ipsSynthesized === b.ipsSynthesized &&
      a.hostNetwork === b.hostNetwork &&
      a.ready === b.ready &&
      a.phase === b.phase &&
      a.terminating === b.terminating &&
      a.generated === b.generated &&
      sameItems(a.ips, b.ips) &&
      (a.labels === b.labels || sameJson(a.labels, b.labels)) &&
      (a.workload === b.workload ||
        (a.workload.id === b.workload.id &&
          a.workload.kind === b.workload.kind &&
          a.workload.name === b.workload.name)) &&
      (a.ports === b.ports || sameJson(a.ports, b.ports)) &&
      (a.ref === b.ref || sameJson(a.ref, b.ref)) &&
      (a.isolatedBy === b.isolatedBy ||
        (sameItems(a.isolatedBy.ingress, b.isolatedBy.ingress) &&
          sameItems(a.isolatedBy.egress, b.isolatedBy.egress))))
  );
}

/**
 * Items of one kind kept from the previous round (an analysis) to the next: `keep` returns the previous
 * round's item with the same id when `equal` holds, else the new one; `round` starts the next round. Most
 * items come in the order they came last time, or shifted with their neighbours (an item added above them):
 * the item at the same place is tried first, then a few places on (items removed above it), and the previous
 * round is indexed by id only for an item that is not there (as worker/delta.ts matches items). An item kept
 * with the inputs it was made from is, next round, taken by `takeSame` without making it again when the
 * inputs are the same.
 *
 * A miss loses only identity, never correctness: the item returned is always equal to the one given.
 */
export class Kept<T extends object, I = never> {
  private previous: T[] = [];
  private current: T[] = [];
  /** What each item of `previous` and `current` was made from (`keep`'s second argument), at its place. */
  private previousInputs: (I | undefined)[] = [];
  private currentInputs: (I | undefined)[] = [];
  private byId: Map<string, number> | undefined;
  private shift = 0;

  constructor(
    private readonly idOf: (x: T) => string,
    private readonly equal: (a: T, b: T) => boolean,
  ) {}

  /** Starts a round: what the last round kept is what this one compares with. */
  round(): void {
    this.previous = this.current;
    this.previousInputs = this.currentInputs;
    this.current = [];
    this.currentInputs = [];
    this.byId = undefined;
    this.shift = 0;
  }

  /**
   * The previous round's item at the next place (after the last shift), as this round's next, when it was made
   * from inputs `same` holds for; else undefined and nothing taken. `inputs` may be a scratch record: it is read,
   * not kept.
   */
  takeSame(inputs: I, same: (a: I, b: I) => boolean): T | undefined {
    const j = this.current.length + this.shift;
    const known = this.previousInputs[j];
    if (known === undefined || !same(known, inputs)) return undefined;
    const before = this.previous[j]!;
    this.current.push(before);
    this.currentInputs.push(known);
    return before;
  }

  /** The place of the previous round's item with this id, looked for near `j` first; -1 when there is none. */
  private find(id: string, j: number): number {
    const prev = this.previous;
    if (j < prev.length && this.idOf(prev[j]!) === id) return j;
    // Items removed above this one: it is a few places on (checked before indexing every item by id).
    for (let k = j + 1; k < prev.length && k <= j + NEAR; k++) if (this.idOf(prev[k]!) === id) return k;
    if (!this.byId) {
      this.byId = new Map();
      for (let k = prev.length - 1; k >= 0; k--) this.byId.set(this.idOf(prev[k]!), k);
    }
    return this.byId.get(id) ?? -1;
  }

  /** This round's next item: the previous round's equal one, else `item`; with `inputs`, what it was made from. */
  keep(item: T, inputs?: I): T {
    const i = this.current.length;
    const j = this.find(this.idOf(item), i + this.shift);
    if (j >= 0) this.shift = j - i;
    const before = j >= 0 ? this.previous[j] : undefined;
    const out = before !== undefined && this.equal(before, item) ? before : item;
    this.current.push(out);
    this.currentInputs.push(inputs);
    return out;
  }
}

/** How many places past the expected one `Kept` looks for an item before indexing the previous round by id. */
const NEAR = 8;

/** Lists of the same items, in order, compared by identity (pod ids, policy objects); two absent lists are the same. */
export function sameItems<T>(a: readonly T[] | undefined, b: readonly T[] | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * What a ready endpoint's flow (flows.ts endpointFlows) is made of when NetworkPolicy alone decides (or
 * nothing enforces): equal inputs make an equal flow, so the kept flow with the inputs of this one is taken
 * without building it. The policy references are compared by identity (refs.ts keeps one object per policy
 * and line).
 */
export interface EndpointInputs {
  service: string;
  pod: string;
  port: number;
  protocol: Protocol;
  name: string | undefined;
  enforcement: string;
  verdict: string;
  reason: string;
  decidedBy: readonly RefView[];
  client: string | undefined;
}

export function sameEndpointInputs(a: EndpointInputs, b: EndpointInputs): boolean {
  return (
    a.service === b.service &&
    a.pod === b.pod &&
    a.port === b.port &&
    a.protocol === b.protocol &&
    a.name === b.name &&
    a.enforcement === b.enforcement &&
    a.verdict === b.verdict &&
    a.reason === b.reason &&
    a.client === b.client &&
    sameItems(a.decidedBy, b.decidedBy)
  );
}

/**
 * What an admitted workload flow is made of (workloadFlows.ts `admittedFlow`): equal inputs make an equal
 * flow, so a kept flow with the inputs of this one is taken without building it. The deciding policies are
 * compared as objects (model/networkpolicy.ts keeps a policy's object while its doc is unchanged), and so is a
 * cluster tier's step (walks.ts keeps a step's object while its walk and its policy's place are the same).
 */
export interface FlowInputs {
  from: readonly string[];
  to: string;
  port: number;
  protocol: Protocol;
  name: string | undefined;
  admitted: number;
  endpoints: number;
  workload: string;
  enforcement: string;
  admitter: string;
  egress: readonly NetworkPolicy[] | undefined;
  ingress: readonly NetworkPolicy[] | undefined;
  /** Under the cluster tiers, the tier step that decided (undefined: none did, or no tier is in the input). */
  step: LayerStep | undefined;
  /** The pod of the pair whose walk gave `step` (its key names it in the words). */
  client: string | undefined;
}

export function sameFlowInputs(a: FlowInputs, b: FlowInputs): boolean {
  return (
    a.from === b.from &&
    a.to === b.to &&
    a.port === b.port &&
    a.protocol === b.protocol &&
    a.name === b.name &&
    a.admitted === b.admitted &&
    a.endpoints === b.endpoints &&
    a.workload === b.workload &&
    a.enforcement === b.enforcement &&
    a.admitter === b.admitter &&
    sameItems(a.egress, b.egress) &&
    sameItems(a.ingress, b.ingress) &&
    a.step === b.step &&
    a.client === b.client
  );
}

/** What one analysis keeps for the next (openAnalysis's `keep` option). */
export class KeptAnswer {
  /** Service-to-endpoint flows (flows.ts endpointFlows). */
  readonly endpointFlows = new Kept<Flow, EndpointInputs>((f) => f.id, sameFlow);
  /** Workload-to-Service flows (workloadFlows.ts). */
  readonly workloadFlows = new Kept<Flow, FlowInputs>((f) => f.id, sameFlow);
  /** The pods' views (views.ts podsOf). */
  readonly pods = new Kept<PodView>((p) => p.id, samePodView);
  /** The source groups' pod id lists, by first pod: a group's flows share one list. */
  readonly groupPods = new Kept<string[]>((l) => l[0]!, sameItems);
  /** The tier steps of stack walks between classes (walks.ts), while the policies around them are the same. */
  readonly tierWalks = new TierWalks();
  /** NetworkPolicy's class matrices and what they read (`keptMatrices`): the next analysis takes rows of them. */
  matrices: { key: string; rows: RowInputs; matrices: ClassMatrices } | undefined;
  /** The policy stack's class matrices and what they read (tiers.ts tierStack). */
  stack: { key: string; world: string; rows: RowInputs; matrices: PolicyStack["matrices"] } | undefined;
}

const matrices = new WeakMap<PolicyIndex, ClassMatrices>();

/**
 * NetworkPolicy's class matrices of this index by `port/protocol`, built once and shared by every reader of the
 * analysis (the endpoint and workload flows, the policy stack's NetworkPolicy layer). With `keep`, those of the
 * previous analysis when classMatrix's inputs are unchanged, else new ones that take the previous rows of the
 * classes whose inputs are (`keptRows`); without, computed afresh.
 */
export function keptMatrices(index: PolicyIndex, keep?: KeptAnswer): ClassMatrices {
  let m = matrices.get(index);
  if (m) return m;
  const last = keep?.matrices;
  const key = keep ? matrixInputsKey(index) : "";
  if (last?.key === key) m = last.matrices;
  else {
    const rows = keep && rowInputsOf(index);
    const kept = last && rows && keptRows(last.rows, rows);
    m = new ClassMatrices(kept ? { matrices: last.matrices.byPort, ...kept } : undefined);
    if (keep) keep.matrices = { key, rows: rows!, matrices: m };
  }
  matrices.set(index, m);
  return m;
}
