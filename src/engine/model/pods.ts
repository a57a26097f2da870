/**
 * Placed pod inputs -> the model's pods: addresses (given ones reserved
 * first, then each node's podCIDR in order), readiness (IsPodReady, and
 * MarkPodsNotReady on a node that is not ready), ports and service account;
 * sorted by key, with the indexes by key and by IP. The rules are in
 * build.ts's header.
 */
import type { Diagnostic } from "../parse/diagnostics.ts";
import { refOf, type KObject } from "../parse/manifests.ts";
import { arr, bool, int, isObj, str, type Json } from "../parse/values.ts";
import { lineOf } from "../parse/positions.ts";
import { podKey, type PodKey } from "./ids.ts";
import { nthAddress, parseCidr, parseIP, type Cidr } from "./ip.ts";
import { DEFAULT_TOLERATION_SECONDS, noExecuteOutcome, taintText } from "./taints.ts";
import type { ContainerPort, Node, Pod, Protocol } from "./types.ts";
import { podTolerations } from "./nodes.ts";
import type { PlacedPod } from "./placement.ts";
import type { PodSpecInput } from "./workloads.ts";

/**
 * The pod's service account: spec.serviceAccountName, else the deprecated
 * alias spec.serviceAccount (kubernetes pkg/apis/core/v1/conversion.go,
 * Convert_v1_PodSpec_To_core_PodSpec: "if ServiceAccountName is empty, take
 * DeprecatedServiceAccount"), else "default" (the ServiceAccount admission
 * plugin's DefaultServiceAccountName).
 */
export function serviceAccountOf(spec: Json): string {
  return str(spec.serviceAccountName) || str(spec.serviceAccount) || "default";
}

export function containerPorts(spec: Json): ContainerPort[] {
  const out: ContainerPort[] = [];
  for (const list of [spec.containers, spec.initContainers]) {
    for (const c of arr(list)) {
      if (!isObj(c)) continue;
      // Restartable init containers (sidecars) serve ports; plain init containers do not run alongside.
      if (list === spec.initContainers && c.restartPolicy !== "Always") continue;
      for (const p of arr(c.ports)) {
        if (!isObj(p)) continue;
        const port = int(p.containerPort);
        if (port === undefined) continue;
        const protocol = (str(p.protocol) ?? "TCP") as Protocol;
        const cp: ContainerPort = {
          containerPort: port,
          protocol: protocol === "UDP" || protocol === "SCTP" ? protocol : "TCP",
        };
        const name = str(p.name);
        if (name) cp.name = name;
        const hp = int(p.hostPort);
        if (hp !== undefined) cp.hostPort = hp;
        out.push(cp);
      }
    }
  }
  return out;
}

function readiness(status: Json | undefined): { phase: string; ready: boolean } {
  if (!status) return { phase: "Running", ready: true };
  const phase = str(status.phase) ?? "Running";
  const cond = arr(status.conditions)
    .filter(isObj)
    .find((c) => c.type === "Ready");
  // k8s.io/kubernetes pkg/api/v1/pod IsPodReady: ready only with a Ready condition whose status is True.
  return { phase, ready: cond !== undefined && (cond.status === "True" || cond.status === true) };
}

/** `list` and `item` in a new list of exactly their size: one grown by push keeps room for 16 more. */
function appended(list: readonly string[], item: string): string[] {
  return list.length === 0 ? [item] : [...list, item];
}

function statusIPs(status: Json | undefined): string[] {
  if (!status) return [];
  // Built at its size (`appended`), as allocate's lists are (runningPods).
  let ips: string[] = [];
  for (const p of arr(status.podIPs)) {
    const s = isObj(p) ? str(p.ip) : undefined;
    if (s && parseIP(s)) ips = appended(ips, s);
  }
  const single = str(status.podIP);
  if (ips.length === 0 && single && parseIP(single)) ips = [single];
  return ips;
}

type NoExecuteOutcome = ReturnType<typeof noExecuteOutcome>;

/** KTL209 per node that is not ready: its pods are not ready, and when each is evicted (MarkPodsNotReady, NoExecute). */
function notReadyDiagnostics(
  notReadyPods: ReadonlyMap<string, { key: string; outcome: NoExecuteOutcome }[]>,
  nodesByName: ReadonlyMap<string, Node>,
  diagnostics: Diagnostic[],
): void {
  for (const [nodeName, list] of notReadyPods) {
    const node = nodesByName.get(nodeName)!;
    const noExecute = node.taints.filter((t) => t.effect === "NoExecute").map(taintText);
    const groups = new Map<string, string[]>();
    for (const { key, outcome } of list) {
      const what = !outcome
        ? "stay"
        : "evicted" in outcome
          ? `are evicted at once (they do not tolerate ${taintText(outcome.evicted)})`
          : outcome.stays === undefined
            ? "stay (they tolerate it without tolerationSeconds)"
            : `are evicted ${outcome.stays} s after the taint appeared (tolerationSeconds${outcome.stays === DEFAULT_TOLERATION_SECONDS ? " of DefaultTolerationSeconds" : ""})`;
      groups.set(what, [...(groups.get(what) ?? []), key]);
    }
    const fates = [...groups].map(
      ([what, keys]) =>
        `${keys.slice(0, 3).join(", ")}${keys.length > 3 ? ` and ${keys.length - 3} more` : ""} ${what}`,
    );
    diagnostics.push({
      code: "KTL209",
      severity: "info",
      file: node.source?.file ?? "",
      doc: node.source?.doc ?? 0,
      line: node.source?.line ?? 1,
      column: 1,
      kind: "Node",
      name: node.name,
      message: `node ${nodeName} is not ready (${noExecute.join(", ") || "Ready is not True"}): its ${list.length} pod(s) are marked not ready, so no Service sends them traffic (MarkPodsNotReady), and no new pod is scheduled there; ${fates.join("; ")}`,
      hint: "Set the node's Ready condition to True to model it healthy, or add tolerations (key node.kubernetes.io/not-ready, operator Exists, effect NoExecute) to keep pods there longer.",
    });
  }
}

/** Whether any two ranges share an address: CIDR blocks nest or lie apart, so sorted by family and first address, neighbours tell. */
function overlapping(rs: readonly { cidr: Cidr }[]): boolean {
  const sorted = rs
    .map((r) => r.cidr)
    .sort((a, b) => a.family - b.family || (a.first < b.first ? -1 : a.first > b.first ? 1 : 0));
  for (let i = 1; i < sorted.length; i++) {
    const a = sorted[i - 1]!;
    const b = sorted[i]!;
    if (a.family === b.family && b.first <= a.last) return true;
  }
  return false;
}

function cached<K, V>(m: Map<K, V>, k: K, make: () => V): V {
  let v = m.get(k);
  if (v === undefined) m.set(k, (v = make()));
  return v;
}

function sourceRef(m: Map<KObject, { line: number; ref: Pod["source"] }>, p: PodSpecInput): Pod["source"] {
  const hit = m.get(p.source);
  if (hit && hit.line === p.line) return hit.ref;
  const ref = { ...refOf(p.source, p.line), namespace: p.namespace };
  m.set(p.source, { line: p.line, ref });
  return ref;
}

export function runningPods(
  placed: readonly PlacedPod[],
  nodesByName: ReadonlyMap<string, Node>,
  diagnostics: Diagnostic[],
): { pods: Pod[]; podsByKey: Map<PodKey, Pod> } {
  // IPs: given ones are reserved first, then allocated per node in order.
  const used = new Set<string>();
  for (const { input } of placed) for (const ip of statusIPs(input.status)) used.add(ip);
  // Per node: each podCIDR parsed once, with the next host index to try in it.
  const ranges = new Map<Node, { cidr: Cidr; next: number }[]>();
  const rangesOf = (node: Node) => {
    let rs = ranges.get(node);
    if (!rs) {
      rs = [];
      for (const text of node.podCIDRs) {
        const cidr = parseCidr(text).cidr;
        if (cidr) rs.push({ cidr, next: 2 });
      }
      ranges.set(node, rs);
    }
    return rs;
  };
  // An allocated address can be taken already only when some address is given or two nodes' podCIDRs overlap;
  // otherwise each range hands out its own addresses in order and none is looked up.
  const checked = used.size > 0 || overlapping([...nodesByName.values()].flatMap(rangesOf));
  const allocate = (node: Node): string[] => {
    // Built at its size (`appended`): every pod keeps its list.
    let out: string[] = [];
    for (const r of rangesOf(node)) {
      let i = r.next;
      let ip = nthAddress(r.cidr, i);
      if (checked) while (ip !== undefined && used.has(ip)) ip = nthAddress(r.cidr, ++i);
      r.next = i + 1;
      if (ip !== undefined) {
        if (checked) used.add(ip);
        out = appended(out, ip);
      }
    }
    return out;
  };
  // Pods of one template share their port list and source reference (neither is ever changed).
  const portsOf = new Map<Json, ContainerPort[]>();
  const sourceOf = new Map<KObject, { line: number; ref: Pod["source"] }>();

  const pods: Pod[] = [];
  const podsByKey = new Map<PodKey, Pod>();
  const notReadyPods = new Map<string, { key: string; outcome: NoExecuteOutcome }[]>();
  const exhausted = new Map<string, { count: number; first: PodSpecInput; key: string }>();
  for (const { input: p, name, nodeName } of placed) {
    const key = podKey(p.namespace, name);
    const hostNetwork = bool(p.spec.hostNetwork) ?? false;
    const node = nodeName ? nodesByName.get(nodeName) : undefined;
    let ips = statusIPs(p.status);
    // Only a pod written without any status is taken as running and given
    // addresses; a status without podIP is a pod not started yet (Pending),
    // which the EndpointSlice controller never lists (ShouldPodBeInEndpoints).
    const synthesize = p.status === undefined && ips.length === 0 && node !== undefined;
    if (synthesize && node) {
      if (hostNetwork) ips = node.addresses.filter((a) => a.type === "InternalIP").map((a) => a.address);
      else {
        ips = allocate(node);
        if (ips.length === 0) {
          const ex = exhausted.get(node.name);
          if (ex) ex.count++;
          else exhausted.set(node.name, { count: 1, first: p, key });
        }
      }
    }
    if (
      p.status !== undefined &&
      ips.length === 0 &&
      node &&
      str(p.status.phase) !== "Succeeded" &&
      str(p.status.phase) !== "Failed"
    ) {
      diagnostics.push({
        code: "KTL207",
        severity: "info",
        file: p.source.file,
        doc: p.source.doc,
        line: lineOf(p.raw, "status") || p.line,
        column: 1,
        kind: p.source.kind,
        namespace: p.namespace,
        name: p.source.name,
        message: `pod ${key} has a status but no podIP: it has not started, so it gets no IP and is no endpoint of any Service (ShouldPodBeInEndpoints)`,
        hint: "Write status.podIP (and podIPs) as the kubelet reports them, or leave the status out to model the pod as running with an address from its node's podCIDR.",
      });
    }
    const { phase, ready: podReady } = readiness(p.status);
    // MarkPodsNotReady (node lifecycle controller): a pod on a node whose Ready condition is not True is not ready.
    const ready = podReady && (node?.ready ?? true);
    if (node && !node.ready && !node.synthesized) {
      const outcome = noExecuteOutcome(node.taints, podTolerations(p.spec, p.daemonSet));
      const list = notReadyPods.get(node.name) ?? [];
      list.push({ key, outcome });
      notReadyPods.set(node.name, list);
    }
    const pod: Pod = {
      index: 0,
      namespace: p.namespace,
      name,
      key,
      labels: p.labels,
      annotations: p.annotations,
      nodeName,
      ips,
      ipsSynthesized: synthesize && ips.length > 0,
      hostNetwork,
      serviceAccount: serviceAccountOf(p.spec),
      phase: nodeName ? phase : "Pending",
      ready: nodeName ? ready : false,
      terminating: p.deletionTimestamp,
      ports: cached(portsOf, p.spec, () => containerPorts(p.spec)),
      workload: p.workload,
      generated: p.generated,
      source: sourceRef(sourceOf, p),
      raw: p.raw,
    };
    if (podsByKey.has(key)) continue;
    podsByKey.set(key, pod);
    pods.push(pod);
  }
  notReadyDiagnostics(notReadyPods, nodesByName, diagnostics);
  for (const [nodeName, { count, first, key }] of exhausted) {
    diagnostics.push({
      code: "KTL205",
      severity: "warning",
      file: first.source.file,
      doc: first.source.doc,
      line: first.line,
      column: 1,
      message: `node ${nodeName}'s podCIDR ${nodesByName.get(nodeName)!.podCIDRs.join(", ")} has no address left for ${count} pod(s), ${key} first: they get no IP`,
      hint: "Give the node a larger spec.podCIDR, or add nodes.",
    });
  }
  pods.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  for (let i = 0; i < pods.length; i++) pods[i]!.index = i;

  return { pods, podsByKey };
}

/** Pod network pods by address, the first by key where two share one (the model's `podsByIP`). */
export function podsByAddress(pods: readonly Pod[]): Map<string, Pod> {
  const byIP = new Map<string, Pod>();
  for (const p of pods) if (!p.hostNetwork) for (const ip of p.ips) if (!byIP.has(ip)) byIP.set(ip, p);
  return byIP;
}
