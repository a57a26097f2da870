/**
 * Where the packet goes when it reaches a Service through kube-proxy: the
 * proxy's decision (proxy/ chooseEndpoints) on the handling node, then the
 * hops it adds in the order a packet meets them: REJECT or DROP with the
 * edit that would avoid it, or the DNAT to one of the candidates, session
 * affinity, the source address the backends see; then each backend's
 * policy (policy.ts).
 */
import type { Node } from "../model/types.ts";
import type { Service, ServicePort } from "../model/services.ts";
import type { Family } from "../model/ip.ts";
import { proxyNearMisses } from "../proxy/nearmiss.ts";
import {
  chooseEndpoints,
  nodeAddress,
  portEndpoints,
  type Frontend,
  type ProxyDecision,
  type ProxyRequest,
  type TrafficOrigin,
} from "../proxy/index.ts";
import type { TraceHop, TraceKubeProxy, TraceRef, TraceResult } from "./types.ts";
import { finish, type Ctx } from "./result.ts";
import { evaluate } from "./policy.ts";
import type { Backend } from "./backend.ts";
import { formatProbability, hostPort, serviceObject, serviceRef, traceRef } from "./format.ts";

/** The packet at kube-proxy: the Service port it is for, how it arrived, the node that handles it. */
interface AtProxy {
  ctx: Ctx;
  s: Service;
  port: ServicePort;
  frontend: Frontend;
  family: Family;
  handling: Node;
  /** The client's address of the family ("" when it has none). */
  clientIP: string;
}

/** The trace from kube-proxy on `handling` on: its decision, the hops it adds, then each backend's policy. */
export function viaKubeProxy(
  ctx: Ctx,
  s: Service,
  port: ServicePort,
  frontend: Frontend,
  family: Family,
  handling: Node,
): TraceResult {
  const r = ctx.result;
  r.handledBy = handling.name;
  const at: AtProxy = { ctx, s, port, frontend, family, handling, clientIP: ctx.client.ip(family) ?? "" };
  const d = chooseEndpoints(ctx.index, proxyRequest(at));
  if ("error" in d) return cannotProxy(at, d.error);
  r.kubeProxy = kubeProxySummary(d);
  const decided = traceRef(d.decidedBy ?? undefined);
  if (d.action !== "forward") return refuse(at, d, decided);
  ctx.hops.push(forwardHop(at, d, decided));
  if (d.sessionAffinity) ctx.hops.push(sessionAffinityHop(at, d.sessionAffinity.timeoutSeconds));
  const nodeIP = nodeAddress(handling, family) ?? handling.internalIP;
  const backends = backendsOf(at, d, nodeIP);
  ctx.hops.push(sourceAddressHop(at, d, backends, nodeIP));
  const ev = evaluate(ctx, backends, family);
  return finish(ctx, ev.endpoints, ev.hops);
}

/** kube-proxy has nothing for the request (chooseEndpoints' error: no such port, no nodePort...): the packet is dropped. */
function cannotProxy({ ctx, s, handling }: AtProxy, error: string): TraceResult {
  ctx.hops.push({
    step: "kube-proxy",
    verdict: "drop",
    detail: error,
    cause: { layer: "kube-proxy", category: "error", object: serviceObject(s), node: handling.name },
    ref: serviceRef(s, "spec", s.source.line),
  });
  return finish(ctx, [], [], `dropped: ${error}`);
}

/** The decision as the trace result's `kubeProxy` (the CLI contract's fields). */
function kubeProxySummary(d: ProxyDecision): TraceKubeProxy {
  return {
    node: d.node,
    action: d.action,
    category: d.category,
    policy: d.policy,
    policyField: d.policyField,
    shortCircuit: d.shortCircuit,
    topologyMode: d.topologyMode,
    masquerade: d.masquerade,
    masqueradeReason: d.masqueradeReason,
    sessionAffinity: d.sessionAffinity,
    reason: d.reason,
  };
}

/** The request kube-proxy sees: its frontend, and who sent it as kube-proxy's rules tell (a pod, this node, anyone else). */
function proxyRequest({ ctx, s, port, frontend, family, handling, clientIP }: AtProxy): ProxyRequest {
  const { client } = ctx;
  const origin: TrafficOrigin =
    client.kind === "external"
      ? "external"
      : client.host
        ? handling.name === client.node.name
          ? "host"
          : "external"
        : "pod";
  return {
    service: s.key,
    port: port.port,
    protocol: port.protocol,
    node: handling.name,
    frontend,
    origin,
    family,
    ...(clientIP ? { sourceIP: clientIP } : {}),
  };
}

/** kube-proxy REJECTs or DROPs the packet: the hop names the one edit that would give it an endpoint (proxy/nearmiss.ts). */
function refuse(
  { ctx, s, port, handling }: AtProxy,
  d: ProxyDecision,
  decided: TraceRef | undefined,
): TraceResult {
  const sp = ctx.index.services.get(s.key);
  const why =
    d.action === "reject"
      ? ({ kind: "none" } as const)
      : d.policy === "Local"
        ? ({ kind: "local", node: handling.name, field: d.policyField } as const)
        : undefined;
  const misses = sp && why ? proxyNearMisses(ctx.model, s, port, portEndpoints(sp, port), why) : [];
  ctx.hops.push({
    step: "kube-proxy",
    verdict: "drop",
    detail: `kube-proxy on ${handling.name} ${d.action === "reject" ? "REJECTs" : "DROPs"} the packet: ${d.reason}`,
    cause: {
      layer: "kube-proxy",
      category: "endpoints",
      object: serviceObject(s),
      node: handling.name,
      action: d.action,
      endpoints: d.category,
      ...(misses.length ? { nearMisses: misses } : {}),
    },
    ...(decided ? { ref: decided } : {}),
  });
  if (ctx.result.service) ctx.result.sourceIPPreserved = !d.masquerade;
  return finish(ctx, [], [], `${d.action === "reject" ? "rejected" : "dropped"}: ${d.reason}`);
}

/** The DNAT: which endpoint set, and each candidate's chance. */
function forwardHop({ s, handling }: AtProxy, d: ProxyDecision, decided: TraceRef | undefined): TraceHop {
  const topo =
    d.topologyNote &&
    d.category === "cluster" &&
    d.topologyNote !== "no topology hints: all ready endpoints are used"
      ? ` (${d.topologyNote})`
      : "";
  return {
    step: "kube-proxy",
    verdict: "pass",
    detail: `kube-proxy on ${handling.name} (${d.zone ? `zone ${d.zone}` : "no zone label"}): ${d.reason}${topo}; ${d.candidates.length === 1 ? "DNAT to its only candidate" : `DNAT to one of ${d.candidates.length} endpoints, each with probability ${formatProbability(d.candidates[0]!.probability)}`} (${provenance(s, d)})`,
    cause: {
      layer: "kube-proxy",
      category: "endpoints",
      object: serviceObject(s),
      node: handling.name,
      action: d.action,
      endpoints: d.category,
    },
    ...(decided ? { ref: decided } : {}),
  };
}

/** sessionAffinity ClientIP: the first connection picks, later ones from the client's address follow it. */
function sessionAffinityHop({ s, handling, clientIP }: AtProxy, timeoutSeconds: number): TraceHop {
  return {
    step: "session affinity",
    verdict: "info",
    // Each node's kube-proxy keeps its own record (the iptables "recent" list, nftables' affinity set, IPVS's
    // persistence templates): the same client through another node may land on another endpoint.
    detail: `sessionAffinity ClientIP: the first connection from ${clientIP || "a client"} through ${handling.name}'s kube-proxy picks a candidate at random; later ones from the same address through ${handling.name} go to the same endpoint for ${timeoutSeconds} s (each node remembers its own clients: through another node the client may land on another endpoint)`,
    cause: {
      layer: "kube-proxy",
      category: "session-affinity",
      object: serviceObject(s),
      node: handling.name,
    },
    ref: serviceRef(s, "spec.sessionAffinity", s.lines.sessionAffinity),
  };
}

/**
 * The candidates as the backends policy judges: the source address each
 * sees (the node's when masqueraded or hairpin), and, for a pod's packet to
 * another node's NodePort, the address its egress policy sees before that
 * node's kube-proxy rewrites it.
 */
function backendsOf(at: AtProxy, d: ProxyDecision, nodeIP: string): Backend[] {
  const { ctx, port, frontend, handling, clientIP } = at;
  const { client, model } = ctx;
  const remoteNodePort =
    frontend === "nodePort" &&
    client.kind === "pod" &&
    !client.host &&
    handling.name !== client.node.name &&
    port.nodePort
      ? {
          ip: ctx.result.to.ip,
          port: port.nodePort,
          note: `node ${handling.name}'s NodePort: kube-proxy there rewrites the destination after the packet has left ${client.node.name}`,
        }
      : undefined;
  return d.candidates.map((c) => {
    const pod = c.pod ? model.podsByKey.get(c.pod) : undefined;
    const hairpin = !d.masquerade && c.masquerade;
    const b: Backend = {
      ip: c.ip,
      port: c.port,
      probability: c.probability,
      sourceIP: c.masquerade ? nodeIP : clientIP,
      preserved: !c.masquerade,
      ready: c.ready,
      serving: c.serving,
      terminating: c.terminating,
      local: c.local,
      ref: c.ref,
    };
    if (remoteNodePort) b.egressTo = remoteNodePort;
    if (c.masquerade)
      b.snatNote = hairpin
        ? `hairpin: a pod reaching itself through the Service is masqueraded to ${handling.name}'s address`
        : `masqueraded to ${handling.name}'s address`;
    if (pod) b.pod = pod;
    if (c.pod) b.podKey = c.pod;
    if (c.node) b.node = c.node;
    if (c.zone) b.zone = c.zone;
    return b;
  });
}

/** SNAT or not: the address the backends see, hairpin exceptions named. */
function sourceAddressHop(at: AtProxy, d: ProxyDecision, backends: Backend[], nodeIP: string): TraceHop {
  const { s, frontend, family, handling, clientIP } = at;
  const hairpins = backends.filter((b) => !d.masquerade && !b.preserved);
  const masqRef =
    frontend === "clusterIP"
      ? undefined
      : serviceRef(s, "spec.externalTrafficPolicy", s.lines.externalTrafficPolicy);
  return {
    step: "source address",
    verdict: "info",
    detail: d.masquerade
      ? clientIP === nodeIP
        ? `SNAT: ${d.masqueradeReason}; the sender is ${handling.name} itself, so backends see ${nodeIP} either way`
        : `SNAT: ${d.masqueradeReason}; backends see ${nodeIP}, not ${clientIP || "the client"}: ipBlock rules for the client's range no longer match it`
      : `no SNAT: ${d.masqueradeReason}; backends see ${clientIP}${hairpins.length ? ` (except ${hairpins.map((b) => hostPort(b.ip, b.port, family)).join(", ")}: hairpin traffic to the sender itself is masqueraded to ${nodeIP})` : ""}`,
    cause: {
      layer: "kube-proxy",
      category: d.masquerade ? "masquerade" : "no-masquerade",
      object: serviceObject(s),
      node: handling.name,
    },
    ...(masqRef && s.type !== "ClusterIP" ? { ref: masqRef } : {}),
  };
}

/** Which EndpointSlices listed the candidates, and who wrote them. */
function provenance(s: Service, d: ProxyDecision): string {
  const slices = [...new Set(d.candidates.map((c) => c.slice))];
  const origins = new Set(d.candidates.map((c) => c.sliceOrigin));
  const named =
    slices.length <= 2
      ? `EndpointSlice${slices.length === 1 ? "" : "s"} ${slices.join(", ")}`
      : `${slices.length} EndpointSlices`;
  const by = [...origins].map((o) =>
    o === "controller"
      ? `derived from the selector ${Object.entries(s.selector ?? {})
          .map(([k, v]) => `${k}=${v}`)
          .join(",")} as the EndpointSlice controller would`
      : o === "mirrored"
        ? `mirrored from Endpoints ${s.key}`
        : "as written in the input",
  );
  return `endpoints from ${named}, ${by.join(" and ")}`;
}
