/**
 * Which objects the engine models, and which it knows could change a traffic
 * answer without being modelled, decided by API group and kind together
 * (never by kind alone: Calico's `projectcalico.org/v3` NetworkPolicy and
 * Antrea's `crd.antrea.io` ClusterNetworkPolicy are not Kubernetes'
 * NetworkPolicy or network-policy-api's ClusterNetworkPolicy).
 *
 * A layer that starts modelling a kind moves it from UNMODELLED to MODELLED
 * (with the API versions it reads).
 */

/** The group of an apiVersion: "" for the core group ("v1"). */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? "" : apiVersion.slice(0, slash);
}

export function versionOf(apiVersion: string): string {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
}

/**
 * Modelled kinds and the groups they are read from (several where an older
 * group served the same type, e.g. extensions/v1beta1 Deployments). A listed
 * version set restricts the versions; otherwise any version of the group.
 */
const MODELLED: Record<string, { groups: string[]; versions?: string[] }> = {
  Namespace: { groups: [""] },
  Node: { groups: [""] },
  Pod: { groups: [""] },
  Service: { groups: [""] },
  Endpoints: { groups: [""] },
  ReplicationController: { groups: [""] },
  Deployment: { groups: ["apps", "extensions"] },
  ReplicaSet: { groups: ["apps", "extensions"] },
  StatefulSet: { groups: ["apps"] },
  DaemonSet: { groups: ["apps", "extensions"] },
  Job: { groups: ["batch"] },
  CronJob: { groups: ["batch"] },
  EndpointSlice: { groups: ["discovery.k8s.io"] },
  // Calico's projectcalico.org NetworkPolicy is a different type of the same kind (engine/cni).
  NetworkPolicy: {
    groups: ["networking.k8s.io", "extensions", "projectcalico.org", "crd.projectcalico.org"],
  },
  GlobalNetworkPolicy: { groups: ["projectcalico.org", "crd.projectcalico.org"] },
  Tier: { groups: ["projectcalico.org", "crd.projectcalico.org"] },
  CiliumNetworkPolicy: { groups: ["cilium.io"] },
  CiliumClusterwideNetworkPolicy: { groups: ["cilium.io"] },
  Ingress: { groups: ["networking.k8s.io", "extensions"] },
  Route: { groups: ["route.openshift.io"] },
  ClusterNetworkPolicy: { groups: ["policy.networking.k8s.io"], versions: ["v1alpha2"] },
  AdminNetworkPolicy: { groups: ["policy.networking.k8s.io"], versions: ["v1alpha1"] },
  BaselineAdminNetworkPolicy: { groups: ["policy.networking.k8s.io"], versions: ["v1alpha1"] },
};

/** Kinds the engine reads (some API group), for callers that only need the name. */
export const MODELLED_KIND_NAMES: ReadonlySet<string> = new Set(Object.keys(MODELLED));

/**
 * Whether the engine models an object of this apiVersion and kind. An object
 * without apiVersion (an item of a typed list that names none) is taken at its
 * kind, as kubectl would decode it against the list's group.
 */
export function isModelled(apiVersion: string, kind: string): boolean {
  const m = MODELLED[kind];
  if (!m) return false;
  if (apiVersion === "") return true;
  if (!m.groups.includes(groupOf(apiVersion))) return false;
  return !m.versions || m.versions.includes(versionOf(apiVersion));
}

/**
 * The L7 routers' kinds (src/engine/l7), read by the trace from the parser's
 * `ignored` list rather than the cluster model.
 */
const ROUTERS: Record<string, readonly string[]> = {
  "gateway.networking.k8s.io": ["Gateway", "GatewayClass", "HTTPRoute", "ReferenceGrant"],
  "networking.k8s.io": ["IngressClass"],
  "networking.istio.io": ["VirtualService", "DestinationRule", "ServiceEntry", "Sidecar", "Gateway"],
  "security.istio.io": ["AuthorizationPolicy", "PeerAuthentication"],
};

export function isRouterObject(apiVersion: string, kind: string): boolean {
  return ROUTERS[groupOf(apiVersion)]?.includes(kind) ?? false;
}

/**
 * What an unmodelled object can change: `pod` a pod-to-pod verdict (reach,
 * connlist, and every trace), `route` only where a request goes through a
 * router or a Service name (trace), `reach` pod-to-pod verdicts that only the
 * trace's L7 layer evaluates (an Istio AuthorizationPolicy: reach and connlist
 * ignore it, trace models it).
 */
export type UnmodelledScope = "pod" | "route" | "reach";

/**
 * Policy-like kinds, by group, that could change a verdict and that no layer
 * of the engine evaluates yet. `*` stands for every kind of the group.
 */
const UNMODELLED: Record<string, Record<string, UnmodelledScope>> = {
  "policy.networking.k8s.io": { "*": "pod" },
  "cilium.io": { CiliumCIDRGroup: "pod" },
  "projectcalico.org": {
    StagedNetworkPolicy: "pod",
    StagedGlobalNetworkPolicy: "pod",
    StagedKubernetesNetworkPolicy: "pod",
    NetworkSet: "pod",
    GlobalNetworkSet: "pod",
    HostEndpoint: "pod",
  },
  "crd.projectcalico.org": {
    StagedNetworkPolicy: "pod",
    StagedGlobalNetworkPolicy: "pod",
    StagedKubernetesNetworkPolicy: "pod",
    NetworkSet: "pod",
    GlobalNetworkSet: "pod",
    HostEndpoint: "pod",
  },
  "crd.antrea.io": {
    ClusterNetworkPolicy: "pod",
    NetworkPolicy: "pod",
    Tier: "pod",
    ClusterGroup: "pod",
    Group: "pod",
  },
  // OVN-Kubernetes' user-defined networks: a primary UDN isolates its namespaces' pods from the
  // default network (and from each other); ktl models one pod network.
  "k8s.ovn.org": {
    EgressFirewall: "pod",
    AdminPolicyBasedExternalRoute: "route",
    UserDefinedNetwork: "pod",
    ClusterUserDefinedNetwork: "pod",
  },
  // Multus: a NetworkAttachmentDefinition gives the pods that ask for it a second interface,
  // which NetworkPolicy does not govern (MultiNetworkPolicy does).
  "k8s.cni.cncf.io": { MultiNetworkPolicy: "pod", NetworkAttachmentDefinition: "pod" },
  // KubeVirt: each running VirtualMachine(Instance) is a virt-launcher pod with the template's
  // labels, which ktl does not create: its traffic is missing from every answer.
  "kubevirt.io": {
    VirtualMachine: "pod",
    VirtualMachineInstance: "pod",
    VirtualMachineInstanceReplicaSet: "pod",
  },
  "pool.kubevirt.io": { VirtualMachinePool: "pod" },
  "networking.gke.io": { FQDNNetworkPolicy: "pod", GCPBackendPolicy: "route" },
  "security.istio.io": {
    AuthorizationPolicy: "reach",
    PeerAuthentication: "reach",
    RequestAuthentication: "route",
  },
  "networking.istio.io": { EnvoyFilter: "route" },
  "gateway.networking.k8s.io": {
    GRPCRoute: "route",
    TLSRoute: "route",
    TCPRoute: "route",
    UDPRoute: "route",
  },
  "policy.linkerd.io": {
    Server: "pod",
    ServerAuthorization: "pod",
    AuthorizationPolicy: "pod",
    MeshTLSAuthentication: "pod",
    NetworkAuthentication: "pod",
    HTTPRoute: "route",
  },
  "kuma.io": { MeshTrafficPermission: "pod" },
  "traefik.io": { IngressRoute: "route", IngressRouteTCP: "route", IngressRouteUDP: "route" },
};

/** Whether an object the engine does not model could change a traffic answer, and where; undefined when it cannot. */
export function unmodelledScope(apiVersion: string, kind: string): UnmodelledScope | undefined {
  if (isModelled(apiVersion, kind)) return undefined;
  const byKind = UNMODELLED[groupOf(apiVersion)];
  if (!byKind) return undefined;
  return byKind[kind] ?? byKind["*"];
}
