/**
 * One request through the cluster, hop by hop: who sends it, how the
 * destination resolves, kube-proxy's choice on the node that handles the
 * packet (proxy/index.ts), the source address each backend sees, and
 * NetworkPolicy at both ends (netpol/index.ts).
 *
 * Rules (beyond proxy/index.ts and netpol/index.ts):
 * 1. Egress policy at the source is evaluated against each backend after
 *    DNAT (its pod and IP, the backend's port), as CNIs enforce it.
 *    1a. Except a NodePort on another node's address: that node's kube-proxy
 *    rewrites the destination after the packet has left the sender's node,
 *    so egress sees the node address and the nodePort.
 * 2. Ingress policy at each backend is evaluated with the source address it
 *    really sees: the node's address when kube-proxy masquerades (no pod, so
 *    only ipBlock rules can match it), the client's otherwise.
 *    2a. A source address of the backend's own node is always admitted
 *    (netpol rule 8, from k8s.io/api networking/v1 NetworkPolicySpec.ingress:
 *    "OR if the traffic source is the pod's local node"): host-network
 *    senders on that node, traffic masqueraded on that node, and hairpin
 *    traffic. The API says nothing alike for egress.
 * 3. Pods and the node's host network send to a Service's ClusterIP, and to
 *    its LoadBalancer IPs and external IPs too: kube-proxy on their own node
 *    takes the packet before any load balancer sees it, with the cluster-wide
 *    endpoints under externalTrafficPolicy Local. A NodePort on another
 *    node's address is handled by that node's kube-proxy.
 * 4. An external client reaches a Service the way its type gives: a
 *    LoadBalancer's VIP (or, for hostname or Proxy-mode load balancers, the
 *    NodePort the load balancer forwards to), a NodePort, or an externalIP;
 *    the packet arrives at the node named in the query. A ClusterIP-only
 *    Service is not reachable from outside. For a LoadBalancer with
 *    externalTrafficPolicy Local, the load balancer's health check decides
 *    whether it would send traffic to that node at all.
 * 5. Headless Services: DNS answers with the Ready endpoints' addresses and
 *    the client connects to one directly, on the port it asked for (no port
 *    translation; targetPort matters only through SRV records). ExternalName:
 *    DNS answers with a CNAME; a name of the form
 *    <service>.<namespace>.svc.cluster.local is followed into the cluster,
 *    anything else leaves the model.
 * 6. hostNetwork pods send from their node's address and are outside
 *    NetworkPolicy (netpol rule 7); traffic to a node address that is not a
 *    NodePort goes to a hostPort pod (the CNI portmap DNAT) or to the host.
 *
 * Simplifications (each changes addresses shown, not which endpoints are
 * chosen):
 * - A masqueraded packet carries the handling node's InternalIP. MASQUERADE
 *   really takes the address of the interface the packet leaves by: with a
 *   bridge CNI the bridge (cni0) address toward a pod on the same node, with
 *   overlays the tunnel address (flannel.1, tunl0), both in the pod CIDR.
 * - Pod sources are pod traffic for kube-proxy (detectLocalMode ClusterCIDR
 *   with a CIDR that holds every pod IP); dataplane/ models the other modes.
 * - Every InternalIP and ExternalIP of a node accepts NodePorts (iptables'
 *   default); nftables mode by default accepts only the node's primary IPs.
 * - A hostname or ipMode Proxy load balancer is taken to deliver the
 *   client's address to the NodePort; a proxying one would put its own.
 *
 * The JSON (`ktl trace --json`, and what the UI displays) is TraceResult,
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
 *       "egress":  {"verdict", "isolated", "reason", "ref"?},
 *       "ingress": {"verdict", "isolated", "reason", "ref"?},
 *       "ref"?                                   where the endpoint is written (EndpointSlice line, or the pod)
 *     }],
 *     "hops": [{
 *       "step": "source" | "destination" | "dns" | "load balancer" | "load balancer health check" |
 *               "loadBalancerSourceRanges" | "kube-proxy" | "session affinity" | "source address" |
 *               "egress policy at source" | "ingress policy at backend" | "delivery",
 *       "verdict": "pass" | "drop" | "info",
 *       "detail": "...",
 *       "ref"?: {"kind", "namespace"?, "name", "line", "file", "field"?},
 *       "endpoints"?: ["10.244.1.5:8080"]       the candidates the hop is about, when not all of them
 *     }],
 *     "error"?: "..."                            the query itself could not be resolved (unknown pod, bad syntax)
 *   }
 */
import type { SourceRef } from "../parse/manifests.ts";
import type { Model, Node, Pod, Protocol } from "../model/types.ts";
import type { Service, ServicePort } from "../model/services.ts";
import { parseIP, type Family } from "../model/ip.ts";
import { explainEgress, explainIngress, type DirectionVerdict } from "../netpol/index.ts";
import { hasCniPolicies, type CniPolicies } from "../cni/index.ts";
import type { HttpRequest } from "../http/request.ts";
import { cniEgress, cniIngress, type CniCheck } from "./cni.ts";
import {
  chooseEndpoints,
  checkSourceRanges,
  findServicePort,
  matchSourceRanges,
  healthCheck,
  loadBalancerHealth,
  nodeAddress,
  portLabel,
  type Frontend,
  type ProxyDecision,
  type ProxyIndex,
  type ProxyRef,
  type TrafficOrigin,
} from "../proxy/index.ts";

export type TraceVerdict = "allow" | "drop" | "partial";

export interface TraceRef {
  kind: string;
  namespace?: string;
  name: string;
  line: number;
  file: string;
  field?: string;
}

export interface TraceHop {
  step: string;
  verdict: "pass" | "drop" | "info";
  detail: string;
  ref?: TraceRef;
  endpoints?: string[];
}

export interface PolicyCheck {
  verdict: "allow" | "drop";
  /** Some NetworkPolicy isolates this end for the direction. */
  isolated: boolean;
  reason: string;
  ref?: TraceRef;
}

export interface TraceEndpoint {
  ip: string;
  port: number;
  pod?: string;
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
  /** The layer that dropped the connection to this backend (set by the CNI dialects' checks). */
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
  error?: string;
}

export type TraceSource = { kind: "pod"; pod: string } | { kind: "node"; node: string } | { kind: "external"; ip: string; node: string };
export type TraceDestination = { kind: "service"; service: string; port: number | string } | { kind: "pod"; pod: string; port: number | string } | { kind: "ip"; ip: string; port: number };

const CLUSTER_DOMAIN = "cluster.local";

// ---------- query syntax (shared/contract/ktl-cli.md) ----------

function portOf(text: string): number | string | undefined {
  if (/^\d+$/.test(text)) {
    const n = Number(text);
    return n >= 1 && n <= 65535 ? n : undefined;
  }
  return /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(text) ? text : undefined;
}

/** `pod:NAMESPACE/NAME`, `node:NAME` or `external:IP@NODE`. */
export function parseTraceSource(text: string): TraceSource | { error: string } {
  const colon = text.indexOf(":");
  const kind = colon > 0 ? text.slice(0, colon) : "";
  const rest = text.slice(colon + 1);
  if (kind === "pod") {
    if (!/^[^/\s]+\/[^/\s]+$/.test(rest)) return { error: `--from ${text}: expected pod:NAMESPACE/NAME` };
    return { kind: "pod", pod: rest };
  }
  if (kind === "node") {
    if (!rest) return { error: `--from ${text}: expected node:NAME` };
    return { kind: "node", node: rest };
  }
  if (kind === "external") {
    const at = rest.lastIndexOf("@");
    const ip = at > 0 ? rest.slice(0, at).replace(/^\[(.*)\]$/, "$1") : "";
    const node = at > 0 ? rest.slice(at + 1) : "";
    if (!parseIP(ip) || !node) return { error: `--from ${text}: expected external:IP@NODE (the client's address and the node its packet arrives at)` };
    return { kind: "external", ip, node };
  }
  return { error: `--from ${text}: expected pod:NAMESPACE/NAME, node:NAME or external:IP@NODE` };
}

/** `service:NAMESPACE/NAME:PORT`, `pod:NAMESPACE/NAME:PORT` or `ip:ADDRESS:PORT` (`ip:[v6]:PORT` for IPv6). */
export function parseTraceDestination(text: string): TraceDestination | { error: string } {
  const colon = text.indexOf(":");
  const kind = colon > 0 ? text.slice(0, colon) : "";
  const rest = text.slice(colon + 1);
  const last = rest.lastIndexOf(":");
  const head = last > 0 ? rest.slice(0, last) : "";
  const port = last > 0 ? portOf(rest.slice(last + 1)) : undefined;
  if (kind === "service" || kind === "pod") {
    if (!/^[^/\s:]+\/[^/\s:]+$/.test(head) || port === undefined) return { error: `--to ${text}: expected ${kind}:NAMESPACE/NAME:PORT` };
    return kind === "service" ? { kind, service: head, port } : { kind, pod: head, port };
  }
  if (kind === "ip") {
    const ip = head.replace(/^\[(.*)\]$/, "$1");
    if (!parseIP(ip) || typeof port !== "number") return { error: `--to ${text}: expected ip:ADDRESS:PORT (ip:[ADDRESS]:PORT for IPv6)` };
    return { kind, ip, port };
  }
  return { error: `--to ${text}: expected service:NAMESPACE/NAME:PORT, pod:NAMESPACE/NAME:PORT or ip:ADDRESS:PORT` };
}

// ---------- helpers ----------

function traceRef(r: SourceRef | ProxyRef | undefined, field?: string): TraceRef | undefined {
  if (!r) return undefined;
  const out: TraceRef = { kind: r.kind, name: r.name, line: r.line, file: r.file };
  if (r.namespace !== undefined) out.namespace = r.namespace;
  const f = field ?? (r as ProxyRef).field;
  if (f) out.field = f;
  return out;
}

/** The field's line, or the `spec:` line when the field is absent (a defaulted value). */
function serviceRef(s: Service, field: string, line: number): TraceRef {
  return traceRef({ ...s.source, line: line || s.lines.spec || s.source.line }, field)!;
}

function familyOf(ip: string): Family | undefined {
  return parseIP(ip)?.family;
}

function hostPort(ip: string, port: number, family: Family): string {
  return family === 6 ? `[${ip}]:${port}` : `${ip}:${port}`;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The sender as the trace sees it. */
interface Client {
  kind: "pod" | "node" | "external";
  name: string;
  pod?: Pod;
  /** The node the sender is on (pod, node) or whose interface the packet arrives at (external). */
  node: Node;
  /** Sends from the node's network namespace (node, hostNetwork pod). */
  host: boolean;
  ip(family: Family): string | undefined;
  ref?: SourceRef;
}

function resolveClient(model: Model, from: TraceSource): Client | { error: string } {
  if (from.kind === "pod") {
    const pod = model.podsByKey.get(from.pod);
    if (!pod) return { error: `--from pod:${from.pod}: no pod ${from.pod} in the input` };
    const node = pod.nodeName ? model.nodesByName.get(pod.nodeName) : undefined;
    if (!node) return { error: `--from pod:${from.pod}: the pod is not scheduled on any node, so it sends nothing` };
    return {
      kind: "pod", name: pod.key, pod, node, host: pod.hostNetwork, ref: pod.source,
      ip: (f) => pod.ips.find((ip) => familyOf(ip) === f) ?? (pod.hostNetwork ? nodeAddress(node, f) : undefined),
    };
  }
  if (from.kind === "node") {
    const node = model.nodesByName.get(from.node);
    if (!node) return { error: `--from node:${from.node}: no node ${from.node} in the input (nodes: ${model.nodes.map((n) => n.name).join(", ")})` };
    const c: Client = { kind: "node", name: node.name, node, host: true, ip: (f) => nodeAddress(node, f) };
    if (node.source) c.ref = node.source;
    return c;
  }
  const node = model.nodesByName.get(from.node);
  if (!node) return { error: `--from external:${from.ip}@${from.node}: no node ${from.node} in the input (nodes: ${model.nodes.map((n) => n.name).join(", ")})` };
  const fam = familyOf(from.ip);
  return { kind: "external", name: from.ip, node, host: false, ip: (f) => (f === fam ? from.ip : undefined) };
}

function policyRef(v: DirectionVerdict): TraceRef | undefined {
  const m = v.allowedBy[0];
  if (m) {
    const line = m.peer?.line || m.port?.line || m.rule.line || m.policy.source.line;
    return traceRef({ ...m.policy.source, line }, `spec.${m.direction}[${m.rule.index}]`);
  }
  const p = v.selecting[0];
  if (p) return traceRef({ ...p.source, line: p.lines.podSelector || p.source.line }, "spec.podSelector");
  return undefined;
}

function describe(v: DirectionVerdict, self: string, other: string, port: number, protocol: Protocol): string {
  if (!v.isolated) return `no NetworkPolicy selects ${self} for ${v.direction}`;
  const m = v.allowedBy[0];
  if (m) return `allowed by ${m.policy.key} ${v.direction} rule ${m.rule.index + 1}`;
  const names = v.selecting.map((p) => p.key).join(", ");
  return `${self} is isolated for ${v.direction} by ${names} and no rule allows ${protocol}/${port} ${v.direction === "ingress" ? "from" : "to"} ${other}`;
}

function check(v: DirectionVerdict, self: string, other: string, port: number, protocol: Protocol): PolicyCheck {
  const c: PolicyCheck = { verdict: v.allowed ? "allow" : "drop", isolated: v.isolated, reason: describe(v, self, other, port, protocol) };
  const r = policyRef(v);
  if (r) c.ref = r;
  return c;
}

const NOT_APPLICABLE = (reason: string): PolicyCheck => ({ verdict: "allow", isolated: false, reason });

/** A backend to evaluate: where the packet goes after DNAT, and what it carries. */
interface Backend {
  ip: string;
  port: number;
  pod?: Pod;
  podKey?: string;
  node?: string;
  zone?: string;
  probability: number;
  /** The source address the backend sees. */
  sourceIP: string;
  /** That address is the client's own. */
  preserved: boolean;
  /** Why it is not (masquerade, hairpin). */
  snatNote?: string;
  /** What egress policy at the source sees when the DNAT happens on another node (rule 1a). */
  egressTo?: { ip: string; port: number; pod?: Pod; note: string };
  ready?: boolean;
  serving?: boolean;
  terminating?: boolean;
  local?: boolean;
  ref?: SourceRef;
}

/** The CNI's own policies (with NetworkPolicy inside them) at both ends for each backend, the same addressing as `evaluate`. */
function evaluateCni(ctx: Ctx, cni: CniPolicies, backends: Backend[]): { endpoints: TraceEndpoint[]; hops: TraceHop[] } {
  const { model, client, protocol, http } = ctx;
  const endpoints: TraceEndpoint[] = [];
  const hops: TraceHop[] = [];
  const seen = new Set<string>();
  const cl = { kind: client.kind, pod: client.pod, host: client.host, node: client.node.name };
  const hop = (step: string, c: CniCheck, ep: string, many: boolean) => {
    const dialect = c.layer === "CiliumNetworkPolicy" ? "Cilium: " : c.layer === "CalicoNetworkPolicy" ? "Calico: " : "";
    const detail = `${dialect}${c.reason}${c.steps.length > 1 ? ` [${c.steps.join("; ")}]` : ""}`;
    const key = `${step}|${c.verdict}|${detail}`;
    if (seen.has(key)) return;
    seen.add(key);
    const h: TraceHop = { step, verdict: c.verdict === "allow" ? "pass" : "drop", detail };
    if (c.ref) h.ref = c.ref;
    if (many) h.endpoints = [ep];
    hops.push(h);
  };
  const strip = (c: CniCheck): PolicyCheck => ({ verdict: c.verdict, isolated: c.isolated, reason: c.reason, ...(c.ref ? { ref: c.ref } : {}) });
  for (const b of backends) {
    const epKey = `${b.ip}:${b.port}`;
    const egress = cniEgress(model, cni, cl, b, protocol, http);
    hop("egress policy at source", egress, epKey, backends.length > 1);
    const ingress = cniIngress(model, cni, cl, b, protocol, http);
    hop("ingress policy at backend", ingress, epKey, backends.length > 1);
    const allowed = egress.verdict === "allow" && ingress.verdict === "allow";
    const reason = !allowed
      ? egress.verdict === "drop" ? `egress: ${egress.reason}` : `ingress: ${ingress.reason}`
      : [ingress.isolated ? ingress.reason : "", egress.isolated ? `egress ${egress.reason}` : ""].filter(Boolean).join("; ") || "no policy isolates either end";
    const ep: TraceEndpoint = { ip: b.ip, port: b.port, probability: b.probability, verdict: allowed ? "allow" : "drop", reason, sourceIP: b.sourceIP, sourceIPPreserved: b.preserved, egress: strip(egress), ingress: strip(ingress) };
    if (b.podKey ?? b.pod) ep.pod = b.podKey ?? b.pod!.key;
    if (b.node) ep.node = b.node;
    if (b.zone) ep.zone = b.zone;
    if (b.ready !== undefined) ep.ready = b.ready;
    if (b.serving !== undefined) ep.serving = b.serving;
    if (b.terminating !== undefined) ep.terminating = b.terminating;
    if (b.local !== undefined) ep.local = b.local;
    const r = traceRef(b.ref);
    if (r) ep.ref = r;
    const decider = egress.verdict === "drop" ? egress : ingress.verdict === "drop" ? ingress : undefined;
    if (decider) {
      const d: TraceDecidedBy = { layer: decider.layer };
      if (decider.ref) {
        d.kind = decider.ref.kind;
        d.name = decider.ref.name;
        d.line = decider.ref.line;
        if (decider.ref.namespace) d.namespace = decider.ref.namespace;
        if (decider.ref.field) d.rule = decider.ref.field;
      }
      ep.decidedBy = d;
    }
    if (egress.httpStatus === 403 || ingress.httpStatus === 403) ep.httpStatus = 403;
    const l7 = ingress.l7 ?? egress.l7;
    if (l7) ep.l7 = l7;
    endpoints.push(ep);
  }
  return { endpoints, hops };
}

/** Evaluates NetworkPolicy at both ends for each backend (rules 1 and 2). */
function evaluate(ctx: Ctx, backends: Backend[], family: Family): { endpoints: TraceEndpoint[]; hops: TraceHop[] } {
  const { model, client, protocol } = ctx;
  if (hasCniPolicies(model.cni)) return evaluateCni(ctx, model.cni, backends);
  const endpoints: TraceEndpoint[] = [];
  const egressGroups = new Map<string, { verdict: "pass" | "drop"; detail: string; ref?: TraceRef; eps: string[] }>();
  const ingressGroups = new Map<string, { verdict: "pass" | "drop"; detail: string; ref?: TraceRef; eps: string[] }>();
  const group = (m: typeof egressGroups, key: string, verdict: "pass" | "drop", detail: string, ref: TraceRef | undefined, ep: string) => {
    const g = m.get(key);
    if (g) g.eps.push(ep);
    else m.set(key, { verdict, detail, ...(ref ? { ref } : {}), eps: [ep] });
  };
  const clientIP = client.ip(family) ?? "";
  for (const b of backends) {
    const epKey = hostPort(b.ip, b.port, family);
    const target = b.pod ? `${b.pod.key} (${b.ip})` : b.ip;
    // Egress at the source, against the backend after DNAT.
    let egress: PolicyCheck;
    if (client.kind === "pod" && client.pod && !client.host) {
      // Rule 1: the backend after DNAT, unless the DNAT happens on another node (rule 1a).
      const to = b.egressTo ?? { ip: b.ip, port: b.port, pod: b.pod };
      const toName = b.egressTo ? `${b.egressTo.ip} (${b.egressTo.note})` : "{who}";
      const v = explainEgress(model, client.pod, { ip: to.ip, pod: to.pod }, to.port, protocol);
      egress = check(v, client.pod.key, b.egressTo ? b.egressTo.ip : target, to.port, protocol);
      const m = v.allowedBy[0];
      const key = v.allowed ? (m ? `a|${m.policy.key}|${m.rule.index}|${to.port}` : "a|open") : `d|${v.selecting.map((p) => p.key).join(",")}|${to.port}|${b.egressTo?.ip ?? ""}`;
      const detail = v.allowed
        ? m ? `${client.pod.key} may send ${protocol}/${to.port} to ${toName}: ${egress.reason}` : `${client.pod.key} is not isolated for egress (no NetworkPolicy selects it for egress)`
        : `${client.pod.key} is isolated for egress by ${v.selecting.map((p) => p.key).join(", ")} and no egress rule allows ${protocol}/${to.port} to ${toName}${b.egressTo ? "" : " (the backend after DNAT, on its target port)"}`;
      group(egressGroups, key, v.allowed ? "pass" : "drop", detail, egress.ref, `${epKey}|${target}`);
    } else {
      const why = client.kind === "external" ? "the client is outside the cluster: no NetworkPolicy applies to it" : client.pod ? `${client.pod.key} uses the host network: NetworkPolicy does not apply to it` : `node ${client.node.name} sends from its host network: NetworkPolicy does not apply to it`;
      egress = NOT_APPLICABLE(why);
      group(egressGroups, "n/a", "pass", why, undefined, `${epKey}|${target}`);
    }
    // Ingress at the backend, from the address it really sees.
    let ingress: PolicyCheck;
    if (b.pod) {
      const seenPod = b.preserved && client.pod && !client.host ? client.pod : undefined;
      const seenName = seenPod ? `${seenPod.key} (${b.sourceIP})` : b.sourceIP;
      const v = explainIngress(model, b.pod, { ip: b.sourceIP, pod: seenPod }, b.port, protocol);
      ingress = check(v, b.pod.key, seenName, b.port, protocol);
      const names = v.selecting.map((p) => p.key).join(", ");
      if (v.ownNode) {
        // Rule 2a, decided by netpol (explainIngress rule 8): the pod's own node is always admitted.
        const ownNode = model.nodesByName.get(v.ownNode) ?? { name: v.ownNode, source: undefined };
        ingress = { verdict: "allow", isolated: true, reason: v.reason };
        const nodeRef = traceRef(ownNode.source, "status.addresses") ?? policyRef(v);
        if (nodeRef) ingress.ref = nodeRef;
        const detail = `{who} ${"{is}"} isolated for ingress by ${names}, but the packet comes from ${b.sourceIP}, the address of ${ownNode.name}, which hosts ${"{it}"}: a pod's own node is always admitted (NetworkPolicySpec.ingress: "OR if the traffic source is the pod's local node")`;
        group(ingressGroups, `a|node|${b.sourceIP}|${names}`, "pass", detail, ingress.ref, `${epKey}|${b.pod.key}`);
      } else {
        let trap = "";
        if (!b.preserved && clientIP && !v.allowed) {
          // The masquerade trap: would the client's own address have been admitted?
          const direct = explainIngress(model, b.pod, { ip: clientIP, pod: client.pod && !client.host ? client.pod : undefined }, b.port, protocol);
          if (direct.allowed && direct.allowedBy[0]) {
            const m = direct.allowedBy[0];
            trap = `; ${m.policy.key} ingress rule ${m.rule.index + 1} would admit the client's own address ${clientIP}, but the packet arrives from ${b.sourceIP} (${b.snatNote ?? "masqueraded"})`;
          }
        }
        const m = v.allowedBy[0];
        const key = v.allowed ? (m ? `a|${m.policy.key}|${m.rule.index}|${b.sourceIP}` : "a|open") : `d|${names}|${b.sourceIP}|${b.port}|${trap}`;
        const detail = v.allowed
          ? m ? `{who} admit${"{s}"} ${seenName}: ${ingress.reason}` : `{who} ${"{is}"} not isolated for ingress (no NetworkPolicy selects ${"{it}"} for ingress)`
          : `{who} ${"{is}"} isolated for ingress by ${names} and no rule allows ${protocol}/${b.port} from ${seenName}${trap}`;
        ingress.reason += trap;
        group(ingressGroups, key, v.allowed ? "pass" : "drop", detail, ingress.ref, `${epKey}|${b.pod.key}`);
      }
    } else {
      ingress = NOT_APPLICABLE(`no pod in the input has IP ${b.ip}: no NetworkPolicy can select it`);
      group(ingressGroups, "n/a", "pass", "no pod in the input has the address of {who}: no NetworkPolicy can select {it}", undefined, `${epKey}|${b.ip}`);
    }
    const allowed = egress.verdict === "allow" && ingress.verdict === "allow";
    let reason: string;
    if (!allowed) reason = egress.verdict === "drop" ? `egress: ${egress.reason}` : `ingress: ${ingress.reason}`;
    else if (ingress.isolated || egress.isolated) reason = [ingress.isolated ? ingress.reason : "", egress.isolated ? `egress ${egress.reason}` : ""].filter(Boolean).join("; ");
    else reason = "no NetworkPolicy isolates either end";
    const ep: TraceEndpoint = {
      ip: b.ip, port: b.port, probability: b.probability, verdict: allowed ? "allow" : "drop", reason,
      sourceIP: b.sourceIP, sourceIPPreserved: b.preserved, egress, ingress,
    };
    if (b.podKey ?? b.pod) ep.pod = b.podKey ?? b.pod!.key;
    if (b.node) ep.node = b.node;
    if (b.zone) ep.zone = b.zone;
    if (b.ready !== undefined) ep.ready = b.ready;
    if (b.serving !== undefined) ep.serving = b.serving;
    if (b.terminating !== undefined) ep.terminating = b.terminating;
    if (b.local !== undefined) ep.local = b.local;
    const r = traceRef(b.ref);
    if (r) ep.ref = r;
    endpoints.push(ep);
  }
  const hops: TraceHop[] = [];
  const all = backends.length;
  const emit = (step: string, groups: typeof egressGroups) => {
    for (const g of groups.values()) {
      const eps = g.eps.map((e) => e.split("|")[0]!);
      const names = g.eps.map((e) => e.split("|")[1]!);
      const many = names.length > 1;
      const listed = names.length > 4 ? `${names.slice(0, 4).join(", ")} and ${names.length - 4} more` : names.join(", ");
      const who = !many ? names[0]! : g.eps.length === all ? `${all === 2 ? "both" : `all ${all}`} backends (${listed})` : `${names.length} of ${all} backends (${listed})`;
      const detail = g.detail.replaceAll("{who}", who).replaceAll("{s}", many ? "" : "s").replaceAll("{is}", many ? "are" : "is").replaceAll("{it}", many ? "them" : "it");
      const hop: TraceHop = { step, verdict: g.verdict, detail };
      if (g.ref) hop.ref = g.ref;
      if (all > 1 && g.eps.length < all) hop.endpoints = eps;
      hops.push(hop);
    }
  };
  emit("egress policy at source", egressGroups);
  emit("ingress policy at backend", ingressGroups);
  return { endpoints, hops };
}

function summarize(endpoints: TraceEndpoint[]): { verdict: TraceVerdict; reason: string } {
  const n = endpoints.length;
  const ok = endpoints.filter((e) => e.verdict === "allow").length;
  if (n === 0) return { verdict: "drop", reason: "dropped: no endpoint can serve the request" };
  if (ok === n) return { verdict: "allow", reason: `${ok} of ${n} candidate endpoint${n === 1 ? "" : "s"} ${n === 1 ? "accepts" : "accept"} the connection` };
  const first = endpoints.find((e) => e.verdict === "drop")!;
  if (ok === 0) return { verdict: "drop", reason: `dropped: ${n === 1 ? "the only candidate endpoint refuses" : `none of the ${n} candidate endpoints accepts`} the connection (${first.reason})` };
  return { verdict: "partial", reason: `${ok} of ${n} candidate endpoints accept the connection; ${first.ip}:${first.port} does not (${first.reason})` };
}

// ---------- the trace ----------

interface Ctx {
  model: Model;
  index: ProxyIndex;
  client: Client;
  protocol: Protocol;
  /** The request is an HTTP request (`--http`). */
  http?: HttpRequest | undefined;
  hops: TraceHop[];
  result: TraceResult;
}

function emptyResult(protocol: Protocol, port: number): TraceResult {
  return {
    verdict: "drop", reason: "", sourceIPPreserved: true, protocol, port,
    from: { kind: "", name: "", ip: "" }, to: { kind: "", name: "", ip: "" },
    service: null, handledBy: null, kubeProxy: null, sourceIP: null, endpoints: [], hops: [],
  };
}

function finish(ctx: Ctx, endpoints: TraceEndpoint[], extraHops: TraceHop[], dropReason?: string): TraceResult {
  const r = ctx.result;
  r.endpoints = endpoints;
  r.hops = [...ctx.hops, ...extraHops];
  if (dropReason !== undefined) {
    r.verdict = "drop";
    r.reason = dropReason;
  } else {
    const s = summarize(endpoints);
    r.verdict = s.verdict;
    r.reason = s.reason;
    if (ctx.http && endpoints.length && endpoints.every((e) => e.verdict === "drop") && endpoints.some((e) => e.httpStatus === 403)) {
      // The connection opened but the L7 proxy refused the request (shared/contract/ktl-cli.md httpStatus 403).
      r.httpStatus = 403;
      r.reason = `refused at L7 (403): ${endpoints.find((e) => e.httpStatus === 403)!.reason}`;
    } else if (ctx.http && r.verdict !== "drop") r.httpStatus = 200;
    const dropped = endpoints.find((e) => e.verdict === "drop" && e.decidedBy);
    if (r.verdict === "drop" && dropped) r.decidedBy = dropped.decidedBy!;
  }
  if (endpoints.length) {
    r.sourceIPPreserved = endpoints.every((e) => e.sourceIPPreserved);
    const seen = new Set(endpoints.map((e) => e.sourceIP));
    r.sourceIP = seen.size === 1 ? endpoints[0]!.sourceIP : null;
  }
  return r;
}

/** Where the packet goes when it reaches a Service through kube-proxy. */
function viaKubeProxy(ctx: Ctx, s: Service, port: ServicePort, frontend: Frontend, family: Family, handling: Node): TraceResult {
  const { client, model } = ctx;
  const r = ctx.result;
  r.handledBy = handling.name;
  const origin: TrafficOrigin = client.kind === "external" ? "external" : client.host ? (handling.name === client.node.name ? "host" : "external") : "pod";
  const clientIP = client.ip(family) ?? "";
  const req = { service: s.key, port: port.port, protocol: port.protocol, node: handling.name, frontend, origin, family, ...(clientIP ? { sourceIP: clientIP } : {}) };
  const d = chooseEndpoints(ctx.index, req);
  if ("error" in d) {
    ctx.hops.push({ step: "kube-proxy", verdict: "drop", detail: d.error, ref: serviceRef(s, "spec", s.source.line) });
    return finish(ctx, [], [], `dropped: ${d.error}`);
  }
  r.kubeProxy = {
    node: d.node, action: d.action, category: d.category, policy: d.policy, policyField: d.policyField, shortCircuit: d.shortCircuit,
    topologyMode: d.topologyMode, masquerade: d.masquerade, masqueradeReason: d.masqueradeReason, sessionAffinity: d.sessionAffinity, reason: d.reason,
  };
  const decided = traceRef(d.decidedBy ?? undefined);
  if (d.action !== "forward") {
    ctx.hops.push({ step: "kube-proxy", verdict: "drop", detail: `kube-proxy on ${handling.name} ${d.action === "reject" ? "REJECTs" : "DROPs"} the packet: ${d.reason}`, ...(decided ? { ref: decided } : {}) });
    if (r.service) r.sourceIPPreserved = !d.masquerade;
    return finish(ctx, [], [], `${d.action === "reject" ? "rejected" : "dropped"}: ${d.reason}`);
  }
  const topo = d.topologyNote && d.category === "cluster" && d.topologyNote !== "no topology hints: all ready endpoints are used" ? ` (${d.topologyNote})` : "";
  ctx.hops.push({
    step: "kube-proxy",
    verdict: "pass",
    detail: `kube-proxy on ${handling.name} (${d.zone ? `zone ${d.zone}` : "no zone label"}): ${d.reason}${topo}; ${d.candidates.length === 1 ? "DNAT to its only candidate" : `DNAT to one of ${d.candidates.length} endpoints, each with probability ${formatProbability(d.candidates[0]!.probability)}`} (${provenance(s, d)})`,
    ...(decided ? { ref: decided } : {}),
  });
  if (d.sessionAffinity) {
    ctx.hops.push({
      step: "session affinity",
      verdict: "info",
      detail: `sessionAffinity ClientIP: the first connection from ${clientIP || "a client"} picks a candidate at random; later ones from the same address go to the same endpoint for ${d.sessionAffinity.timeoutSeconds} s`,
      ref: serviceRef(s, "spec.sessionAffinity", s.lines.sessionAffinity),
    });
  }
  const nodeIP = nodeAddress(handling, family) ?? handling.internalIP;
  const remoteNodePort = frontend === "nodePort" && client.kind === "pod" && !client.host && handling.name !== client.node.name && port.nodePort
    ? { ip: r.to.ip, port: port.nodePort, note: `node ${handling.name}'s NodePort: kube-proxy there rewrites the destination after the packet has left ${client.node.name}` }
    : undefined;
  const backends: Backend[] = d.candidates.map((c) => {
    const pod = c.pod ? model.podsByKey.get(c.pod) : undefined;
    const hairpin = !d.masquerade && c.masquerade;
    const b: Backend = {
      ip: c.ip, port: c.port, probability: c.probability,
      sourceIP: c.masquerade ? nodeIP : clientIP,
      preserved: !c.masquerade,
      ready: c.ready, serving: c.serving, terminating: c.terminating, local: c.local, ref: c.ref,
    };
    if (remoteNodePort) b.egressTo = remoteNodePort;
    if (c.masquerade) b.snatNote = hairpin ? `hairpin: a pod reaching itself through the Service is masqueraded to ${handling.name}'s address` : `masqueraded to ${handling.name}'s address`;
    if (pod) b.pod = pod;
    if (c.pod) b.podKey = c.pod;
    if (c.node) b.node = c.node;
    if (c.zone) b.zone = c.zone;
    return b;
  });
  const hairpins = backends.filter((b) => !d.masquerade && !b.preserved);
  const masqRef = frontend === "clusterIP" ? undefined : serviceRef(s, "spec.externalTrafficPolicy", s.lines.externalTrafficPolicy);
  ctx.hops.push({
    step: "source address",
    verdict: "info",
    detail: d.masquerade
      ? clientIP === nodeIP
        ? `SNAT: ${d.masqueradeReason}; the sender is ${handling.name} itself, so backends see ${nodeIP} either way`
        : `SNAT: ${d.masqueradeReason}; backends see ${nodeIP}, not ${clientIP || "the client"}: ipBlock rules for the client's range no longer match it`
      : `no SNAT: ${d.masqueradeReason}; backends see ${clientIP}${hairpins.length ? ` (except ${hairpins.map((b) => hostPort(b.ip, b.port, family)).join(", ")}: hairpin traffic to the sender itself is masqueraded to ${nodeIP})` : ""}`,
    ...(masqRef && s.type !== "ClusterIP" ? { ref: masqRef } : {}),
  });
  const ev = evaluate(ctx, backends, family);
  return finish(ctx, ev.endpoints, ev.hops);
}

/** Which EndpointSlices listed the candidates, and who wrote them. */
function provenance(s: Service, d: ProxyDecision): string {
  const slices = [...new Set(d.candidates.map((c) => c.slice))];
  const origins = new Set(d.candidates.map((c) => c.sliceOrigin));
  const named = slices.length <= 2 ? `EndpointSlice${slices.length === 1 ? "" : "s"} ${slices.join(", ")}` : `${slices.length} EndpointSlices`;
  const by = [...origins].map((o) =>
    o === "controller" ? `derived from the selector ${Object.entries(s.selector ?? {}).map(([k, v]) => `${k}=${v}`).join(",")} as the EndpointSlice controller would`
    : o === "mirrored" ? `mirrored from Endpoints ${s.key}` : "as written in the input");
  return `endpoints from ${named}, ${by.join(" and ")}`;
}

export function formatProbability(p: number): string {
  if (p === 1) return "1";
  const inv = 1 / p;
  if (Math.abs(inv - Math.round(inv)) < 1e-9) return `1/${Math.round(inv)}`;
  return p.toFixed(4);
}

function serviceInfo(s: Service, port: ServicePort | undefined, frontend: TraceService["frontend"], address: string, requested: number): TraceService {
  return {
    namespace: s.namespace, name: s.name, type: s.type,
    port: port?.port ?? requested, portName: port?.name ?? "", targetPort: port?.targetPort ?? requested,
    frontend, address,
  };
}

function headless(ctx: Ctx, s: Service, port: number | string): TraceResult {
  const { client, model, index } = ctx;
  const family: Family = s.ipFamilies[0] === "IPv6" ? 6 : client.ip(4) ? 4 : 6;
  const sp = typeof port === "string" ? findServicePort(s, port, ctx.protocol) : undefined;
  const connectPort = typeof port === "number" ? port : sp?.port;
  if (connectPort === undefined) {
    ctx.hops.push({ step: "destination", verdict: "drop", detail: `headless Service ${s.key} has no port named ${port}`, ref: serviceRef(s, "spec.ports", s.lines.ports) });
    return finish(ctx, [], [], `dropped: headless Service ${s.key} has no port named ${port}`);
  }
  ctx.result.port = connectPort;
  const named = sp ?? findServicePort(s, connectPort, ctx.protocol);
  ctx.result.service = serviceInfo(s, named, "headless", `${s.name}.${s.namespace}.svc.${CLUSTER_DOMAIN}`, connectPort);
  // DNS publishes the Ready endpoints (publishNotReadyAddresses makes the controller mark all of them ready).
  const proxy = index.services.get(s.key);
  const seen = new Map<string, { pod?: string; node?: string; zone?: string; ref: SourceRef }>();
  for (const slice of proxy?.slices ?? []) for (const e of slice.endpoints) {
    const ip = e.addresses[0];
    if (!ip || !e.ready || familyOf(ip) !== family || seen.has(ip)) continue;
    const v: { pod?: string; node?: string; zone?: string; ref: SourceRef } = { ref: e.ref };
    const podKey = e.pod && model.podsByKey.has(e.pod) ? e.pod : model.podsByIP.get(ip)?.key;
    if (podKey) v.pod = podKey;
    if (e.nodeName) v.node = e.nodeName;
    if (e.zone) v.zone = e.zone;
    seen.set(ip, v);
  }
  const translated = named && named.targetPort !== named.port ? `; headless Services translate no ports: the client connects to port ${connectPort}, although targetPort is ${named.targetPort} (only SRV records carry the target port)` : "";
  ctx.hops.push({
    step: "dns",
    verdict: seen.size ? "pass" : "drop",
    detail: `Service ${s.key} is headless (clusterIP: None): DNS answers ${s.name}.${s.namespace}.svc.${CLUSTER_DOMAIN} with ${plural(seen.size, "ready endpoint address", "ready endpoint addresses")} and kube-proxy is not involved${translated}`,
    ref: serviceRef(s, "spec.clusterIP", s.lines.clusterIP),
  });
  if (seen.size === 0) return finish(ctx, [], [], `dropped: headless Service ${s.key} has no ready endpoints, so its name resolves to no address`);
  const clientIP = client.ip(family) ?? "";
  const backends: Backend[] = [...seen].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([ip, v]) => {
    const pod = v.pod ? model.podsByKey.get(v.pod) : undefined;
    const b: Backend = { ip, port: connectPort, probability: 1 / seen.size, sourceIP: clientIP, preserved: true, ref: v.ref, ready: true };
    if (pod) b.pod = pod;
    if (v.pod) b.podKey = v.pod;
    if (v.node) b.node = v.node;
    if (v.zone) b.zone = v.zone;
    return b;
  });
  ctx.hops.push({ step: "source address", verdict: "info", detail: `the connection goes straight to a pod IP: backends see ${clientIP}` });
  const ev = evaluate(ctx, backends, family);
  return finish(ctx, ev.endpoints, ev.hops);
}

function externalName(ctx: Ctx, s: Service, port: number | string, depth: number): TraceResult {
  const target = (s.externalName ?? "").replace(/\.$/, "");
  const m = new RegExp(`^([a-z0-9-]+)\\.([a-z0-9-]+)\\.svc\\.${CLUSTER_DOMAIN.replace(".", "\\.")}$`).exec(target);
  const inCluster = m ? ctx.index.services.get(`${m[2]}/${m[1]}`) : undefined;
  ctx.result.service = serviceInfo(s, typeof port === "number" ? findServicePort(s, port, ctx.protocol) : findServicePort(s, port), "externalName", target, typeof port === "number" ? port : 0);
  if (inCluster && depth < 4) {
    ctx.hops.push({
      step: "dns",
      verdict: "pass",
      detail: `Service ${s.key} is ExternalName: DNS answers with a CNAME to ${target}, which is Service ${inCluster.service.key}; the client connects to it on the same port (ExternalName translates no ports)`,
      ref: serviceRef(s, "spec.externalName", s.lines.externalName),
    });
    const p = typeof port === "number" ? port : (findServicePort(inCluster.service, port, ctx.protocol)?.port ?? port);
    return toService(ctx, inCluster.service, p, depth + 1);
  }
  ctx.hops.push({
    step: "dns",
    verdict: "info",
    detail: `Service ${s.key} is ExternalName: DNS answers with a CNAME to ${target || "(no externalName)"}; nothing is proxied and the name ${m ? "names no Service in the input" : "is outside the cluster"}, so where the connection goes is outside the model`,
    ref: serviceRef(s, "spec.externalName", s.lines.externalName),
  });
  return finish(ctx, [], [], `dropped: Service ${s.key} is ExternalName (a DNS alias for ${target || "nothing"}): no endpoint in the model serves it`);
}

function toService(ctx: Ctx, s: Service, port: number | string, depth = 0): TraceResult {
  const { client, protocol } = ctx;
  const r = ctx.result;
  r.to = { kind: "service", name: s.key, ip: s.clusterIPs[0] ?? "", port: typeof port === "number" ? port : 0 };
  if (s.type === "ExternalName") return externalName(ctx, s, port, depth);
  if (s.headless) {
    if (client.kind === "external") {
      ctx.hops.push({ step: "destination", verdict: "drop", detail: `Service ${s.key} is headless: it has no address outside the cluster`, ref: serviceRef(s, "spec.clusterIP", s.lines.clusterIP) });
      return finish(ctx, [], [], `dropped: Service ${s.key} is headless and not reachable from outside the cluster`);
    }
    return headless(ctx, s, port);
  }
  const sp = findServicePort(s, port, protocol);
  if (!sp) {
    const have = s.ports.map(portLabel).join(", ") || "none";
    ctx.hops.push({ step: "destination", verdict: "drop", detail: `Service ${s.key} has no port ${port}/${protocol} (ports: ${have})`, ref: serviceRef(s, "spec.ports", s.lines.ports) });
    return finish(ctx, [], [], `dropped: Service ${s.key} has no port ${port}/${protocol}`);
  }
  r.port = sp.port;
  r.to.port = sp.port;
  const primary: Family = familyOf(s.clusterIPs[0]!) ?? 4;
  if (client.kind !== "external") {
    const family: Family = client.ip(primary) ? primary : (s.clusterIPs.map((ip) => familyOf(ip)!).find((f) => client.ip(f)) ?? primary);
    const vip = s.clusterIPs.find((ip) => familyOf(ip) === family) ?? s.clusterIPs[0]!;
    r.to.ip = vip;
    r.service = serviceInfo(s, sp, "clusterIP", hostPort(vip, sp.port, family), sp.port);
    ctx.hops.push({
      step: "destination",
      verdict: "pass",
      detail: `Service ${s.key} port ${portLabel(sp)}: the client resolves ${s.name}.${s.namespace}.svc.${CLUSTER_DOMAIN} to ClusterIP ${vip}${s.clusterIPsAllocated ? " (allocated by ktl: the input leaves it out)" : ""}`,
      ref: serviceRef(s, `spec.ports[${sp.index}]`, sp.line),
    });
    return viaKubeProxy(ctx, s, sp, "clusterIP", family, client.node);
  }
  // An external client: the way in that the Service's type gives (rule 4).
  const arrive = client.node;
  const fam = familyOf(client.name) ?? 4;
  const vip = s.type === "LoadBalancer" ? s.loadBalancerIPs.find((ip) => familyOf(ip) === fam) : undefined;
  if (vip) return viaLoadBalancer(ctx, s, sp, vip, fam, arrive);
  if ((s.type === "LoadBalancer" || s.type === "NodePort") && sp.nodePort) {
    const nodeIP = nodeAddress(arrive, fam) ?? arrive.internalIP;
    const lb = s.type === "LoadBalancer" ? s.loadBalancerIngress[0] : undefined;
    r.to.ip = nodeIP;
    r.service = serviceInfo(s, sp, "nodePort", hostPort(nodeIP, sp.nodePort, fam), sp.port);
    ctx.hops.push({
      step: "destination",
      verdict: "pass",
      detail: s.loadBalancerPending
        ? `Service ${s.key} is a LoadBalancer whose load balancer is pending (no status.loadBalancer.ingress: kubectl shows <pending>), so there is no LB IP yet and its loadBalancerSourceRanges filter nothing; only NodePort ${sp.nodePort} reaches it: the client connects to ${hostPort(nodeIP, sp.nodePort, fam)} on ${arrive.name}`
        : lb
        ? `Service ${s.key} is a LoadBalancer whose load balancer (${lb.hostname ?? lb.ip}${lb.ipMode === "Proxy" ? ", ipMode Proxy" : ""}) is not a VIP kube-proxy captures: it forwards the client's connection to NodePort ${sp.nodePort} on ${arrive.name} (${nodeIP})`
        : `Service ${s.key} port ${portLabel(sp)} is NodePort ${sp.nodePort}${sp.nodePortAllocated ? " (allocated by ktl)" : ""}: the client connects to ${hostPort(nodeIP, sp.nodePort, fam)} on ${arrive.name}`,
      ref: serviceRef(s, `spec.ports[${sp.index}].nodePort`, sp.line),
    });
    if (lb) {
      if (!cloudSourceRanges(ctx, s, false)) return finish(ctx, [], [], r.reason);
      healthCheckHop(ctx, s, arrive);
    }
    return viaKubeProxy(ctx, s, sp, "nodePort", fam, arrive);
  }
  const eip = s.externalIPs.find((ip) => familyOf(ip) === fam);
  if (eip) {
    r.to.ip = eip;
    r.service = serviceInfo(s, sp, "externalIP", hostPort(eip, sp.port, fam), sp.port);
    ctx.hops.push({ step: "destination", verdict: "pass", detail: `Service ${s.key} has externalIP ${eip}: the network routes the client's packet for ${hostPort(eip, sp.port, fam)} to ${arrive.name}`, ref: serviceRef(s, "spec.externalIPs", s.lines.externalIPs) });
    return viaKubeProxy(ctx, s, sp, "externalIP", fam, arrive);
  }
  const why = s.type === "LoadBalancer" ? `is a LoadBalancer with no address${s.loadBalancerPending ? " (pending: no status.loadBalancer.ingress)" : ""} and no NodePort (allocateLoadBalancerNodePorts: false)` : `is type ${s.type} with no externalIPs`;
  ctx.hops.push({ step: "destination", verdict: "drop", detail: `Service ${s.key} ${why}: nothing outside the cluster can reach it (a route to the ClusterIP through a node would: try ip:${s.clusterIPs[0] ?? "CLUSTERIP"}:${sp.port})`, ref: serviceRef(s, "spec.type", s.lines.type) });
  return finish(ctx, [], [], `dropped: Service ${s.key} ${why}, so it is not reachable from outside the cluster`);
}

const LB_SOURCE_RANGES_ANNOTATION = "service.beta.kubernetes.io/load-balancer-source-ranges";

/** The annotation applies (the field, when set, replaces it: cloud-provider GetLoadBalancerSourceRanges). */
function annotationRanges(s: Service): boolean {
  return s.loadBalancerSourceRanges.length === 0 && s.loadBalancerSourceRangesAnnotation.length > 0;
}

/**
 * The cloud load balancer's own source filter for an external client
 * (cloud-provider GetLoadBalancerSourceRanges: the field, else the
 * annotation). In front of a VIP kube-proxy captures, only the annotation is
 * checked here: the field is kube-proxy's firewall, checked further on. In
 * front of a NodePort (hostname or ipMode Proxy load balancers) kube-proxy
 * filters nothing, so the field is checked here too. False: dropped.
 */
function cloudSourceRanges(ctx: Ctx, s: Service, vip: boolean): boolean {
  const field = s.loadBalancerSourceRanges.length > 0;
  if (vip && !annotationRanges(s)) return true;
  const ranges = field ? s.loadBalancerSourceRanges : s.loadBalancerSourceRangesAnnotation;
  const clientIP = ctx.client.name;
  const m = matchSourceRanges(ranges, clientIP);
  if (!m) return true;
  const from = field ? "spec.loadBalancerSourceRanges" : "the load-balancer-source-ranges annotation (the field is empty, so the provider reads the annotation; kube-proxy never does)";
  ctx.hops.push({
    step: "loadBalancerSourceRanges",
    verdict: m.allowed ? "pass" : "drop",
    detail: m.allowed
      ? `the cloud load balancer admits ${clientIP}: it is inside ${m.matched}, from ${from}`
      : `the cloud load balancer drops ${clientIP}: ${from} admits only ${m.ranges.join(", ")}`,
    ref: field
      ? serviceRef(s, "spec.loadBalancerSourceRanges", s.lines.loadBalancerSourceRanges)
      : serviceRef(s, `metadata.annotations[${LB_SOURCE_RANGES_ANNOTATION}]`, s.lines.loadBalancerSourceRangesAnnotation),
  });
  if (!m.allowed) ctx.result.reason = `dropped: the load balancer of Service ${s.key} admits only ${m.ranges.join(", ")}, not ${clientIP}`;
  return m.allowed;
}

/** For a LoadBalancer with externalTrafficPolicy Local: would the load balancer send to this node? Marks the result dropped when not. */
function healthCheckHop(ctx: Ctx, s: Service, node: Node): void {
  const h = healthCheck(ctx.index, s.key, node.name);
  if (!h) return;
  const healthy = loadBalancerHealth(ctx.index, s.key).filter((x) => x.healthy).map((x) => x.node);
  ctx.hops.push({
    step: "load balancer health check",
    verdict: h.healthy ? "pass" : "drop",
    detail: h.healthy
      ? `externalTrafficPolicy Local: ${node.name} answers 200 on healthCheckNodePort ${h.port} (${plural(h.localEndpoints, "ready local endpoint")}), so the load balancer sends it traffic; healthy nodes: ${healthy.join(", ")}`
      : `externalTrafficPolicy Local: ${node.name} answers 503 on healthCheckNodePort ${h.port} (no ready local endpoint), so a load balancer would not send traffic here; healthy nodes: ${healthy.join(", ") || "none"}. If a packet arrives anyway, kube-proxy decides below`,
    ref: serviceRef(s, "spec.healthCheckNodePort", s.lines.healthCheckNodePort || s.lines.externalTrafficPolicy),
  });
}

function viaLoadBalancer(ctx: Ctx, s: Service, sp: ServicePort, vip: string, family: Family, handling: Node): TraceResult {
  const { client } = ctx;
  const r = ctx.result;
  r.to.ip = vip;
  r.service = serviceInfo(s, sp, "loadBalancer", hostPort(vip, sp.port, family), sp.port);
  const ing = s.loadBalancerIngress.find((i) => i.ip === vip);
  if (client.kind === "external") {
    ctx.hops.push({
      step: "load balancer",
      verdict: "pass",
      detail: `the client ${client.name} connects to LoadBalancer ${hostPort(vip, sp.port, family)}; the load balancer delivers the packet, still addressed to the VIP, to ${handling.name}`,
      ref: serviceRef(s, "status.loadBalancer.ingress", ing?.line || s.lines.loadBalancerIngress || s.lines.type),
    });
    if (!cloudSourceRanges(ctx, s, true)) return finish(ctx, [], [], r.reason);
    healthCheckHop(ctx, s, handling);
  } else {
    ctx.hops.push({
      step: "destination",
      verdict: "pass",
      detail: `${client.kind === "pod" ? `pod ${client.name}` : `node ${client.name}`} connects to LoadBalancer IP ${hostPort(vip, sp.port, family)}: kube-proxy on its own node ${handling.name} takes the packet, which never reaches the load balancer`,
      ref: serviceRef(s, "status.loadBalancer.ingress", ing?.line || s.lines.loadBalancerIngress || s.lines.type),
    });
  }
  const clientIP = client.ip(family) ?? "";
  const fw = checkSourceRanges(s, clientIP, handling);
  if (!fw && client.kind !== "external" && annotationRanges(s)) {
    ctx.hops.push({
      step: "loadBalancerSourceRanges",
      verdict: "pass",
      detail: `the load-balancer-source-ranges annotation (${s.loadBalancerSourceRangesAnnotation.join(", ")}) is read by the cloud load balancer only; kube-proxy builds its firewall from spec.loadBalancerSourceRanges, which is empty, so ${clientIP} is not filtered on its way to the VIP`,
      ref: serviceRef(s, `metadata.annotations[${LB_SOURCE_RANGES_ANNOTATION}]`, s.lines.loadBalancerSourceRangesAnnotation),
    });
  }
  if (fw) {
    ctx.hops.push({
      step: "loadBalancerSourceRanges",
      verdict: fw.allowed ? "pass" : "drop",
      detail: fw.allowed ? `${clientIP} is admitted by loadBalancerSourceRanges (${fw.matched})` : `${clientIP} is outside loadBalancerSourceRanges ${fw.ranges.join(", ")}: kube-proxy's firewall chain drops it`,
      ref: serviceRef(s, "spec.loadBalancerSourceRanges", s.lines.loadBalancerSourceRanges),
    });
    if (!fw.allowed) {
      r.handledBy = handling.name;
      return finish(ctx, [], [], `dropped: ${clientIP} is outside loadBalancerSourceRanges of Service ${s.key}`);
    }
  }
  return viaKubeProxy(ctx, s, sp, "loadBalancer", family, handling);
}

function toPod(ctx: Ctx, pod: Pod, port: number, family: Family, how: string): TraceResult {
  const { client, model } = ctx;
  const ip = pod.ips.find((x) => familyOf(x) === family) ?? pod.ips[0] ?? "";
  ctx.result.to = { kind: "pod", name: pod.key, ip, port };
  ctx.result.port = port;
  ctx.hops.push({ step: "destination", verdict: ip ? "pass" : "drop", detail: ip ? `${how} pod ${pod.key} at ${ip} on ${pod.nodeName ?? "no node"}: no Service, so kube-proxy is not involved` : `pod ${pod.key} has no IP (not scheduled)`, ref: traceRef(pod.source)! });
  if (!ip) return finish(ctx, [], [], `dropped: pod ${pod.key} has no IP`);
  const clientIP = client.ip(familyOf(ip) ?? family) ?? "";
  const b: Backend = { ip, port, probability: 1, sourceIP: clientIP, preserved: true, podKey: pod.key, pod, ready: pod.ready };
  if (pod.nodeName) b.node = pod.nodeName;
  const zone = pod.nodeName ? model.nodesByName.get(pod.nodeName)?.zone : undefined;
  if (zone) b.zone = zone;
  const ev = evaluate(ctx, [b], familyOf(ip) ?? family);
  return finish(ctx, ev.endpoints, ev.hops);
}

function toIP(ctx: Ctx, ip: string, port: number): TraceResult {
  const { index, client, model, protocol } = ctx;
  const family = familyOf(ip)!;
  const r = ctx.result;
  r.to = { kind: "ip", name: ip, ip, port };
  const cluster = index.byClusterIP.get(ip);
  if (cluster) {
    const sp = findServicePort(cluster, port, protocol);
    if (!sp) {
      ctx.hops.push({
        step: "destination",
        verdict: "drop",
        detail: `${ip} is the ClusterIP of Service ${cluster.key}, which has no port ${port}/${protocol}: nftables mode rejects it ("Reject traffic to invalid ports of ClusterIPs"), iptables mode leaves it to the default route where it is lost`,
        ref: serviceRef(cluster, "spec.ports", cluster.lines.ports),
      });
      return finish(ctx, [], [], `dropped: Service ${cluster.key} has no port ${port}/${protocol}`);
    }
    r.service = serviceInfo(cluster, sp, "clusterIP", hostPort(ip, port, family), sp.port);
    const handling = client.node;
    ctx.hops.push({
      step: "destination",
      verdict: "pass",
      detail: `${ip} is the ClusterIP of Service ${cluster.key}, port ${portLabel(sp)}${client.kind === "external" ? `; the network routes the client's packet to ${handling.name}` : ""}`,
      ref: serviceRef(cluster, `spec.ports[${sp.index}]`, sp.line),
    });
    return viaKubeProxy(ctx, cluster, sp, "clusterIP", family, handling);
  }
  const lb = (index.byLoadBalancerIP.get(ip) ?? []).map((s) => ({ s, sp: findServicePort(s, port, protocol) })).find((x) => x.sp);
  if (lb) return viaLoadBalancer(ctx, lb.s, lb.sp!, ip, family, client.node);
  const ext = (index.byExternalIP.get(ip) ?? []).map((s) => ({ s, sp: findServicePort(s, port, protocol) })).find((x) => x.sp);
  if (ext) {
    r.service = serviceInfo(ext.s, ext.sp!, "externalIP", hostPort(ip, port, family), port);
    ctx.hops.push({
      step: "destination",
      verdict: "pass",
      detail: client.kind === "external"
        ? `${ip} is an externalIP of Service ${ext.s.key}: the network routes the client's packet to ${client.node.name}`
        : `${ip} is an externalIP of Service ${ext.s.key}: kube-proxy on the sender's own node ${client.node.name} takes the packet`,
      ref: serviceRef(ext.s, "spec.externalIPs", ext.s.lines.externalIPs),
    });
    return viaKubeProxy(ctx, ext.s, ext.sp!, "externalIP", family, client.node);
  }
  const node = index.nodesByIP.get(ip);
  if (node) {
    const np = index.byNodePort.get(`${protocol}/${port}`);
    if (np) {
      r.service = serviceInfo(np.service, np.port, "nodePort", hostPort(ip, port, family), np.port.port);
      ctx.hops.push({
        step: "destination",
        verdict: "pass",
        detail: `${hostPort(ip, port, family)} is NodePort ${port} of Service ${np.service.key} (port ${portLabel(np.port)}) on node ${node.name}${client.kind !== "external" && node.name !== client.node.name ? `: the packet travels to ${node.name}, whose kube-proxy takes it` : ""}`,
        ref: serviceRef(np.service, `spec.ports[${np.port.index}].nodePort`, np.port.line),
      });
      return viaKubeProxy(ctx, np.service, np.port, "nodePort", family, node);
    }
    // Not a NodePort: a hostPort pod (CNI portmap), a hostNetwork pod, or the node itself.
    const hp = index.hostPorts.get(`${node.name}|${protocol}|${port}`);
    if (hp) {
      ctx.hops.push({ step: "destination", verdict: "pass", detail: `${hostPort(ip, port, family)} is hostPort ${port} of pod ${hp.pod.key}: the CNI portmap plugin DNATs it to container port ${hp.containerPort}`, ref: traceRef(hp.pod.source)! });
      return toPod(ctx, hp.pod, hp.containerPort, family, "the CNI delivers it to");
    }
    const hn = index.hostNetworkPorts.get(`${node.name}|${protocol}|${port}`);
    const clientIP = client.ip(family) ?? "";
    ctx.hops.push({
      step: "destination",
      verdict: "pass",
      detail: hn ? `${ip} is node ${node.name}'s address and hostNetwork pod ${hn.key} listens on ${protocol}/${port}` : `${ip} is node ${node.name}'s address and ${protocol}/${port} is no NodePort: the packet goes to the node's own network stack (whether anything listens there is outside the input)`,
      ...(hn ? { ref: traceRef(hn.source)! } : node.source ? { ref: traceRef(node.source)! } : {}),
    });
    const b: Backend = { ip, port, probability: 1, sourceIP: clientIP, preserved: true, node: node.name };
    if (hn) {
      b.pod = hn;
      b.podKey = hn.key;
    }
    if (node.zone) b.zone = node.zone;
    const ev = evaluate(ctx, [b], family);
    return finish(ctx, ev.endpoints, ev.hops);
  }
  const pod = model.podsByIP.get(ip);
  if (pod) return toPod(ctx, pod, port, family, `${ip} is`);
  // Outside the cluster.
  const clientIP = client.ip(family) ?? "";
  const proxied = index.proxyModeLoadBalancers.get(ip);
  ctx.hops.push({
    step: "destination",
    verdict: "pass",
    detail: proxied
      ? `${ip} is the load balancer of Service ${proxied.key} with ipMode Proxy: kube-proxy does not capture it, so the packet leaves for the load balancer, which opens its own connection to a node's NodePort (trace external:LB-ADDRESS@NODE to the NodePort to follow it)`
      : `${ip} is no Service, node or pod in the input: the packet leaves the cluster network (kube-proxy does not touch it; a CNI or ip-masq-agent often SNATs pod traffic that leaves the pod network)`,
    ...(proxied ? { ref: serviceRef(proxied, "status.loadBalancer.ingress", proxied.lines.loadBalancerIngress) } : {}),
  });
  const ev = evaluate(ctx, [{ ip, port, probability: 1, sourceIP: clientIP, preserved: true }], family);
  return finish(ctx, ev.endpoints, ev.hops);
}

/**
 * Traces one request. `index` is buildProxyIndex(model), built once; each
 * trace then costs the candidates' NetworkPolicy checks, not a scan of the
 * cluster. Never throws: an unresolvable query comes back with `error`.
 */
export function traceRequest(model: Model, index: ProxyIndex, from: TraceSource | string, to: TraceDestination | string, protocol: Protocol = "TCP", options: { http?: HttpRequest } = {}): TraceResult {
  const src = typeof from === "string" ? parseTraceSource(from) : from;
  const dst = typeof to === "string" ? parseTraceDestination(to) : to;
  const requested = "error" in dst ? 0 : typeof dst.port === "number" ? dst.port : 0;
  const result = emptyResult(protocol, requested);
  if ("error" in src || "error" in dst) {
    result.error = "error" in src ? src.error : (dst as { error: string }).error;
    result.reason = result.error;
    return result;
  }
  const client = resolveClient(model, src);
  if ("error" in client) {
    result.error = client.error;
    result.reason = client.error;
    return result;
  }
  const anyIP = client.ip(4) ?? client.ip(6) ?? "";
  result.from = { kind: client.kind, name: client.name, ip: anyIP, node: client.node.name };
  const hops: TraceHop[] = [];
  const ctx: Ctx = { model, index, client, protocol, hops, result, http: options.http };
  const srcRef = traceRef(client.ref);
  hops.push({
    step: "source",
    verdict: "info",
    detail: client.kind === "pod"
      ? `pod ${client.name} sends from ${anyIP} on node ${client.node.name}${client.pod?.hostNetwork ? " (hostNetwork: the node's own address)" : ""}`
      : client.kind === "node"
        ? `a process in node ${client.name}'s host network sends from ${anyIP}`
        : `external client ${client.name}; its packet arrives at node ${client.node.name}`,
    ...(srcRef ? { ref: srcRef } : {}),
  });
  if (dst.kind === "service") {
    const sp = index.services.get(dst.service);
    if (!sp) {
      result.error = `--to service:${dst.service}:${dst.port}: no Service ${dst.service} in the input`;
      result.reason = result.error;
      return result;
    }
    return toService(ctx, sp.service, dst.port);
  }
  if (dst.kind === "pod") {
    const pod = model.podsByKey.get(dst.pod);
    if (!pod) {
      result.error = `--to pod:${dst.pod}:${dst.port}: no pod ${dst.pod} in the input`;
      result.reason = result.error;
      return result;
    }
    let port: number | undefined = typeof dst.port === "number" ? dst.port : pod.ports.find((p) => p.name === dst.port && p.protocol === protocol)?.containerPort;
    if (port === undefined) {
      result.error = `--to pod:${dst.pod}:${dst.port}: pod ${dst.pod} has no ${protocol} container port named ${dst.port}`;
      result.reason = result.error;
      return result;
    }
    const family: Family = pod.ips[0] ? (familyOf(pod.ips.find((ip) => client.ip(familyOf(ip)!)) ?? pod.ips[0]) ?? 4) : 4;
    port = port as number;
    return toPod(ctx, pod, port, family, "the client connects to");
  }
  return toIP(ctx, dst.ip, dst.port);
}
