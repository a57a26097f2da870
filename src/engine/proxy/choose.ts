/**
 * The steps of chooseEndpoints (index.ts) and the shape of its request and
 * decision, in the order kube-proxy takes them for one Service port on one
 * node: CategorizeEndpoints (topology.ts) has split the endpoints; then
 * syncProxyRules (pkg/proxy/iptables/proxier.go, nftables/proxier.go)
 * picks the traffic policy and whether the packet is masqueraded
 * (trafficPolicyOf: the internal and external traffic chains, the
 * short-circuit of pod and node traffic), REJECTs a port with no endpoint
 * (rejectNoEndpoints), takes the local endpoints or DROPs (chooseLocal, with
 * IPVS's cluster-wide fallback), or the cluster endpoints with their
 * terminating fallback and topology (chooseCluster), and spreads the
 * connections evenly over the result (candidatesOf:
 * writeServiceToEndpointRules), session affinity pinning a client's later
 * connections (sessionAffinityOf).
 */
import type { SourceRef } from "../parse/manifests.ts";
import type { PodKey, Protocol } from "../model/types.ts";
import type { EndpointSlice, Service, ServicePort } from "../model/services.ts";
import type { Family } from "../model/ip.ts";
import type { ProxyEndpoint } from "./endpoints.ts";
import type { Categorized, ServicePortTraits, TopologyMode } from "./topology.ts";

/** How the packet reached kube-proxy: the Service's virtual IP, or one of its external ways in. */
export type Frontend = "clusterIP" | "nodePort" | "loadBalancer" | "externalIP";
/** Who sent it, as kube-proxy's rules tell: a pod IP, an address of this node, anything else. */
export type TrafficOrigin = "pod" | "host" | "external";

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

/** Which endpoint set the packet goes to, and what happens to its source address. */
export interface TrafficPolicy {
  /** Through the ClusterIP: internalTrafficPolicy decides; else externalTrafficPolicy. */
  internal: boolean;
  policy: "Cluster" | "Local";
  policyField: "internalTrafficPolicy" | "externalTrafficPolicy";
  shortCircuit: "pod" | "host" | null;
  masquerade: boolean;
  masqueradeReason: string;
}

/**
 * Rules 5 and 6 (index.ts): the internal traffic chain masquerades what no
 * pod sent; the external chain masquerades everything under
 * externalTrafficPolicy Cluster, and under Local short-circuits pod traffic
 * (unmasqueraded) and node traffic (masqueraded) to the Cluster endpoints.
 */
export function trafficPolicyOf(req: ProxyRequest, traits: ServicePortTraits): TrafficPolicy {
  const internal = req.frontend === "clusterIP";
  const local = internal ? traits.internalPolicyLocal : traits.externalPolicyLocal;
  let policy: "Cluster" | "Local" = local ? "Local" : "Cluster";
  let shortCircuit: TrafficPolicy["shortCircuit"] = null;
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
  return { internal, policy, policyField, shortCircuit, masquerade, masqueradeReason };
}

/** What every choice reads: the Service port, the request, its traffic policy and the categorized endpoints. */
export interface ChoiceContext {
  s: Service;
  port: ServicePort;
  slices: readonly EndpointSlice[];
  req: ProxyRequest;
  tp: TrafficPolicy;
  /** Every endpoint of the port and family. */
  all: readonly ProxyEndpoint[];
  cat: Categorized;
}

/** The endpoint set chosen, and why. */
export interface Choice {
  action: ProxyDecision["action"];
  category: EndpointCategory;
  chosen: ProxyEndpoint[];
  reason: string;
  decidedBy: ProxyRef | null;
  /** IPVS's fallback serves a Local policy from the Cluster endpoints. */
  policy?: "Cluster";
}

/** `Service ns/name`, as reasons name it. */
const svcName = (s: Service) => `Service ${s.key}`;
/** ServicePortName.String(), as kube-proxy's rule comments print it. */
const spnOf = (s: Service, port: ServicePort) => (port.name ? `${s.key}:${port.name}` : s.key);
/** The traffic policy field's line, or the `spec:` line when defaulted. */
const policyRef = ({ s, tp }: ChoiceContext) =>
  ref(
    s,
    `spec.${tp.policyField}`,
    tp.internal ? s.lines.internalTrafficPolicy : s.lines.externalTrafficPolicy,
  );

/** Rule 4, REJECT: no usable endpoint anywhere (!hasAnyEndpoints, "has no endpoints"). */
export function rejectNoEndpoints({ s, port, slices, all }: ChoiceContext): Choice {
  const shown = all.slice(0, 3).map((e) => `${e.ip}${e.pod ? ` (${e.pod})` : ""} ${unusable(e)}`);
  if (all.length > 3) shown.push(`and ${all.length - 3} more`);
  const pl = portLabel(port);
  const what =
    all.length === 0
      ? `no endpoints for port ${pl}`
      : `no usable endpoint for port ${pl}: ${shown.join(", ")}`;
  const reason = `${svcName(s)} has ${what}; kube-proxy's rule: "${spnOf(s, port)} has no endpoints" REJECT`;
  const first = all[0];
  let decidedBy: ProxyRef;
  if (first)
    decidedBy = { ...first.ref, field: first.ref.kind === "Pod" ? "status.conditions" : "conditions" };
  else
    decidedBy = slices[0]
      ? {
          ...slices[0].source,
          field: slices[0].origin === "controller" ? "spec.selector" : "endpoints",
        }
      : ref(s, s.selector ? "spec.selector" : "spec", s.lines.selector);
  return { action: "reject", category: "none", chosen: [], reason, decidedBy };
}

/**
 * A Local policy: the node's own ready endpoints, or their serving
 * terminating fallback (CategorizeEndpoints); none is a DROP ("has no local
 * endpoints") in iptables and nftables modes, while IPVS mode gives the
 * virtual server the cluster-wide endpoints (rule 4).
 */
export function chooseLocal(c: ChoiceContext, mode: ProxyMode): Choice {
  const { s, port, req, tp, cat } = c;
  const { policyField } = tp;
  const chosen = cat.localEndpoints ?? [];
  const decidedBy = policyRef(c);
  if (chosen.length === 0 && mode === "ipvs" && (cat.clusterEndpoints ?? []).length > 0) {
    // pkg/proxy/ipvs/proxier.go syncEndpoint (PR #97081): with no local
    // endpoint the virtual server gets the cluster-wide endpoints.
    if (!tp.internal && req.origin === "external")
      return {
        action: "drop",
        category: "none",
        chosen,
        reason: `${svcName(s)} has externalTrafficPolicy Local and ${req.node} has no endpoint of its own; in IPVS mode kube-proxy still forwards to a cluster-wide endpoint (syncEndpoint, PR #97081), unmasqueraded, so the reply leaves that pod's node with the pod's address and the client discards it`,
        decidedBy,
      };
    const cluster = cat.clusterEndpoints ?? [];
    return {
      action: "forward",
      category: "cluster",
      chosen: cluster,
      reason: `${svcName(s)} has ${policyField} Local and ${req.node} has no endpoint of its own; in IPVS mode kube-proxy falls back to the ${plural(cluster.length, "cluster-wide endpoint")} (syncEndpoint, PR #97081), where iptables and nftables modes drop`,
      decidedBy,
      policy: "Cluster",
    };
  }
  if (chosen.length === 0)
    return {
      action: "drop",
      category: "none",
      chosen,
      reason: `${svcName(s)} has ${policyField} Local and ${req.node} has no ready (or serving terminating) endpoint of its own; kube-proxy's rule: "${spnOf(s, port)} has no local endpoints" DROP`,
      decidedBy,
    };
  return {
    action: "forward",
    category: cat.localTerminatingFallback ? "local-terminating" : "local",
    chosen,
    reason: cat.localTerminatingFallback
      ? `${policyField} Local: ${req.node} has no ready local endpoint, so it falls back to its ${plural(chosen.length, "serving terminating endpoint")}`
      : `${policyField} Local: ${plural(chosen.length, "ready endpoint")} on ${req.node}`,
    decidedBy,
  };
}

/**
 * A Cluster policy (or a short-circuit to it): the serving terminating
 * fallback when no endpoint is ready anywhere, else the topology subset the
 * hints select, else every ready endpoint (with why hints are missing, when
 * the Service asked for them).
 */
export function chooseCluster(c: ChoiceContext): Choice {
  const { s, slices, req, tp, all, cat } = c;
  const chosen = cat.clusterEndpoints ?? [];
  if (cat.clusterTerminatingFallback)
    return {
      action: "forward",
      category: "cluster-terminating",
      chosen,
      reason: `no ready endpoint anywhere: kube-proxy falls back to the ${plural(chosen.length, "serving terminating endpoint")}`,
      decidedBy: { ...chosen[0]!.ref, field: "conditions" },
    };
  if (cat.topology.mode === "PreferSameZone" || cat.topology.mode === "PreferSameNode") {
    let reason = `topology hints (${cat.topology.mode}): ${cat.topology.note}, so ${req.node} uses ${chosen.length === 1 ? "only that endpoint" : `only those ${chosen.length}`}`;
    if (s.trafficDistribution === "PreferClose" && !s.topologyMode) reason += `; ${PREFER_CLOSE_ALIAS}`;
    return {
      action: "forward",
      category: cat.topology.mode === "PreferSameZone" ? "topology-zone" : "topology-node",
      chosen,
      reason,
      decidedBy: hintsRef(s, chosen[0]!),
    };
  }
  const { shortCircuit, policyField } = tp;
  const policyLine = tp.internal ? s.lines.internalTrafficPolicy : s.lines.externalTrafficPolicy;
  let reason = shortCircuit
    ? `${plural(chosen.length, "ready endpoint")} cluster-wide (${shortCircuit} traffic short-circuited past externalTrafficPolicy Local)`
    : `${policyField} Cluster${policyLine ? "" : " (the default)"}: ${plural(chosen.length, "ready endpoint")} cluster-wide`;
  const hinted = all.find((e) => e.ready && (e.zoneHints.length || e.nodeHints.length));
  const unhinted = hinted ? undefined : missingHints(s, slices);
  if (unhinted) reason += `; ${unhinted}`;
  let decidedBy: ProxyRef;
  if (shortCircuit) decidedBy = ref(s, "spec.externalTrafficPolicy", s.lines.externalTrafficPolicy);
  else if (hinted) decidedBy = hintsRef(s, hinted);
  else if (unhinted)
    decidedBy = s.lines.topologyMode
      ? ref(s, "metadata.annotations (topology mode)", s.lines.topologyMode)
      : ref(s, "spec.trafficDistribution", s.lines.trafficDistribution);
  else decidedBy = policyRef(c);
  return { action: "forward", category: "cluster", chosen, reason, decidedBy };
}

/**
 * Rules 7 and 8: every chosen endpoint is equally likely (the statistic
 * cascade, numgen); a backend reached by its own pod is masqueraded
 * (hairpin), whatever the traffic policy said.
 */
export function candidatesOf(
  chosen: readonly ProxyEndpoint[],
  req: ProxyRequest,
  masquerade: boolean,
): ProxyCandidate[] {
  const p = chosen.length ? 1 / chosen.length : 0;
  return chosen.map((e) => {
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
}

/**
 * Rule 8's affinity: ClientIP keeps the candidates and pins a client's later
 * connections to the endpoint its first one took (the `recent` match of
 * writeServiceToEndpointRules, the nftables affinity sets), for
 * timeoutSeconds.
 */
export function sessionAffinityOf(s: Service): ProxyDecision["sessionAffinity"] {
  return s.sessionAffinity === "ClientIP"
    ? { type: "ClientIP", timeoutSeconds: s.sessionAffinityTimeoutSeconds }
    : null;
}

/** The endpoints of the port and family, by condition, and how many are on the node. */
export function endpointCounts(all: readonly ProxyEndpoint[], node: string): ProxyDecision["counts"] {
  return {
    endpoints: all.length,
    ready: all.filter((e) => e.ready).length,
    servingTerminating: all.filter((e) => !e.ready && e.serving && e.terminating).length,
    local: all.filter((e) => e.nodeName === node).length,
  };
}
