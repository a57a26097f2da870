/**
 * The tier steps of exact stack walks, kept from one analysis to the next.
 *
 * Under the cluster tiers, each admitted workload flow names the tier rule
 * that decided it (workloadFlows.ts `stackWhy`): the exact walk of one pair
 * through every layer (policy/index.ts explainStackPair). A pair the class
 * matrix answers depends on the two classes alone, so an analysis walks each
 * class pair once; at 10,000 pods that is still 20,000 walks, about 100 ms and
 * much of an analysis's garbage (a walk words every NetworkPolicy it reads). An
 * edit changes few classes: a walk between classes whose keys
 * (inputKeys.ts `tierWalkKeys`: what the class is, and the NetworkPolicies
 * that select it) an earlier analysis had, in the same world around them,
 * gives the step it gave then, so it is not walked again; a NetworkPolicy edit
 * walks again the pairs of the classes it selects. A step
 * whose policy's doc only moved (an edit above it added or removed lines) is
 * moved with it: its cause names the policy's new doc and line.
 *
 * Only tier steps are kept (a flow's words read no other); a walk that no tier
 * decided is kept as undefined.
 */
import type { Model } from "../model/types.ts";
import type { PolicyIndex } from "../netpol/index.ts";
import type { LayerStep } from "../policy/index.ts";
import type { ClusterPolicy } from "../tiers/types.ts";
import { tierWalkKeys } from "./inputKeys.ts";

/** `WalkSteps.step`'s answer for a walk not kept. */
export const NOT_KEPT: unique symbol = Symbol("not kept");

/** A kept step and the first line of its policy's doc when it was walked. */
interface Entry {
  step: LayerStep | undefined;
  from: number;
}

/** One analysis's view of the kept walks. */
export class WalkSteps {
  constructor(
    /** Per class of the analysis's index, the id its walk keys use (equal class keys, equal ids). */
    readonly ids: Int32Array,
    private readonly entries: Map<string, Entry>,
    private readonly policies: ReadonlyMap<string, ClusterPolicy>,
  ) {}

  /** The step kept under `key` (placed where its policy stands now), or NOT_KEPT. */
  step(key: string): LayerStep | undefined | typeof NOT_KEPT {
    const e = this.entries.get(key);
    if (!e) return NOT_KEPT;
    const cause = e.step?.cause;
    if (!cause) return e.step;
    const p = this.policies.get(`${cause.kind}/${cause.name}`);
    // The world is the same, so the policy is there; anything else is walked again.
    if (!p) return NOT_KEPT;
    const at = p.source;
    if (at.line === e.from && at.doc === cause.doc && at.file === cause.file) return e.step;
    e.step = {
      ...e.step!,
      cause: { ...cause, file: at.file, doc: at.doc, line: cause.line + at.line - e.from },
    };
    e.from = at.line;
    return e.step;
  }

  /** The walks this analysis took (each kept for the next). */
  walked = 0;

  keep(key: string, step: LayerStep | undefined): void {
    this.walked++;
    const cause = step?.cause;
    const from = cause ? this.policies.get(`${cause.kind}/${cause.name}`)?.source.line : 0;
    // A step whose policy is not among the model's (none is expected) is not kept.
    if (from !== undefined) this.entries.set(key, { step, from });
  }
}

/**
 * Walks (and class ids) kept at most; past it the memo starts afresh. At 10,000 pods an analysis walks about 20,000
 * pairs and a label or policy edit 2,000 to 5,000 more, so a long session of edits stays under it, in tens of MB.
 */
const MOST = 250_000;

export class TierWalks {
  private world: string | undefined;
  /** Class ids by what a walk reads of the class: its key and the NetworkPolicies that select it. */
  private readonly ids = new Map<string, number>();
  /** Short ids of those policies, by what a walk reads of each (inputKeys.ts policyKey). */
  private readonly policyIds = new Map<string, number>();
  private readonly entries = new Map<string, Entry>();
  /** The last analysis's view (how many walks it took: `walked`). */
  last: WalkSteps | undefined;

  /** The kept walks for an analysis of this model and index: all of them while the world is the same, else none. */
  open(model: Model, index: PolicyIndex): WalkSteps {
    const { world, classes, selecting } = tierWalkKeys(model, index);
    if (world !== this.world || this.entries.size > MOST || this.ids.size > MOST) {
      this.world = world;
      this.ids.clear();
      this.policyIds.clear();
      this.entries.clear();
    }
    const listed = (keys: readonly string[]) => {
      let out = "";
      for (const k of keys) {
        let id = this.policyIds.get(k);
        if (id === undefined) this.policyIds.set(k, (id = this.policyIds.size));
        out += `${id},`;
      }
      return out;
    };
    const ids = new Int32Array(classes.length);
    for (let c = 0; c < classes.length; c++) {
      const key = `${classes[c]}\u0004${listed(selecting.ingress[c]!)}\u0004${listed(selecting.egress[c]!)}`;
      let id = this.ids.get(key);
      if (id === undefined) this.ids.set(key, (id = this.ids.size));
      ids[c] = id;
    }
    this.last = new WalkSteps(ids, this.entries, policiesByKey(model));
    return this.last;
  }
}

/**
 * Walks kept for one analysis alone (no KeptAnswer, or a CNI dialect's layer in the stack, whose inputs the
 * walk keys do not name): classes keyed by their index.
 */
export function analysisWalks(model: Model, index: PolicyIndex): WalkSteps {
  return new WalkSteps(
    Int32Array.from(index.classes, (_, c) => c),
    new Map(),
    policiesByKey(model),
  );
}

const policiesByKey = (model: Model) => new Map(model.clusterPolicies.map((p) => [p.key, p]));
