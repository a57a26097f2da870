/**
 * Where the drops are: every flow the engine judged not allowed, ranked by
 * (source namespace, destination namespace, deciding object), with the fold
 * keys that show both namespaces as their own elements and the edge that
 * carries the spot once they are. The graph's "Where the drops are" list
 * reads it; nothing here judges a flow, it only counts the engine's verdicts.
 *
 * A Service's endpoint flow that refuses some callers has no known caller
 * (the engine judged every pod of the cluster as a source at once): its spot
 * has no source namespace ("callers anywhere"). At scale, the pairs no
 * endpoint admits come as compact records (`reach.drops`: source groups,
 * not pods); they rank with the flows, by the namespace of each group.
 */
import type {
  Analysis,
  Flow,
  ReachAllowed,
  ReachDrop,
  ReachView,
  RefView,
} from "../engine/analysis/index.ts";
import { buildPathGraph, nsGroupKey } from "./paths.ts";
import { leafResolver, type GraphEdge, type GraphModel, type GraphOptions } from "./model.ts";
import { familyResolver, type NsGroupBy } from "./nsGroups.ts";
import { dropLayerWord } from "./verdicts.ts";
import { groupSummer, sameList } from "./segments.ts";
import { finish, NEVER, type Pace, type Steps } from "./pace.ts";

export interface DropSpot {
  key: string;
  /** Source namespace; undefined: the callers of a Service's endpoints, anywhere in the cluster. */
  from: string | undefined;
  /** A client outside the cluster (`external:IP`), when that is the source. */
  external?: string;
  to: string;
  /** The layer that dropped ("NetworkPolicy", "Admin tier", "traffic policy"). */
  layer: string;
  /** The first deciding object, when the engine named one. */
  ref?: RefView;
  /** Source pods (or clients) times flows: the pod-level connections not allowed. */
  connections: number;
  /** Of them, refused at some endpoints only (partial flows). */
  partly: number;
  /** One flow of the spot, whose trace explains it. */
  example: { from: string; to: string; protocol: Flow["protocol"] };
}

export interface DropSummary {
  spots: DropSpot[];
}

/** The namespace of an element id (`pod:NS/NAME`, `service:NS/NAME`); undefined for nodes and clients. */
export function namespaceOfId(id: string): string | undefined {
  const m = /^(?:pod|service|gateway|ingress|virtualservice):([^/]+)\//.exec(id);
  return m?.[1];
}

/** What one refused flow adds to the spots: per source namespace (or client), its key, its senders and an example. */
interface FlowSpots {
  to: string;
  layer: string;
  ref: RefView | undefined;
  sources: { key: string; from: string | undefined; external?: string; n: number; first: string }[];
}

/**
 * Each flow's part, kept by the flow: an edit's answer keeps the flows it did not change as the very objects the
 * page held (worker/delta.ts), so only the changed ones are read again (at 2,000 pods the whole ranking took about
 * 30 ms of the main thread after every keystroke's draw, most of it this per-sender reading).
 */
const flowSpots = new WeakMap<Flow, FlowSpots | null>();

function spotsOfFlow(f: Flow): FlowSpots | null {
  let known = flowSpots.get(f);
  if (known !== undefined) return known;
  known = null;
  const to = f.verdict === "allow" ? undefined : namespaceOfId(f.to);
  if (to !== undefined) {
    const layer = dropLayerWord(f);
    const ref = f.decidedBy[0];
    const by = ref ? `${ref.kind}|${ref.namespace ?? ""}|${ref.name}` : "";
    // Sources by namespace: one flow's senders share a class, so mostly one namespace.
    const bySource = new Map<string, FlowSpots["sources"][number]>();
    for (const s of f.from) {
      const external = s.startsWith("external:") ? s.replace(/@.*$/, "") : undefined;
      const from = f.kind === "endpoint" ? undefined : external ? undefined : namespaceOfId(s);
      if (f.kind !== "endpoint" && from === undefined && !external) continue;
      const k = external ?? from ?? "*";
      const cur = bySource.get(k);
      if (cur) cur.n++;
      else
        bySource.set(k, {
          key: `${k}>${to}|${layer}|${by}`,
          from,
          ...(external ? { external } : {}),
          n: 1,
          first: f.client ?? s,
        });
    }
    known = { to, layer, ref, sources: [...bySource.values()] };
  }
  flowSpots.set(f, known);
  return known;
}

export function whereDropsAre(a: Analysis): DropSummary {
  return finish(dropSpotsSteps(a, NEVER));
}

/** `whereDropsAre`, ranked a slice at a time when `pace` says so (pace.ts). */
export function* dropSpotsSteps(a: Analysis, pace: Pace): Steps<DropSummary> {
  const spots = new Map<string, DropSpot>();
  const lists = a.reach ? [a.flows, a.reach.flows] : [a.flows];
  for (const list of lists)
    for (const f of list) {
      if (pace.due()) yield;
      const part = spotsOfFlow(f);
      if (!part) continue;
      for (const src of part.sources) {
        const spot = spotOf(
          spots,
          src.key,
          src.from,
          part,
          () => ({
            from: src.first,
            to: f.traceTo,
            protocol: f.protocol,
          }),
          src.external,
        );
        spot.connections += src.n;
        if (f.verdict === "partial") spot.partly += src.n;
      }
    }
  if (a.reach?.drops?.length || a.reach?.allowed?.some((d) => d.verdict === "partial"))
    yield* addReachSpots(a, a.reach, spots, pace);
  const list = [...spots.values()].sort(
    (x, y) => y.connections - x.connections || (x.key < y.key ? -1 : x.key > y.key ? 1 : 0),
  );
  return { spots: list };
}

/** What one compact drop record adds to the spots: per source namespace, its pods and the record's first group there. */
interface RecordSpots {
  to: string;
  layer: string;
  ref: RefView | undefined;
  parts: { key: string; from: string; pods: number; first: number }[];
}

/**
 * Each record's part, kept by the record while every group keeps its namespace and its size (an edit's answer keeps
 * unchanged records as the objects the page held): at 2,000 pods summing 2,000 records' groups by namespace after
 * every keystroke's draw allocated about 2.4 MB (Chromium's allocation profile of the bench's edits).
 */
let recordCache:
  | {
      groupNs: (string | undefined)[];
      sizes: number[];
      records: WeakMap<ReachDrop | ReachAllowed, RecordSpots | null>;
    }
  | undefined;

/** The spot of `key`, made with its example when it is the first part to name it. */
function spotOf(
  spots: Map<string, DropSpot>,
  key: string,
  from: string | undefined,
  part: { to: string; layer: string; ref: RefView | undefined },
  example: () => DropSpot["example"],
  external?: string,
): DropSpot {
  let spot = spots.get(key);
  if (!spot) {
    spot = { key, from, to: part.to, layer: part.layer, connections: 0, partly: 0, example: example() };
    if (external) spot.external = external;
    if (part.ref) spot.ref = part.ref;
    spots.set(key, spot);
  }
  return spot;
}

/**
 * The compact drops (`reach.drops`) into spots: each dropped group counts its pods, under its namespace.
 * Per record, the pods are summed by namespace first, a stretch of groups at a time (segments.ts):
 * the groups of a record run to hundreds, its namespaces to a few.
 */
function* addReachSpots(
  a: Analysis,
  reach: ReachView,
  spots: Map<string, DropSpot>,
  pace: Pace,
): Steps<void> {
  const groupNs = reach.groups.map((g) => a.pods[g.pods[0]!]?.namespace);
  const sizes = reach.groups.map((g) => g.pods.length);
  if (!recordCache || !sameList(recordCache.groupNs, groupNs) || !sameList(recordCache.sizes, sizes))
    recordCache = { groupNs, sizes, records: new WeakMap() };
  const records = recordCache.records;
  let reader: ((d: ReachDrop | ReachAllowed) => RecordSpots | null) | undefined;
  // The dropped pairs, and the partly admitted ones past the engine's listing limit (as partial flows count).
  const partial = (reach.allowed ?? []).filter((d) => d.verdict === "partial");
  for (const d of [...reach.drops, ...partial]) {
    if (pace.due()) yield;
    let part = records.get(d);
    if (part === undefined) {
      reader ??= recordReader(groupNs, sizes);
      records.set(d, (part = reader(d)));
    }
    if (!part) continue;
    for (const p of part.parts) {
      const spot = spotOf(spots, p.key, p.from, part, () => ({
        from: a.pods[reach.groups[p.first]!.pods[0]!]!.id,
        to: d.traceTo,
        protocol: d.protocol,
      }));
      spot.connections += p.pods;
      if ("verdict" in d) spot.partly += p.pods;
    }
  }
}

/** Reads a record's part: its dropped groups' pods summed by namespace, in the order the namespaces come. */
function recordReader(
  groupNs: readonly (string | undefined)[],
  sizes: readonly number[],
): (d: ReachDrop | ReachAllowed) => RecordSpots | null {
  const nsNames: string[] = [];
  const nsIndex = new Map<string, number>();
  const groupKeys = groupNs.map((ns, k) => {
    if (ns === undefined) return [];
    let i = nsIndex.get(ns);
    if (i === undefined) nsIndex.set(ns, (i = nsNames.push(ns) - 1));
    return [i, sizes[k]!];
  });
  const sum = groupSummer(groupKeys, nsNames.length);
  return (d) => {
    const to = namespaceOfId(d.to);
    if (to === undefined) return null;
    const quads = sum(d.groups);
    if (!quads.length) return null;
    const layer = dropLayerWord(d);
    const ref = d.decidedBy[0];
    const by = ref ? `${ref.kind}|${ref.namespace ?? ""}|${ref.name}` : "";
    const ofRecord = `${to}|${layer}|${by}`;
    const parts: RecordSpots["parts"] = [];
    for (let q = 0; q < quads.length; q += 4) {
      const from = nsNames[quads[q]!]!;
      parts.push({ key: `${from}>${ofRecord}`, from, pods: quads[q + 3]!, first: quads[q + 2]! });
    }
    return { to, layer, ref, parts };
  };
}

/** A spot in words: "billing-dev → payments-prod", "callers → shop", "203.0.113.10 → shop". */
export function spotTitle(s: DropSpot): string {
  const from = s.external ? s.external.replace(/^external:/, "") : (s.from ?? "callers anywhere");
  return `${from} → ${s.to}`;
}

/** The deciding object in words: "NetworkPolicy shop/deny-all", else the layer. */
export function spotDecider(s: DropSpot): string {
  if (!s.ref) return s.layer;
  const name = s.ref.namespace ? `${s.ref.namespace}/${s.ref.name}` : s.ref.name;
  return s.layer === "NetworkPolicy" || s.layer === "traffic policy" || s.layer === "policy"
    ? `${s.ref.kind} ${name}`
    : `${s.layer}: ${s.ref.kind} ${name}`;
}

/**
 * What opening a spot does: its namespaces' families open (so each namespace is its own element, or
 * its workloads), and the element or edge that carries the spot in the graph drawn then.
 */
export function focusDropSpot(
  a: Analysis,
  options: GraphOptions,
  spot: DropSpot,
): { open: Record<string, boolean>; graph: GraphModel; edge?: GraphEdge; element?: string } {
  const familyOf = familyResolver(a, options.nsGroupBy as NsGroupBy | undefined);
  const open = { ...(options.open ?? {}) };
  for (const ns of [spot.from, spot.to]) {
    if (ns === undefined) continue;
    const f = familyOf(ns);
    if (f !== undefined) open[nsGroupKey(f)] = true;
  }
  const graph = buildPathGraph(a, { ...options, open });
  const resolve = leafResolver(graph);
  const source = resolve(spot.example.from);
  // The Service (or pod) the example asks about, else its namespace's element.
  const target = resolve(spot.example.to.replace(/:\d+$/, ""));
  const edge =
    graph.edges.find((e) => e.source === source && e.target === target && e.verdict !== "allow") ??
    graph.edges.find(
      (e) =>
        e.verdict !== "allow" &&
        nsOfNode(graph, e.source) === (spot.from ?? nsOfNode(graph, e.source)) &&
        nsOfNode(graph, e.target) === spot.to,
    );
  const out: ReturnType<typeof focusDropSpot> = { open, graph };
  if (edge && (spot.from !== undefined || spot.external)) out.edge = edge;
  else if (target) out.element = target;
  return out;
}

function nsOfNode(g: GraphModel, id: string): string | undefined {
  return g.nodes.find((n) => n.id === id)?.namespace;
}
