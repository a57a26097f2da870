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
import { bool, obj, str, strMap, type Json } from "../parse/values.ts";
import { isKubernetesNetworkPolicy, parseNetworkPolicy } from "./networkpolicy.ts";
import { workloadKey } from "./ids.ts";
import { buildServices } from "./services.ts";
import { parseCidr } from "./ip.ts";
import { templateOf, WORKLOAD_KINDS } from "./workloads.ts";
import {
  DEFAULT_CONFIG,
  type ClusterConfig,
  type Model,
  type Namespace,
  type Pod,
  type Workload,
} from "./types.ts";
import { clusterNodes, placePods, podInputs } from "./placement.ts";
import { containerPorts, podsByAddress, runningPods, serviceAccountOf } from "./pods.ts";

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

export { MAX_GENERATED_PODS } from "./placement.ts";
export { serviceAccountOf } from "./pods.ts";

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
  // Replicas of a template share their workload reference (and lie next to each other): one key and lookup for them.
  let lastRef: Pod["workload"] | undefined;
  let last: Workload | undefined;
  for (const p of pods) {
    if (p.workload === lastRef && last) {
      last.pods.push(p);
      continue;
    }
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
    lastRef = p.workload;
    last = w;
  }
  return [...byKey.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
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

  const { inputs, givenByKey, standIns } = podInputs(objects, diagnostics);
  const { nodes, nodesByName } = clusterNodes(objects, inputs, diagnostics);
  const placed = placePods(inputs, nodes, givenByKey, standIns, diagnostics);
  const { pods, podsByKey } = runningPods(placed, nodesByName, diagnostics);

  const policies = objects.filter(isKubernetesNetworkPolicy).map(parseNetworkPolicy);
  const { services, endpointSlices } = buildServices(objects, pods, nodes, config, diagnostics);

  const workloads = buildWorkloads(objects, pods);
  let byIP: Map<string, Pod> | undefined;

  return {
    namespaces,
    nodes,
    nodesByName,
    pods,
    podsByKey,
    // Only a lookup by address needs it (an EndpointSlice endpoint without a pod reference, a trace to an IP).
    get podsByIP() {
      return (byIP ??= podsByAddress(pods));
    },
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
