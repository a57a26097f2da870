/**
 * kube-proxy's choice of backends on one node, as plain data: the decision
 * the iptables/nftables rule writers, the trace and the UI all read.
 * Follows kubernetes/kubernetes v1.35 (pkg/proxy/topology.go at
 * 008b3652959c, pkg/proxy/nftables/proxier.go and iptables/proxier.go
 * syncProxyRules), iptables and nftables modes, default feature gates,
 * local-traffic detection by cluster CIDR (a packet from a pod IP is pod
 * traffic), masqueradeAll off.
 *
 * Rules:
 * 1. Services that kube-proxy skips: headless (clusterIP None) and
 *    ExternalName (proxy/util ShouldSkipService). Nothing is proxied.
 * 2. Frontends: the ClusterIP (internal traffic), and the external ones:
 *    each nodePort, each VIP-mode LoadBalancer IP, each externalIP.
 *    Internal traffic uses internalTrafficPolicy; external traffic uses
 *    externalTrafficPolicy (ExternalPolicyLocal needs an externally
 *    accessible Service).
 * 3. Endpoint sets per node: CategorizeEndpoints (proxy/topology.ts).
 * 4. REJECT when the port has no usable endpoint anywhere
 *    (!hasAnyEndpoints: "has no endpoints"); DROP when a Local policy finds
 *    no local endpoint ("has no local endpoints"). IPVS mode (the input's
 *    KubeProxyConfiguration mode) instead gives the virtual server the
 *    cluster endpoints (ipvs/proxier.go syncEndpoint, PR #97081): pods and
 *    the node reach them, an external client's reply is lost.
 * 5. External traffic with externalTrafficPolicy Local: pod traffic is
 *    short-circuited to the Cluster endpoints without masquerade ("short-
 *    circuit pod traffic", as if it went out to the load balancer and came
 *    back); traffic from the node itself is masqueraded and short-circuited
 *    to the Cluster endpoints; everything else uses the Local endpoints,
 *    unmasqueraded. With externalTrafficPolicy Cluster all external traffic
 *    is masqueraded (it may cross nodes).
 * 6. Internal traffic is masqueraded when it does not come from a pod (the
 *    cluster-CIDR detector: `! -s clusterCIDR -d clusterIP -j KUBE-MARK-MASQ`).
 * 7. A backend reached by its own pod (hairpin) is always masqueraded (the
 *    endpoint chain's `-s endpointIP -j KUBE-MARK-MASQ`).
 * 8. Each candidate is equally likely (iptables: statistic random with
 *    1/(n-i) per rule; nftables: numgen random mod n; both uniform).
 *    ClientIP session affinity keeps the candidates; it pins later
 *    connections from one client IP to the endpoint picked first, for
 *    timeoutSeconds.
 * 9. LoadBalancer health checks (pkg/proxy/healthcheck): for a LoadBalancer
 *    with externalTrafficPolicy Local, each node answers on
 *    healthCheckNodePort 200 when it has at least one Ready local endpoint
 *    (unique IPs across the Service's ports; serving-terminating ones do not
 *    count) and 503 otherwise. Load balancers send traffic only to nodes
 *    that answer 200.
 * 10. spec.loadBalancerSourceRanges (the firewall chain) admit
 *    LoadBalancer-IP traffic, pods' included, only from the listed ranges of
 *    the packet's family (and from the LB IP itself when the node IP is
 *    inside them); NodePorts and the ClusterIP are not filtered. The
 *    load-balancer-source-ranges annotation is not kube-proxy's.
 */
import type { SourceRef } from "../parse/manifests.ts";
import type { Model, Node, Pod, PodKey, Protocol } from "../model/types.ts";
import type { EndpointSlice, Service, ServicePort } from "../model/services.ts";
import { externallyAccessible, externalPolicyLocal } from "../model/services.ts";
import { cidrContains, parseCidr, parseIP, type Cidr, type Family } from "../model/ip.ts";
import { servicePortEndpoints, type PortEndpoints, type ProxyEndpoint } from "./endpoints.ts";
import {
  categorizeEndpoints,
  type Categorized,
  type ServicePortTraits,
  type TopologyMode,
} from "./topology.ts";

export {
  categorizeEndpoints,
  topologyModeFromHints,
  availableForTopology,
  usesClusterEndpoints,
  usesLocalEndpoints,
} from "./topology.ts";
export type { Categorized, ServicePortTraits, TopologyMode, TopologyChoice } from "./topology.ts";
export { servicePortEndpoints, endpointKey } from "./endpoints.ts";
export type { ProxyEndpoint, PortEndpoints } from "./endpoints.ts";

/** How the packet reached kube-proxy: the Service's virtual IP, or one of its external ways in. */
export type Frontend = "clusterIP" | "nodePort" | "loadBalancer" | "externalIP";
/** Who sent it, as kube-proxy's rules tell: a pod IP, an address of this node, anything else. */
export type TrafficOrigin = "pod" | "host" | "external";

export interface ServiceProxy {
  service: Service;
  /** The Service's EndpointSlices (given, derived or mirrored). */
  slices: EndpointSlice[];
  /** kube-proxy's endpoints per Service port, in spec.ports order. */
  ports: PortEndpoints[];
}

/** Everything a trace needs, precomputed once per model. */
export interface ProxyIndex {
  model: Model;
  services: Map<string, ServiceProxy>;
  byClusterIP: Map<string, Service>;
  byExternalIP: Map<string, Service[]>;
  byLoadBalancerIP: Map<string, Service[]>;
  /** "TCP/30080" -> Service and port. */
  byNodePort: Map<string, { service: Service; port: ServicePort }>;
  nodesByIP: Map<string, Node>;
  /** Load balancer addresses kube-proxy does not capture (ipMode Proxy): traffic to them leaves the node. */
  proxyModeLoadBalancers: Map<string, Service>;
  /** "node|TCP|18080" -> the pod holding that hostPort (the CNI portmap DNATs node traffic to it). */
  hostPorts: Map<string, { pod: Pod; containerPort: number }>;
  /** "node|TCP|9100" -> the hostNetwork pod declaring that container port. */
  hostNetworkPorts: Map<string, Pod>;
}

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const l = m.get(k);
  if (l) l.push(v);
  else m.set(k, [v]);
}

export function buildProxyIndex(model: Model): ProxyIndex {
  const slicesByService = new Map<string, EndpointSlice[]>();
  for (const s of model.endpointSlices)
    if (s.serviceName) push(slicesByService, `${s.namespace}/${s.serviceName}`, s);
  const index: ProxyIndex = {
    model,
    services: new Map(),
    byClusterIP: new Map(),
    byExternalIP: new Map(),
    byLoadBalancerIP: new Map(),
    byNodePort: new Map(),
    nodesByIP: new Map(),
    proxyModeLoadBalancers: new Map(),
    hostPorts: new Map(),
    hostNetworkPorts: new Map(),
  };
  for (const service of model.services) {
    const slices = slicesByService.get(service.key) ?? [];
    index.services.set(service.key, { service, slices, ports: servicePortEndpoints(model, service, slices) });
    if (skipped(service)) continue;
    for (const ip of service.clusterIPs) if (!index.byClusterIP.has(ip)) index.byClusterIP.set(ip, service);
    for (const ip of service.externalIPs) push(index.byExternalIP, ip, service);
    for (const ip of service.loadBalancerIPs) push(index.byLoadBalancerIP, ip, service);
    for (const i of service.loadBalancerIngress)
      if (i.ip && i.ipMode === "Proxy" && !index.proxyModeLoadBalancers.has(i.ip))
        index.proxyModeLoadBalancers.set(i.ip, service);
    for (const p of service.ports)
      if (p.nodePort) index.byNodePort.set(`${p.protocol}/${p.nodePort}`, { service, port: p });
  }
  for (const n of model.nodes)
    for (const a of n.addresses)
      if (a.type === "InternalIP" || a.type === "ExternalIP")
        if (!index.nodesByIP.has(a.address)) index.nodesByIP.set(a.address, n);
  for (const pod of model.pods) {
    if (!pod.nodeName) continue;
    for (const c of pod.ports) {
      if (pod.hostNetwork) {
        const k = `${pod.nodeName}|${c.protocol}|${c.containerPort}`;
        if (!index.hostNetworkPorts.has(k)) index.hostNetworkPorts.set(k, pod);
      } else if (c.hostPort) {
        const k = `${pod.nodeName}|${c.protocol}|${c.hostPort}`;
        if (!index.hostPorts.has(k)) index.hostPorts.set(k, { pod, containerPort: c.containerPort });
      }
    }
  }
  return index;
}

/** proxy/util ShouldSkipService: kube-proxy programs nothing for headless and ExternalName Services. */
export function skipped(s: Service): boolean {
  return s.type === "ExternalName" || s.headless || s.clusterIPs.length === 0;
}

function familyOf(ip: string): Family | undefined {
  return parseIP(ip)?.family;
}

/** The service port's traits for the proxier of one IP family (serviceport.go newBaseServiceInfo). */
export function portTraits(s: Service, p: ServicePort, family: Family): ServicePortTraits {
  const accessible =
    !!p.nodePort ||
    s.loadBalancerIPs.some((ip) => familyOf(ip) === family) ||
    s.externalIPs.some((ip) => familyOf(ip) === family);
  return {
    internalPolicyLocal: s.internalTrafficPolicy === "Local",
    externalPolicyLocal: externalPolicyLocal(s),
    externallyAccessible: accessible && externallyAccessible(s),
  };
}

/** The Service port for a number or a name (and protocol, when given). */
export function findServicePort(
  s: Service,
  port: number | string,
  protocol?: Protocol,
): ServicePort | undefined {
  return s.ports.find(
    (p) =>
      (typeof port === "number" ? p.port === port : p.name === port) &&
      (!protocol || p.protocol === protocol),
  );
}

export function nodeAddress(node: Node | undefined, family: Family): string | undefined {
  if (!node) return undefined;
  const a = node.addresses.find((x) => x.type === "InternalIP" && familyOf(x.address) === family);
  if (a) return a.address;
  return familyOf(node.internalIP) === family ? node.internalIP : undefined;
}

export interface ProxyRequest {
  /** "namespace/name" */
  service: string;
  /** The Service port's number (spec.ports[].port) or name. */
  port: number | string;
  protocol?: Protocol;
  /** The node whose kube-proxy handles the packet. */
  node: string;
  frontend: Frontend;
  origin: TrafficOrigin;
  /** Defaults to the Service's primary family. */
  family?: Family;
  /** The packet's source address: marks hairpin endpoints. */
  sourceIP?: string;
  /** kube-proxy's mode; defaults to the input's KubeProxyConfiguration mode, else iptables. */
  mode?: ProxyMode;
}

export type ProxyMode = "iptables" | "nftables" | "ipvs";

/** KEP-3015: in 1.35 PreferClose is the deprecated alias of PreferSameZone (PreferSameTrafficDistribution, GA and locked on). */
export const PREFER_CLOSE_ALIAS =
  "trafficDistribution PreferClose is the deprecated alias of PreferSameZone in 1.35 (KEP-3015) and behaves the same: write PreferSameZone";

/** KubeProxyConfiguration `mode` as written in the input (empty: iptables on Linux). */
export function proxyModeOf(model: Model): ProxyMode {
  const m = model.proxyConfiguration?.mode;
  return m === "ipvs" || m === "nftables" ? m : "iptables";
}

/**
 * The category of the endpoint set used: all ready endpoints, the topology
 * subset, the serving-terminating fallback, the node's own endpoints (or
 * their terminating fallback), or none.
 */
export type EndpointCategory =
  | "cluster"
  | "topology-zone"
  | "topology-node"
  | "cluster-terminating"
  | "local"
  | "local-terminating"
  | "none";

export interface ProxyCandidate {
  ip: string;
  port: number;
  /** "ip:port" as kube-proxy prints it. */
  key: string;
  pod?: PodKey;
  node?: string;
  zone?: string;
  ready: boolean;
  serving: boolean;
  terminating: boolean;
  /** On the node handling the packet. */
  local: boolean;
  probability: number;
  /** The backend sees a node address instead of the client's (masquerade or hairpin). */
  masquerade: boolean;
  ref: SourceRef;
  /** "namespace/name" of the EndpointSlice listing it, and where that slice comes from. */
  slice: string;
  sliceOrigin: EndpointSlice["origin"];
}

/** A reference to the object and line that decided. */
export interface ProxyRef extends SourceRef {
  field?: string;
}

export interface ProxyDecision {
  service: string;
  portName: string;
  port: number;
  protocol: Protocol;
  family: Family;
  node: string;
  zone: string | null;
  frontend: Frontend;
  origin: TrafficOrigin;
  /** Which endpoint set the packet goes to. */
  policy: "Cluster" | "Local";
  /** The field that chose it. */
  policyField: "internalTrafficPolicy" | "externalTrafficPolicy";
  /** externalTrafficPolicy Local sends pod and node traffic to the Cluster endpoints. */
  shortCircuit: "pod" | "host" | null;
  /** forward: DNAT to a candidate; drop: DROP (Local policy, no local endpoint); reject: REJECT (no endpoint at all). */
  action: "forward" | "drop" | "reject";
  category: EndpointCategory;
  topologyMode: TopologyMode;
  topologyNote: string;
  candidates: ProxyCandidate[];
  /** The packet is masqueraded (SNAT to the node) before it reaches any backend. */
  masquerade: boolean;
  masqueradeReason: string;
  sessionAffinity: { type: "ClientIP"; timeoutSeconds: number } | null;
  hasAnyEndpoints: boolean;
  counts: { endpoints: number; ready: number; servingTerminating: number; local: number };
  /** One sentence: what kube-proxy does and why. */
  reason: string;
  decidedBy: ProxyRef | null;
  /** The raw categories, for rule writers. */
  categorized: Categorized;
}

export interface ProxyError {
  error: string;
}

/** The field's line, or the `spec:` line when the field is absent (a defaulted value). */
function ref(s: Service, field: string, line: number): ProxyRef {
  return { ...s.source, line: line || s.lines.spec || s.source.line, field };
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

export function portLabel(p: ServicePort): string {
  return p.name ? `${p.name} (${p.port}/${p.protocol})` : `${p.port}/${p.protocol}`;
}

/**
 * Where an endpoint's hints are written: its line in an EndpointSlice of the
 * input, or, for slices the model derives as the EndpointSlice controller
 * would, the Service field that asked for them (the topology-mode annotation
 * wins over spec.trafficDistribution: reconciler.go).
 */
function hintsRef(s: Service, e: ProxyEndpoint): ProxyRef {
  if (e.sliceOrigin !== "controller") return { ...e.ref, field: "hints" };
  if (s.lines.topologyMode) return ref(s, "metadata.annotations (topology mode)", s.lines.topologyMode);
  return ref(s, "spec.trafficDistribution", s.lines.trafficDistribution);
}

/**
 * Why a Service that asks the EndpointSlice controller for hints has none:
 * topology-mode Auto's topology cache gave up (its event, kept on the
 * derived slices), or trafficDistribution found no zone or node to hint.
 */
function missingHints(s: Service, slices: readonly EndpointSlice[]): string | undefined {
  const derived = slices.find((sl) => sl.origin === "controller" && sl.hintsNote);
  if (!derived) return undefined;
  if (/set no hints/.test(derived.hintsNote!)) return derived.hintsNote;
  if (s.trafficDistribution)
    return `trafficDistribution ${s.trafficDistribution} asks for hints, but no ready endpoint has a zone or node to hint (their nodes carry no topology.kubernetes.io/zone label)`;
  return undefined;
}

/** Why CategorizeEndpoints passes over an endpoint: neither Ready nor Serving-and-Terminating. */
function unusable(e: ProxyEndpoint): string {
  if (e.terminating) return e.serving ? "is terminating" : "is terminating and no longer serving";
  return e.serving ? "is not ready and not terminating (serving alone is no fallback)" : "is not ready";
}

/** The endpoint lists of one Service port (indexed by its slot among the valid ports, never by its spec.ports index). */
export function portEndpoints(sp: { ports: readonly PortEndpoints[] }, port: ServicePort): PortEndpoints {
  return sp.ports[port.slot] ?? { name: port.name, protocol: port.protocol, v4: [], v6: [] };
}

/** kube-proxy's decision for one packet to `req.service` handled on `req.node`. */
export function chooseEndpoints(index: ProxyIndex, req: ProxyRequest): ProxyDecision | ProxyError {
  const sp = index.services.get(req.service);
  if (!sp) return { error: `no Service ${req.service} in the input` };
  const s = sp.service;
  if (skipped(s))
    return {
      error:
        s.type === "ExternalName"
          ? `Service ${s.key} is ExternalName: kube-proxy programs nothing for it`
          : `Service ${s.key} is headless: kube-proxy programs nothing for it`,
    };
  const port = findServicePort(s, req.port, req.protocol);
  if (!port)
    return { error: `Service ${s.key} has no port ${req.port}${req.protocol ? `/${req.protocol}` : ""}` };
  const family: Family = req.family ?? familyOf(s.clusterIPs[0]!) ?? 4;
  if (!s.clusterIPs.some((ip) => familyOf(ip) === family))
    return { error: `Service ${s.key} has no IPv${family} ClusterIP` };
  const node = index.model.nodesByName.get(req.node);
  const zone = node?.zone ?? "";
  const traits = portTraits(s, port, family);
  if (req.frontend === "nodePort" && !port.nodePort)
    return { error: `Service ${s.key} port ${portLabel(port)} has no nodePort` };
  if (req.frontend === "loadBalancer" && !s.loadBalancerIPs.some((ip) => familyOf(ip) === family))
    return { error: `Service ${s.key} has no load balancer IP that kube-proxy handles` };
  if (req.frontend === "externalIP" && !s.externalIPs.some((ip) => familyOf(ip) === family))
    return { error: `Service ${s.key} has no externalIPs` };

  const all = portEndpoints(sp, port)[family === 4 ? "v4" : "v6"];
  const cat = categorizeEndpoints(all, traits, req.node, zone);
  const internal = req.frontend === "clusterIP";
  const local = internal ? traits.internalPolicyLocal : traits.externalPolicyLocal;
  let policy: "Cluster" | "Local" = local ? "Local" : "Cluster";
  let shortCircuit: ProxyDecision["shortCircuit"] = null;
  let masquerade: boolean;
  let masqueradeReason: string;
  const via =
    req.frontend === "nodePort"
      ? "a NodePort"
      : req.frontend === "loadBalancer"
        ? "a LoadBalancer IP"
        : req.frontend === "externalIP"
          ? "an external IP"
          : "the ClusterIP";
  if (internal) {
    masquerade = req.origin !== "pod";
    masqueradeReason = masquerade
      ? `traffic to a ClusterIP from outside the pod network (${req.origin === "host" ? "the node's host network" : "an external client"}) is masqueraded to the node's address`
      : "pod traffic to a ClusterIP keeps its source address";
  } else if (!local) {
    masquerade = true;
    masqueradeReason = `externalTrafficPolicy Cluster masquerades traffic that arrives through ${via}, because the backend may be on another node`;
  } else if (req.origin === "pod") {
    policy = "Cluster";
    shortCircuit = "pod";
    masquerade = false;
    masqueradeReason = `pod traffic to ${via} of an externalTrafficPolicy Local Service is short-circuited to the cluster-wide endpoints, unmasqueraded (as if it went out to the load balancer and came back)`;
  } else if (req.origin === "host") {
    policy = "Cluster";
    shortCircuit = "host";
    masquerade = true;
    masqueradeReason = `traffic from the node itself to ${via} is masqueraded and short-circuited to the cluster-wide endpoints`;
  } else {
    masquerade = false;
    masqueradeReason =
      "externalTrafficPolicy Local keeps the client's source address: only endpoints on this node are used";
  }
  const policyField = internal ? "internalTrafficPolicy" : "externalTrafficPolicy";
  const policyLine = internal ? s.lines.internalTrafficPolicy : s.lines.externalTrafficPolicy;

  const counts = {
    endpoints: all.length,
    ready: all.filter((e) => e.ready).length,
    servingTerminating: all.filter((e) => !e.ready && e.serving && e.terminating).length,
    local: all.filter((e) => e.nodeName === req.node).length,
  };
  const svcName = `Service ${s.key}`;
  const pl = portLabel(port);
  let action: ProxyDecision["action"] = "forward";
  let category: EndpointCategory;
  let chosen: ProxyEndpoint[] = [];
  let reason: string;
  let decidedBy: ProxyRef | null = null;
  // ServicePortName.String(), as kube-proxy's rule comments print it.
  const spn = port.name ? `${s.key}:${port.name}` : s.key;
  if (!cat.hasAnyEndpoints) {
    action = "reject";
    category = "none";
    const shown = all.slice(0, 3).map((e) => `${e.ip}${e.pod ? ` (${e.pod})` : ""} ${unusable(e)}`);
    if (all.length > 3) shown.push(`and ${all.length - 3} more`);
    const what =
      all.length === 0
        ? `no endpoints for port ${pl}`
        : `no usable endpoint for port ${pl}: ${shown.join(", ")}`;
    reason = `${svcName} has ${what}; kube-proxy's rule: "${spn} has no endpoints" REJECT`;
    const first = all[0];
    if (first)
      decidedBy = { ...first.ref, field: first.ref.kind === "Pod" ? "status.conditions" : "conditions" };
    else
      decidedBy = sp.slices[0]
        ? {
            ...sp.slices[0].source,
            field: sp.slices[0].origin === "controller" ? "spec.selector" : "endpoints",
          }
        : ref(s, s.selector ? "spec.selector" : "spec", s.lines.selector);
  } else if (policy === "Local") {
    chosen = cat.localEndpoints ?? [];
    const mode = req.mode ?? proxyModeOf(index.model);
    if (chosen.length === 0 && mode === "ipvs" && (cat.clusterEndpoints ?? []).length > 0) {
      // pkg/proxy/ipvs/proxier.go syncEndpoint (PR #97081): with no local
      // endpoint the virtual server gets the cluster-wide endpoints.
      decidedBy = ref(s, `spec.${policyField}`, policyLine);
      if (!internal && req.origin === "external") {
        action = "drop";
        category = "none";
        reason = `${svcName} has externalTrafficPolicy Local and ${req.node} has no endpoint of its own; in IPVS mode kube-proxy still forwards to a cluster-wide endpoint (syncEndpoint, PR #97081), unmasqueraded, so the reply leaves that pod's node with the pod's address and the client discards it`;
      } else {
        chosen = cat.clusterEndpoints ?? [];
        category = "cluster";
        policy = "Cluster";
        reason = `${svcName} has ${policyField} Local and ${req.node} has no endpoint of its own; in IPVS mode kube-proxy falls back to the ${plural(chosen.length, "cluster-wide endpoint")} (syncEndpoint, PR #97081), where iptables and nftables modes drop`;
      }
    } else if (chosen.length === 0) {
      action = "drop";
      category = "none";
      reason = `${svcName} has ${policyField} Local and ${req.node} has no ready (or serving terminating) endpoint of its own; kube-proxy's rule: "${spn} has no local endpoints" DROP`;
      decidedBy = ref(s, `spec.${policyField}`, policyLine);
    } else {
      category = cat.localTerminatingFallback ? "local-terminating" : "local";
      reason = cat.localTerminatingFallback
        ? `${policyField} Local: ${req.node} has no ready local endpoint, so it falls back to its ${plural(chosen.length, "serving terminating endpoint")}`
        : `${policyField} Local: ${plural(chosen.length, "ready endpoint")} on ${req.node}`;
      decidedBy = ref(s, `spec.${policyField}`, policyLine);
    }
  } else {
    chosen = cat.clusterEndpoints ?? [];
    if (cat.clusterTerminatingFallback) {
      category = "cluster-terminating";
      reason = `no ready endpoint anywhere: kube-proxy falls back to the ${plural(chosen.length, "serving terminating endpoint")}`;
      decidedBy = { ...chosen[0]!.ref, field: "conditions" };
    } else if (cat.topology.mode === "PreferSameZone" || cat.topology.mode === "PreferSameNode") {
      category = cat.topology.mode === "PreferSameZone" ? "topology-zone" : "topology-node";
      reason = `topology hints (${cat.topology.mode}): ${cat.topology.note}, so ${req.node} uses ${chosen.length === 1 ? "only that endpoint" : `only those ${chosen.length}`}`;
      if (s.trafficDistribution === "PreferClose" && !s.topologyMode) reason += `; ${PREFER_CLOSE_ALIAS}`;
      decidedBy = hintsRef(s, chosen[0]!);
    } else {
      category = "cluster";
      reason = shortCircuit
        ? `${plural(chosen.length, "ready endpoint")} cluster-wide (${shortCircuit} traffic short-circuited past externalTrafficPolicy Local)`
        : `${policyField} Cluster${policyLine ? "" : " (the default)"}: ${plural(chosen.length, "ready endpoint")} cluster-wide`;
      const hinted = all.find((e) => e.ready && (e.zoneHints.length || e.nodeHints.length));
      const unhinted = hinted ? undefined : missingHints(s, sp.slices);
      if (unhinted) reason += `; ${unhinted}`;
      if (shortCircuit) decidedBy = ref(s, "spec.externalTrafficPolicy", s.lines.externalTrafficPolicy);
      else if (hinted) decidedBy = hintsRef(s, hinted);
      else if (unhinted)
        decidedBy = s.lines.topologyMode
          ? ref(s, "metadata.annotations (topology mode)", s.lines.topologyMode)
          : ref(s, "spec.trafficDistribution", s.lines.trafficDistribution);
      else decidedBy = ref(s, `spec.${policyField}`, policyLine);
    }
  }
  const p = chosen.length ? 1 / chosen.length : 0;
  const candidates: ProxyCandidate[] = chosen.map((e) => {
    const c: ProxyCandidate = {
      ip: e.ip,
      port: e.port,
      key: e.key,
      ready: e.ready,
      serving: e.serving,
      terminating: e.terminating,
      local: e.nodeName === req.node,
      probability: p,
      masquerade: masquerade || (req.sourceIP !== undefined && req.sourceIP === e.ip),
      ref: e.ref,
      slice: e.slice,
      sliceOrigin: e.sliceOrigin,
    };
    if (e.pod) c.pod = e.pod;
    if (e.nodeName) c.node = e.nodeName;
    if (e.zone) c.zone = e.zone;
    return c;
  });
  return {
    service: s.key,
    portName: port.name,
    port: port.port,
    protocol: port.protocol,
    family,
    node: req.node,
    zone: zone || null,
    frontend: req.frontend,
    origin: req.origin,
    policy,
    policyField,
    shortCircuit,
    action,
    category,
    topologyMode: cat.topology.mode,
    topologyNote: cat.topology.note,
    candidates,
    masquerade,
    masqueradeReason,
    sessionAffinity:
      s.sessionAffinity === "ClientIP"
        ? { type: "ClientIP", timeoutSeconds: s.sessionAffinityTimeoutSeconds }
        : null,
    hasAnyEndpoints: cat.hasAnyEndpoints,
    counts,
    reason,
    decidedBy,
    categorized: cat,
  };
}

export interface HealthCheckStatus {
  node: string;
  /** spec.healthCheckNodePort */
  port: number;
  /** Ready endpoints on the node (unique IPs over all the Service's ports). */
  localEndpoints: number;
  healthy: boolean;
  status: 200 | 503;
}

/** Ready local endpoint IPs per node, over all the Service's ports (EndpointsMap getLocalReadyEndpointIPs). */
function readyIPsByNode(sp: ServiceProxy): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const p of sp.ports)
    for (const list of [p.v4, p.v6])
      for (const e of list) {
        if (!e.ready || !e.nodeName) continue;
        let ips = out.get(e.nodeName);
        if (!ips) out.set(e.nodeName, (ips = new Set()));
        ips.add(e.ip);
      }
  return out;
}

function healthStatus(node: string, port: number, count: number): HealthCheckStatus {
  const healthy = count > 0;
  return { node, port, localEndpoints: count, healthy, status: healthy ? 200 : 503 };
}

/** What a load balancer's health check on `node` sees (undefined: the Service has no healthCheckNodePort). */
export function healthCheck(index: ProxyIndex, service: string, node: string): HealthCheckStatus | undefined {
  const sp = index.services.get(service);
  if (!sp || !sp.service.healthCheckNodePort || skipped(sp.service)) return undefined;
  return healthStatus(node, sp.service.healthCheckNodePort, readyIPsByNode(sp).get(node)?.size ?? 0);
}

/** Every node's health check answer for a LoadBalancer with externalTrafficPolicy Local (one pass over the endpoints). */
export function loadBalancerHealth(index: ProxyIndex, service: string): HealthCheckStatus[] {
  const sp = index.services.get(service);
  if (!sp || !sp.service.healthCheckNodePort || skipped(sp.service)) return [];
  const byNode = readyIPsByNode(sp);
  const port = sp.service.healthCheckNodePort;
  return index.model.nodes.map((n) => healthStatus(n.name, port, byNode.get(n.name)?.size ?? 0));
}

export interface SourceRangeCheck {
  allowed: boolean;
  ranges: string[];
  /** The range that admitted the source. */
  matched?: string;
}

/**
 * The firewall chain for LoadBalancer-IP traffic (rule 10), as
 * newBaseServiceInfo and syncProxyRules build it: only
 * spec.loadBalancerSourceRanges of the source's family count (the annotation
 * is the cloud provider's, and a list without a range of this family
 * programs no firewall for it); the source must be in a range; when
 * kube-proxy's node IP (the handling node's primary InternalIP of the family)
 * is inside a range, a source equal to a LoadBalancer IP is admitted too
 * (node traffic that loops back SNATted to the LB IP: iptables
 * TestLoadBalancer "same node to LB1, SNATted to LB1 (implicitly allowed)").
 * Undefined when no firewall applies.
 */
export function checkSourceRanges(
  s: Service,
  sourceIP: string,
  handling?: Node,
): SourceRangeCheck | undefined {
  const check = matchSourceRanges(s.loadBalancerSourceRanges, sourceIP);
  if (!check || check.allowed) return check;
  const family = parseIP(sourceIP)!.family;
  const nodeIP = nodeAddress(handling, family);
  if (
    handling &&
    nodeIP &&
    s.loadBalancerIPs.includes(sourceIP) &&
    matchSourceRanges(check.ranges, nodeIP)?.allowed
  ) {
    return {
      allowed: true,
      ranges: check.ranges,
      matched: `the LoadBalancer IP itself (${handling.name}'s node IP ${nodeIP} is in a range)`,
    };
  }
  return check;
}

/** `ip` against the CIDRs of its own family in `ranges` (whitespace trimmed); undefined when the list has none of that family. */
export function matchSourceRanges(ranges: readonly string[], ip: string): SourceRangeCheck | undefined {
  const source = parseIP(ip);
  if (!source) return undefined;
  const cidrs: { r: string; c: Cidr }[] = [];
  for (const text of ranges) {
    const r = text.trim();
    const c = parseCidr(r).cidr;
    if (c && c.family === source.family) cidrs.push({ r, c });
  }
  if (cidrs.length === 0) return undefined;
  const hit = cidrs.find((x) => cidrContains(x.c, source));
  const out: SourceRangeCheck = { allowed: !!hit, ranges: cidrs.map((x) => x.r) };
  if (hit) out.matched = hit.r;
  return out;
}
