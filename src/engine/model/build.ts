/**
 * Parsed objects -> the cluster model. Deterministic: the same input always
 * gives the same pods, names, nodes and IPs.
 *
 * Rules followed:
 * - Namespaces: given ones keep their labels; every namespace also gets
 *   `kubernetes.io/metadata.name` (set by the apiserver since 1.21,
 *   NamespaceDefaultLabelName). Namespaces that objects name but the input
 *   does not define are implied.
 * - Nodes: given ones as written; when the input has none, the nodes pods
 *   name, or `node-1` and `node-2`. Missing podCIDRs and InternalIPs are
 *   synthesised from 10.244.N.0/24 and 172.18.0.N.
 * - Pods: given, or made by workloads (model/workloads.ts). Pods without
 *   spec.nodeName are placed on the eligible node (nodeSelector, required
 *   node affinity, not cordoned) with the fewest pods, ties by node order.
 *   IPs come from status.podIPs; a pod written without status gets them
 *   from the node's podCIDR in order (marked ipsSynthesized), a pod with a
 *   status but no podIP has none (not yet started: never an endpoint).
 * - Readiness: a pod written without status is desired state, taken as
 *   scheduled, running and ready; with a status, ready only when its Ready
 *   condition is True (IsPodReady). Terminating: metadata.deletionTimestamp.
 */
import type { ParseResult, KObject, ReplacedObject } from "../parse/manifests.ts";
import { refOf } from "../parse/manifests.ts";
import type { Diagnostic } from "../parse/diagnostics.ts";
import { arr, bool, int, isObj, obj, str, strMap, type Json } from "../parse/values.ts";
import { lineOf } from "../parse/yaml.ts";
import { isKubernetesNetworkPolicy, parseNetworkPolicy } from "./networkpolicy.ts";
import { podKey, workloadKey, type PodKey } from "./ids.ts";
import { buildServices } from "./services.ts";
import { nthAddress, parseCidr, parseIP } from "./ip.ts";
import { safeSuffix } from "./hash.ts";
import { DEFAULT_TOLERATION_SECONDS, noExecuteOutcome, taintText } from "./taints.ts";
import {
  controllerOf,
  expandWorkload,
  MAX_REPLICAS,
  podInput,
  requestedReplicas,
  templateOf,
  WORKLOAD_KINDS,
  type PodSpecInput,
} from "./workloads.ts";
import {
  DEFAULT_CONFIG,
  type ClusterConfig,
  type ContainerPort,
  type Model,
  type Namespace,
  type Node,
  type Pod,
  type Protocol,
  type Workload,
} from "./types.ts";
import {
  MAX_PODS_PER_NODE,
  MAX_SYNTHESIZED_POD_CIDRS,
  blockingTaint,
  eligible,
  fillNodeAddresses,
  ineligibility,
  nodeFromObject,
  placementQueue,
  podTolerations,
  synthesizeNode,
} from "./nodes.ts";

export { REGION_LABEL, ZONE_LABEL } from "./nodes.ts";

const NS_NAME_LABEL = "kubernetes.io/metadata.name";

function buildNamespaces(objects: readonly KObject[]): Map<string, Namespace> {
  const namespaces = new Map<string, Namespace>();
  for (const o of objects) {
    if (o.kind !== "Namespace") continue;
    const labels = strMap(obj(o.raw.metadata)?.labels);
    labels[NS_NAME_LABEL] = o.name;
    namespaces.set(o.name, { name: o.name, labels, implied: false, source: refOf(o) });
  }
  const imply = (name: string) => {
    if (!namespaces.has(name))
      namespaces.set(name, { name, labels: { [NS_NAME_LABEL]: name }, implied: true });
  };
  imply("default");
  for (const o of objects) if (o.kind !== "Namespace" && o.kind !== "Node") imply(o.namespace ?? "default");
  return namespaces;
}

/** Pods that workloads may generate in all; past it, workloads are cut with a KTL210 diagnostic. */
export const MAX_GENERATED_PODS = 250_000;

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

function containerPorts(spec: Json): ContainerPort[] {
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

function statusIPs(status: Json | undefined): string[] {
  if (!status) return [];
  const ips = arr(status.podIPs)
    .filter(isObj)
    .map((p) => str(p.ip))
    .filter((s): s is string => !!s && !!parseIP(s));
  const single = str(status.podIP);
  if (ips.length === 0 && single && parseIP(single)) ips.push(single);
  return ips;
}

/**
 * One node per workload object (replicas: 0 included) and per controller that
 * given pods name; a pod without a controller is its own workload.
 */
function buildWorkloads(objects: readonly KObject[], pods: readonly Pod[]): Workload[] {
  const byKey = new Map<string, Workload>();
  for (const o of objects) {
    if (!WORKLOAD_KINDS.has(o.kind)) continue;
    const template = templateOf(o) ?? {};
    const spec = obj(template.spec) ?? {};
    const w: Workload = {
      kind: o.kind,
      namespace: o.namespace ?? "default",
      name: o.name,
      key: workloadKey({ kind: o.kind, namespace: o.namespace ?? "default", name: o.name }),
      labels: strMap(obj(template.metadata)?.labels),
      ports: containerPorts(spec),
      hostNetwork: bool(spec.hostNetwork) ?? false,
      serviceAccount: serviceAccountOf(spec),
      pods: [],
      given: true,
      source: { ...refOf(o), namespace: o.namespace ?? "default" },
    };
    byKey.set(w.key, w);
  }
  for (const p of pods) {
    const key = workloadKey(p.workload);
    let w = byKey.get(key);
    if (!w) {
      w = {
        ...p.workload,
        key,
        labels: p.labels,
        ports: p.ports,
        hostNetwork: p.hostNetwork,
        serviceAccount: p.serviceAccount,
        pods: [],
        given: false,
        source: p.source,
      };
      byKey.set(key, w);
    }
    w.pods.push(p);
  }
  return [...byKey.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** The pod a DaemonSet runs on a node: `<name>-<5 characters>`, stable per node. */
const daemonPodName = (namespace: string, daemonSet: string, node: string) =>
  `${daemonSet}-${safeSuffix(`${namespace}/${daemonSet}@${node}`, 5)}`;

/**
 * Workloads that must not generate pods, as in `kubectl get -o yaml` dumps
 * that list a Deployment, its ReplicaSets and their pods together:
 * - a ReplicaSet or Job whose controller (ownerReference) is a Deployment or
 *   CronJob in the input: its owner's expansion stands for it;
 * - a workload whose pods the input already lists (through the pods'
 *   controller chain; a ReplicaSet missing from the input belongs to the
 *   Deployment named by stripping the pods' pod-template-hash). A given pod
 *   bearing exactly a generated name is a stand-in instead (handled by the
 *   caller), so a single written-out pod does not stop its siblings.
 */
function runningWorkloads(
  expansions: ReadonlyMap<KObject, PodSpecInput[]>,
  given: readonly PodSpecInput[],
  diagnostics: Diagnostic[],
): Set<KObject> {
  const byKey = new Map<string, KObject>();
  for (const o of expansions.keys())
    byKey.set(workloadKey({ kind: o.kind, namespace: o.namespace ?? "default", name: o.name }), o);
  const ownerOf = (o: KObject): KObject | undefined => {
    const c = controllerOf(obj(o.raw.metadata) ?? {}, o.namespace ?? "default", o.name);
    return c.kind === "Pod" ? undefined : byKey.get(workloadKey(c));
  };
  const skip = new Set<KObject>();
  for (const o of byKey.values()) if (ownerOf(o)) skip.add(o);
  const generated = new Set<string>();
  for (const pods of expansions.values())
    for (const g of pods) if (!g.daemonSet) generated.add(`${g.namespace}/${g.name}`);
  const counts = new Map<KObject, number>();
  for (const p of given) {
    const w = p.workload;
    if (generated.has(`${p.namespace}/${p.name}`)) continue;
    const node = str(p.spec.nodeName);
    if (w.kind === "DaemonSet" && node && p.name === daemonPodName(w.namespace, w.name, node)) continue;
    let top = byKey.get(workloadKey(w));
    const hash = p.labels["pod-template-hash"];
    if (!top && w.kind === "ReplicaSet" && hash && w.name.endsWith(`-${hash}`))
      top = byKey.get(
        workloadKey({ kind: "Deployment", namespace: w.namespace, name: w.name.slice(0, -hash.length - 1) }),
      );
    for (let up = top && ownerOf(top); up; up = ownerOf(up)) top = up;
    if (top) counts.set(top, (counts.get(top) ?? 0) + 1);
  }
  for (const [o, n] of counts) {
    skip.add(o);
    diagnostics.push({
      code: "KTL206",
      severity: "info",
      file: o.file,
      doc: o.doc,
      line: o.line,
      column: 1,
      kind: o.kind,
      namespace: o.namespace ?? "default",
      name: o.name,
      message: `${o.kind} ${o.namespace ?? "default"}/${o.name}: the input lists ${n} of its pods, so the model uses them and generates none`,
    });
  }
  return skip;
}

export interface CoreBuildOptions {
  config?: Partial<ClusterConfig>;
}

const cidrList = (v: unknown): string[] | undefined => {
  const s = str(v);
  const list = s
    ? s
        .split(",")
        .map((c) => c.trim())
        .filter((c) => parseCidr(c).cidr)
    : [];
  return list.length ? list : undefined;
};

/**
 * Cluster settings from component configuration in the input:
 * KubeProxyConfiguration clusterCIDR (kube-proxy's --cluster-cidr, comma
 * separated for dual-stack), kubeadm ClusterConfiguration networking.podSubnet
 * and serviceSubnet. Explicit build options win.
 */
function clusterConfig(
  configs: readonly KObject[],
  options: CoreBuildOptions,
): { config: ClusterConfig; proxy: Json | undefined } {
  const config: ClusterConfig = { ...DEFAULT_CONFIG };
  const proxy = configs.find((c) => c.kind === "KubeProxyConfiguration")?.raw;
  const kubeadm = configs.find((c) => c.kind === "ClusterConfiguration")?.raw;
  const net = obj(kubeadm?.networking);
  const pods = cidrList(proxy?.clusterCIDR) ?? cidrList(net?.podSubnet);
  const services = cidrList(net?.serviceSubnet);
  if (pods) config.clusterCIDRs = pods;
  if (services) config.serviceCIDRs = services;
  return { config: { ...config, ...options.config }, proxy };
}

/**
 * The model without the objects of the policy layers above it (cluster
 * tiers, CNI policies and profile, unmodelled kinds): load/ buildModel adds
 * those, so that model imports no higher layer.
 */
export type CoreModel = Omit<Model, "clusterPolicies" | "unmodelled" | "cni" | "profile">;

export function buildCoreModel(parsed: ParseResult, options: CoreBuildOptions = {}): CoreModel {
  const diagnostics: Diagnostic[] = [...parsed.diagnostics];
  // parse/ already replaced earlier definitions by later ones (parseManifests, KTL201).
  const objects = parsed.objects;
  const replaced: ReplacedObject[] = parsed.replaced ?? [];
  const { config, proxy: proxyConfiguration } = clusterConfig(parsed.configs ?? [], options);
  const namespaces = buildNamespaces(objects);

  // Pod inputs, given pods first, then workloads in input order. A given pod
  // that bears the name a workload gives one of its pods stands in for that
  // pod, in its place: a controller creates no second pod of a name that
  // exists (StatefulSet identity; a written-out pod of `kubectl get -o yaml`),
  // and the other pods keep their nodes and IPs.
  const given = objects.filter((o) => o.kind === "Pod").map(podInput);
  const givenByKey = new Map(given.map((p) => [`${p.namespace}/${p.name}`, p]));
  const standIns = new Set<PodSpecInput>();
  const expanded: PodSpecInput[] = [];
  const expansions = new Map<KObject, PodSpecInput[]>();
  let generated = 0;
  for (const o of objects) {
    if (!WORKLOAD_KINDS.has(o.kind)) continue;
    let pods = expandWorkload(o);
    const asked = requestedReplicas(o);
    const where = {
      file: o.file,
      doc: o.doc,
      line: o.line,
      column: 1,
      kind: o.kind,
      namespace: o.namespace ?? "default",
      name: o.name,
    };
    if (asked > MAX_REPLICAS) {
      diagnostics.push({
        code: "KTL210",
        severity: "warning",
        ...where,
        message: `${o.kind} ${o.namespace ?? "default"}/${o.name} asks for ${asked} pods; ktl models the first ${MAX_REPLICAS}`,
        hint: "Lower replicas (or parallelism) to model every pod.",
      });
    }
    if (generated + pods.length > MAX_GENERATED_PODS) {
      const keep = Math.max(0, MAX_GENERATED_PODS - generated);
      diagnostics.push({
        code: "KTL210",
        severity: "warning",
        ...where,
        message: `workloads generate more than ${MAX_GENERATED_PODS} pods in all: ktl models ${keep} of the ${pods.length} of ${o.kind} ${o.namespace ?? "default"}/${o.name}`,
        hint: "Split the input, or lower replicas.",
      });
      pods = pods.slice(0, keep);
    }
    generated += pods.length;
    expansions.set(o, pods);
  }
  const skip = runningWorkloads(expansions, given, diagnostics);
  for (const [o, pods] of expansions) {
    if (skip.has(o)) continue;
    for (const g of pods) {
      const twin = g.daemonSet ? undefined : givenByKey.get(`${g.namespace}/${g.name}`);
      if (twin && !standIns.has(twin)) {
        standIns.add(twin);
        expanded.push(twin);
      } else expanded.push(g);
    }
  }
  const inputs: PodSpecInput[] = [...given.filter((p) => !standIns.has(p)), ...expanded];

  // Nodes.
  const nodes: Node[] = objects.filter((o) => o.kind === "Node").map(nodeFromObject);
  const nodesByName = new Map(nodes.map((n) => [n.name, n]));
  for (const p of inputs) {
    const want = str(p.spec.nodeName);
    if (want && !nodesByName.has(want)) {
      const n = synthesizeNode(want);
      nodes.push(n);
      nodesByName.set(want, n);
      if (nodes.some((x) => !x.synthesized)) {
        diagnostics.push({
          code: "KTL202",
          severity: "warning",
          file: p.source.file,
          doc: p.source.doc,
          line: lineOf(p.spec, "nodeName") || p.line,
          column: 1,
          kind: p.source.kind,
          namespace: p.namespace,
          name: p.source.name,
          message: `pod ${p.namespace}/${p.name} runs on node "${want}", which the input does not define; a node of that name is assumed`,
        });
      }
    }
  }
  if (nodes.length === 0) {
    // As many nodes as kubelet's default of 110 pods each needs, and at least two.
    const unpinned = inputs.filter((p) => !p.daemonSet && !str(p.spec.nodeName)).length;
    const count = Math.max(2, Math.ceil(unpinned / MAX_PODS_PER_NODE));
    for (let i = 1; i <= count; i++) {
      const n = synthesizeNode(`node-${i}`);
      nodes.push(n);
      nodesByName.set(n.name, n);
    }
  }
  const noCIDR = fillNodeAddresses(nodes);
  if (noCIDR.length) {
    const n = noCIDR[0]!;
    diagnostics.push({
      code: "KTL211",
      severity: "warning",
      file: n.source?.file ?? "",
      doc: n.source?.doc ?? 0,
      line: n.source?.line ?? 0,
      column: 1,
      message: `${noCIDR.length} node(s), ${n.name} first, get no synthesised podCIDR: the ${MAX_SYNTHESIZED_POD_CIDRS} /24 networks from 10.244.1.0 to 10.255.255.0 are used up, so their pods get no IP`,
      hint: "Give the nodes spec.podCIDR, or model fewer nodes.",
    });
  }

  // DaemonSet pods that a given pod stands in for, by DaemonSet input and node.
  const daemonName = (p: PodSpecInput, n: Node) => daemonPodName(p.namespace, p.name, n.name);
  const daemonTwins = new Map<string, PodSpecInput>();
  const daemonStandIns = new Set<PodSpecInput>();
  for (const p of inputs) {
    if (!p.daemonSet) continue;
    for (const n of nodes) {
      const twin = givenByKey.get(`${p.namespace}/${daemonName(p, n)}`);
      if (twin && !standIns.has(twin) && eligible(p.spec, n, true)) {
        standIns.add(twin);
        daemonStandIns.add(twin);
        daemonTwins.set(`${p.namespace}/${p.name}@${n.name}`, twin);
      }
    }
  }

  // Placement: pinned pods first so the spread sees them (stand-ins count in their workload's place).
  const load = new Map<string, number>(nodes.map((n) => [n.name, 0]));
  const placed: { input: PodSpecInput; name: string; nodeName: string | undefined }[] = [];
  for (const p of inputs) {
    if (p.daemonSet || standIns.has(p)) continue;
    const pinned = str(p.spec.nodeName);
    if (pinned) load.set(pinned, (load.get(pinned) ?? 0) + 1);
  }
  const leastLoaded = placementQueue(nodes, load);
  for (const p of inputs) {
    if (p.daemonSet) {
      const tainted: string[] = [];
      for (const n of nodes) {
        if (!eligible(p.spec, n, true)) {
          const t = blockingTaint(p.spec, n, true);
          if (t) tainted.push(`${n.name} (${taintText(t)})`);
          continue;
        }
        const twin = daemonTwins.get(`${p.namespace}/${p.name}@${n.name}`);
        placed.push(
          twin
            ? { input: twin, name: twin.name, nodeName: str(twin.spec.nodeName) ?? n.name }
            : { input: p, name: daemonName(p, n), nodeName: n.name },
        );
        load.set(n.name, (load.get(n.name) ?? 0) + 1);
      }
      if (tainted.length) {
        diagnostics.push({
          code: "KTL208",
          severity: "info",
          file: p.source.file,
          doc: p.source.doc,
          line: p.line,
          column: 1,
          kind: p.source.kind,
          namespace: p.namespace,
          name: p.source.name,
          message: `DaemonSet ${p.namespace}/${p.name} runs no pod on ${tainted.length === 1 ? "node" : "nodes"} ${tainted.join(", ")}: the taint is not tolerated, and a DaemonSet's automatic tolerations cover only node conditions and cordons (NodeShouldRunDaemonPod)`,
          hint: "Add a toleration to the pod template (for example key node-role.kubernetes.io/control-plane, operator Exists, effect NoSchedule) if the DaemonSet should run there.",
        });
      }
      continue;
    }
    if (daemonStandIns.has(p)) continue;
    let nodeName = str(p.spec.nodeName);
    if (nodeName && standIns.has(p)) load.set(nodeName, (load.get(nodeName) ?? 0) + 1);
    if (!nodeName) {
      const best = leastLoaded(p.spec);
      if (best) {
        nodeName = best.name;
        load.set(best.name, load.get(best.name)! + 1);
      } else {
        diagnostics.push({
          code: "KTL203",
          severity: "warning",
          file: p.source.file,
          doc: p.source.doc,
          line: p.line,
          column: 1,
          kind: p.source.kind,
          namespace: p.namespace,
          name: p.source.name,
          message: `no node can run pod ${p.namespace}/${p.name}: ${nodes
            .slice(0, 3)
            .map((n) => ineligibility(p.spec, n, false) ?? `${n.name} is full`)
            .join(
              "; ",
            )}${nodes.length > 3 ? `; and ${nodes.length - 3} more nodes` : ""}. It stays Pending with no IP`,
        });
      }
    }
    placed.push({ input: p, name: p.name, nodeName });
  }

  // IPs: given ones are reserved first, then allocated per node in order.
  const used = new Set<string>();
  for (const { input } of placed) for (const ip of statusIPs(input.status)) used.add(ip);
  const cursor = new Map<string, number>();
  const allocate = (node: Node): string[] => {
    const out: string[] = [];
    for (const [fi, text] of node.podCIDRs.entries()) {
      const c = parseCidr(text).cidr;
      if (!c) continue;
      const key = `${node.name}#${fi}`;
      let i = cursor.get(key) ?? 2;
      let ip = nthAddress(c, i);
      while (ip !== undefined && used.has(ip)) ip = nthAddress(c, ++i);
      cursor.set(key, i + 1);
      if (ip !== undefined) {
        used.add(ip);
        out.push(ip);
      }
    }
    return out;
  };

  const pods: Pod[] = [];
  const podsByKey = new Map<PodKey, Pod>();
  const notReadyPods = new Map<string, { key: string; outcome: ReturnType<typeof noExecuteOutcome> }[]>();
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
      ports: containerPorts(p.spec),
      workload: p.workload,
      generated: p.generated,
      source: { ...refOf(p.source, p.line), namespace: p.namespace },
      raw: p.raw,
    };
    if (podsByKey.has(key)) continue;
    podsByKey.set(key, pod);
    pods.push(pod);
  }
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
  const podsByIP = new Map<string, Pod>();
  pods.forEach((p, i) => {
    p.index = i;
    if (!p.hostNetwork) for (const ip of p.ips) if (!podsByIP.has(ip)) podsByIP.set(ip, p);
  });

  const policies = objects.filter(isKubernetesNetworkPolicy).map(parseNetworkPolicy);
  const { services, endpointSlices } = buildServices(objects, pods, nodes, config, diagnostics);

  const workloads = buildWorkloads(objects, pods);

  return {
    namespaces,
    nodes,
    nodesByName,
    pods,
    podsByKey,
    podsByIP,
    workloads,
    services,
    endpointSlices,
    policies,
    objects,
    replaced,
    objectsRead: parsed.objects.length + (parsed.configs?.length ?? 0) + (parsed.ignored?.length ?? 0),
    others: parsed.ignored,
    diagnostics,
    config,
    proxyConfiguration,
  };
}
