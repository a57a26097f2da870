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
import type {
  Analysis,
  DropCause,
  Flow,
  FlowKind,
  PodView,
  ReachView,
  RefView,
  Verdict,
} from "../engine/analysis/index.ts";
import {
  edgeRefs,
  type EdgeFlow,
  type GraphEdge,
  type GraphModel,
  type GraphNode,
  type GraphOptions,
} from "./model.ts";
import { graphEndpointId } from "../engine/analysis/constants.ts";
import { boxText, podSuffix } from "./text.ts";
import {
  cniDialectOf,
  dropLayerWord,
  layerPasses,
  noteTag,
  tierTag,
  type EdgeNoteId,
  type Tier,
} from "./verdicts.ts";
import { familyResolver, familyTitle } from "./nsGroups.ts";
import { GroupSegments } from "./segments.ts";

/** Up to this many pods, every workload shows its pods (when they fit: POD_LEAVES). */
export const POD_LEVEL = 30;
/** At most this many elements at pod level, or the pane's budget if larger: past it workloads fold (Online Boutique's 25). */
export const POD_LEAVES = 14;

/** A typical box (text.ts sizes each to its text): the pane's element budget counts in these. */
export const PATH_SIZES = {
  leaf: { width: 210, height: 55 },
} as const;

export const nsKey = (ns: string) => `ns:${ns}`;
export const namespaceNodeId = (ns: string) => `group:namespace:${ns}`;
/**
 * Namespaces of one family (a name prefix, `billing`, or a label, `team=billing`: see nsGroups.ts) fold into
 * one element when folded namespaces alone do not fit.
 */
export const nsGroupKey = (family: string) => `nsg:${family}`;
export const nsGroupNodeId = (family: string) => `group:nsgroup:${family}`;
/** A namespace's elements that no flow reaches or leaves, folded into one when the picture is too full (Kiali hides idle nodes). */
export const idleKey = (ns: string) => `idle:${ns}`;
export const idleNodeId = (ns: string) => `group:idle:${ns}`;
export const workloadNodeId = (workloadId: string) => `group:${workloadId}`;

type Mix = { allow: number; drop: number; partial: number };

const KIND_WORD: Record<string, string> = {
  Deployment: "deploy",
  StatefulSet: "sts",
  DaemonSet: "ds",
  ReplicaSet: "rs",
  Job: "job",
  CronJob: "cronjob",
  Pod: "pod",
};

/** A ReplicaSet's pod's short name: its workload and the suffix that tells it apart (text.ts podSuffix). */
function shortName(name: string, w: { name: string; kind: string; pods: PodView[] }): { short?: string } {
  if (w.kind === "Pod" || !name.startsWith(`${w.name}-`)) return {};
  const rest = name.slice(w.name.length + 1);
  if (!rest.includes("-")) return {};
  return {
    short: `${w.name} · ${podSuffix(
      name,
      w.name,
      w.pods.map((x) => x.name),
    )}`,
  };
}

/** The app a pod belongs to, by the labels Kubernetes' and Istio's conventions use. */
const appOf = (p: PodView) => p.labels.app ?? p.labels["app.kubernetes.io/name"];
const versionOf = (p: PodView) => p.labels.version ?? p.labels["app.kubernetes.io/version"];
const emptyMix = (): Mix => ({ allow: 0, drop: 0, partial: 0 });

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

export function buildPathGraph(a: Analysis, options: GraphOptions): GraphModel {
  const { filters, grouping } = options;
  const open = options.open ?? {};
  const budget = options.budget ?? 30;
  const hiddenNs = new Set(filters.hiddenNamespaces);
  const familyKey = familyResolver(a, options.nsGroupBy);
  let hidden = 0;
  // An app whose pods carry different versions (Bookinfo's reviews v1, v2, v3): each shows its version,
  // unless its workload's name already says it.
  const versions = new Map<string, Set<string>>();
  for (const p of a.pods) {
    const app = appOf(p);
    const v = versionOf(p);
    if (app === undefined || v === undefined) continue;
    const k = `${p.namespace}/${app}`;
    versions.set(k, (versions.get(k) ?? new Set()).add(v));
  }
  const versionShown = (p: PodView, workload: string): string => {
    const app = appOf(p);
    const v = versionOf(p);
    if (app === undefined || v === undefined || (versions.get(`${p.namespace}/${app}`)?.size ?? 0) < 2)
      return "";
    return workload.split(/[-._]/).includes(v) ? "" : v;
  };

  // The hierarchy: namespace -> workload -> pods, and each namespace's Services.
  interface Wl {
    id: string;
    kind: string;
    name: string;
    namespace: string;
    pods: PodView[];
  }
  interface Ns {
    name: string;
    workloads: Map<string, Wl>;
    services: string[];
    pods: number;
  }
  const namespaces = new Map<string, Ns>();
  const nsOf = (name: string) => {
    let n = namespaces.get(name);
    if (!n) namespaces.set(name, (n = { name, workloads: new Map(), services: [], pods: 0 }));
    return n;
  };
  let totalPods = 0;
  for (const p of a.pods) {
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

  // Which workload serves each Service: the one owning all its endpoints, if there is one.
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

  // Pods and Services some flow leaves or reaches: the rest are idle.
  const active = new Set<string>();
  for (const list of a.reach ? [a.flows, a.reach.flows] : [a.flows])
    for (const f of list) {
      active.add(f.to);
      for (const x of f.from) active.add(x);
    }

  // What is open.
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

  // Elements.
  const nodes: GraphNode[] = [];
  const leafOf = new Map<string, string>();
  const leaf = { ...PATH_SIZES.leaf };
  let level: GraphModel["level"] = "pod";
  const familyNodes = new Map<string, GraphNode>();
  for (const ns of sortedNs) {
    const family = familyOf.get(ns.name);
    if (family !== undefined) {
      level = "namespace";
      const id = nsGroupNodeId(family);
      let g = familyNodes.get(family);
      if (!g) {
        g = {
          id,
          kind: "namespace",
          label: familyTitle(family),
          sublabel: "",
          count: 0,
          members: [],
          toggle: nsGroupKey(family),
          ...leaf,
        };
        familyNodes.set(family, g);
        nodes.push(g);
      }
      g.count! += ns.pods;
      g.nsCount = (g.nsCount ?? 0) + 1;
      for (const w of ns.workloads.values())
        for (const p of w.pods) {
          g.members!.push(p.id);
          leafOf.set(p.id, id);
        }
      for (const s of ns.services) {
        g.members!.push(s);
        leafOf.set(s, id);
      }
      g.sublabel = `${plural(g.nsCount, "namespace")} · ${plural(g.count!, "pod")}`;
      g.parts = [plural(g.nsCount, "namespace"), plural(g.count!, "pod")];
      continue;
    }
    if (!nsOpen.get(ns.name)) {
      const id = namespaceNodeId(ns.name);
      const family = familyKey(ns.name);
      level = "namespace";
      const members: string[] = [];
      for (const w of ns.workloads.values()) for (const p of w.pods) members.push(p.id);
      nodes.push({
        id,
        kind: "namespace",
        label: ns.name,
        sublabel: `${plural(ns.workloads.size, "workload")} · ${plural(ns.pods, "pod")} · ${plural(ns.services.length, "Service")}`,
        parts: [plural(ns.pods, "pod"), plural(ns.workloads.size, "workload")],
        namespace: ns.name,
        count: ns.pods,
        workloads: ns.workloads.size,
        members: [...members, ...ns.services],
        toggle: nsKey(ns.name),
        ...(family !== undefined && open[nsGroupKey(family)] === true ? { fold: nsGroupKey(family) } : {}),
        ...leaf,
      });
      for (const m of members) leafOf.set(m, id);
      for (const s of ns.services) leafOf.set(s, id);
      continue;
    }
    // The namespace's idle elements, as one (when folded): its members, and how many workloads and Services.
    let idle: GraphNode | undefined;
    const tally: Record<"workload" | "pod" | "Service", number> = { workload: 0, pod: 0, Service: 0 };
    const toIdle = (ids: string[], what: keyof typeof tally, pods: number) => {
      if (!idle) {
        idle = {
          id: idleNodeId(ns.name),
          kind: "namespace",
          label: "idle",
          sublabel: `${ns.name}: workloads and Services no flow reaches or leaves`,
          namespace: ns.name,
          count: 0,
          members: [],
          toggle: idleKey(ns.name),
          ...leaf,
        };
        nodes.push(idle);
      }
      tally[what]++;
      idle.count! += pods;
      for (const m of ids) {
        idle.members!.push(m);
        leafOf.set(m, idle.id);
      }
      idle.parts = [
        ns.name,
        ...(["workload", "pod", "Service"] as const).flatMap((k) => (tally[k] ? [plural(tally[k], k)] : [])),
      ];
    };
    const folding = idleFolded.has(ns.name);
    for (const w of ns.workloads.values()) {
      if (folding && !workloadOpen(w) && idleWorkload(ns, w)) {
        toIdle([...w.pods.map((p) => p.id), ...mergedInto(ns, w)], "workload", w.pods.length);
        continue;
      }
      if (workloadOpen(w)) {
        for (const p of w.pods) {
          if (folding && !active.has(p.id)) {
            toIdle([p.id], "pod", 1);
            continue;
          }
          const version = versionShown(p, w.name);
          const n: GraphNode = {
            id: p.id,
            kind: "pod",
            label: p.name,
            sublabel: `${p.namespace} · ${p.ips[0] ?? "no IP"}`,
            // A ReplicaSet's pod (`reviews-v1-7f8c9d6b5-9fqdr`): its workload's name and the part that tells it
            // from its siblings, the same form for every such pod; a StatefulSet's `backend-1` reads as it is.
            ...shortName(p.name, w),
            namespace: p.namespace,
            ref: p.ref,
            fold: w.pods.length > 1 || w.kind !== "Pod" ? w.id : nsKey(ns.name),
            ...leaf,
          };
          if (!p.ready) n.warning = p.terminating ? "terminating" : `not ready (${p.phase})`;
          else if (p.terminating) n.warning = "terminating";
          n.parts = [version, p.namespace, n.warning ?? p.ips[0] ?? "no IP"];
          nodes.push(n);
          leafOf.set(p.id, p.id);
        }
        continue;
      }
      if (level === "pod") level = "workload";
      const id = workloadNodeId(w.id);
      const services = ns.services.filter((s) => backendOf.get(s) === w.id);
      const n: GraphNode = {
        id,
        kind: "group",
        label: w.name,
        sublabel: `${w.kind} · ${ns.name}${services.length ? ` · Service ${services.map((s) => serviceById.get(s)!.name).join(", ")}` : ""}`,
        namespace: ns.name,
        count: w.pods.length,
        members: w.pods.map((p) => p.id),
        toggle: w.id,
        fold: nsKey(ns.name),
        ...leaf,
      };
      if (services.length) n.services = services;
      const notReady = w.pods.filter((p) => !p.ready).length;
      if (notReady) n.warning = `${notReady} of ${w.pods.length} not ready`;
      n.parts = [
        KIND_WORD[w.kind] ?? w.kind,
        ns.name,
        w.pods[0] ? versionShown(w.pods[0], w.name) : "",
        // Its Services are inside it (their names are in the title and the details).
        services.length ? (services.length === 1 ? "svc" : `${services.length} svc`) : "",
        n.warning ?? "",
      ];
      nodes.push(n);
      for (const p of w.pods) leafOf.set(p.id, id);
      for (const s of services) leafOf.set(s, id);
    }
    for (const sid of ns.services) {
      if (leafOf.has(sid)) continue;
      if (folding && !active.has(sid)) {
        toIdle([sid], "Service", 0);
        continue;
      }
      const s = serviceById.get(sid)!;
      const ports = s.ports.map((p) => `${p.port}/${p.protocol}`).join(", ");
      const shownPorts = s.ports.slice(0, 3).map((p) => `${p.port}/${p.protocol}`);
      if (s.ports.length > 3) shownPorts.push(`+${s.ports.length - 3} ports`);
      nodes.push({
        id: s.id,
        kind: "service",
        label: s.name,
        sublabel: `${s.namespace} · ${s.type}${ports ? ` · ${ports}` : ""}`,
        parts: [
          "svc",
          s.namespace,
          s.headless ? "headless" : s.type === "ClusterIP" ? "" : s.type,
          ...shownPorts,
        ],
        namespace: s.namespace,
        ref: s.ref,
        fold: nsKey(ns.name),
        ...leaf,
      });
      leafOf.set(s.id, s.id);
    }
  }
  // L7 routers (Gateway, Ingress, VirtualService): one element each, between their clients and the Services they route to.
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
  const resolve = (id: string): string | undefined => {
    if (id.startsWith("external:")) return graphEndpointId(id);
    return leafOf.get(id);
  };

  // Edges: every flow merged by (source element, destination element); links (for the layout) ignore the filters.
  // By source element, then target element: no key string made per merged flow.
  const acc = new Map<string, Map<string, EdgeAcc>>();
  /** Per element: endpoint flows of the Services folded into it that refuse some or all callers, and of how many. */
  const refusals = new Map<string, { refuse: number; of: number; refs: RefView[] }>();
  const links = new Map<string, Set<string>>();
  const externals = new Set<string>();
  const seen = (list: RefView[], r: RefView) =>
    list.some((x) => x.kind === r.kind && x.name === r.name && x.namespace === r.namespace);
  const accOf = (source: string, target: string, kind: FlowKind): EdgeAcc => {
    let from = acc.get(source);
    if (!from) acc.set(source, (from = new Map()));
    let e = from.get(target);
    if (!e) {
      e = {
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
      from.set(target, e);
    }
    return e;
  };
  const flowLists = a.reach ? [a.flows, a.reach.flows] : [a.flows];
  for (const list of flowLists)
    for (const f of list) {
      const target = resolve(f.to);
      if (!target) continue;
      const port = `${f.port}/${f.protocol}`;
      const chosen = (filters.port === "all" || port === filters.port) && layerPasses(filters.layer, f);
      const passes = chosen && !(filters.onlyDrops && f.verdict === "allow");
      // A flow's senders mostly share one element: each run of senders in one element is added once, with its count.
      let source: string | undefined;
      let n = 0;
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
        if (source !== undefined && n > 0) addRun(f, source, target, n, port, chosen, passes);
        source = next;
        n = 1;
        if (from !== undefined && from.startsWith("external:")) externals.add(next!);
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
    const e = accOf(source, target, f.kind);
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
    if (e.reasons.size < 12) e.reasons.add(`${port}: ${f.reason}`);
    // Examples, refused ones first: an edge can merge thousands of flows, and its count holds them all.
    const list = f.verdict === "allow" ? e.allowFlows : e.flows;
    if (list.length >= FLOW_EXAMPLES) {
      if (f.verdict === "allow") e.unlistedAllowed++;
      else e.unlisted++;
      return;
    }
    list.push({
      flowId: f.id,
      from: f.client ?? firstFrom(f, source),
      traceTo: f.traceTo,
      port: f.port,
      protocol: f.protocol,
      verdict: f.verdict,
      reason: f.reason,
    });
  }
  /** The first sender of `f` in element `source` (the flow's example caller from that element). */
  function firstFrom(f: Flow, source: string): string {
    for (const x of f.from) if (resolve(x) === source) return x;
    return f.from[0]!;
  }
  if (a.reach?.drops?.length) addReachDrops(a, a.reach, resolve, filters, accOf);
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
    const prefix = n.kind === "group" ? `${n.count}× ` : "";
    const text = boxText(n.short ?? n.label, n.parts ?? [n.sublabel ?? ""], prefix);
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
  for (const e of [...acc.values()].flatMap((m) => [...m.values()])) {
    if (!byId.has(e.source) || !byId.has(e.target)) continue;
    const kinds = (["allow", "drop", "partial"] as const).filter((v) => e.mix[v] > 0);
    const verdict: Verdict = kinds.length === 1 ? kinds[0]! : "partial";
    const loop = e.source === e.target;
    if (loop && verdict === "allow") continue;
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
    const tierLabel =
      e.tier && verdict !== "allow" && note !== "cni" ? `${tierTag(e.tier)} · ${byRef}` : byRef;
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
    edges.push(edge);
    if (loop) continue;
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

/** An edge being gathered: every flow between one pair of drawn elements. */
interface EdgeAcc {
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

/**
 * The pairs no endpoint admits (`reach.drops`, compact: source groups, not
 * pods) onto the edges of the current fold: each group's pods resolve to
 * their elements once, and each record adds its dropped groups' pods to the
 * edge from their element to the Service's. Drops draw no layout links:
 * the picture is placed by who can connect, and the drops are drawn on it.
 */
function addReachDrops(
  a: Analysis,
  reach: ReachView,
  resolve: (id: string) => string | undefined,
  filters: GraphOptions["filters"],
  accOf: (source: string, target: string, kind: FlowKind) => EdgeAcc,
) {
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
  // The common case, a group drawn as one element: summed a stretch of groups at a time (segments.ts).
  const segments = new GroupSegments(
    Int32Array.from(groupElems, (ge) => (ge.length === 2 ? ge[0]! : -1)),
    Float64Array.from(groupElems, (ge) => (ge.length === 2 ? ge[1]! : 0)),
  );
  const pods = new Float64Array(elems.length);
  const groups = new Int32Array(elems.length);
  const first = new Int32Array(elems.length);
  const touched: number[] = [];
  const count = (e: number, k: number, n: number, weight: number) => {
    if (groups[e] === 0) {
      touched.push(e);
      first[e] = k;
    }
    groups[e]! += n;
    pods[e]! += weight;
  };
  const add = (one: number, k: number, n: number, weight: number) => {
    if (one >= 0) return count(one, k, n, weight);
    // Groups split over elements (or drawn nowhere), one at a time.
    for (let g = k; g < k + n; g++) {
      const ge = groupElems[g]!;
      for (let j = 0; j < ge.length; j += 2) count(ge[j]!, g, 1, ge[j + 1]!);
    }
  };
  // Per target element, its edges by source element: one keyed lookup per pair of elements, not per record.
  const byTarget = new Map<string, (EdgeAcc | undefined)[]>();
  for (const d of reach.drops) {
    const target = resolve(d.to);
    if (!target) continue;
    const port = `${d.port}/${d.protocol}`;
    if (filters.port !== "all" && port !== filters.port) continue;
    if (!layerPasses(filters.layer, d)) continue;
    let accs = byTarget.get(target);
    if (!accs) byTarget.set(target, (accs = []));
    segments.forEach(d.groups, add);
    const layer = dropLayerWord(d);
    for (const e of touched) {
      const acc = (accs[e] ??= accOf(elems[e]!, target, "service"));
      acc.mix.drop += pods[e]!;
      acc.causes.add("policy");
      acc.ports.add(port);
      acc.drops += groups[e]!;
      if (d.side === "both") acc.quietDrops += groups[e]!;
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
      if (acc.reasons.size < 12) acc.reasons.add(`${d.port}/${d.protocol}: ${d.reason}`);
      const example =
        acc.flows.length < FLOW_EXAMPLES ? a.pods[reach.groups[first[e]!]!.pods[0]!] : undefined;
      if (!example) acc.unlisted += groups[e]!;
      else
        acc.flows.push({
          flowId: `${d.id}|${first[e]}`,
          from: example.id,
          traceTo: d.traceTo,
          port: d.port,
          protocol: d.protocol,
          verdict: "drop",
          reason: d.reason,
        });
      pods[e] = 0;
      groups[e] = 0;
    }
    touched.length = 0;
  }
}
