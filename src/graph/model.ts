/**
 * The graph to draw, as data: its nodes (containers, leaves), edges coloured
 * by the engine's verdicts, the options that choose them, and the helpers
 * both lenses share (a leaf's element, an edge's deciding objects, the
 * automatic level). The lenses build it: paths.ts (default) and
 * topology.ts. Pure and memoisable: nothing here decides traffic.
 */
import type { Analysis, DropCause, Flow, FlowKind, RefView, Verdict } from "../engine/analysis/index.ts";
import type { Filters, GraphLens, Grouping } from "../store/types.ts";
import { graphEndpointId } from "../engine/analysis/constants.ts";
import type { EdgeNoteId, Tier } from "./verdicts.ts";
import type { NsGroupBy } from "./nsGroups.ts";
import type { BoxText } from "./text.ts";

export type GraphLevel = "pod" | "workload" | "namespace";
export type GraphNodeKind =
  "bucket" | "zone" | "node" | "pod" | "group" | "namespace" | "service" | "external" | "router";
export type Lens = "topology" | "paths";

/** Kinds that hold other nodes. A bucket packs many zones, nodes or Services into one block in large graphs. */
export const CONTAINER_KINDS: ReadonlySet<GraphNodeKind> = new Set(["bucket", "zone", "node"]);

/** In graphs with more leaves than this, zones (or nodes) and Services are packed into blocks, so the picture keeps close to the pane's shape. */
export const PACK = { leaves: 40, services: 8 };

export interface GraphNode {
  id: string;
  kind: GraphNodeKind;
  parent?: string;
  label: string;
  sublabel?: string;
  namespace?: string;
  /** Pods behind a collapsed group. */
  count?: number;
  /** Pod ids behind a collapsed group. */
  members?: string[];
  /** A pod that is not ready, or a node that is not ready. */
  warning?: string;
  ref?: RefView;
  /** Paths lens: the level this element opens (a collapsed namespace or workload), and the level it folds back into. */
  toggle?: string;
  fold?: string;
  /** Paths lens: inbound connections by verdict, for the node's summary line. */
  inbound?: { allow: number; drop: number; partial: number };
  /** Services merged into a workload element (the workload is their only backend). */
  services?: string[];
  /** Paths lens: namespaces folded into a namespace family element. */
  nsCount?: number;
  /** Paths lens: the name shown instead of the label (a ReplicaSet's pod: its workload and the suffix that tells it apart). */
  short?: string;
  /** Paths lens: the second line's parts (kind, namespace, IP, ports), never split. */
  parts?: string[];
  /** Paths lens: the text as drawn, the box sized to it (text.ts boxText). */
  text?: BoxText;
  /** Paths lens: workloads behind a folded namespace. */
  workloads?: number;
  /**
   * Paths lens: endpoint flows of the Services folded into this element that refuse some or all of
   * their callers (`refuse` of `of`), and the objects that decided; the callers may be anywhere.
   */
  refuses?: { refuse: number; of: number; refs: RefView[] };
  /** Leaf size for the layout; containers are sized by their children. */
  width: number;
  height: number;
}

/** One flow behind an edge, with a concrete source so that its trace can be asked. */
export interface EdgeFlow {
  flowId: string;
  from: string;
  traceTo: string;
  port: number;
  protocol: Flow["protocol"];
  verdict: Verdict;
  reason: string;
}

export interface GraphEdge {
  id: string;
  source: string;
  target: string;
  /** "question": a path the question lit that no flow draws; "observed": traffic a flow file saw that no flow draws (observedMarks.ts). */
  kind: FlowKind | "question" | "observed";
  verdict: Verdict;
  dropCause?: DropCause;
  /** A cluster tier dropped every dropped flow of the edge (verdicts.ts `tier` category; the label starts with it). */
  tier?: Tier;
  /** The deciding object, short. */
  label: string;
  /** Every reason behind the edge, for the tooltip. */
  title: string;
  decidedBy: RefView[];
  flows: EdgeFlow[];
  /** How the edge is worded beyond its verdict (verdicts.ts NOTES): a router's share, a CNI dialect's decision, an L7 restriction. */
  note?: EdgeNoteId;
  /** The layers that dropped its dropped flows, in words (verdicts.ts dropLayerWord): "NetworkPolicy", "Admin tier". */
  layers?: string[];
  /** Paths lens: pod-level connections behind the edge, by verdict, and their ports. */
  count?: number;
  mix?: { allow: number; drop: number; partial: number };
  ports?: string[];
  /**
   * Every connection behind the edge is refused on both sides (the sender's egress and the endpoints'
   * ingress: isolation as written, `ReachDrop.side` "both") and none is allowed: drawn faint, under the
   * rest, so the near misses (one side admits) and the allowed paths stand out.
   */
  quiet?: true;
  /** Flows (and dropped (source group, Service port) pairs) the edge carries beyond the examples it lists in `flows`. */
  unlistedFlows?: number;
  /** Of `unlistedFlows`, the ones not allowed everywhere (dropped or partly allowed). */
  unlistedDrops?: number;
}

export interface GraphModel {
  lens: Lens;
  level: GraphLevel;
  nodes: GraphNode[];
  edges: GraphEdge[];
  /** Paths lens: the element budget it was built for. */
  budget?: number;
  /** Paths lens: every "source>target" pair whatever the filters, for a layout that filters do not move. */
  links?: string[];
  /** Changes only when the layout must: the set of nodes, their parents and sizes, and the top-level edges. */
  structureKey: string;
  /** Pods and Services hidden by the namespace filter. */
  hidden: number;
  /** The grouping chosen by hand that this picture does not draw, folded to fit instead: it had more than `limit` edges. */
  declined?: { grouping: Grouping; limit: number };
}

export const SIZES = {
  pod: { width: 168, height: 40 },
  group: { width: 178, height: 44 },
  service: { width: 176, height: 46 },
  external: { width: 170, height: 46 },
} as const;

/**
 * The most edges a grouping chosen by hand (pod, workload, namespace) draws in the paths lens; past it the
 * picture folds to fit as "auto" does, and says so (GraphModel.declined). React Flow commits a few thousand
 * edges in seconds, one task (1,804 at 2,000 pods grouped by namespace: 4.5 s); by workload that cluster had
 * 130,086 edges (a minute's freeze) and at 10,000 pods the mapping alone ran out of memory.
 */
export const CHOSEN_MAX_EDGES = 2500;

/** Thresholds of the automatic grouping (React Flow stays fluid up to about a thousand elements). */
export const AUTO = { maxPods: 80, maxPodEdges: 400, maxGroups: 300 };

export function chooseLevel(a: Analysis, grouping: Grouping): GraphLevel {
  if (grouping !== "auto") return grouping;
  const podEdges = a.flows.reduce(
    (n, f) => n + (f.kind === "service" || f.kind === "pod" ? f.from.length : 0),
    0,
  );
  if (a.pods.length <= AUTO.maxPods && podEdges <= AUTO.maxPodEdges) return "pod";
  const groups = new Set(a.pods.map((p) => `${p.workload.id}@${p.node ?? ""}`));
  return groups.size <= AUTO.maxGroups ? "workload" : "namespace";
}

export function portKey(port: number, protocol: string): string {
  return `${port}/${protocol}`;
}

/**
 * Every port the graph can draw an edge on, ascending: the listed flows' and, at scale, the compact records'
 * (the dropped pairs, and the admitted pairs past the listing limit). The port filter offers these and keeps
 * a chosen one while the input still has it: one list for both, so a port the graph draws is never missing
 * from the menu (a workload-to-Service port, or one only refused, was before).
 */
export function graphPorts(a: Analysis): { key: string; port: number; protocol: string }[] {
  // Ports by protocol, as numbers: at L some 50,000 flows and records, a key string each was 58 ms of a first render.
  const byProtocol = new Map<string, Set<number>>();
  const add = (x: { port: number; protocol: string }) => {
    let ports = byProtocol.get(x.protocol);
    if (!ports) byProtocol.set(x.protocol, (ports = new Set()));
    ports.add(x.port);
  };
  for (const f of a.flows) add(f);
  for (const f of a.reach?.flows ?? []) add(f);
  for (const d of a.reach?.drops ?? []) add(d);
  for (const d of a.reach?.allowed ?? []) add(d);
  const out: { key: string; port: number; protocol: string }[] = [];
  for (const [protocol, ports] of byProtocol)
    for (const port of ports) out.push({ key: portKey(port, protocol), port, protocol });
  return out.sort((x, y) => x.port - y.port || x.protocol.localeCompare(y.protocol));
}

export function shortRef(r: RefView | undefined, kind: FlowKind): string {
  if (!r) return kind === "endpoint" ? "endpoint" : "no policy";
  return r.name;
}

/** The objects an aggregated edge names (what allowed it, or what dropped part of it) and its short label. */
export function edgeRefs(
  verdict: Verdict,
  e: { refs: RefView[]; dropRefs: RefView[]; kind: FlowKind },
): { refs: RefView[]; label: string } {
  const refs = verdict === "allow" ? e.refs : e.dropRefs.length ? e.dropRefs : e.refs;
  const first = shortRef(refs[0], e.kind);
  return { refs, label: refs.length > 1 ? `${first} +${refs.length - 1}` : first };
}

export interface GraphOptions {
  filters: Filters;
  grouping: Grouping;
  lens?: GraphLens;
  /** Namespaces ("ns:NAME") and workloads (their id) opened (true) or closed (false) by the user. */
  open?: Record<string, boolean>;
  /** How many elements the pane shows legibly. */
  budget?: number;
  /** How namespaces fold into families past the budget (paths lens): "auto", "prefix" or "label:KEY". */
  nsGroupBy?: NsGroupBy;
}

/** Zones and nodes decide something when a flow is dropped by a traffic policy or a Service keeps traffic on its node. */
export function topologyDecides(a: Analysis): boolean {
  return (
    a.flows.some((f) => f.dropCause === "traffic-policy") ||
    a.services.some(
      (s) => s.internalTrafficPolicy === "Local" || (s.external && s.externalTrafficPolicy === "Local"),
    )
  );
}

/** "auto" is the paths lens: zones and nodes are a lens the user turns on (the legend says when they decide something). */
export function lensOf(_a: Analysis, lens: GraphLens | undefined): Lens {
  return lens === "topology" ? "topology" : "paths";
}
export function topLevelOf(nodes: readonly GraphNode[]): (id: string) => string {
  const parent = new Map(nodes.map((n) => [n.id, n.parent]));
  return (id) => {
    let cur = id;
    for (let p = parent.get(cur); p !== undefined; p = parent.get(cur)) cur = p;
    return cur;
  };
}

/** Graph elements on a traced path: the edges source -> service -> each endpoint, or source -> pod. */
export function pathEdges(
  path: readonly string[],
  leafOf: (id: string) => string | undefined,
): [string, string][] {
  if (path.length < 2) return [];
  const ids = path.map((id) => leafOf(id) ?? id);
  const pairs: [string, string][] = [[ids[0]!, ids[1]!]];
  for (let i = 2; i < ids.length; i++) pairs.push([ids[1]!, ids[i]!]);
  return pairs.filter(([s, t]) => s !== t);
}

/** Maps a pod, Service or external id to the graph element that shows it. */
export function leafResolver(g: GraphModel): (id: string) => string | undefined {
  const map = new Map<string, string>();
  for (const n of g.nodes) {
    map.set(n.id, n.id);
    for (const m of n.members ?? []) map.set(m, n.id);
    // Services drawn inside their workload's element (paths lens) are shown by it.
    for (const s of n.services ?? []) map.set(s, n.id);
  }
  return (id) => map.get(id) ?? (id.startsWith("external:") ? map.get(graphEndpointId(id)) : undefined);
}
