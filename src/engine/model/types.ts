/**
 * The cluster model: what the engine decides over. Built once from the parsed
 * objects (model/build.ts) and shared by NetworkPolicy, kube-proxy and trace.
 * Everything here is plain data; `raw` keeps the manifest for field lookups.
 */
import type { KObject, SourceRef } from "../parse/manifests.ts";
import type { Diagnostic } from "../parse/diagnostics.ts";
import type { Json } from "../parse/values.ts";
import type { LabelSelector } from "./labels.ts";
import type { Service, EndpointSlice } from "./services.ts";
import type { NetworkPolicy } from "./networkpolicy.ts";
import type { CniPolicies } from "../cni/index.ts";
import type { ClusterProfile } from "../cni/profile.ts";
import type { ClusterPolicy } from "../tiers/types.ts";

export type Protocol = "TCP" | "UDP" | "SCTP";
export const PROTOCOLS: readonly Protocol[] = ["TCP", "UDP", "SCTP"];

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
  key: string;
  /** Of the pod template; of the first given pod (by key) when the object is absent. */
  labels: Record<string, string>;
  ports: ContainerPort[];
  hostNetwork: boolean;
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
  key: string;
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
  podsByKey: Map<string, Pod>;
  podsByIP: Map<string, Pod>;
  /** Sorted by key. */
  workloads: Workload[];
  services: Service[];
  endpointSlices: EndpointSlice[];
  policies: NetworkPolicy[];
  /** ClusterNetworkPolicy, AdminNetworkPolicy, BaselineAdminNetworkPolicy, in the tiers' evaluation order (tiers/parse.ts). */
  clusterPolicies: ClusterPolicy[];
  /** Objects that could change a traffic answer and that the engine does not evaluate (never ignored in silence). */
  unmodelled: UnmodelledObject[];
  /** Every modelled object as parsed, for validation and lookups. */
  objects: KObject[];
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
