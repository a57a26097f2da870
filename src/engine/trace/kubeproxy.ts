/** Where the packet goes when it reaches a Service through kube-proxy. */
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
  type TrafficOrigin,
} from "../proxy/index.ts";
import type { TraceResult } from "./types.ts";
import { finish, type Ctx } from "./result.ts";
import { evaluate, type Backend } from "./policy.ts";
import { formatProbability, hostPort, serviceObject, serviceRef, traceRef } from "./format.ts";

export function viaKubeProxy(
  ctx: Ctx,
  s: Service,
  port: ServicePort,
  frontend: Frontend,
  family: Family,
  handling: Node,
): TraceResult {
  const { client, model } = ctx;
  const r = ctx.result;
  r.handledBy = handling.name;
  const origin: TrafficOrigin =
    client.kind === "external"
      ? "external"
      : client.host
        ? handling.name === client.node.name
          ? "host"
          : "external"
        : "pod";
  const clientIP = client.ip(family) ?? "";
  const req = {
    service: s.key,
    port: port.port,
    protocol: port.protocol,
    node: handling.name,
    frontend,
    origin,
    family,
    ...(clientIP ? { sourceIP: clientIP } : {}),
  };
  const d = chooseEndpoints(ctx.index, req);
  if ("error" in d) {
    ctx.hops.push({
      step: "kube-proxy",
      verdict: "drop",
      detail: d.error,
      cause: { layer: "kube-proxy", category: "error", object: serviceObject(s), node: handling.name },
      ref: serviceRef(s, "spec", s.source.line),
    });
    return finish(ctx, [], [], `dropped: ${d.error}`);
  }
  r.kubeProxy = {
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
  const decided = traceRef(d.decidedBy ?? undefined);
  if (d.action !== "forward") {
    // The one edit that would give kube-proxy an endpoint here (proxy/nearmiss.ts).
    const sp = ctx.index.services.get(s.key);
    const why =
      d.action === "reject"
        ? ({ kind: "none" } as const)
        : d.policy === "Local"
          ? ({ kind: "local", node: handling.name, field: d.policyField } as const)
          : undefined;
    const misses = sp && why ? proxyNearMisses(model, s, port, portEndpoints(sp, port), why) : [];
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
    if (r.service) r.sourceIPPreserved = !d.masquerade;
    return finish(ctx, [], [], `${d.action === "reject" ? "rejected" : "dropped"}: ${d.reason}`);
  }
  const topo =
    d.topologyNote &&
    d.category === "cluster" &&
    d.topologyNote !== "no topology hints: all ready endpoints are used"
      ? ` (${d.topologyNote})`
      : "";
  ctx.hops.push({
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
  });
  if (d.sessionAffinity) {
    ctx.hops.push({
      step: "session affinity",
      verdict: "info",
      detail: `sessionAffinity ClientIP: the first connection from ${clientIP || "a client"} picks a candidate at random; later ones from the same address go to the same endpoint for ${d.sessionAffinity.timeoutSeconds} s`,
      cause: {
        layer: "kube-proxy",
        category: "session-affinity",
        object: serviceObject(s),
        node: handling.name,
      },
      ref: serviceRef(s, "spec.sessionAffinity", s.lines.sessionAffinity),
    });
  }
  const nodeIP = nodeAddress(handling, family) ?? handling.internalIP;
  const remoteNodePort =
    frontend === "nodePort" &&
    client.kind === "pod" &&
    !client.host &&
    handling.name !== client.node.name &&
    port.nodePort
      ? {
          ip: r.to.ip,
          port: port.nodePort,
          note: `node ${handling.name}'s NodePort: kube-proxy there rewrites the destination after the packet has left ${client.node.name}`,
        }
      : undefined;
  const backends: Backend[] = d.candidates.map((c) => {
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
  const hairpins = backends.filter((b) => !d.masquerade && !b.preserved);
  const masqRef =
    frontend === "clusterIP"
      ? undefined
      : serviceRef(s, "spec.externalTrafficPolicy", s.lines.externalTrafficPolicy);
  ctx.hops.push({
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
  });
  const ev = evaluate(ctx, backends, family);
  return finish(ctx, ev.endpoints, ev.hops);
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
