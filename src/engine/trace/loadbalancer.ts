/** The cloud load balancer in front of a Service: its source ranges and health check. */
import type { Node } from "../model/types.ts";
import type { Service, ServicePort } from "../model/services.ts";
import type { Family } from "../model/ip.ts";
import { checkSourceRanges, healthCheck, loadBalancerHealth, matchSourceRanges } from "../proxy/index.ts";
import type { TraceResult } from "./types.ts";
import { finish, type Ctx } from "./result.ts";
import { viaKubeProxy } from "./kubeproxy.ts";
import { destinationCause, hostPort, plural, serviceInfo, serviceObject, serviceRef } from "./format.ts";

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
export function cloudSourceRanges(ctx: Ctx, s: Service, vip: boolean): boolean {
  const field = s.loadBalancerSourceRanges.length > 0;
  if (vip && !annotationRanges(s)) return true;
  const ranges = field ? s.loadBalancerSourceRanges : s.loadBalancerSourceRangesAnnotation;
  const clientIP = ctx.client.name;
  const m = matchSourceRanges(ranges, clientIP);
  if (!m) return true;
  const from = field
    ? "spec.loadBalancerSourceRanges"
    : "the load-balancer-source-ranges annotation (the field is empty, so the provider reads the annotation; kube-proxy never does)";
  ctx.hops.push({
    step: "loadBalancerSourceRanges",
    verdict: m.allowed ? "pass" : "drop",
    detail: m.allowed
      ? `the cloud load balancer admits ${clientIP}: it is inside ${m.matched}, from ${from}`
      : `the cloud load balancer drops ${clientIP}: ${from} admits only ${m.ranges.join(", ")}`,
    cause: { layer: "LoadBalancer", category: "source-ranges", object: serviceObject(s), allowed: m.allowed },
    ref: field
      ? serviceRef(s, "spec.loadBalancerSourceRanges", s.lines.loadBalancerSourceRanges)
      : serviceRef(
          s,
          `metadata.annotations[${LB_SOURCE_RANGES_ANNOTATION}]`,
          s.lines.loadBalancerSourceRangesAnnotation,
        ),
  });
  if (!m.allowed)
    ctx.result.reason = `dropped: the load balancer of Service ${s.key} admits only ${m.ranges.join(", ")}, not ${clientIP}`;
  return m.allowed;
}

/** For a LoadBalancer with externalTrafficPolicy Local: would the load balancer send to this node? Marks the result dropped when not. */
export function healthCheckHop(ctx: Ctx, s: Service, node: Node): void {
  const h = healthCheck(ctx.index, s.key, node.name);
  if (!h) return;
  const healthy = loadBalancerHealth(ctx.index, s.key)
    .filter((x) => x.healthy)
    .map((x) => x.node);
  ctx.hops.push({
    step: "load balancer health check",
    verdict: h.healthy ? "pass" : "drop",
    detail: h.healthy
      ? `externalTrafficPolicy Local: ${node.name} answers 200 on healthCheckNodePort ${h.port} (${plural(h.localEndpoints, "ready local endpoint")}), so the load balancer sends it traffic; healthy nodes: ${healthy.join(", ")}`
      : `externalTrafficPolicy Local: ${node.name} answers 503 on healthCheckNodePort ${h.port} (no ready local endpoint), so a load balancer would not send traffic here; healthy nodes: ${healthy.join(", ") || "none"}. If a packet arrives anyway, kube-proxy decides below`,
    cause: { layer: "LoadBalancer", category: "health-check", object: serviceObject(s), allowed: h.healthy },
    ref: serviceRef(
      s,
      "spec.healthCheckNodePort",
      s.lines.healthCheckNodePort || s.lines.externalTrafficPolicy,
    ),
  });
}

export function viaLoadBalancer(
  ctx: Ctx,
  s: Service,
  sp: ServicePort,
  vip: string,
  family: Family,
  handling: Node,
): TraceResult {
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
      cause: { layer: "LoadBalancer", category: "deliver", object: serviceObject(s), allowed: true },
      ref: serviceRef(
        s,
        "status.loadBalancer.ingress",
        ing?.line || s.lines.loadBalancerIngress || s.lines.type,
      ),
    });
    if (!cloudSourceRanges(ctx, s, true)) return finish(ctx, [], [], r.reason);
    healthCheckHop(ctx, s, handling);
  } else {
    ctx.hops.push({
      step: "destination",
      verdict: "pass",
      detail: `${client.kind === "pod" ? `pod ${client.name}` : `node ${client.name}`} connects to LoadBalancer IP ${hostPort(vip, sp.port, family)}: kube-proxy on its own node ${handling.name} takes the packet, which never reaches the load balancer`,
      cause: destinationCause("loadBalancer", serviceObject(s), sp.index),
      ref: serviceRef(
        s,
        "status.loadBalancer.ingress",
        ing?.line || s.lines.loadBalancerIngress || s.lines.type,
      ),
    });
  }
  const clientIP = client.ip(family) ?? "";
  const fw = checkSourceRanges(s, clientIP, handling);
  if (!fw && client.kind !== "external" && annotationRanges(s)) {
    ctx.hops.push({
      step: "loadBalancerSourceRanges",
      verdict: "pass",
      detail: `the load-balancer-source-ranges annotation (${s.loadBalancerSourceRangesAnnotation.join(", ")}) is read by the cloud load balancer only; kube-proxy builds its firewall from spec.loadBalancerSourceRanges, which is empty, so ${clientIP} is not filtered on its way to the VIP`,
      cause: {
        layer: "kube-proxy",
        category: "firewall",
        object: serviceObject(s),
        node: handling.name,
        action: "forward",
      },
      ref: serviceRef(
        s,
        `metadata.annotations[${LB_SOURCE_RANGES_ANNOTATION}]`,
        s.lines.loadBalancerSourceRangesAnnotation,
      ),
    });
  }
  if (fw) {
    ctx.hops.push({
      step: "loadBalancerSourceRanges",
      verdict: fw.allowed ? "pass" : "drop",
      detail: fw.allowed
        ? `${clientIP} is admitted by loadBalancerSourceRanges (${fw.matched})`
        : `${clientIP} is outside loadBalancerSourceRanges ${fw.ranges.join(", ")}: kube-proxy's firewall chain drops it`,
      cause: {
        layer: "kube-proxy",
        category: "firewall",
        object: serviceObject(s),
        node: handling.name,
        action: fw.allowed ? "forward" : "drop",
      },
      ref: serviceRef(s, "spec.loadBalancerSourceRanges", s.lines.loadBalancerSourceRanges),
    });
    if (!fw.allowed) {
      r.handledBy = handling.name;
      return finish(
        ctx,
        [],
        [],
        `dropped: ${clientIP} is outside loadBalancerSourceRanges of Service ${s.key}`,
      );
    }
  }
  return viaKubeProxy(ctx, s, sp, "loadBalancer", family, handling);
}
