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
import type { Model, Node, Pod, Protocol } from "../model/types.ts";
import type { EndpointSlice, Service, ServicePort } from "../model/services.ts";
import { externallyAccessible, externalPolicyLocal } from "../model/services.ts";
import { cidrContains, parseCidr, parseIP, type Cidr, type Family } from "../model/ip.ts";
import { servicePortEndpoints, type PortEndpoints } from "./endpoints.ts";
import { categorizeEndpoints, type ServicePortTraits } from "./topology.ts";
import {
  candidatesOf,
  chooseCluster,
  chooseLocal,
  endpointCounts,
  portLabel,
  rejectNoEndpoints,
  sessionAffinityOf,
  trafficPolicyOf,
  type ChoiceContext,
  type ProxyDecision,
  type ProxyError,
  type ProxyMode,
  type ProxyRequest,
} from "./choose.ts";

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
export { PREFER_CLOSE_ALIAS, portLabel } from "./choose.ts";
export type {
  EndpointCategory,
  Frontend,
  ProxyCandidate,
  ProxyDecision,
  ProxyError,
  ProxyMode,
  ProxyRef,
  ProxyRequest,
  TrafficOrigin,
} from "./choose.ts";

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

/** KubeProxyConfiguration `mode` as written in the input (empty: iptables on Linux). */
export function proxyModeOf(model: Model): ProxyMode {
  const m = model.proxyConfiguration?.mode;
  return m === "ipvs" || m === "nftables" ? m : "iptables";
}

/** The endpoint lists of one Service port (indexed by its slot among the valid ports, never by its spec.ports index). */
/** The Service has a ready endpoint on some port (an ingress controller keeps a balancer only for such a Service). */
export function hasReadyEndpoint(index: ProxyIndex, serviceKey: string): boolean {
  return !!index.services
    .get(serviceKey)
    ?.ports.some((p) => p.v4.some((e) => e.ready) || p.v6.some((e) => e.ready));
}

export function portEndpoints(sp: { ports: readonly PortEndpoints[] }, port: ServicePort): PortEndpoints {
  return sp.ports[port.slot] ?? { name: port.name, protocol: port.protocol, v4: [], v6: [] };
}

/** The request's Service port, family and node: what chooseEndpoints decides for, or why it cannot. */
interface ResolvedRequest {
  sp: ServiceProxy;
  port: ServicePort;
  family: Family;
  zone: string;
  traits: ServicePortTraits;
}

/** The Service port, family and frontend of a request, checked against the Service (rules 1 and 2). */
function resolveRequest(index: ProxyIndex, req: ProxyRequest): ResolvedRequest | ProxyError {
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
  return { sp, port, family, zone, traits };
}

/**
 * kube-proxy's decision for one packet to `req.service` handled on
 * `req.node`, step by step (choose.ts): the request's Service port,
 * CategorizeEndpoints, the traffic policy and masquerade, the choice of
 * endpoints (REJECT, Local or DROP, Cluster), the candidates' chances,
 * session affinity.
 */
export function chooseEndpoints(index: ProxyIndex, req: ProxyRequest): ProxyDecision | ProxyError {
  const r = resolveRequest(index, req);
  if ("error" in r) return r;
  const { sp, port, family, zone, traits } = r;
  const s = sp.service;
  const all = portEndpoints(sp, port)[family === 4 ? "v4" : "v6"];
  const cat = categorizeEndpoints(all, traits, req.node, zone);
  const tp = trafficPolicyOf(req, traits);
  const c: ChoiceContext = { s, port, slices: sp.slices, req, tp, all, cat };
  const choice = !cat.hasAnyEndpoints
    ? rejectNoEndpoints(c)
    : tp.policy === "Local"
      ? chooseLocal(c, req.mode ?? proxyModeOf(index.model))
      : chooseCluster(c);
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
    policy: choice.policy ?? tp.policy,
    policyField: tp.policyField,
    shortCircuit: tp.shortCircuit,
    action: choice.action,
    category: choice.category,
    topologyMode: cat.topology.mode,
    topologyNote: cat.topology.note,
    candidates: candidatesOf(choice.chosen, req, tp.masquerade),
    masquerade: tp.masquerade,
    masqueradeReason: tp.masqueradeReason,
    sessionAffinity: sessionAffinityOf(s),
    hasAnyEndpoints: cat.hasAnyEndpoints,
    counts: endpointCounts(all, req.node),
    reason: choice.reason,
    decidedBy: choice.decidedBy,
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
