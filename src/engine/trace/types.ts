/**
 * The trace's JSON.
 * `ktl trace --json`, and what the UI displays, is TraceResult,
 * stable and documented field by field below. `verdict`, `reason`,
 * `sourceIPPreserved`, `endpoints[].{ip,port,pod,node,probability,verdict,
 * reason}` and `hops[].{step,verdict,detail,ref}` are the CLI contract
 * (shared/contract/ktl-cli.md); the rest is ours and may only grow.
 *
 *   {
 *     "verdict": "allow" | "drop" | "partial",   every candidate accepts / none does (or no candidate) / some do
 *     "reason": "2 of 2 candidate endpoints accept the connection",
 *     "sourceIPPreserved": true,                 every candidate sees the client's own address
 *     "protocol": "TCP", "port": 80,             as asked (the Service port, pod port or IP port)
 *     "from": {"kind": "pod"|"node"|"external", "name": "default/client", "ip": "10.244.1.5", "node": "node-a" | null},
 *     "to":   {"kind": "service"|"pod"|"ip", "name": "demo/web", "ip": "10.96.0.10", "port": 80},
 *     "service": null | {"namespace", "name", "type", "port", "portName", "targetPort",
 *                        "frontend": "clusterIP"|"nodePort"|"loadBalancer"|"externalIP"|"headless"|"externalName",
 *                        "address": "10.96.0.10:80"},
 *     "handledBy": "node-a" | null,              the node whose kube-proxy takes the packet
 *     "kubeProxy": null | {"node", "action": "forward"|"drop"|"reject", "category", "policy": "Cluster"|"Local",
 *                          "policyField", "shortCircuit", "topologyMode", "masquerade", "masqueradeReason",
 *                          "sessionAffinity": null | {"type": "ClientIP", "timeoutSeconds"}, "reason"},
 *     "sourceIP": "10.244.1.5" | null,           the source address the backends see, when they all see the same
 *     "endpoints": [{
 *       "ip", "port", "pod"?, "node"?, "zone"?,  backend address after DNAT, and what is behind it
 *       "probability": 0.5,                      kube-proxy's chance of picking it (uniform)
 *       "verdict": "allow" | "drop", "reason",   NetworkPolicy at both ends for this backend
 *       "ready"?, "serving"?, "terminating"?, "local"?,
 *       "sourceIP": "10.244.1.5", "sourceIPPreserved": true,
 *       "egress":  {"verdict", "isolated", "reason", "cause", "ref"?},
 *       "ingress": {"verdict", "isolated", "reason", "cause", "ref"?},
 *       "ref"?                                   where the endpoint is written (EndpointSlice line, or the pod)
 *     }],
 *     "hops": [{
 *       "step": HopStep (below): "source" | "destination" | "dns" | "load balancer" | ... ,
 *       "verdict": "pass" | "drop" | "info",
 *       "detail": "...",                         prose for people; never decided on
 *       "cause": {"layer", "category", "object"?, "rule"?: {"index", "name"?}, ...}   HopCause (below): what decided, as data
 *       "ref"?: {"kind", "namespace"?, "name", "line", "file", "field"?},
 *       "endpoints"?: ["10.244.1.5:8080"]       the candidates the hop is about, when not all of them
 *     }],
 *     "error"?: "..."                            the query itself could not be resolved (unknown pod, bad syntax)
 *   }
 */
import type { PodKey, Protocol } from "../model/types.ts";
import type { Frontend, ProxyDecision } from "../proxy/index.ts";
import type { NearMiss } from "../netpol/nearmiss.ts";
import type { ProxyNearMiss } from "../proxy/nearmiss.ts";

export type { NearMiss } from "../netpol/nearmiss.ts";
export type { ProxyNearMiss } from "../proxy/nearmiss.ts";

export type TraceVerdict = "allow" | "drop" | "partial";

export interface TraceRef {
  kind: string;
  namespace?: string;
  name: string;
  line: number;
  file: string;
  field?: string;
}

/**
 * Every step a hop can be, in the order a packet meets them. The strings are
 * the CLI contract's `hops[].step`; render.ts gives each its title. A new
 * layer adds its step here (or reuses one), a member of HopCause, and one
 * case in render.ts: the exhaustive switches there fail the build otherwise.
 */
export type HopStep =
  | "source"
  | "destination"
  | "dns"
  | "load balancer"
  | "load balancer health check"
  | "loadBalancerSourceRanges"
  | "kube-proxy"
  | "session affinity"
  | "source address"
  // The cluster policy tiers around NetworkPolicy, per direction (policy/stack.ts): the Admin tier
  // before NetworkPolicy, the Baseline tier after it.
  | "admin tier at source"
  | "egress policy at source"
  | "baseline tier at source"
  | "admin tier at backend"
  | "ingress policy at backend"
  | "baseline tier at backend"
  // L7 routers (engine/l7): the router that takes the request, its listener, the route that matched,
  // a filter, the backends it chose, the proxy's own connection to each backend pod, the mesh's
  // outbound traffic policy, and the server's sidecar (mTLS, AuthorizationPolicy).
  | "router"
  | "listener"
  | "route"
  | "filter"
  | "backend"
  | "proxy to backend"
  | "outbound traffic policy"
  | "server sidecar";

export type HopVerdict = "pass" | "drop" | "info";

/** An object of the input, without its position (TraceRef adds file and line). */
export interface ObjectRef {
  kind: string;
  namespace?: string;
  name: string;
}

/** The rule inside an object that decided: its index in its list (0-based) and its name when it has one. */
export interface RuleRef {
  index: number;
  name?: string;
}

export type PolicyDirection = "ingress" | "egress";

/**
 * Why a hop says what it says, as data: which layer decided, on which
 * object and rule, in which of the layer's categories. Consumers decide on
 * this, never on `detail`; render.ts words it.
 */
export type HopCause =
  /** Who sends: a pod, a hostNetwork pod, a node's host network, a client outside the cluster. */
  | { layer: "client"; category: "pod" | "hostNetwork" | "node" | "external"; object?: ObjectRef }
  /**
   * How the destination resolves: a Service frontend (clusterIP, nodePort, loadBalancer, externalIP), a pod,
   * a hostPort or a hostNetwork listener, the node itself, outside the cluster; or why it cannot.
   */
  | {
      layer: "destination";
      category:
        | "clusterIP"
        | "nodePort"
        | "loadBalancer"
        | "externalIP"
        | "pod"
        | "hostPort"
        | "hostNetwork"
        | "node"
        | "outside"
        | "loadBalancer-proxy"
        | "no-port"
        | "no-address"
        | "not-reachable-from-outside";
      object?: ObjectRef;
      rule?: RuleRef;
    }
  /** A name resolved by cluster DNS: a headless Service's endpoints, an ExternalName's CNAME. */
  | {
      layer: "DNS";
      category: "headless" | "externalName-in-cluster" | "externalName-outside" | "lookup";
      object: ObjectRef;
      answers?: number;
      target?: string;
    }
  /** The cloud load balancer: delivering to a node, its source ranges, its health check on the node. */
  | {
      layer: "LoadBalancer";
      category: "deliver" | "source-ranges" | "health-check";
      object: ObjectRef;
      allowed: boolean;
    }
  /**
   * kube-proxy on the handling node: the endpoint set it chose (EndpointCategory) and its action, its
   * loadBalancerSourceRanges firewall, the SNAT decision, session affinity.
   */
  | {
      layer: "kube-proxy";
      category: "endpoints" | "firewall" | "masquerade" | "no-masquerade" | "session-affinity" | "error";
      object: ObjectRef;
      node: string;
      action?: "forward" | "drop" | "reject";
      endpoints?: ProxyDecision["category"];
      /** For a drop: the one Service edit that would give kube-proxy an endpoint (proxy/nearmiss.ts). */
      nearMisses?: ProxyNearMiss[];
    }
  /**
   * A NetworkPolicy verdict for one direction: allowed by a rule, not isolated, isolated with no rule
   * that allows, admitted because the source is the pod's own node, or not applicable (host network,
   * outside the cluster, no pod behind the address). `policies` are the policies that isolate the pod.
   */
  | {
      layer: "NetworkPolicy";
      direction: PolicyDirection;
      category: "allowed" | "not-isolated" | "denied" | "own-node" | "not-applicable";
      object?: ObjectRef;
      rule?: RuleRef;
      policies?: string[];
      /** For "denied": the rules that miss the connection by one condition, and the edit that would allow it (netpol/nearmiss.ts). */
      nearMisses?: NearMiss[];
    }
  /**
   * A cluster policy tier (ClusterNetworkPolicy tier Admin or Baseline, AdminNetworkPolicy,
   * BaselineAdminNetworkPolicy): the action of the first matching rule (v1alpha1's Allow is Accept),
   * with the policy, its priority and the rule; or no decision: `no-match` (policies select the pod,
   * no rule matches), `not-selected` (no policy of the tier selects it), `hairpin` (a pod's traffic
   * to its own IP, which the tiers do not judge).
   */
  | {
      layer: "AdminNetworkPolicy" | "BaselineAdminNetworkPolicy";
      direction: PolicyDirection;
      category: "Accept" | "Deny" | "Pass" | "no-match" | "not-selected" | "hairpin" | "not-enforced";
      object?: ObjectRef;
      rule?: RuleRef;
      /** The policy's spec.priority (a BaselineAdminNetworkPolicy has none). */
      priority?: number;
    }
  /** A CNI's own policy (Cilium, Calico): allowed or denied by a rule, passed to the next tier, or not matched. */
  | {
      layer: "CiliumNetworkPolicy" | "CalicoNetworkPolicy";
      direction: PolicyDirection;
      category: "allowed" | "denied" | "pass" | "no-match" | "default-deny";
      object?: ObjectRef;
      rule?: RuleRef;
    }
  /** An L7 router: the listener that took the request, the route and rule that matched, a filter, the backend. */
  | {
      layer: "Gateway" | "Ingress" | "Istio";
      category:
        | "router"
        | "listener"
        | "route"
        | "no-route"
        | "filter"
        | "redirect"
        | "backend"
        | "invalid-backend"
        | "outbound"
        | "mtls"
        | "authorization";
      object?: ObjectRef;
      rule?: RuleRef;
    };

export type CauseLayer = HopCause["layer"];

export interface TraceHop {
  step: HopStep;
  verdict: HopVerdict;
  detail: string;
  /** What decided the hop, as data (render.ts words it). */
  cause: HopCause;
  ref?: TraceRef;
  endpoints?: string[];
}

export interface PolicyCheck {
  verdict: "allow" | "drop";
  /** Some NetworkPolicy isolates this end for the direction. */
  isolated: boolean;
  reason: string;
  /** The same verdict as data (layer NetworkPolicy). */
  cause: HopCause;
  ref?: TraceRef;
}

export interface TraceEndpoint {
  ip: string;
  port: number;
  pod?: PodKey;
  node?: string;
  zone?: string;
  probability: number;
  verdict: "allow" | "drop";
  reason: string;
  ready?: boolean;
  serving?: boolean;
  terminating?: boolean;
  local?: boolean;
  sourceIP: string;
  sourceIPPreserved: boolean;
  egress: PolicyCheck;
  ingress: PolicyCheck;
  ref?: TraceRef;
  /**
   * The layer that dropped the connection to this backend (set by the CNI dialects' checks); with
   * cluster tiers in the input, the layer that decided it either way (a tier's Accept included).
   */
  decidedBy?: TraceDecidedBy;
  /** 403: an L7 policy refused the HTTP request at this backend. */
  httpStatus?: 403;
  /** The L7 HTTP rules that restrict connections to this backend ("GET /path1$"). */
  l7?: string[];
}

/** shared/contract/ktl-cli.md `decidedBy`. */
export interface TraceDecidedBy {
  layer: string;
  kind?: string;
  namespace?: string;
  name?: string;
  rule?: string;
  line?: number;
  /** A cluster tier's policy: its spec.priority (ours; the contract's fields come first). */
  priority?: number;
  /** An Admin tier rule whose Pass handed the connection down to NetworkPolicy and the Baseline tier. */
  passedBy?: { kind: string; name: string; rule: string; priority: number; line: number };
}

export interface TracePoint {
  kind: string;
  name: string;
  ip: string;
  node?: string | null;
  port?: number;
}

export interface TraceService {
  namespace: string;
  name: string;
  type: string;
  port: number;
  portName: string;
  targetPort: number | string;
  frontend: Frontend | "headless" | "externalName";
  address: string;
}

export interface TraceKubeProxy {
  node: string;
  action: ProxyDecision["action"];
  category: ProxyDecision["category"];
  policy: ProxyDecision["policy"];
  policyField: ProxyDecision["policyField"];
  shortCircuit: ProxyDecision["shortCircuit"];
  topologyMode: ProxyDecision["topologyMode"];
  masquerade: boolean;
  masqueradeReason: string;
  sessionAffinity: ProxyDecision["sessionAffinity"];
  reason: string;
}

export interface TraceResult {
  verdict: TraceVerdict;
  reason: string;
  sourceIPPreserved: boolean;
  protocol: Protocol;
  port: number;
  from: TracePoint;
  to: TracePoint;
  service: TraceService | null;
  handledBy: string | null;
  kubeProxy: TraceKubeProxy | null;
  sourceIP: string | null;
  endpoints: TraceEndpoint[];
  hops: TraceHop[];
  /** When `verdict` is drop: the layer that dropped it (shared/contract/ktl-cli.md). Set by the CNI dialects' checks. */
  decidedBy?: TraceDecidedBy;
  /** With an HTTP request: 200 when it reaches a backend pod, 403 when an L7 policy refused it. */
  httpStatus?: number;
  /** The cluster profile when it is not generic: the CNI that decided what Kubernetes leaves open (cni/profile.ts). */
  profile?: string;
  error?: string;
}

export type TraceSource =
  | { kind: "pod"; pod: PodKey }
  | { kind: "node"; node: string }
  | { kind: "external"; ip: string; node: string };
export type TraceDestination =
  | { kind: "service"; service: string; port: number | string }
  | { kind: "pod"; pod: PodKey; port: number | string }
  | { kind: "ip"; ip: string; port: number };
