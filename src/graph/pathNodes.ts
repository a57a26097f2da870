/**
 * The paths lens's elements (paths.ts decides what is open): per namespace,
 * its family's box, its own box when closed, or its workloads, pods and
 * Services when open, with the idle ones folded into one when asked. Each
 * pod and Service lands in exactly one element (`leafOf`).
 */
import type { Analysis, PodView } from "../engine/analysis/index.ts";
import type { GraphModel, GraphNode } from "./model.ts";
import { podSuffix } from "./text.ts";
import { familyTitle } from "./nsGroups.ts";

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

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** A workload in the hierarchy, with its pods (hidden namespaces left out). */
export interface Wl {
  id: string;
  kind: string;
  name: string;
  namespace: string;
  pods: PodView[];
}

/** A namespace in the hierarchy: its workloads, its Services' ids, its pod count. */
export interface Ns {
  name: string;
  workloads: Map<string, Wl>;
  services: string[];
  pods: number;
}

/** What paths.ts decided is open, and what the elements need to know of the flows. */
export interface FoldPlan {
  open: Record<string, boolean>;
  leaf: { width: number; height: number };
  /** Closed namespaces folded into their family. */
  familyOf: ReadonlyMap<string, string>;
  nsOpen: ReadonlyMap<string, boolean>;
  familyKey: (ns: string) => string | undefined;
  /** Open namespaces whose idle elements fold into one. */
  idleFolded: ReadonlySet<string>;
  workloadOpen: (w: Wl) => boolean;
  idleWorkload: (ns: Ns, w: Wl) => boolean;
  /** The Services drawn inside a closed workload. */
  mergedInto: (ns: Ns, w: Wl) => string[];
  /** Pods and Services some flow leaves or reaches. */
  active: ReadonlySet<string>;
  /** The workload that serves each Service (null: several). */
  backendOf: ReadonlyMap<string, string | null>;
  serviceById: ReadonlyMap<string, Analysis["services"][number]>;
  versionShown: (p: PodView, workload: string) => string;
}

interface Elements {
  nodes: GraphNode[];
  /** Each pod's and Service's element. */
  leafOf: Map<string, string>;
  level: GraphModel["level"];
}

export function namespaceElements(sortedNs: readonly Ns[], plan: FoldPlan): Elements {
  const out: Elements = { nodes: [], leafOf: new Map(), level: "pod" };
  const familyNodes = new Map<string, GraphNode>();
  for (const ns of sortedNs) {
    const family = plan.familyOf.get(ns.name);
    if (family !== undefined) familyElement(out, familyNodes, ns, family, plan);
    else if (!plan.nsOpen.get(ns.name)) closedNamespaceElement(out, ns, plan);
    else openNamespaceElements(out, ns, plan);
  }
  return out;
}

/** A closed namespace folded into its family's one box (created by the first of them). */
function familyElement(
  out: Elements,
  familyNodes: Map<string, GraphNode>,
  ns: Ns,
  family: string,
  plan: FoldPlan,
): void {
  out.level = "namespace";
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
      ...plan.leaf,
    };
    familyNodes.set(family, g);
    out.nodes.push(g);
  }
  g.count! += ns.pods;
  g.nsCount = (g.nsCount ?? 0) + 1;
  for (const w of ns.workloads.values())
    for (const p of w.pods) {
      g.members!.push(p.id);
      out.leafOf.set(p.id, id);
    }
  for (const s of ns.services) {
    g.members!.push(s);
    out.leafOf.set(s, id);
  }
  g.sublabel = `${plural(g.nsCount, "namespace")} · ${plural(g.count!, "pod")}`;
  g.parts = [plural(g.nsCount, "namespace"), plural(g.count!, "pod")];
}

/** A closed namespace: one box for its workloads, pods and Services. */
function closedNamespaceElement(out: Elements, ns: Ns, plan: FoldPlan): void {
  const id = namespaceNodeId(ns.name);
  const family = plan.familyKey(ns.name);
  out.level = "namespace";
  const members: string[] = [];
  for (const w of ns.workloads.values()) for (const p of w.pods) members.push(p.id);
  out.nodes.push({
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
    ...(family !== undefined && plan.open[nsGroupKey(family)] === true ? { fold: nsGroupKey(family) } : {}),
    ...plan.leaf,
  });
  for (const m of members) out.leafOf.set(m, id);
  for (const s of ns.services) out.leafOf.set(s, id);
}

/** An open namespace: its workloads (open: their pods), its own Services, and its idle ones folded when asked. */
function openNamespaceElements(out: Elements, ns: Ns, plan: FoldPlan): void {
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
        ...plan.leaf,
      };
      out.nodes.push(idle);
    }
    tally[what]++;
    idle.count! += pods;
    for (const m of ids) {
      idle.members!.push(m);
      out.leafOf.set(m, idle.id);
    }
    idle.parts = [
      ns.name,
      ...(["workload", "pod", "Service"] as const).flatMap((k) => (tally[k] ? [plural(tally[k], k)] : [])),
    ];
  };
  const folding = plan.idleFolded.has(ns.name);
  for (const w of ns.workloads.values()) {
    if (folding && !plan.workloadOpen(w) && plan.idleWorkload(ns, w)) {
      toIdle([...w.pods.map((p) => p.id), ...plan.mergedInto(ns, w)], "workload", w.pods.length);
      continue;
    }
    if (plan.workloadOpen(w)) {
      for (const p of w.pods) {
        if (folding && !plan.active.has(p.id)) {
          toIdle([p.id], "pod", 1);
          continue;
        }
        const version = plan.versionShown(p, w.name);
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
          ...plan.leaf,
        };
        if (!p.ready) n.warning = p.terminating ? "terminating" : `not ready (${p.phase})`;
        else if (p.terminating) n.warning = "terminating";
        n.parts = [version, p.namespace, n.warning ?? p.ips[0] ?? "no IP"];
        out.nodes.push(n);
        out.leafOf.set(p.id, p.id);
      }
      continue;
    }
    if (out.level === "pod") out.level = "workload";
    const id = workloadNodeId(w.id);
    const services = ns.services.filter((s) => plan.backendOf.get(s) === w.id);
    const n: GraphNode = {
      id,
      kind: "group",
      label: w.name,
      sublabel: `${w.kind} · ${ns.name}${services.length ? ` · Service ${services.map((s) => plan.serviceById.get(s)!.name).join(", ")}` : ""}`,
      namespace: ns.name,
      count: w.pods.length,
      members: w.pods.map((p) => p.id),
      toggle: w.id,
      fold: nsKey(ns.name),
      ...plan.leaf,
    };
    if (services.length) n.services = services;
    const notReady = w.pods.filter((p) => !p.ready).length;
    if (notReady) n.warning = `${notReady} of ${w.pods.length} not ready`;
    n.parts = [
      KIND_WORD[w.kind] ?? w.kind,
      ns.name,
      w.pods[0] ? plan.versionShown(w.pods[0], w.name) : "",
      // Its Services are inside it (their names are in the title and the details).
      services.length ? (services.length === 1 ? "svc" : `${services.length} svc`) : "",
      n.warning ?? "",
    ];
    out.nodes.push(n);
    for (const p of w.pods) out.leafOf.set(p.id, id);
    for (const s of services) out.leafOf.set(s, id);
  }
  for (const sid of ns.services) {
    if (out.leafOf.has(sid)) continue;
    if (folding && !plan.active.has(sid)) {
      toIdle([sid], "Service", 0);
      continue;
    }
    const s = plan.serviceById.get(sid)!;
    const ports = s.ports.map((p) => `${p.port}/${p.protocol}`).join(", ");
    const shownPorts = s.ports.slice(0, 3).map((p) => `${p.port}/${p.protocol}`);
    if (s.ports.length > 3) shownPorts.push(`+${s.ports.length - 3} ports`);
    out.nodes.push({
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
      ...plan.leaf,
    });
    out.leafOf.set(s.id, s.id);
  }
}
