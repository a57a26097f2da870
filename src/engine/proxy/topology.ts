/**
 * kube-proxy's endpoint categories for one service port on one node, as in
 * kubernetes/kubernetes pkg/proxy/topology.go at 008b3652959c (v1.35):
 * CategorizeEndpoints, topologyModeFromHints, availableForTopology. Default
 * feature gates (PreferSameTrafficDistribution on).
 *
 * 1. Cluster endpoints (when the port ever uses Cluster policy: internal
 *    policy Cluster, or externally accessible at all): the Ready endpoints
 *    available for the topology mode; if none, the Serving and Terminating
 *    ones (the terminating fallback). hasAnyEndpoints is then whether that
 *    list is non-empty.
 * 2. Local endpoints (when the port ever uses Local policy: internal policy
 *    Local, or external policy Local on an externally accessible port): the
 *    Ready endpoints on this node; if none, the Serving and Terminating ones
 *    on this node. Topology is never applied to them. Any Ready or
 *    Serving-Terminating endpoint anywhere sets hasAnyEndpoints.
 * 3. Topology mode, from hints only (kube-proxy 1.35 no longer reads the
 *    topology-mode annotation or trafficDistribution; the EndpointSlice
 *    controller turns those into hints): PreferSameNode when every Ready
 *    endpoint has a node hint and one is for this node; else PreferSameZone
 *    when every Ready endpoint has a zone hint and one is for this node's
 *    zone; else none. Non-Ready endpoints are not looked at; with no Ready
 *    endpoint there is no topology.
 *
 * Upstream builds allReachableEndpoints from a Go map; here every list keeps
 * kube-proxy's endpoint order (sorted by "ip:port").
 */
import type { ProxyEndpoint } from "./endpoints.ts";

export type TopologyMode = "" | "PreferSameZone" | "PreferSameNode";

/** The parts of a service port that CategorizeEndpoints looks at (pkg/proxy/serviceport.go). */
export interface ServicePortTraits {
  internalPolicyLocal: boolean;
  /** ExternalPolicyLocal: externalTrafficPolicy Local on an externally accessible Service. */
  externalPolicyLocal: boolean;
  /** nodePort, LoadBalancer VIPs or externalIPs. */
  externallyAccessible: boolean;
}

export function usesClusterEndpoints(t: ServicePortTraits): boolean {
  return !t.internalPolicyLocal || t.externallyAccessible;
}

export function usesLocalEndpoints(t: ServicePortTraits): boolean {
  return t.internalPolicyLocal || (t.externalPolicyLocal && t.externallyAccessible);
}

export interface TopologyChoice {
  mode: TopologyMode;
  /** Why this mode (or none) was chosen, in words. */
  note: string;
}

/** topologyModeFromHints. */
export function topologyModeFromHints(
  endpoints: readonly ProxyEndpoint[],
  nodeName: string,
  zone: string,
): TopologyChoice {
  let hasReady = false;
  let forNode = 0,
    allNodeHints = true;
  let forZone = 0,
    allZoneHints = true;
  let withZoneHints = 0;
  for (const ep of endpoints) {
    if (!ep.ready) continue;
    hasReady = true;
    if (ep.nodeHints.length === 0) allNodeHints = false;
    else if (ep.nodeHints.includes(nodeName)) forNode++;
    if (ep.zoneHints.length === 0) allZoneHints = false;
    else {
      withZoneHints++;
      if (ep.zoneHints.includes(zone)) forZone++;
    }
  }
  if (!hasReady) return { mode: "", note: "no ready endpoint, so no topology hints to follow" };
  if (allNodeHints && forNode > 0)
    return {
      mode: "PreferSameNode",
      note: `every ready endpoint has a node hint and ${forNode} ${forNode === 1 ? "is" : "are"} hinted for node ${nodeName}`,
    };
  let nodeNote = "";
  if (allNodeHints) nodeNote = `node hints name no endpoint for node ${nodeName}; `;
  if (allZoneHints) {
    if (forZone > 0)
      return {
        mode: "PreferSameZone",
        note: `${nodeNote}every ready endpoint has a zone hint and ${forZone} ${forZone === 1 ? "is" : "are"} hinted for zone ${zone}`,
      };
    return {
      mode: "",
      note: `${nodeNote}${zone === "" ? `node ${nodeName} has no topology.kubernetes.io/zone label, so zone hints are ignored` : `no endpoint is hinted for zone ${zone}, so hints are ignored`}: all ready endpoints are used`,
    };
  }
  if (withZoneHints > 0)
    return {
      mode: "",
      note: `${nodeNote}some ready endpoints have no zone hint, so hints are ignored: all ready endpoints are used`,
    };
  return { mode: "", note: `${nodeNote}no topology hints: all ready endpoints are used` };
}

/** availableForTopology. */
export function availableForTopology(
  ep: ProxyEndpoint,
  mode: TopologyMode,
  nodeName: string,
  zone: string,
): boolean {
  switch (mode) {
    case "":
      return true;
    case "PreferSameNode":
      return ep.nodeHints.includes(nodeName);
    case "PreferSameZone":
      return ep.zoneHints.includes(zone);
  }
}

export interface Categorized {
  /** null: the port never uses Cluster policy. */
  clusterEndpoints: ProxyEndpoint[] | null;
  /** null: the port never uses Local policy. */
  localEndpoints: ProxyEndpoint[] | null;
  /** Union of the two, in endpoint order. */
  allReachableEndpoints: ProxyEndpoint[];
  /** Some usable endpoint exists somewhere in the cluster (else kube-proxy REJECTs). */
  hasAnyEndpoints: boolean;
  topology: TopologyChoice;
  /** clusterEndpoints are the serving-terminating fallback. */
  clusterTerminatingFallback: boolean;
  /** localEndpoints are the serving-terminating fallback. */
  localTerminatingFallback: boolean;
}

const servingTerminating = (ep: ProxyEndpoint) => ep.serving && ep.terminating;

/** CategorizeEndpoints for `nodeName`, whose topology.kubernetes.io/zone label is `zone` ("" when absent). */
export function categorizeEndpoints(
  endpoints: readonly ProxyEndpoint[],
  traits: ServicePortTraits,
  nodeName: string,
  zone: string,
): Categorized {
  const out: Categorized = {
    clusterEndpoints: null,
    localEndpoints: null,
    allReachableEndpoints: [],
    hasAnyEndpoints: false,
    topology: { mode: "", note: "no endpoints" },
    clusterTerminatingFallback: false,
    localTerminatingFallback: false,
  };
  const isLocal = (ep: ProxyEndpoint) => ep.nodeName === nodeName && nodeName !== "";
  if (usesClusterEndpoints(traits)) {
    out.topology = topologyModeFromHints(endpoints, nodeName, zone);
    const mode = out.topology.mode;
    let cluster = endpoints.filter((ep) => ep.ready && availableForTopology(ep, mode, nodeName, zone));
    if (cluster.length === 0) {
      cluster = endpoints.filter(servingTerminating);
      out.clusterTerminatingFallback = cluster.length > 0;
    }
    out.clusterEndpoints = cluster;
    out.hasAnyEndpoints = cluster.length > 0;
  }
  if (!usesLocalEndpoints(traits)) {
    out.allReachableEndpoints = out.clusterEndpoints ?? [];
    return out;
  }
  let localReady = false,
    localServingTerminating = false;
  for (const ep of endpoints) {
    if (ep.ready) {
      out.hasAnyEndpoints = true;
      if (isLocal(ep)) localReady = true;
    } else if (servingTerminating(ep)) {
      out.hasAnyEndpoints = true;
      if (isLocal(ep)) localServingTerminating = true;
    }
  }
  if (localReady) out.localEndpoints = endpoints.filter((ep) => isLocal(ep) && ep.ready);
  else if (localServingTerminating) {
    out.localTerminatingFallback = true;
    out.localEndpoints = endpoints.filter((ep) => isLocal(ep) && servingTerminating(ep));
  } else out.localEndpoints = [];
  if (!out.clusterEndpoints) {
    out.allReachableEndpoints = out.localEndpoints;
    return out;
  }
  const keys = new Set([...out.clusterEndpoints, ...out.localEndpoints].map((ep) => ep.key));
  out.allReachableEndpoints = endpoints.filter((ep) => keys.has(ep.key));
  return out;
}
