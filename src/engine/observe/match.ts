/**
 * An observed flow's end -> the model's pod (and its workload) or Service.
 * A real cluster's pod names carry hashes the model's do not share (the model
 * names a Deployment's pods by its own hash), so names are tried from the
 * most exact to the loosest, and the address last:
 *
 * 1. the pod's name in its namespace, exactly;
 * 2. a workload the record names (Hubble's `workloads`, a CSV's
 *    `NS/KIND/NAME` or `NS/NAME`): a ReplicaSet named `DEPLOY-HASH` is its
 *    Deployment's when the input has the Deployment;
 * 3. the pod name's prefix: the workload whose name, plus `-`, starts the
 *    pod's name (`frontend-7d9c8f-x2x9q` and Calico's aggregated
 *    `frontend-7d9c8f-*` are Deployment `frontend`), the longest such name;
 * 4. labels: the workload whose pod template's stable labels (`stableLabels`)
 *    the record's labels all carry, the one with the most such labels, when
 *    exactly one has that many;
 * 5. the address: a pod's IP, else a Service's ClusterIP.
 *
 * A pod stands for its workload: flows are compared per workload pair, and
 * the pod asked about is the matched one (1, 5) or the workload's first.
 */
import type { Model, Pod, Service, Workload } from "../model/types.ts";
import type { FlowEnd } from "./types.ts";

export type MatchHow = "name" | "workload" | "name-prefix" | "labels" | "ip" | "service";

export type Resolved =
  | { kind: "pod"; pod: Pod; workload: Workload; key: string; how: MatchHow }
  | { kind: "service"; service: Service; key: string; how: MatchHow };

/**
 * Labels a controller stamps per pod, per revision or per run: a selector
 * written from traffic must not name them (kube-controller-manager's
 * pod-template-hash for ReplicaSets, controller-revision-hash for
 * StatefulSets and DaemonSets, the StatefulSet pod's own name and index, a
 * Job run's name and uid).
 */
export const UNSTABLE_LABELS: ReadonlySet<string> = new Set([
  "pod-template-hash",
  "controller-revision-hash",
  "statefulset.kubernetes.io/pod-name",
  "apps.kubernetes.io/pod-index",
  "job-name",
  "batch.kubernetes.io/job-name",
  "controller-uid",
  "batch.kubernetes.io/controller-uid",
  "batch.kubernetes.io/job-completion-index",
]);

export function stableLabels(labels: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const k of Object.keys(labels).sort()) if (!UNSTABLE_LABELS.has(k)) out[k] = labels[k]!;
  return out;
}

export interface MatchIndex {
  model: Model;
  workloadOf: Map<Pod, Workload>;
  byNamespace: Map<string, Workload[]>;
  servicesByIP: Map<string, Service>;
  servicesByKey: Map<string, Service>;
}

export function matchIndex(model: Model): MatchIndex {
  const workloadOf = new Map<Pod, Workload>();
  const byNamespace = new Map<string, Workload[]>();
  for (const w of model.workloads) {
    for (const p of w.pods) workloadOf.set(p, w);
    if (w.pods.length === 0) continue;
    let list = byNamespace.get(w.namespace);
    if (!list) byNamespace.set(w.namespace, (list = []));
    list.push(w);
  }
  const servicesByIP = new Map<string, Service>();
  const servicesByKey = new Map<string, Service>();
  for (const s of model.services) {
    servicesByKey.set(s.key, s);
    for (const ip of s.clusterIPs) servicesByIP.set(ip, s);
  }
  return { model, workloadOf, byNamespace, servicesByIP, servicesByKey };
}

function podMatch(ix: MatchIndex, pod: Pod, how: MatchHow): Resolved | undefined {
  const workload = ix.workloadOf.get(pod);
  return workload ? { kind: "pod", pod, workload, key: workload.key, how } : undefined;
}

function workloadMatch(w: Workload, how: MatchHow): Resolved {
  return { kind: "pod", pod: w.pods[0]!, workload: w, key: w.key, how };
}

function byWorkloadName(
  ix: MatchIndex,
  ns: string,
  ref: { kind?: string; name: string },
): Workload | undefined {
  const list = ix.byNamespace.get(ns) ?? [];
  const kind = ref.kind?.toLowerCase();
  const exact = list.find((w) => w.name === ref.name && (!kind || w.kind.toLowerCase() === kind));
  if (exact) return exact;
  // A ReplicaSet DEPLOY-HASH whose Deployment is in the input (Hubble names either, by version).
  if (kind !== "replicaset") return undefined;
  let best: Workload | undefined;
  for (const w of list)
    if (
      w.kind === "Deployment" &&
      ref.name.startsWith(`${w.name}-`) &&
      (!best || w.name.length > best.name.length)
    )
      best = w;
  return best;
}

function byPrefix(ix: MatchIndex, ns: string, name: string, aggregated: boolean): Workload | undefined {
  const list = ix.byNamespace.get(ns) ?? [];
  // An aggregated prefix that starts pods of the model picks their workload.
  if (aggregated && name !== "") {
    const w = list.find((x) => x.pods.some((p) => p.name.startsWith(name)));
    if (w) return w;
  }
  let best: Workload | undefined;
  for (const w of list)
    if (name.startsWith(`${w.name}-`) && (!best || w.name.length > best.name.length)) best = w;
  return best;
}

function byLabels(
  ix: MatchIndex,
  ns: string,
  labels: Record<string, string>,
): Workload | { ambiguous: Workload[] } | undefined {
  let best: Workload[] = [];
  let size = 0;
  for (const w of ix.byNamespace.get(ns) ?? []) {
    const want = stableLabels(w.labels);
    const keys = Object.keys(want);
    if (keys.length === 0 || keys.some((k) => labels[k] !== want[k])) continue;
    if (keys.length > size) [best, size] = [[w], keys.length];
    else if (keys.length === size) best.push(w);
  }
  if (best.length === 1) return best[0];
  return best.length > 1 ? { ambiguous: best } : undefined;
}

/** The model's pod or Service for an observed end, or why none. */
export function resolveEnd(ix: MatchIndex, end: FlowEnd): Resolved | { reason: string } {
  const ns = end.namespace;
  if (ns && end.name && !end.aggregated) {
    const pod = ix.model.podsByKey.get(`${ns}/${end.name}` as Pod["key"]);
    const m = pod && podMatch(ix, pod, "name");
    if (m) return m;
  }
  if (ns)
    for (const ref of end.workloads ?? []) {
      const w = byWorkloadName(ix, ns, ref);
      if (w) return workloadMatch(w, "workload");
    }
  if (ns && end.name !== undefined) {
    const w = byPrefix(ix, ns, end.name, !!end.aggregated);
    if (w) return workloadMatch(w, "name-prefix");
  }
  let ambiguous: Workload[] | undefined;
  if (ns && end.labels) {
    const w = byLabels(ix, ns, end.labels);
    if (w && "ambiguous" in w) ambiguous = w.ambiguous;
    else if (w) return workloadMatch(w, "labels");
  }
  if (end.service) {
    const s = ix.servicesByKey.get(end.service);
    if (s) return { kind: "service", service: s, key: `service:${s.key}`, how: "service" };
  }
  if (end.ip) {
    const pod = ix.model.podsByIP.get(end.ip);
    const m = pod && podMatch(ix, pod, "ip");
    if (m) return m;
    const s = ix.servicesByIP.get(end.ip);
    if (s) return { kind: "service", service: s, key: `service:${s.key}`, how: "ip" };
  }
  if (ambiguous)
    return {
      reason: `its labels match ${ambiguous.length} workloads equally (${ambiguous.map((w) => `${w.kind} ${w.name}`).join(", ")})`,
    };
  const tried = [
    end.outside,
    ns &&
      end.name &&
      `no pod, workload or name prefix ${ns}/${end.name}${end.aggregated ? "*" : ""} in the input`,
    ns && end.labels && `its labels match no workload of namespace ${ns}`,
    end.service && `no Service ${end.service} in the input`,
    end.ip && `${end.ip} is no pod's or Service's address in the input`,
  ].filter((x): x is string => !!x);
  return { reason: tried.length ? tried.join("; ") : "the record names no pod, namespace or address" };
}
