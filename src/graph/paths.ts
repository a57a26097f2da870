/**
 * The paths lens: the cluster as namespaces -> workloads -> pods, each level
 * collapsible, with one aggregated edge per (source element, destination
 * element) that counts the pod-level connections behind it by verdict.
 *
 * What is open: the user's choices (`open`), else the grouping's rule; in
 * "auto" every workload shows its pods while the cluster is small
 * (POD_LEVEL), and namespaces close, largest first, until the elements fit
 * the pane's budget. A Service whose every endpoint belongs to one closed
 * workload is drawn inside that workload (Kiali's workload graph).
 *
 * Drops fold with their elements: every flow the engine judged lands on the
 * edge between the elements that show its ends, so two boxes get a drop (or
 * partial) edge whenever any flow between their members is not allowed,
 * labelled with the count and the deciding layers; flows between members of
 * one box make a loop on it, drawn when some of them are not allowed. A
 * Service folded into its workload keeps what its endpoint flows said
 * (`refuses`: endpoints that refuse some or all callers).
 * Pure: edges only merge the flows the engine judged.
 */
import type { Analysis, PodView } from "../engine/analysis/index.ts";
import {
  CHOSEN_MAX_EDGES,
  type GraphEdge,
  type GraphModel,
  type GraphNode,
  type GraphOptions,
} from "./model.ts";
import { graphEndpointId } from "../engine/analysis/constants.ts";
import { nodeBoxText } from "./text.ts";
import { familyResolver } from "./nsGroups.ts";
import { edgeOf, emptyMix, mergeFlows } from "./pathEdges.ts";
import { namespaceElements, nsGroupKey, idleKey, nsKey, type Ns, type Wl } from "./pathNodes.ts";
import { finish, NEVER, type Pace, type Steps } from "./pace.ts";

export {
  idleKey,
  idleNodeId,
  namespaceNodeId,
  nsGroupKey,
  nsGroupNodeId,
  nsKey,
  workloadNodeId,
} from "./pathNodes.ts";

/** Up to this many pods, every workload shows its pods (when they fit: POD_LEAVES). */
export const POD_LEVEL = 30;
/** At most this many elements at pod level, or the pane's budget if larger: past it workloads fold (Online Boutique's 25). */
export const POD_LEAVES = 14;

/** A typical box (text.ts sizes each to its text): the pane's element budget counts in these. */
export const PATH_SIZES = {
  leaf: { width: 210, height: 55 },
} as const;

/** The app a pod belongs to, by the labels Kubernetes' and Istio's conventions use. */
const appOf = (p: PodView) => p.labels.app ?? p.labels["app.kubernetes.io/name"];
const versionOf = (p: PodView) => p.labels.version ?? p.labels["app.kubernetes.io/version"];

export function buildPathGraph(a: Analysis, options: GraphOptions): GraphModel {
  return finish(pathGraphSteps(a, options, NEVER));
}

/** The paths lens's graph, built a slice at a time when `pace` says so (pace.ts). */
export function* pathGraphSteps(a: Analysis, options: GraphOptions, pace: Pace): Steps<GraphModel> {
  const { filters, grouping } = options;
  const open = options.open ?? {};
  const budget = options.budget ?? 30;
  const hiddenNs = new Set(filters.hiddenNamespaces);
  const familyKey = familyResolver(a, options.nsGroupBy);
  let hidden = 0;
  const versionShown = versionResolver(a);

  // The hierarchy: namespace -> workload -> pods, and each namespace's Services.
  const namespaces = new Map<string, Ns>();
  const nsOf = (name: string) => {
    let n = namespaces.get(name);
    if (!n) namespaces.set(name, (n = { name, workloads: new Map(), services: [], pods: 0 }));
    return n;
  };
  let totalPods = 0;
  for (const p of a.pods) {
    if (pace.due()) yield;
    if (hiddenNs.has(p.namespace)) {
      hidden++;
      continue;
    }
    const ns = nsOf(p.namespace);
    let w = ns.workloads.get(p.workload.id);
    if (!w)
      ns.workloads.set(
        p.workload.id,
        (w = {
          id: p.workload.id,
          kind: p.workload.kind,
          name: p.workload.name,
          namespace: p.namespace,
          pods: [],
        }),
      );
    w.pods.push(p);
    ns.pods++;
    totalPods++;
  }
  const serviceById = new Map(a.services.map((s) => [s.id, s]));
  for (const s of a.services) {
    if (hiddenNs.has(s.namespace)) {
      hidden++;
      continue;
    }
    nsOf(s.namespace).services.push(s.id);
  }

  if (pace.over()) yield;
  const backendOf = backendsOf(a);
  if (pace.over()) yield;

  const active = yield* activeIds(a, pace);

  // What is open: the user's choices, else the grouping's rule and the budget.
  const { sortedNs, nsOpen, familyOf, idleFolded, workloadOpen, idleWorkload, mergedInto } = decideFolds({
    a,
    namespaces,
    totalPods,
    hiddenNs,
    backendOf,
    active,
    grouping,
    budget,
    open,
    familyKey,
  });

  if (pace.over()) yield;
  // Elements (pathNodes.ts): per namespace its family's box, its own box, or its workloads, pods and Services.
  const leaf = { ...PATH_SIZES.leaf };
  const { nodes, leafOf, level } = namespaceElements(sortedNs, {
    open,
    leaf,
    familyOf,
    nsOpen,
    familyKey,
    idleFolded,
    workloadOpen,
    idleWorkload,
    mergedInto,
    active,
    backendOf,
    serviceById,
    versionShown,
  });
  routerElements(a, hiddenNs, leaf, nodes, leafOf);
  if (pace.over()) yield;
  const resolve = (id: string): string | undefined => {
    if (id.startsWith("external:")) return graphEndpointId(id);
    return leafOf.get(id);
  };

  // Edges: every flow merged by (source element, destination element) (pathEdges.ts); links (for the layout) ignore the filters.
  const {
    edges: merged,
    refusals,
    links,
    externals,
  } = yield* mergeFlows(
    a,
    { resolve, leafOf },
    filters,
    pace,
    grouping === "auto" ? Infinity : CHOSEN_MAX_EDGES,
  );
  for (const x of a.externalClients)
    if (externals.has(x.id))
      nodes.push({
        id: x.id,
        kind: "external",
        label: x.ip,
        sublabel: "client outside the cluster",
        parts: ["outside the cluster"],
        ...leaf,
      });

  // Every box sized to its name and second line (text.ts): wrapped, never cut.
  for (const n of nodes) {
    if (pace.due()) yield;
    const text = nodeBoxText(n);
    n.text = text;
    n.width = text.width;
    n.height = text.height;
  }
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const edges: GraphEdge[] = [];
  for (const [id, r] of refusals) {
    const n = byId.get(id);
    if (n && r.refuse > 0) n.refuses = r;
  }
  for (const e of merged) {
    if (pace.due()) yield;
    if (!byId.has(e.source) || !byId.has(e.target)) continue;
    const edge = edgeOf(e);
    if (!edge) continue;
    edges.push(edge);
    if (e.source === e.target) continue;
    const t = byId.get(e.target)!;
    t.inbound ??= emptyMix();
    t.inbound.allow += e.mix.allow;
    t.inbound.drop += e.mix.drop;
    t.inbound.partial += e.mix.partial;
  }
  edges.sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
  const sortedLinks: string[] = [];
  for (const [s, to] of links)
    if (byId.has(s)) for (const t of to) if (byId.has(t)) sortedLinks.push(`${s}>${t}`);
  sortedLinks.sort();
  const structureKey = `paths#${nodes.map((n) => n.id).join("|")}#${sortedLinks.join("|")}`;
  return { lens: "paths", level, nodes, edges, links: sortedLinks, structureKey, hidden, budget };
}

/**
 * An app whose pods carry different versions (Bookinfo's reviews v1, v2, v3): each shows its version,
 * unless its workload's name already says it.
 */
function versionResolver(a: Analysis): (p: PodView, workload: string) => string {
  const versions = new Map<string, Set<string>>();
  for (const p of a.pods) {
    const app = appOf(p);
    const v = versionOf(p);
    if (app === undefined || v === undefined) continue;
    const k = `${p.namespace}/${app}`;
    versions.set(k, (versions.get(k) ?? new Set()).add(v));
  }
  return (p: PodView, workload: string): string => {
    const app = appOf(p);
    const v = versionOf(p);
    if (app === undefined || v === undefined || (versions.get(`${p.namespace}/${app}`)?.size ?? 0) < 2)
      return "";
    return workload.split(/[-._]/).includes(v) ? "" : v;
  };
}

/** Which workload serves each Service: the one owning all its endpoints, if there is one (else null). */
function backendsOf(a: Analysis): Map<string, string | null> {
  const workloadOfPod = new Map<string, string>();
  for (const p of a.pods) workloadOfPod.set(p.id, p.workload.id);
  const backendOf = new Map<string, string | null>();
  for (const f of a.flows) {
    if (f.kind !== "endpoint") continue;
    const svc = f.from[0]!;
    const w = workloadOfPod.get(f.to) ?? null;
    const cur = backendOf.get(svc);
    if (cur === undefined) backendOf.set(svc, w);
    else if (cur !== w) backendOf.set(svc, null);
  }
  return backendOf;
}

/** Pods and Services some flow leaves or reaches: the rest are idle. */
function* activeIds(a: Analysis, pace: Pace): Steps<Set<string>> {
  const active = new Set<string>();
  for (const list of a.reach ? [a.flows, a.reach.flows] : [a.flows])
    for (const f of list) {
      if (pace.due()) yield;
      active.add(f.to);
      for (const x of f.from) active.add(x);
    }
  // The admitted pairs past the engine's listing limit: their Services and their groups' pods.
  const reach = a.reach;
  if (reach?.allowed?.length) {
    const done = new Uint8Array(reach.groups.length);
    for (const d of reach.allowed) {
      active.add(d.to);
      for (let r = 0; r + 1 < d.groups.length; r += 2)
        for (let k = d.groups[r]!; k < d.groups[r + 1]!; k++) {
          if (done[k]) continue;
          done[k] = 1;
          for (const i of reach.groups[k]!.pods) {
            const p = a.pods[i];
            if (p) active.add(p.id);
          }
        }
    }
  }
  return active;
}

/** L7 routers (Gateway, Ingress, VirtualService): one element each, between their clients and the Services they route to. */
function routerElements(
  a: Analysis,
  hiddenNs: ReadonlySet<string>,
  leaf: { width: number; height: number },
  nodes: GraphNode[],
  leafOf: Map<string, string>,
): void {
  for (const r of a.routers) {
    if (hiddenNs.has(r.namespace)) continue;
    const where = r.hosts.length
      ? r.hosts.slice(0, 2).join(", ")
      : r.ports.length
        ? `:${r.ports.join(", :")}`
        : "";
    nodes.push({
      id: r.id,
      kind: "router",
      label: r.name,
      sublabel: `${r.kind} · ${r.namespace}${where ? ` · ${where}` : ""}`,
      parts: [r.kind === "VirtualService" ? "mesh route" : r.kind, r.namespace, ...(where ? [where] : [])],
      namespace: r.namespace,
      ref: r.ref,
      ...leaf,
    });
    leafOf.set(r.id, r.id);
  }
}

interface FoldInputs {
  a: Analysis;
  namespaces: ReadonlyMap<string, Ns>;
  totalPods: number;
  hiddenNs: ReadonlySet<string>;
  backendOf: ReadonlyMap<string, string | null>;
  active: ReadonlySet<string>;
  grouping: GraphOptions["grouping"];
  budget: number;
  open: Record<string, boolean>;
  familyKey: (ns: string) => string | undefined;
}

/**
 * What is open: each workload (every pod while they fit the pane), each
 * namespace (in "auto", the largest close until the picture fits the
 * budget), the families closed namespaces fold into, and the open
 * namespaces whose idle elements fold into one. The user's choices win.
 */
function decideFolds({
  a,
  namespaces,
  totalPods,
  hiddenNs,
  backendOf,
  active,
  grouping,
  budget,
  open,
  familyKey,
}: FoldInputs) {
  // Every pod while they fit the pane: each pod and Service its own element, else each workload (its Services inside).
  const podLeaves =
    totalPods +
    a.services.filter((s) => !hiddenNs.has(s.namespace)).length +
    a.routers.length +
    a.externalClients.length;
  const podLevel =
    grouping === "pod" ||
    (grouping === "auto" && totalPods <= POD_LEVEL && podLeaves <= Math.max(budget, POD_LEAVES));
  const workloadOpen = (w: Wl) => open[w.id] ?? (podLevel || (w.pods.length === 1 && w.kind === "Pod"));
  const servicesMerged = (ns: Ns) => {
    let n = 0;
    for (const id of ns.services) {
      const b = backendOf.get(id);
      const w = b ? ns.workloads.get(b) : undefined;
      if (w && !workloadOpen(w)) n++;
    }
    return n;
  };
  const leavesOpen = (ns: Ns) => {
    let n = ns.services.length - servicesMerged(ns);
    for (const w of ns.workloads.values()) n += workloadOpen(w) ? w.pods.length : 1;
    return n;
  };
  /** A namespace's idle leaves as drawn at this fold (a closed workload is idle when none of its pods and Services is active). */
  const mergedInto = (ns: Ns, w: Wl) => ns.services.filter((sid) => backendOf.get(sid) === w.id);
  const idleWorkload = (ns: Ns, w: Wl) =>
    !w.pods.some((p) => active.has(p.id)) && !mergedInto(ns, w).some((sid) => active.has(sid));
  const idleLeaves = (ns: Ns) => {
    let n = 0;
    for (const w of ns.workloads.values())
      if (workloadOpen(w)) n += w.pods.filter((p) => !active.has(p.id)).length;
      else if (idleWorkload(ns, w)) n++;
    for (const sid of ns.services) {
      const b = backendOf.get(sid);
      const merged =
        b !== undefined && b !== null && ns.workloads.has(b) && !workloadOpen(ns.workloads.get(b)!);
      if (!merged && !active.has(sid)) n++;
    }
    return n;
  };
  const idleLeavesOf = (name: string) => {
    const ns = namespaces.get(name);
    return ns ? idleLeaves(ns) : undefined;
  };
  /** Open namespaces whose idle leaves fold into one element. */
  const idleFolded = new Set<string>();
  const nsOpen = new Map<string, boolean>();
  /** Closed namespaces folded further into their family (name prefix or label). */
  const familyOf = new Map<string, string>();
  const sortedNs = [...namespaces.values()].sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
  for (const ns of sortedNs) nsOpen.set(ns.name, open[nsKey(ns.name)] ?? grouping !== "namespace");
  if (grouping === "auto" && !podLevel) {
    // A small cluster keeps every pod (pod identity is what its lessons are about); a larger one closes namespaces the user did not choose, largest first, until the picture fits the budget.
    const size = new Map(sortedNs.map((ns) => [ns.name, leavesOpen(ns)]));
    let total =
      sortedNs.reduce((n, ns) => n + (nsOpen.get(ns.name) ? size.get(ns.name)! : 1), 0) +
      a.externalClients.length;
    // One namespace folded alone says nothing: only a cluster of several folds them.
    const closable = sortedNs
      .filter((ns) => sortedNs.length > 1 && open[nsKey(ns.name)] === undefined && size.get(ns.name)! > 1)
      .sort((x, y) => size.get(y.name)! - size.get(x.name)! || (x.name < y.name ? -1 : 1));
    for (const ns of closable) {
      if (total <= budget) break;
      nsOpen.set(ns.name, false);
      total -= size.get(ns.name)! - 1;
    }
    // Still too many (43 namespaces at M): closed namespaces of one family fold into one element, largest family first.
    if (total > budget) {
      const families = new Map<string, Ns[]>();
      for (const ns of sortedNs) {
        const k = familyKey(ns.name);
        if (k !== undefined) families.set(k, [...(families.get(k) ?? []), ns]);
      }
      const foldable = [...families.entries()]
        .filter(
          ([k, list]) =>
            list.length > 1 && open[nsGroupKey(k)] === undefined && list.every((ns) => !nsOpen.get(ns.name)),
        )
        .sort((x, y) => y[1].length - x[1].length || (x[0] < y[0] ? -1 : 1));
      for (const [k, list] of foldable) {
        if (total <= budget) break;
        for (const ns of list) familyOf.set(ns.name, k);
        total -= list.length - 1;
      }
    }
    // Still too many (one namespace of many workloads, most of them idle): the idle ones of each open namespace fold.
    if (total > budget)
      for (const ns of sortedNs
        .filter((ns) => nsOpen.get(ns.name) && open[idleKey(ns.name)] === undefined)
        .map((ns) => ({ ns, idle: idleLeaves(ns) }))
        .filter((x) => x.idle > 1)
        .sort((x, y) => y.idle - x.idle || (x.ns.name < y.ns.name ? -1 : 1))) {
        if (total <= budget) break;
        idleFolded.add(ns.ns.name);
        total -= ns.idle - 1;
      }
  }
  for (const [k, chosen] of Object.entries(open))
    if (chosen === false && k.startsWith("idle:") && (idleLeavesOf(k.slice(5)) ?? 0) > 1)
      idleFolded.add(k.slice(5));
  for (const [k, chosen] of Object.entries(open))
    if (chosen === false && k.startsWith("nsg:")) {
      const family = k.slice(4);
      const list = sortedNs.filter((ns) => familyKey(ns.name) === family);
      if (list.length > 1)
        for (const ns of list) {
          nsOpen.set(ns.name, false);
          familyOf.set(ns.name, family);
        }
    }

  return { sortedNs, nsOpen, familyOf, idleFolded, workloadOpen, idleWorkload, mergedInto };
}
