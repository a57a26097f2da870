/**
 * The cluster model: what the engine decides over. Built once from the parsed
 * objects (model/build.ts) and shared by NetworkPolicy, kube-proxy and trace.
 * Everything here is plain data; `raw` keeps the manifest for field lookups.
 */
import type { KObject, ReplacedObject, SourceRef } from "../parse/manifests.ts";
import type { Diagnostic } from "../parse/diagnostics.ts";
import type { Json } from "../parse/values.ts";
import type { LabelSelector } from "./labels.ts";
import type { NetworkPolicy } from "./networkpolicy.ts";
import type { CniPolicies } from "../cni/policies.ts";
import type { ClusterProfile } from "../cni/profile.ts";
import type { ClusterPolicy } from "../tiers/types.ts";
import type { Protocol } from "./protocol.ts";
import type { PodKey, PortSlot, SpecIndex, WorkloadKey } from "./ids.ts";

export { PROTOCOLS, type Protocol } from "./protocol.ts";
export type { PodKey, PortSlot, SpecIndex, WorkloadKey } from "./ids.ts";

export interface Namespace {
  name: string;
  labels: Record<string, string>;
  /** True when no Namespace object defines it and the model inferred it from other objects. */
  implied: boolean;
  source?: SourceRef;
}

export interface Node {
  name: string;
  labels: Record<string, string>;
  /** topology.kubernetes.io/zone */
  zone?: string;
  region?: string;
  /** status.addresses InternalIP (first), synthesised when absent. */
  internalIP: string;
  addresses: { type: string; address: string }[];
  podCIDRs: string[];
  ready: boolean;
  unschedulable: boolean;
  /**
   * spec.taints as written, plus node.kubernetes.io/unschedulable:NoSchedule
   * when the node is cordoned (the node lifecycle controller adds it,
   * TaintNodesByCondition), so cordons and taints are one rule.
   */
  taints: Taint[];
  /** True when the input has no Node object for it. */
  synthesized: boolean;
  source?: SourceRef;
}

export type TaintEffect = "NoSchedule" | "PreferNoSchedule" | "NoExecute";

export interface Taint {
  key: string;
  value?: string;
  effect: TaintEffect;
}

export interface ContainerPort {
  name?: string;
  containerPort: number;
  protocol: Protocol;
  hostPort?: number;
}

export type WorkloadKind =
  | "Pod"
  | "Deployment"
  | "ReplicaSet"
  | "StatefulSet"
  | "DaemonSet"
  | "Job"
  | "CronJob"
  | "ReplicationController"
  | string;

/** The controller a pod belongs to (its controller ownerReference as written), or the pod itself. */
export interface WorkloadRef {
  kind: WorkloadKind;
  namespace: string;
  name: string;
}

/**
 * A workload as one node of the cluster: a workload object of the input, or
 * the controller that given pods name (the object itself may be absent).
 */
export interface Workload extends WorkloadRef {
  /** "namespace/Kind/name" (ids.ts workloadKey) */
  key: WorkloadKey;
  /** Of the pod template; of the first given pod (by key) when the object is absent. */
  labels: Record<string, string>;
  ports: ContainerPort[];
  hostNetwork: boolean;
  /** Of the pod template (`serviceAccountOf`). */
  serviceAccount: string;
  /** Its pods in the model: none when replicas is 0 or no node can run them. */
  pods: Pod[];
  /** The workload object is in the input. */
  given: boolean;
  source: SourceRef;
}

export interface Pod {
  /** Index in Model.pods; stable for one model. */
  index: number;
  namespace: string;
  name: string;
  /** "namespace/name" */
  key: PodKey;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  /** Node the pod runs on; undefined when it cannot be scheduled. */
  nodeName: string | undefined;
  /**
   * status.podIPs. A pod written without any status (a template, a bare
   * manifest: meant as running) gets addresses from its node's podCIDR (the
   * node's IP for hostNetwork pods); a pod with a status but no podIP has none
   * (Pending: it is no endpoint, endpointslice util ShouldPodBeInEndpoints).
   */
  ips: string[];
  /** The IPs were made up by the model (the pod has no status), not read from status.podIPs. */
  ipsSynthesized: boolean;
  hostNetwork: boolean;
  /**
   * spec.serviceAccountName, else the deprecated alias spec.serviceAccount,
   * else "default" (`serviceAccountOf`): what every layer that selects by
   * service account reads (Calico, Cilium's identity, Istio principals).
   */
  serviceAccount: string;
  phase: string;
  ready: boolean;
  /** metadata.deletionTimestamp is set. */
  terminating: boolean;
  ports: ContainerPort[];
  workload: WorkloadRef;
  /** The pod was generated from a workload template rather than given. */
  generated: boolean;
  /** The pod object, or the workload whose template made it (line of the template). */
  source: SourceRef;
  /** The Pod manifest or the workload's pod template. */
  raw: Json;
}

export interface Model {
  namespaces: Map<string, Namespace>;
  nodes: Node[];
  nodesByName: Map<string, Node>;
  /** Sorted by key. */
  pods: Pod[];
  podsByKey: Map<PodKey, Pod>;
  /** A pod network pod by each of its addresses (the first pod by key where two share one); built on first use. */
  readonly podsByIP: Map<string, Pod>;
  /** Sorted by key. */
  workloads: Workload[];
  services: Service[];
  endpointSlices: EndpointSlice[];
  policies: NetworkPolicy[];
  /** ClusterNetworkPolicy, AdminNetworkPolicy, BaselineAdminNetworkPolicy, in the tiers' evaluation order (tiers/parse.ts). */
  clusterPolicies: ClusterPolicy[];
  /**
   * Tier policies of the input that the cluster's CNI does not implement (Cilium: load/index.ts), so none
   * of them is in `clusterPolicies`; the trace says so. Absent when every tier policy is evaluated.
   */
  unenforcedTiers?: ClusterPolicy[];
  /** Objects that could change a traffic answer and that the engine does not evaluate (never ignored in silence). */
  unmodelled: UnmodelledObject[];
  /** Every modelled object as parsed, for validation and lookups. */
  objects: KObject[];
  /** Objects a later definition of the same kind, namespace and name replaced (KTL201), in input order. */
  replaced: ReplacedObject[];
  /** How many Kubernetes objects the input holds, of any kind (modelled, component configs, others): 0 means nothing to answer about. */
  objectsRead: number;
  /** The input's other objects (ParseResult.ignored): the L7 routers read Gateway API, Ingress classes and Istio kinds from them. */
  others?: KObject[];
  diagnostics: Diagnostic[];
  /** Cluster-wide settings (service CIDR, cluster CIDR, node port range). */
  config: ClusterConfig;
  /** kube-proxy's KubeProxyConfiguration from the input, as written (undefined when absent). */
  proxyConfiguration: Json | undefined;
  /** The CNI's own policies (Cilium, Calico) in the input; NetworkPolicy stays in `policies`. */
  cni?: CniPolicies;
  /** Which CNI enforces policy: chosen (load/ BuildOptions.cni), read from the input, or generic. */
  profile?: ClusterProfile;
}

/** An object the engine does not evaluate although it could change a verdict (the CLI contract's `unmodelled`). */
export interface UnmodelledObject {
  kind: string;
  apiVersion: string;
  namespace?: string;
  name: string;
  file: string;
  doc: number;
  line: number;
  /** `pod`: it can change pod-to-pod verdicts; `route`: only where a request goes through a router or a Service name. */
  scope: "pod" | "route" | "reach";
  /** Set when one field of the object is not evaluated (the object itself is): its API path, `spec.http[0].fault.abort`. */
  field?: string;
  /** For a field: what ktl assumes instead, in words. */
  message?: string;
}

export interface ClusterConfig {
  serviceCIDRs: string[];
  clusterCIDRs: string[];
  nodePortRange: [number, number];
}

export const DEFAULT_CONFIG: ClusterConfig = {
  serviceCIDRs: ["10.96.0.0/12", "fd00:10:96::/112"],
  clusterCIDRs: ["10.244.0.0/16", "fd00:10:244::/56"],
  nodePortRange: [30000, 32767],
};

export type { LabelSelector };

// Services and EndpointSlices as the apiserver stores them (built in services.ts and endpointslices.ts).

export type ServiceType = "ClusterIP" | "NodePort" | "LoadBalancer" | "ExternalName";
export type IPFamily = "IPv4" | "IPv6";
export type TrafficPolicy = "Cluster" | "Local";

export interface ServicePort {
  /** Index in spec.ports: for field paths (`spec.ports[3]`) only. */
  index: SpecIndex;
  /** Position in Service.ports and in the endpoint lists built from it. */
  slot: PortSlot;
  /** spec.ports[].name ("" when absent, as the apiserver stores it). */
  name: string;
  protocol: Protocol;
  port: number;
  /** A number, or the name of a container port (resolved per pod). */
  targetPort: number | string;
  nodePort?: number;
  /** The nodePort was allocated by the model, not written in the input. */
  nodePortAllocated?: boolean;
  appProtocol?: string;
  line: number;
}

export interface LoadBalancerIngress {
  ip?: string;
  hostname?: string;
  /** status.loadBalancer.ingress[].ipMode; VIP when absent. */
  ipMode: "VIP" | "Proxy";
  line: number;
}

/** Lines of the fields that decide routing (0 when the field is absent). */
export interface ServiceLines {
  /** The `spec:` key: where defaulted (absent) fields are referred to. */
  spec: number;
  type: number;
  selector: number;
  clusterIP: number;
  ports: number;
  externalIPs: number;
  externalTrafficPolicy: number;
  internalTrafficPolicy: number;
  healthCheckNodePort: number;
  sessionAffinity: number;
  trafficDistribution: number;
  topologyMode: number;
  publishNotReadyAddresses: number;
  loadBalancerSourceRanges: number;
  /** The service.beta.kubernetes.io/load-balancer-source-ranges annotation. */
  loadBalancerSourceRangesAnnotation: number;
  loadBalancerIngress: number;
  externalName: number;
}

export interface Service {
  namespace: string;
  name: string;
  key: string;
  type: ServiceType;
  headless: boolean;
  /** Effective ClusterIPs, primary family first; empty for headless and ExternalName. */
  clusterIPs: string[];
  /** The ClusterIPs were allocated by the model. */
  clusterIPsAllocated: boolean;
  ipFamilies: IPFamily[];
  ipFamilyPolicy: "SingleStack" | "PreferDualStack" | "RequireDualStack";
  /** undefined (or an empty map): no selector, endpoints are managed by hand. */
  selector: Record<string, string> | undefined;
  /** The Service's own labels (metadata.labels), as a Gateway's controller finds its Service by them. */
  labels: Record<string, string>;
  ports: ServicePort[];
  externalIPs: string[];
  /** VIP-mode load balancer IPs, the ones kube-proxy captures. */
  loadBalancerIPs: string[];
  loadBalancerIngress: LoadBalancerIngress[];
  /** A LoadBalancer whose status has no ingress yet: no address (kubectl's <pending>). */
  loadBalancerPending: boolean;
  /** spec.loadBalancerSourceRanges, trimmed: kube-proxy's firewall. */
  loadBalancerSourceRanges: string[];
  /** The service.beta.kubernetes.io/load-balancer-source-ranges annotation: read by cloud providers only, when the field is empty. */
  loadBalancerSourceRangesAnnotation: string[];
  externalName?: string;
  internalTrafficPolicy: TrafficPolicy;
  /** As defaulted; only takes effect when the Service is externally accessible. */
  externalTrafficPolicy: TrafficPolicy;
  healthCheckNodePort?: number;
  healthCheckNodePortAllocated?: boolean;
  sessionAffinity: "None" | "ClientIP";
  sessionAffinityTimeoutSeconds: number;
  trafficDistribution?: string;
  /** service.kubernetes.io/topology-mode (the older topology-aware-hints annotation wins when both are set). */
  topologyMode?: string;
  publishNotReadyAddresses: boolean;
  allocateLoadBalancerNodePorts: boolean;
  lines: ServiceLines;
  source: SourceRef;
  raw: Json;
}

export interface EndpointHints {
  forZones: string[];
  forNodes: string[];
}

export interface Endpoint {
  addresses: string[];
  /** Conditions as kube-proxy reads them: ready and serving default to true, terminating to false. */
  ready: boolean;
  serving: boolean;
  terminating: boolean;
  nodeName?: string;
  zone?: string;
  hints?: EndpointHints;
  /** "namespace/name" of the pod behind it, when known. */
  pod?: PodKey;
  /** Line of the endpoint (input slices), of the address (Endpoints) or of the pod (derived). */
  line: number;
  /** The object that holds the line. */
  ref: SourceRef;
}

export interface EndpointSlicePort {
  name: string;
  /** Absent ports are ignored by kube-proxy (endpointslicecache.go). */
  port: number | undefined;
  protocol: Protocol;
  line: number;
}

export interface EndpointSlice {
  namespace: string;
  name: string;
  /** kubernetes.io/service-name label; "" when missing (kube-proxy ignores such slices). */
  serviceName: string;
  addressType: string;
  ports: EndpointSlicePort[];
  endpoints: Endpoint[];
  /** Derived from the Service selector rather than given in the input. */
  derived: boolean;
  /** Where it came from: written in the input, made by the EndpointSlice controller, or mirrored from an Endpoints object. */
  origin: "input" | "controller" | "mirrored";
  /** endpointslice.kubernetes.io/managed-by */
  managedBy?: string;
  /** For derived slices: how the EndpointSlice controller set (or did not set) hints. */
  hintsNote?: string;
  source: SourceRef;
}

export interface ServiceBuild {
  services: Service[];
  endpointSlices: EndpointSlice[];
}
