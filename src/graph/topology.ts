/**
 * The topology lens: pods (or their groups by workload or namespace) inside
 * cluster nodes inside zones, Services and external clients beside them,
 * one edge per pair of leaves with the flows merged into it; large graphs
 * packed into blocks for ELK (its own worker). Pure: edges only merge the
 * flows the engine judged.
 */
import type { Analysis, DropCause, FlowKind, PodView, RefView, Verdict } from "../engine/analysis/index.ts";
import { graphEndpointId } from "../engine/analysis/constants.ts";
import { layerPasses, tierTag, type Tier } from "./verdicts.ts";
import { textWidth } from "./textWidth.ts";
import {
  CONTAINER_KINDS,
  PACK,
  SIZES,
  chooseLevel,
  edgeRefs,
  portKey,
  topLevelOf,
  type EdgeFlow,
  type GraphEdge,
  type GraphLevel,
  type GraphModel,
  type GraphNode,
  type GraphOptions,
} from "./model.ts";

/** A topology leaf as wide as its name (12 px bold) and second line (11 px) need: names whole (styles.css .rf-leaf). */
function leafSize(
  base: { width: number; height: number },
  name: string,
  sub: string,
): { width: number; height: number } {
  const need = Math.ceil(Math.max(textWidth(name, 12, true), textWidth(sub, 11)) * 1.03 + 24);
  return { width: Math.min(380, Math.max(base.width, need)), height: base.height };
}

const UNSCHEDULED = "node:(unscheduled)";
const NO_ZONE = "zone:(no zone)";

/** Where a pod's element sits: its cluster node, or at namespace level its zone (nodes are too many to show then). */
function placeOf(level: GraphLevel, p: PodView, zoneOf: Map<string, string>): string {
  const node = p.node ?? UNSCHEDULED;
  return level === "namespace" ? (zoneOf.get(node) ?? node) : node;
}

function leafOf(level: GraphLevel, p: PodView, place: string): string {
  if (level === "pod") return p.id;
  if (level === "workload") return `group:${p.workload.id}@${place}`;
  return `group:namespace:${p.namespace}@${place}`;
}

function merge(verdicts: Set<Verdict>): Verdict {
  if (verdicts.size === 1) return [...verdicts][0]!;
  return "partial";
}

/** One edge of the topology lens while flows merge into it. */
interface TopologyAcc {
  source: string;
  target: string;
  kind: FlowKind;
  verdicts: Set<Verdict>;
  causes: Set<DropCause>;
  refs: RefView[];
  dropRefs: RefView[];
  reasons: Set<string>;
  flows: EdgeFlow[];
  drops: number;
  tierDrops: number;
  tier: Tier | undefined;
}

/** Zones (when the input has zones) holding cluster nodes, and the unscheduled pods' box; whether there are zones. */
function topologyContainers(a: Analysis, add: (n: GraphNode) => GraphNode): boolean {
  const zoned = a.zones.length > 0;
  const usedNodes = new Set(a.pods.map((p) => p.node ?? UNSCHEDULED));
  for (const z of a.zones)
    add({ id: `zone:${z.name}`, kind: "zone", label: z.name, sublabel: "zone", width: 0, height: 0 });
  for (const n of a.nodes) {
    const parent = zoned ? (n.zone ? `zone:${n.zone}` : NO_ZONE) : undefined;
    if (parent === NO_ZONE)
      add({ id: NO_ZONE, kind: "zone", label: "no zone label", sublabel: "zone", width: 0, height: 0 });
    const g: GraphNode = {
      id: n.id,
      kind: "node",
      label: n.name,
      sublabel: n.internalIP,
      width: 0,
      height: 0,
    };
    if (parent) g.parent = parent;
    if (n.ref) g.ref = n.ref;
    if (!n.ready) g.warning = "node not Ready";
    else if (n.unschedulable) g.warning = "cordoned";
    add(g);
  }
  if (usedNodes.has(UNSCHEDULED))
    add({
      id: UNSCHEDULED,
      kind: "node",
      label: "unscheduled",
      sublabel: "no node can run these pods",
      warning: "Pending",
      width: 0,
      height: 0,
    });

  return zoned;
}

/** The flows the filters keep, merged by (leaf source, leaf target); the external clients some flow leaves. */
function topologyFlows(
  a: Analysis,
  filters: GraphOptions["filters"],
  resolve: (id: string) => string | undefined,
): { acc: Map<string, TopologyAcc>; externals: Set<string> } {
  const acc = new Map<string, TopologyAcc>();
  const externals = new Set<string>();
  for (const f of a.flows) {
    if (filters.port !== "all" && portKey(f.port, f.protocol) !== filters.port) continue;
    if (!layerPasses(filters.layer, f)) continue;
    const target = resolve(f.to);
    if (!target) continue;
    for (const from of f.from) {
      const source = resolve(from);
      if (!source || source === target) continue;
      if (from.startsWith("external:")) externals.add(source);
      const key = `${source}->${target}`;
      let e = acc.get(key);
      if (!e) {
        e = {
          source,
          target,
          kind: f.kind,
          verdicts: new Set(),
          causes: new Set(),
          refs: [],
          dropRefs: [],
          reasons: new Set(),
          flows: [],
          drops: 0,
          tierDrops: 0,
          tier: undefined,
        };
        acc.set(key, e);
      }
      e.verdicts.add(f.verdict);
      if (f.verdict !== "allow") {
        e.drops++;
        if (f.tier) {
          e.tierDrops++;
          e.tier ??= f.tier;
        }
      }
      if (f.dropCause) e.causes.add(f.dropCause);
      const seen = (list: RefView[], r: RefView) =>
        list.some((x) => x.kind === r.kind && x.name === r.name && x.namespace === r.namespace);
      for (const r of f.decidedBy) {
        if (!seen(e.refs, r)) e.refs.push(r);
        if (f.verdict !== "allow" && !seen(e.dropRefs, r)) e.dropRefs.push(r);
      }
      e.reasons.add(`${f.port}/${f.protocol}: ${f.reason}`);
      // One flow record per flow is enough to ask its trace; keep the first source.
      if (!e.flows.some((x) => x.flowId === f.id))
        e.flows.push({
          flowId: f.id,
          from: f.client ?? from,
          traceTo: f.traceTo,
          port: f.port,
          protocol: f.protocol,
          verdict: f.verdict,
          reason: f.reason,
        });
    }
  }
  return { acc, externals };
}

/** One edge per merged pair whose ends are drawn: its verdict, label, deciding objects and drop cause. */
function topologyEdges(
  acc: ReadonlyMap<string, TopologyAcc>,
  filters: GraphOptions["filters"],
  byId: ReadonlyMap<string, GraphNode>,
): GraphEdge[] {
  const edges: GraphEdge[] = [];
  for (const e of acc.values()) {
    const verdict = merge(e.verdicts);
    if (filters.onlyDrops && verdict === "allow") continue;
    if (!byId.has(e.source) || !byId.has(e.target)) continue;
    const { refs, label: byRef } = edgeRefs(verdict, e);
    const label = e.tier && verdict !== "allow" ? `${tierTag(e.tier)} · ${byRef}` : byRef;
    const edge: GraphEdge = {
      id: `e:${e.source}->${e.target}`,
      source: e.source,
      target: e.target,
      kind: e.kind,
      verdict,
      label,
      title: [...e.reasons].join("\n"),
      decidedBy: refs,
      flows: e.flows,
    };
    if (verdict !== "allow") {
      const cause: DropCause | undefined = e.causes.has("policy")
        ? "policy"
        : e.causes.has("traffic-policy")
          ? "traffic-policy"
          : undefined;
      if (cause) edge.dropCause = cause;
      if (e.tier && e.tierDrops === e.drops) edge.tier = e.tier;
    }
    edges.push(edge);
  }
  return edges;
}

/** The topology lens: pods (or their groups) inside cluster nodes inside zones. */
export function buildTopologyGraph(a: Analysis, options: GraphOptions): GraphModel {
  const { filters } = options;
  const level = chooseLevel(a, options.grouping);
  const hiddenNs = new Set(filters.hiddenNamespaces);
  const nodes: GraphNode[] = [];
  const byId = new Map<string, GraphNode>();
  const add = (n: GraphNode) => {
    if (byId.has(n.id)) return byId.get(n.id)!;
    byId.set(n.id, n);
    nodes.push(n);
    return n;
  };
  let hidden = 0;

  // Containers: zones (when the input has zones) holding cluster nodes.
  const zoned = topologyContainers(a, add);
  // Leaves: pods, or their groups.
  const zoneOf = new Map(a.nodes.filter((n) => n.zone).map((n) => [n.id, `zone:${n.zone}`]));
  const leafOfPod = new Map<string, string>();
  for (const p of a.pods) {
    if (hiddenNs.has(p.namespace)) {
      hidden++;
      continue;
    }
    const parent = placeOf(level, p, zoneOf);
    const id = leafOf(level, p, parent);
    leafOfPod.set(p.id, id);
    if (level === "pod") {
      const n: GraphNode = {
        id,
        kind: "pod",
        parent,
        label: p.name,
        sublabel: `${p.namespace} · ${p.ips[0] ?? "no IP"}`,
        namespace: p.namespace,
        ref: p.ref,
        ...SIZES.pod,
      };
      if (!p.ready) n.warning = p.terminating ? "terminating" : `not ready (${p.phase})`;
      else if (p.terminating) n.warning = "terminating";
      add(n);
    } else {
      const label = level === "workload" ? p.workload.name : p.namespace;
      const g = add({
        id,
        kind: "group",
        parent,
        label,
        sublabel: level === "workload" ? `${p.namespace} · ${p.workload.kind}` : "namespace",
        namespace: p.namespace,
        count: 0,
        members: [],
        ...SIZES.group,
      });
      g.count! += 1;
      g.members!.push(p.id);
    }
  }

  // Services (one element per namespace at namespace level) and external clients.
  const serviceLeaf = new Map<string, string>();
  for (const s of a.services) {
    if (hiddenNs.has(s.namespace)) {
      hidden++;
      continue;
    }
    if (level === "namespace") {
      const id = `group:services:${s.namespace}`;
      const g = add({
        id,
        kind: "service",
        label: "Services",
        sublabel: s.namespace,
        namespace: s.namespace,
        count: 0,
        members: [],
        ...SIZES.service,
      });
      g.count! += 1;
      g.members!.push(s.id);
      g.label = `${g.count} Service${g.count === 1 ? "" : "s"}`;
      serviceLeaf.set(s.id, id);
      continue;
    }
    serviceLeaf.set(s.id, s.id);
    const ports = s.ports.map((p) => `${p.port}/${p.protocol}`).join(", ");
    add({
      id: s.id,
      kind: "service",
      label: s.name,
      sublabel: `${s.namespace} · ${s.type}${ports ? ` · ${ports}` : ""}`,
      namespace: s.namespace,
      ref: s.ref,
      ...SIZES.service,
    });
  }
  const resolve = (id: string): string | undefined => {
    if (id.startsWith("pod:")) return leafOfPod.get(id);
    if (id.startsWith("service:")) return serviceLeaf.get(id);
    // An external client is one node whichever node its packet arrives at (`external:IP@NODE`).
    if (id.startsWith("external:")) return graphEndpointId(id);
    return id;
  };

  // Edges: flows merged by (leaf source, leaf target).
  const { acc, externals } = topologyFlows(a, filters, resolve);
  for (const x of a.externalClients) {
    if (externals.has(x.id))
      add({
        id: x.id,
        kind: "external",
        label: x.ip,
        sublabel: "client outside the cluster",
        ...SIZES.external,
      });
  }

  const edges = topologyEdges(acc, filters, byId);
  edges.sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));

  // Drop empty zones (every pod hidden or none scheduled there); keep the input's nodes, except at namespace level in zones.
  const parents = new Set(nodes.map((n) => n.parent).filter((p): p is string => p !== undefined));
  let kept = nodes.filter(
    (n) => (n.kind !== "zone" && !(n.kind === "node" && level === "namespace" && zoned)) || parents.has(n.id),
  );
  for (const n of kept)
    if (!CONTAINER_KINDS.has(n.kind)) {
      const size = leafSize(
        n,
        `${n.kind === "group" ? `${n.count}× ` : ""}${n.label}`,
        n.warning ?? n.sublabel ?? "",
      );
      n.width = size.width;
      n.height = size.height;
    }
  kept = pack(kept);

  return { lens: "topology", level, nodes: kept, edges, structureKey: structureKey(kept, edges), hidden };
}

/**
 * Large graphs: the cluster's top containers and the Services each go into one block that ELK packs
 * to the pane's shape, parents first. (A small cluster keeps its zones in a column: edges from one
 * zone's pods would otherwise cross the next zone's.)
 */
function pack(nodes: GraphNode[]): GraphNode[] {
  const leaves = nodes.filter((n) => !CONTAINER_KINDS.has(n.kind)).length;
  if (leaves <= PACK.leaves) return nodes;
  const tops = nodes.filter((n) => !n.parent && (n.kind === "zone" || n.kind === "node"));
  const services = nodes.filter((n) => !n.parent && n.kind === "service");
  const buckets: GraphNode[] = [];
  if (tops.length > 1) {
    buckets.push({
      id: "bucket:cluster",
      kind: "bucket",
      label: "cluster",
      sublabel: `${tops.length} ${tops[0]!.kind === "zone" ? "zones" : "nodes"}`,
      width: 0,
      height: 0,
    });
    for (const t of tops) t.parent = "bucket:cluster";
  }
  if (services.length > PACK.services) {
    buckets.push({
      id: "bucket:services",
      kind: "bucket",
      label: "Services",
      sublabel: `${services.length}`,
      width: 0,
      height: 0,
    });
    for (const t of services) t.parent = "bucket:services";
  }
  return buckets.length ? [...buckets, ...nodes] : nodes;
}

function structureKey(nodes: readonly GraphNode[], edges: readonly GraphEdge[]): string {
  const top = topLevelOf(nodes);
  const links = new Set<string>();
  for (const e of edges) {
    const s = top(e.source);
    const t = top(e.target);
    if (s !== t) links.add(`${s}>${t}`);
  }
  return `${nodes.map((n) => `${n.id}<${n.parent ?? ""}:${n.width}x${n.height}`).join("|")}#${[...links].sort().join("|")}`;
}
