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
 */
import type { Model, Protocol } from "../model/types.ts";
import type { Family } from "../model/ip.ts";
import type { ProxyIndex } from "../proxy/index.ts";
import type { HttpRequest } from "../http/request.ts";
import { describeProfile } from "../cni/profile.ts";
import type { TraceDestination, TraceHop, TraceResult, TraceSource } from "./types.ts";
import { parseTraceDestination, parseTraceSource } from "./query.ts";
import { resolveClient } from "./client.ts";
import { emptyResult, type Ctx } from "./result.ts";
import { familyOf, nodeObject, podObject, traceRef } from "./format.ts";
import { toService } from "./service.ts";
import { toIP, toPod } from "./address.ts";

export type {
  CauseLayer,
  HopCause,
  HopStep,
  HopVerdict,
  ObjectRef,
  PolicyCheck,
  PolicyDirection,
  RuleRef,
  TraceDestination,
  TraceEndpoint,
  TraceHop,
  TraceDecidedBy,
  TraceKubeProxy,
  TracePoint,
  TraceRef,
  TraceResult,
  TraceService,
  TraceSource,
  TraceVerdict,
} from "./types.ts";
export { parseTraceDestination, parseTraceSource } from "./query.ts";
export { formatProbability } from "./format.ts";
export {
  causeText,
  isPolicyLayer,
  reasonAfterVerdict,
  sourceAddressText,
  stepTitle,
  verdictMark,
} from "./render.ts";

/**
 * Traces one request. `index` is buildProxyIndex(model), built once; each
 * trace then costs the candidates' NetworkPolicy checks, not a scan of the
 * cluster. Never throws: an unresolvable query comes back with `error`.
 */
export function traceRequest(
  model: Model,
  index: ProxyIndex,
  from: TraceSource | string,
  to: TraceDestination | string,
  protocol: Protocol = "TCP",
  options: { http?: HttpRequest; dnsName?: string } = {},
): TraceResult {
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
  const ctx: Ctx = {
    model,
    index,
    client,
    protocol,
    hops,
    result,
    http: options.http,
    dnsName: options.dnsName,
  };
  if (model.profile && model.profile.cni !== "generic") result.profile = describeProfile(model.profile);
  const srcRef = traceRef(client.ref);
  hops.push({
    step: "source",
    verdict: "info",
    detail:
      client.kind === "pod"
        ? `pod ${client.name} sends from ${anyIP} on node ${client.node.name}${client.pod?.hostNetwork ? " (hostNetwork: the node's own address)" : ""}`
        : client.kind === "node"
          ? `a process in node ${client.name}'s host network sends from ${anyIP}`
          : `external client ${client.name}; its packet arrives at node ${client.node.name}`,
    cause: {
      layer: "client",
      category: client.pod
        ? client.pod.hostNetwork
          ? "hostNetwork"
          : "pod"
        : client.kind === "node"
          ? "node"
          : "external",
      ...(client.pod
        ? { object: podObject(client.pod) }
        : client.kind === "node"
          ? { object: nodeObject(client.name) }
          : {}),
    },
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
    let port: number | undefined =
      typeof dst.port === "number"
        ? dst.port
        : pod.ports.find((p) => p.name === dst.port && p.protocol === protocol)?.containerPort;
    if (port === undefined) {
      result.error = `--to pod:${dst.pod}:${dst.port}: pod ${dst.pod} has no ${protocol} container port named ${dst.port}`;
      result.reason = result.error;
      return result;
    }
    const family: Family = pod.ips[0]
      ? (familyOf(pod.ips.find((ip) => client.ip(familyOf(ip)!)) ?? pod.ips[0]) ?? 4)
      : 4;
    port = port as number;
    return toPod(ctx, pod, port, family, "the client connects to");
  }
  return toIP(ctx, dst.ip, dst.port);
}
