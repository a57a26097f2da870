/**
 * The model's nodes and where pods land on them: nodes as written (or stood in for when the
 * input names none), their missing podCIDRs and InternalIPs synthesised from 10.244.N.0/24
 * and 172.18.0.N, and the scheduler's filters a pod without spec.nodeName is placed by
 * (nodeSelector, required node affinity, taints and tolerations, cordoned nodes), the
 * eligible node with the fewest pods first (build.ts follows these rules).
 */
import type { KObject } from "../parse/manifests.ts";
import { refOf } from "../parse/manifests.ts";
import { arr, bool, boundedJson, isObj, obj, str, strList, strMap, type Json } from "../parse/values.ts";
import {
  conditionTaints,
  daemonSetTolerations,
  parseTaints,
  parseTolerations,
  taintText,
  UNSCHEDULABLE_TAINT,
  untoleratedTaint,
  withDefaultTolerations,
  type Toleration,
} from "./taints.ts";
import { type Node, type Taint } from "./types.ts";

export const ZONE_LABEL = "topology.kubernetes.io/zone";
export const REGION_LABEL = "topology.kubernetes.io/region";

export function nodeFromObject(o: KObject): Node {
  const meta = obj(o.raw.metadata) ?? {};
  const spec = obj(o.raw.spec) ?? {};
  const status = obj(o.raw.status) ?? {};
  // kubelet's updateDefaultLabels sets the OS and architecture labels, GA and legacy beta, on every start:
  // a Node written without them still carries them (values assumed: linux, amd64).
  const labels = { ...KUBELET_OS_LABELS, ...strMap(meta.labels) };
  const addresses = arr(status.addresses)
    .filter(isObj)
    .map((a) => ({ type: str(a.type) ?? "", address: str(a.address) ?? "" }))
    .filter((a) => a.address);
  const podCIDRs = strList(spec.podCIDRs);
  const single = str(spec.podCIDR);
  if (podCIDRs.length === 0 && single) podCIDRs.push(single);
  const readyCond = arr(status.conditions)
    .filter(isObj)
    .find((c) => c.type === "Ready");
  const node: Node = {
    name: o.name,
    labels,
    internalIP: addresses.find((a) => a.type === "InternalIP")?.address ?? "",
    addresses,
    podCIDRs,
    ready: readyCond ? readyCond.status === "True" || readyCond.status === true : true,
    unschedulable: bool(spec.unschedulable) ?? false,
    taints: parseTaints(spec.taints),
    synthesized: false,
    source: refOf(o),
  };
  if (labels[ZONE_LABEL]) node.zone = labels[ZONE_LABEL];
  if (labels[REGION_LABEL]) node.region = labels[REGION_LABEL];
  if (
    node.unschedulable &&
    !node.taints.some((t) => t.key === UNSCHEDULABLE_TAINT && t.effect === "NoSchedule")
  )
    node.taints.push({ key: UNSCHEDULABLE_TAINT, effect: "NoSchedule" });
  // The node lifecycle controller's taints for its conditions (not-ready, unreachable, pressure).
  node.taints.push(...conditionTaints(status.conditions, node.taints));
  return node;
}

/**
 * The labels kubelet gives its Node besides the hostname (pkg/kubelet/kubelet_node_status.go initialNode,
 * updateDefaultLabels): kubernetes.io/os and kubernetes.io/arch, and the deprecated beta.kubernetes.io/os and
 * beta.kubernetes.io/arch it still applies for compatibility (k8s.io/api/core/v1 well_known_labels.go).
 * Manifests still select on the beta ones (Sock Shop's nodeSelector beta.kubernetes.io/os: linux).
 */
const KUBELET_OS_LABELS: Readonly<Record<string, string>> = {
  "kubernetes.io/os": "linux",
  "kubernetes.io/arch": "amd64",
  "beta.kubernetes.io/os": "linux",
  "beta.kubernetes.io/arch": "amd64",
};

export function synthesizeNode(name: string): Node {
  return {
    name,
    labels: { "kubernetes.io/hostname": name, ...KUBELET_OS_LABELS },
    internalIP: "",
    addresses: [],
    podCIDRs: [],
    ready: true,
    unschedulable: false,
    taints: [],
    synthesized: true,
  };
}

/** The scheduling fields that decide which nodes may run a pod. */
function schedulingKey(spec: Json): string {
  return boundedJson([
    spec.nodeSelector ?? null,
    obj(obj(spec.affinity)?.nodeAffinity)?.requiredDuringSchedulingIgnoredDuringExecution ?? null,
    spec.tolerations ?? null,
  ]);
}

/**
 * The spread rule (the eligible node with the fewest pods, ties by node
 * order) in O(log nodes) per pod: eligible nodes are found once per distinct
 * scheduling spec, and each spec keeps a min-heap of (load, node order).
 * Loads only grow, so an entry another spec's placement made stale is
 * corrected when it reaches the top.
 */
export function placementQueue(
  nodes: readonly Node[],
  load: Map<string, number>,
): (spec: Json) => Node | undefined {
  const width = Math.max(65536, nodes.length + 1);
  const keys = new WeakMap<Json, string>();
  const heaps = new Map<string, number[]>();
  const push = (h: number[], v: number) => {
    let i = h.push(v) - 1;
    while (i > 0) {
      const up = (i - 1) >> 1;
      if (h[up]! <= v) break;
      h[i] = h[up]!;
      i = up;
    }
    h[i] = v;
  };
  const pop = (h: number[]): number => {
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length === 0) return top;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= h.length) break;
      const c = l + 1 < h.length && h[l + 1]! < h[l]! ? l + 1 : l;
      if (h[c]! >= last) break;
      h[i] = h[c]!;
      i = c;
    }
    h[i] = last;
    return top;
  };
  return (spec) => {
    let key = keys.get(spec);
    if (key === undefined) keys.set(spec, (key = schedulingKey(spec)));
    let heap = heaps.get(key);
    if (!heap) {
      heap = [];
      nodes.forEach((n, i) => {
        if (eligible(spec, n, false)) push(heap!, load.get(n.name)! * width + i);
      });
      heaps.set(key, heap);
    }
    while (heap.length) {
      const v = pop(heap);
      const i = v % width;
      const node = nodes[i]!;
      const current = load.get(node.name)!;
      push(heap, current * width + i);
      if ((v - i) / width === current) return node;
    }
    return undefined;
  };
}

/** kubelet's default --max-pods. */
export const MAX_PODS_PER_NODE = 110;

/** The i-th synthesised node address (172.18.0.2 upward) and pod CIDR (10.244.1.0/24 upward), as kind clusters number them. */
const nthNodeIP = (i: number) =>
  `172.${18 + Math.floor((i + 2) / 65536)}.${Math.floor((i + 2) / 256) % 256}.${(i + 2) % 256}`;

const nthPodCIDR = (i: number) => `10.${244 + Math.floor((i + 1) / 256)}.${(i + 1) % 256}.0/24`;

/** The last synthesised pod CIDR: 10.255.255.0/24 (3,071 of them from 10.244.1.0/24). */
export const MAX_SYNTHESIZED_POD_CIDRS = (256 - 244) * 256 - 1;

/** Fills missing InternalIPs and podCIDRs without clashing with given ones; returns the nodes left without a podCIDR. */
export function fillNodeAddresses(nodes: Node[]): Node[] {
  const without: Node[] = [];
  const usedIPs = new Set(nodes.map((n) => n.internalIP).filter(Boolean));
  const usedCIDRs = new Set(nodes.flatMap((n) => n.podCIDRs));
  let nextIP = 0;
  let nextCIDR = 0;
  for (const n of nodes) {
    if (!n.internalIP) {
      while (
        usedIPs.has(nthNodeIP(nextIP)) ||
        nthNodeIP(nextIP).endsWith(".0") ||
        nthNodeIP(nextIP).endsWith(".1") ||
        nthNodeIP(nextIP).endsWith(".255")
      )
        nextIP++;
      n.internalIP = nthNodeIP(nextIP);
      usedIPs.add(n.internalIP);
      n.addresses.push({ type: "InternalIP", address: n.internalIP });
    }
    if (n.podCIDRs.length === 0) {
      while (nextCIDR < MAX_SYNTHESIZED_POD_CIDRS && usedCIDRs.has(nthPodCIDR(nextCIDR))) nextCIDR++;
      // Never past 10.255.255.0/24: the node gets no podCIDR (and its pods no IP) rather than 10.256.0.0/24.
      if (nextCIDR >= MAX_SYNTHESIZED_POD_CIDRS) {
        without.push(n);
        continue;
      }
      n.podCIDRs.push(nthPodCIDR(nextCIDR));
      usedCIDRs.add(n.podCIDRs[0]!);
    }
  }
  return without;
}

/** Required node affinity (requiredDuringSchedulingIgnoredDuringExecution): terms are ORed, expressions ANDed. */
function nodeAffinityMatches(spec: Json, node: Node): boolean {
  const terms = arr(
    obj(obj(obj(spec.affinity)?.nodeAffinity)?.requiredDuringSchedulingIgnoredDuringExecution)
      ?.nodeSelectorTerms,
  ).filter(isObj);
  if (terms.length === 0) return true;
  const test = (e: Json, value: string | undefined): boolean => {
    const values = strList(e.values);
    switch (str(e.operator)) {
      case "In":
        return value !== undefined && values.includes(value);
      case "NotIn":
        return value === undefined || !values.includes(value);
      case "Exists":
        return value !== undefined;
      case "DoesNotExist":
        return value === undefined;
      case "Gt":
        return value !== undefined && Number(value) > Number(values[0]);
      case "Lt":
        return value !== undefined && Number(value) < Number(values[0]);
      default:
        return false;
    }
  };
  return terms.some((t) => {
    const exprs = arr(t.matchExpressions).filter(isObj);
    const fields = arr(t.matchFields).filter(isObj);
    if (exprs.length === 0 && fields.length === 0) return false;
    return (
      exprs.every((e) => test(e, node.labels[str(e.key) ?? ""])) &&
      fields.every((e) => test(e, str(e.key) === "metadata.name" ? node.name : undefined))
    );
  });
}

/**
 * The taint that keeps the pod off the node: the scheduler's tainttoleration
 * and NodeUnschedulable filters, or, for a DaemonSet pod, the DaemonSet
 * controller's test with its automatic tolerations.
 */
export function blockingTaint(spec: Json, node: Node, daemonSet: boolean): Taint | undefined {
  if (node.taints.length === 0) return undefined;
  return untoleratedTaint(node.taints, podTolerations(spec, daemonSet));
}

/** The pod's tolerations as the apiserver stores them: its own, the DaemonSet controller's, then DefaultTolerationSeconds'. */
export function podTolerations(spec: Json, daemonSet: boolean): Toleration[] {
  const tolerations = parseTolerations(spec);
  if (daemonSet) tolerations.push(...daemonSetTolerations(bool(spec.hostNetwork) ?? false));
  return withDefaultTolerations(tolerations);
}

/** Why a node cannot run the pod, in a few words; undefined when it can. */
export function ineligibility(spec: Json, node: Node, daemonSet: boolean): string | undefined {
  const taint = blockingTaint(spec, node, daemonSet);
  if (taint)
    return `${node.name} has taint ${taintText(taint)}${taint.key === UNSCHEDULABLE_TAINT ? " (cordoned)" : ""}, which the pod does not tolerate`;
  const sel = strMap(spec.nodeSelector);
  for (const k in sel)
    if (node.labels[k] !== sel[k]) return `${node.name} does not match nodeSelector ${k}=${sel[k]}`;
  if (!nodeAffinityMatches(spec, node)) return `${node.name} does not match the required node affinity`;
  return undefined;
}

export function eligible(spec: Json, node: Node, daemonSet: boolean): boolean {
  if (blockingTaint(spec, node, daemonSet)) return false;
  const sel = strMap(spec.nodeSelector);
  for (const k in sel) if (node.labels[k] !== sel[k]) return false;
  return nodeAffinityMatches(spec, node);
}
