/**
 * The paths lens's edges: every flow the engine judged, merged by the pair of
 * drawn elements its senders and its destination fold into (`mergeFlows`: a
 * run of senders in one element added once with its count, the compact drops
 * and the admitted pairs past the engine's listing limit summed a stretch of
 * groups at a time), then each pair worded as one edge
 * (`edgeOf`: verdict from the mix, the deciding objects, the note, example
 * flows with the rest counted). Pure: edges only merge the flows the engine judged.
 */
import type {
  Analysis,
  DropCause,
  Flow,
  FlowKind,
  ReachRecord,
  ReachView,
  RefView,
  Verdict,
} from "../engine/analysis/index.ts";
import { edgeRefs, type EdgeFlow, type GraphEdge, type GraphOptions } from "./model.ts";
import {
  cniDialectOf,
  dropLayerWord,
  layerPasses,
  noteTag,
  tierTag,
  type EdgeNoteId,
  type Tier,
} from "./verdicts.ts";
import { groupSummer, sameList } from "./segments.ts";
import { portKey, reasonLine } from "./edgeKeys.ts";
import type { Pace, Steps } from "./pace.ts";
/** What the flows merge into: the edges being gathered, and what the boxes and the layout need of them. */
export interface Merged {
  edges: EdgeAcc[];
  /** Per element: endpoint flows of the Services folded into it that refuse some or all callers, and of how many. */
  refusals: Map<string, { refuse: number; of: number; refs: RefView[] }>;
  /** Source element -> target elements that some flow links (the layout's, whatever the filters). */
  links: Map<string, Set<string>>;
  /** Elements that hold a client outside the cluster. */
  externals: Set<string>;
}

export type Mix = { allow: number; drop: number; partial: number };
export const emptyMix = (): Mix => ({ allow: 0, drop: 0, partial: 0 });

/** The first sender of `f` in element `source` (the flow's example caller from that element). */
function firstFrom(f: Flow, source: string, resolve: (id: string) => string | undefined): string {
  for (const x of f.from) if (resolve(x) === source) return x;
  return f.from[0]!;
}

/** An empty merged edge. */
function newEdgeAcc(source: string, target: string, kind: FlowKind): EdgeAcc {
  return {
    source,
    target,
    kind,
    mix: emptyMix(),
    causes: new Set(),
    refs: [],
    dropRefs: [],
    refKeys: new Set(),
    dropRefKeys: new Set(),
    reasons: new Set(),
    ports: new Set(),
    flows: [],
    allowFlows: [],
    unlistedAllowed: 0,
    flowIds: new Set(),
    weights: [],
    l7: new Set(),
    dialect: undefined,
    drops: 0,
    tierDrops: 0,
    tier: undefined,
    layers: new Set(),
    quietDrops: 0,
    unlisted: 0,
  };
}

/** `n` senders of flow `f` added to edge `e`: counts, causes, ports, deciding objects, reasons, examples. */
function addToEdge(
  e: EdgeAcc,
  f: Flow,
  n: number,
  port: string,
  source: string,
  resolve: (id: string) => string | undefined,
): void {
  e.mix[f.verdict] += n;
  if (f.dropCause) e.causes.add(f.dropCause);
  e.ports.add(port);
  if (e.flowIds.has(f.id)) return;
  e.flowIds.add(f.id);
  if (f.verdict !== "allow") {
    e.drops++;
    e.layers.add(dropLayerWord(f));
    if (f.tier) {
      e.tierDrops++;
      e.tier ??= f.tier;
    }
  }
  if (f.weight !== undefined) e.weights.push(f.weight);
  for (const r of f.l7 ?? []) e.l7.add(r);
  if (f.layer) e.dialect ??= f.layer === "CiliumNetworkPolicy" ? "Cilium" : "Calico";
  else e.dialect ??= cniDialectOf(f.decidedBy[0]);
  for (const r of f.decidedBy) {
    const k = refKey(r);
    if (!e.refKeys.has(k)) {
      e.refKeys.add(k);
      e.refs.push(r);
    }
    if (f.verdict !== "allow" && !e.dropRefKeys.has(k)) {
      e.dropRefKeys.add(k);
      e.dropRefs.push(r);
    }
  }
  if (e.reasons.size < 12) e.reasons.add(reasonLine(port, f.reason));
  // Examples, refused ones first: an edge can merge thousands of flows, and its count holds them all.
  const list = f.verdict === "allow" ? e.allowFlows : e.flows;
  if (list.length >= FLOW_EXAMPLES) {
    if (f.verdict === "allow") e.unlistedAllowed++;
    else e.unlisted++;
    return;
  }
  list.push({
    flowId: f.id,
    from: f.client ?? firstFrom(f, source, resolve),
    traceTo: f.traceTo,
    port: f.port,
    protocol: f.protocol,
    verdict: f.verdict,
    reason: f.reason,
  });
}

/** Where the ids of an answer are drawn: `resolve`, and the leaf map it reads (what the run cache is checked against). */
export interface Resolution {
  resolve: (id: string) => string | undefined;
  /** Every pod's, workload's and Service's element; external clients resolve without it. */
  leafOf: ReadonlyMap<string, string>;
}

/** A flow's senders as runs of one element each (in the flow's order), and its destination's element. */
interface FlowRuns {
  target: string;
  runs: { source: string; n: number; external: boolean }[];
}

/**
 * Each flow's runs, kept by the flow while every id is drawn where it was: an edit's answer keeps unchanged flows
 * as the very objects the page held (worker/delta.ts), so an edit that leaves the folds alone reads only the
 * changed flows' senders again (at 2,000 pods, 24,000 flows and 340,000 senders: most of the graph's mapping in
 * Chromium's profile of the bench's edits). A fold that moves any id starts the cache afresh.
 */
let runCache: { leafOf: ReadonlyMap<string, string>; runs: WeakMap<Flow, FlowRuns | null> } | undefined;

function sameLeaves(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  if (a === b) return true;
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (b.get(k) !== v) return false;
  return true;
}

function senderRuns({ resolve, leafOf }: Resolution): (f: Flow) => FlowRuns | null {
  // A copy: the cache is checked against the leaves it was filled under, whatever becomes of the caller's map.
  if (!runCache || !sameLeaves(runCache.leafOf, leafOf))
    runCache = { leafOf: new Map(leafOf), runs: new WeakMap() };
  const cache = runCache.runs;
  return (f) => {
    let known = cache.get(f);
    if (known !== undefined) return known;
    known = null;
    const target = resolve(f.to);
    if (target) {
      known = { target, runs: [] };
      // A flow's senders mostly share one element: each run of senders in one element is added once, with its count.
      let source: string | undefined;
      let n = 0;
      let external = false;
      const from0 = f.from;
      for (let i = 0; i <= from0.length; i++) {
        const from = from0[i];
        const next = from === undefined ? undefined : resolve(from);
        if (from !== undefined) {
          if (!next) continue;
          // Pods that call a member of their own element (a folded namespace's workloads) other than the destination.
          if (next === target && from === f.to && f.kind !== "endpoint") continue;
          if (next === source) {
            n++;
            continue;
          }
        }
        if (source !== undefined && n > 0) known.runs.push({ source, n, external });
        source = next;
        n = 1;
        external = from !== undefined && from.startsWith("external:");
      }
    }
    cache.set(f, known);
    return known;
  };
}

/** Thrown by `mergeFlows` past its limit of element pairs: the picture asked for has more edges than it may draw. */
export class TooManyEdges extends Error {
  constructor(readonly limit: number) {
    super(`more than ${limit} edges`);
  }
}

/**
 * Every flow (and compact drop) merged by the pair of drawn elements its senders and destination resolve to.
 * Past `limit` pairs it stops, throwing TooManyEdges: an element level chosen by hand at 10,000 pods paired
 * every workload with every other (millions of pairs, more memory than a tab has).
 */
export function* mergeFlows(
  a: Analysis,
  resolution: Resolution,
  filters: GraphOptions["filters"],
  pace: Pace,
  limit = Infinity,
): Steps<Merged> {
  const resolve = resolution.resolve;
  // Edges: every flow merged by (source element, destination element); links (for the layout) ignore the filters.
  // By source element, then target element: no key string made per merged flow.
  const acc = new Map<string, Map<string, EdgeAcc>>();
  /** Per element: endpoint flows of the Services folded into it that refuse some or all callers, and of how many. */
  const refusals = new Map<string, { refuse: number; of: number; refs: RefView[] }>();
  const links = new Map<string, Set<string>>();
  const externals = new Set<string>();
  const seen = (list: RefView[], r: RefView) =>
    list.some((x) => x.kind === r.kind && x.name === r.name && x.namespace === r.namespace);
  let pairs = 0;
  const accOf = (source: string, target: string, kind: FlowKind): EdgeAcc => {
    let from = acc.get(source);
    if (!from) acc.set(source, (from = new Map()));
    let e = from.get(target);
    if (!e) {
      if (++pairs > limit) throw new TooManyEdges(limit);
      e = newEdgeAcc(source, target, kind);
      from.set(target, e);
    }
    return e;
  };
  const flowLists = a.reach ? [a.flows, a.reach.flows] : [a.flows];
  const runsOf = senderRuns(resolution);
  if (pace.over()) yield;
  for (const list of flowLists)
    for (const f of list) {
      if (pace.due()) yield;
      const r = runsOf(f);
      if (!r) continue;
      const port = portKey(f.port, f.protocol);
      const chosen = (filters.port === "all" || port === filters.port) && layerPasses(filters.layer, f);
      const passes = chosen && !(filters.onlyDrops && f.verdict === "allow");
      for (const run of r.runs) {
        if (run.external) externals.add(run.source);
        addRun(f, run.source, r.target, run.n, port, chosen, passes);
      }
    }
  /** `n` senders of flow `f` in element `source`, to element `target`. */
  function addRun(
    f: Flow,
    source: string,
    target: string,
    n: number,
    port: string,
    chosen: boolean,
    passes: boolean,
  ) {
    if (source === target) {
      // A Service's flows to its own endpoints inside one element: their callers are anywhere, so the element keeps a count, not a loop.
      if (f.kind === "endpoint") {
        if (!chosen) return;
        let r = refusals.get(target);
        if (!r) refusals.set(target, (r = { refuse: 0, of: 0, refs: [] }));
        r.of += n;
        if (f.verdict !== "allow") {
          r.refuse += n;
          for (const ref of f.decidedBy) if (r.refs.length < 6 && !seen(r.refs, ref)) r.refs.push(ref);
        }
        return;
      }
    } else {
      let to = links.get(source);
      if (!to) links.set(source, (to = new Set()));
      to.add(target);
    }
    if (!passes) return;
    addToEdge(accOf(source, target, f.kind), f, n, port, source, resolve);
  }
  const reach = a.reach;
  if (reach && (reach.drops?.length || reach.allowed?.length)) {
    if (pace.over()) yield;
    const inputs = { a, reach, parts: compactParts(a, reach, resolve), resolve, filters, accOf };
    if (pace.over()) yield;
    if (reach.drops?.length) yield* addReachDrops(inputs, pace);
    if (reach.allowed?.length) addReachAllowed(inputs, links);
  }
  return { edges: [...acc.values()].flatMap((m) => [...m.values()]), refusals, links, externals };
}

/** One merged edge as drawn; undefined for an element's own members that all reach each other (no loop to draw). */
export function edgeOf(e: EdgeAcc): GraphEdge | undefined {
  const kinds = (["allow", "drop", "partial"] as const).filter((v) => e.mix[v] > 0);
  const verdict: Verdict = kinds.length === 1 ? kinds[0]! : "partial";
  if (e.source === e.target && verdict === "allow") return undefined;
  const { refs, label: byRef } = edgeRefs(verdict, e);
  // A note words what the verdict alone does not say (verdicts.ts NOTES).
  const note: EdgeNoteId | undefined =
    e.kind === "route" && e.weights.length
      ? "weight"
      : e.dialect && verdict !== "allow"
        ? "cni"
        : e.l7.size && verdict !== "drop"
          ? "l7"
          : undefined;
  const tag = note
    ? noteTag(note, { weights: e.weights, dialect: e.dialect, l7: [...e.l7], verdict })
    : undefined;
  // A route's label is its share (its HTTPRoute is in the tooltip), unless a lower layer dropped some of it.
  // A drop by a cluster tier names the tier (the category's colour, dash and glyph are not alone): "Admin ✕ · guard".
  const tierLabel = e.tier && verdict !== "allow" && note !== "cni" ? `${tierTag(e.tier)} · ${byRef}` : byRef;
  const label = note === "weight" && verdict === "allow" ? tag! : tag ? `${tag} · ${tierLabel}` : tierLabel;
  const count = e.mix.allow + e.mix.drop + e.mix.partial;
  const edge: GraphEdge = {
    id: `e:${e.source}->${e.target}`,
    source: e.source,
    target: e.target,
    kind: e.kind,
    verdict,
    label,
    title: [...e.reasons].join("\n"),
    decidedBy: refs,
    flows: listedFlows(e),
    count,
    mix: e.mix,
    ports: [...e.ports].sort(),
  };
  if (note) edge.note = note;
  if (e.layers.size) edge.layers = [...e.layers].sort();
  if (verdict !== "allow") {
    const cause: DropCause | undefined = e.causes.has("policy")
      ? "policy"
      : e.causes.has("traffic-policy")
        ? "traffic-policy"
        : undefined;
    if (cause) edge.dropCause = cause;
    if (e.tier && e.tierDrops === e.drops) edge.tier = e.tier;
    if (verdict === "drop" && e.quietDrops > 0 && e.quietDrops === e.drops) edge.quiet = true;
  }
  const unlisted =
    e.unlisted + e.unlistedAllowed + Math.max(0, e.flows.length + e.allowFlows.length - FLOW_EXAMPLES);
  if (unlisted) {
    edge.unlistedFlows = unlisted;
    if (e.unlisted) edge.unlistedDrops = e.unlisted;
  }
  return edge;
}

/** An edge being gathered: every flow between one pair of drawn elements. */
export interface EdgeAcc {
  source: string;
  target: string;
  kind: FlowKind;
  mix: Mix;
  causes: Set<DropCause>;
  refs: RefView[];
  dropRefs: RefView[];
  /** `refKey` of each of `refs` and of `dropRefs`: an edge can merge thousands of flows naming the same few objects. */
  refKeys: Set<string>;
  dropRefKeys: Set<string>;
  reasons: Set<string>;
  ports: Set<string>;
  /** Example flows an edge lists: refused ones here, allowed ones in `allowFlows`, FLOW_EXAMPLES of each at most. */
  flows: EdgeFlow[];
  allowFlows: EdgeFlow[];
  /** Allowed flows past the examples kept. */
  unlistedAllowed: number;
  flowIds: Set<string>;
  weights: number[];
  l7: Set<string>;
  dialect: string | undefined;
  drops: number;
  tierDrops: number;
  tier: Tier | undefined;
  layers: Set<string>;
  /** Dropped pairs refused on both sides (compact drops of side "both"). */
  quietDrops: number;
  /** Refused flows and compact drops ((source group, Service port) pairs) past the examples kept in `flows`. */
  unlisted: number;
}

/** The examples an edge lists: the refused first, then the allowed, FLOW_EXAMPLES in all. */
function listedFlows(e: EdgeAcc): EdgeFlow[] {
  if (!e.allowFlows.length) return e.flows;
  return e.flows.length + e.allowFlows.length <= FLOW_EXAMPLES
    ? [...e.flows, ...e.allowFlows]
    : [...e.flows, ...e.allowFlows].slice(0, FLOW_EXAMPLES);
}

/** Keys of deciding objects, made once per object (flows share their RefView objects, and a fresh string hashes anew). */
const refKeys = new WeakMap<RefView, string>();
function refKey(r: RefView): string {
  let k = refKeys.get(r);
  if (k === undefined) refKeys.set(r, (k = `${r.kind}|${r.namespace ?? ""}|${r.name}`));
  return k;
}

/** Example flows an edge lists, of the refused and of the allowed ones (its count holds them all; a trace explains any one). */
const FLOW_EXAMPLES = 24;
/** Deciding objects an edge names of the compact drops it carries (the details list them; a trace names each). */
const DROP_REFS = 12;

/** A compact record's groups (runs of `ReachView.groups` indices) summed by drawn element. */
type Compact = Pick<ReachRecord, "groups">;

/**
 * Where the compact records' groups are drawn: each group's pods resolve to their elements once, and each
 * record's groups are summed by element (`partOf`: [element, groups, first group, pods] per element, kept
 * by the record while every group is drawn where it was).
 */
function compactParts(
  a: Analysis,
  reach: ReachView,
  resolve: (id: string) => string | undefined,
): { elems: string[]; partOf: (d: Compact) => number[] } {
  const elems: string[] = [];
  const elemIndex = new Map<string, number>();
  // Per group: [element, pods] pairs, flat (a workload open at pod level splits its group).
  const groupElems = reach.groups.map((g) => {
    const out: number[] = [];
    for (const i of g.pods) {
      const p = a.pods[i];
      const el = p && resolve(p.id);
      if (el === undefined) continue;
      let e = elemIndex.get(el);
      if (e === undefined) elemIndex.set(el, (e = elems.push(el) - 1));
      const at = out.indexOf(e);
      if (at >= 0 && at % 2 === 0) out[at + 1]!++;
      else out.push(e, 1);
    }
    return out;
  });
  const flat: number[] = [];
  for (const ge of groupElems) flat.push(...ge, -1);
  if (!partCache || !sameList(partCache.elems, elems) || !sameList(partCache.flat, flat))
    partCache = { elems, flat, records: new WeakMap() };
  const records = partCache.records;
  let reader: ((runs: readonly number[]) => number[]) | undefined;
  const partOf = (d: Compact): number[] => {
    let part = records.get(d);
    if (!part) {
      reader ??= groupSummer(groupElems, elems.length);
      records.set(d, (part = reader(d.groups)));
    }
    return part;
  };
  return { elems, partOf };
}

/** What the compact records are merged with: the answer, where its groups are drawn, the filters and the edges. */
interface CompactInputs {
  a: Analysis;
  reach: ReachView;
  parts: ReturnType<typeof compactParts>;
  resolve: (id: string) => string | undefined;
  filters: GraphOptions["filters"];
  accOf: (source: string, target: string, kind: FlowKind) => EdgeAcc;
}

/**
 * The pairs no endpoint admits (`reach.drops`, compact: source groups, not
 * pods) onto the edges of the current fold: each record adds its dropped
 * groups' pods to the edge from their element to the Service's. Drops draw
 * no layout links: the picture is placed by who can connect, and the drops
 * are drawn on it.
 */
function* addReachDrops(
  { a, reach, parts: { elems, partOf }, resolve, filters, accOf }: CompactInputs,
  pace: Pace,
): Steps<void> {
  // Per target element, its edges by source element: one keyed lookup per pair of elements, not per record.
  const byTarget = new Map<string, (EdgeAcc | undefined)[]>();
  for (const d of reach.drops) {
    if (pace.due()) yield;
    const target = resolve(d.to);
    if (!target) continue;
    const port = portKey(d.port, d.protocol);
    if (filters.port !== "all" && port !== filters.port) continue;
    if (!layerPasses(filters.layer, d)) continue;
    let accs = byTarget.get(target);
    if (!accs) byTarget.set(target, (accs = []));
    const layer = dropLayerWord(d);
    const part = partOf(d);
    for (let q = 0; q < part.length; q += 4) {
      const e = part[q]!;
      const groups = part[q + 1]!;
      const first = part[q + 2]!;
      const pods = part[q + 3]!;
      const acc = (accs[e] ??= accOf(elems[e]!, target, "service"));
      acc.mix.drop += pods;
      acc.causes.add("policy");
      acc.ports.add(port);
      acc.drops += groups;
      if (d.side === "both") acc.quietDrops += groups;
      acc.layers.add(layer);
      if (d.layer) acc.dialect ??= d.layer === "CiliumNetworkPolicy" ? "Cilium" : "Calico";
      // The deciding objects, a dozen at most: a box pair's drops can name hundreds of policies.
      if (acc.dropRefs.length < DROP_REFS)
        for (const ref of d.decidedBy) {
          const k = refKey(ref);
          if (acc.refs.length < DROP_REFS && !acc.refKeys.has(k)) {
            acc.refKeys.add(k);
            acc.refs.push(ref);
          }
          if (acc.dropRefs.length < DROP_REFS && !acc.dropRefKeys.has(k)) {
            acc.dropRefKeys.add(k);
            acc.dropRefs.push(ref);
          }
        }
      if (acc.reasons.size < 12) acc.reasons.add(reasonLine(port, d.reason));
      const example = acc.flows.length < FLOW_EXAMPLES ? a.pods[reach.groups[first]!.pods[0]!] : undefined;
      if (!example) acc.unlisted += groups;
      else
        acc.flows.push({
          flowId: `${d.id}|${first}`,
          from: example.id,
          traceTo: d.traceTo,
          port: d.port,
          protocol: d.protocol,
          verdict: "drop",
          reason: d.reason,
        });
    }
  }
}

/**
 * The admitted pairs past the engine's listing limit (`reach.allowed`, compact as the drops are) onto the
 * edges of the current fold, as the listed flows go: each record's groups' pods counted on the edge from
 * their element to the Service's, a layout link for each such pair whatever the filters, and an example
 * a trace can explain.
 */
function addReachAllowed(
  { a, reach, parts: { elems, partOf }, resolve, filters, accOf }: CompactInputs,
  links: Map<string, Set<string>>,
) {
  for (const d of reach.allowed ?? []) {
    const target = resolve(d.to);
    if (!target) continue;
    const port = portKey(d.port, d.protocol);
    const chosen = (filters.port === "all" || port === filters.port) && layerPasses(filters.layer, d);
    const passes = chosen && !(filters.onlyDrops && d.verdict === "allow");
    const part = partOf(d);
    for (let q = 0; q < part.length; q += 4) {
      const source = elems[part[q]!]!;
      const groups = part[q + 1]!;
      const first = part[q + 2]!;
      const pods = part[q + 3]!;
      if (source !== target) {
        let to = links.get(source);
        if (!to) links.set(source, (to = new Set()));
        to.add(target);
      }
      if (!passes) continue;
      const acc = accOf(source, target, "service");
      acc.mix[d.verdict] += pods;
      acc.ports.add(port);
      if (d.layer) acc.dialect ??= d.layer === "CiliumNetworkPolicy" ? "Cilium" : "Calico";
      if (d.verdict === "partial") {
        acc.causes.add("policy");
        acc.drops += groups;
        acc.layers.add(dropLayerWord(d));
      }
      if (acc.reasons.size < 12) acc.reasons.add(reasonLine(port, d.reason));
      const list = d.verdict === "allow" ? acc.allowFlows : acc.flows;
      const example = list.length < FLOW_EXAMPLES ? a.pods[reach.groups[first]!.pods[0]!] : undefined;
      if (!example) {
        if (d.verdict === "allow") acc.unlistedAllowed += groups;
        else acc.unlisted += groups;
      } else
        list.push({
          flowId: `${d.id}|${first}`,
          from: example.id,
          traceTo: d.traceTo,
          port: d.port,
          protocol: d.protocol,
          verdict: d.verdict,
          reason: d.reason,
        });
    }
  }
}

/**
 * The compact records' groups summed by element, kept by the record while every group's pods are drawn in the
 * elements they were (an edit's answer keeps unchanged records as the objects the page held).
 */
let partCache: { elems: string[]; flat: number[]; records: WeakMap<Compact, number[]> } | undefined;
