/** A request to a Service by name: its type decides the way in (index.ts rules 3, 4, 5). */
import type { SourceRef } from "../parse/manifests.ts";
import type { Service } from "../model/services.ts";
import type { Family } from "../model/ip.ts";
import { findServicePort, nodeAddress, portLabel } from "../proxy/index.ts";
import type { TraceResult } from "./types.ts";
import type { PodKey } from "../model/types.ts";
import { finish, type Ctx } from "./result.ts";
import { lookUp } from "./dns.ts";
import { evaluate } from "./policy.ts";
import type { Backend } from "./backend.ts";
import { viaKubeProxy } from "./kubeproxy.ts";
import { cloudSourceRanges, healthCheckHop, viaLoadBalancer } from "./loadbalancer.ts";
import {
  CLUSTER_DOMAIN,
  destinationCause,
  familyOf,
  hostPort,
  plural,
  serviceInfo,
  serviceObject,
  serviceRef,
} from "./format.ts";

function headless(ctx: Ctx, s: Service, port: number | string): TraceResult {
  const { client, model, index } = ctx;
  const family: Family = s.ipFamilies[0] === "IPv6" ? 6 : client.ip(4) ? 4 : 6;
  const sp = typeof port === "string" ? findServicePort(s, port, ctx.protocol) : undefined;
  const connectPort = typeof port === "number" ? port : sp?.port;
  if (connectPort === undefined) {
    ctx.hops.push({
      step: "destination",
      verdict: "drop",
      detail: `headless Service ${s.key} has no port named ${port}`,
      cause: destinationCause("no-port", serviceObject(s)),
      ref: serviceRef(s, "spec.ports", s.lines.ports),
    });
    return finish(ctx, [], [], `dropped: headless Service ${s.key} has no port named ${port}`);
  }
  ctx.result.port = connectPort;
  const named = sp ?? findServicePort(s, connectPort, ctx.protocol);
  ctx.result.service = serviceInfo(
    s,
    named,
    "headless",
    `${s.name}.${s.namespace}.svc.${CLUSTER_DOMAIN}`,
    connectPort,
  );
  // DNS publishes the Ready endpoints (publishNotReadyAddresses makes the controller mark all of them ready).
  const proxy = index.services.get(s.key);
  const seen = new Map<string, { pod?: PodKey; node?: string; zone?: string; ref: SourceRef }>();
  for (const slice of proxy?.slices ?? [])
    for (const e of slice.endpoints) {
      const ip = e.addresses[0];
      if (!ip || !e.ready || familyOf(ip) !== family || seen.has(ip)) continue;
      const v: { pod?: PodKey; node?: string; zone?: string; ref: SourceRef } = { ref: e.ref };
      const podKey = e.pod && model.podsByKey.has(e.pod) ? e.pod : model.podsByIP.get(ip)?.key;
      if (podKey) v.pod = podKey;
      if (e.nodeName) v.node = e.nodeName;
      if (e.zone) v.zone = e.zone;
      seen.set(ip, v);
    }
  const translated =
    named && named.targetPort !== named.port
      ? `; headless Services translate no ports: the client connects to port ${connectPort}, although targetPort is ${named.targetPort} (only SRV records carry the target port)`
      : "";
  ctx.hops.push({
    step: "dns",
    verdict: seen.size ? "pass" : "drop",
    detail: `Service ${s.key} is headless (clusterIP: None): DNS answers ${s.name}.${s.namespace}.svc.${CLUSTER_DOMAIN} with ${plural(seen.size, "ready endpoint address", "ready endpoint addresses")} and kube-proxy is not involved${translated}`,
    cause: { layer: "DNS", category: "headless", object: serviceObject(s), answers: seen.size },
    ref: serviceRef(s, "spec.clusterIP", s.lines.clusterIP),
  });
  if (seen.size === 0)
    return finish(
      ctx,
      [],
      [],
      `dropped: headless Service ${s.key} has no ready endpoints, so its name resolves to no address`,
    );
  const clientIP = client.ip(family) ?? "";
  const backends: Backend[] = [...seen]
    .sort((a, b) => (a[0] < b[0] ? -1 : 1))
    .map(([ip, v]) => {
      const pod = v.pod ? model.podsByKey.get(v.pod) : undefined;
      const b: Backend = {
        ip,
        port: connectPort,
        probability: 1 / seen.size,
        sourceIP: clientIP,
        preserved: true,
        ref: v.ref,
        ready: true,
      };
      if (pod) b.pod = pod;
      if (v.pod) b.podKey = v.pod;
      if (v.node) b.node = v.node;
      if (v.zone) b.zone = v.zone;
      return b;
    });
  ctx.hops.push({
    step: "source address",
    verdict: "info",
    detail: `the connection goes straight to a pod IP: backends see ${clientIP}`,
    cause: { layer: "DNS", category: "headless", object: serviceObject(s), answers: seen.size },
  });
  const ev = evaluate(ctx, backends, family);
  return finish(ctx, ev.endpoints, ev.hops);
}

function externalName(ctx: Ctx, s: Service, port: number | string, depth: number): TraceResult {
  const target = (s.externalName ?? "").replace(/\.$/, "");
  const m = new RegExp(`^([a-z0-9-]+)\\.([a-z0-9-]+)\\.svc\\.${CLUSTER_DOMAIN.replace(".", "\\.")}$`).exec(
    target,
  );
  const inCluster = m ? ctx.index.services.get(`${m[2]}/${m[1]}`) : undefined;
  ctx.result.service = serviceInfo(
    s,
    typeof port === "number" ? findServicePort(s, port, ctx.protocol) : findServicePort(s, port),
    "externalName",
    target,
    typeof port === "number" ? port : 0,
  );
  if (inCluster && depth < 4) {
    ctx.hops.push({
      step: "dns",
      verdict: "pass",
      detail: `Service ${s.key} is ExternalName: DNS answers with a CNAME to ${target}, which is Service ${inCluster.service.key}; the client connects to it on the same port (ExternalName translates no ports)`,
      cause: { layer: "DNS", category: "externalName-in-cluster", object: serviceObject(s), target },
      ref: serviceRef(s, "spec.externalName", s.lines.externalName),
    });
    const p =
      typeof port === "number"
        ? port
        : (findServicePort(inCluster.service, port, ctx.protocol)?.port ?? port);
    return toService(ctx, inCluster.service, p, depth + 1);
  }
  ctx.hops.push({
    step: "dns",
    verdict: "info",
    detail: `Service ${s.key} is ExternalName: DNS answers with a CNAME to ${target || "(no externalName)"}; nothing is proxied and the name ${m ? "names no Service in the input" : "is outside the cluster"}, so where the connection goes is outside the model. The client still sends the name it looked up (${s.name}.${s.namespace}.svc.${CLUSTER_DOMAIN}, or as written) as the HTTP Host header and the TLS SNI, which ${target || "the outside server"} may not recognise (a 404, or a certificate for another name)`,
    cause: { layer: "DNS", category: "externalName-outside", object: serviceObject(s), target },
    ref: serviceRef(s, "spec.externalName", s.lines.externalName),
  });
  return finish(
    ctx,
    [],
    [],
    `dropped: Service ${s.key} is ExternalName (a DNS alias for ${target || "nothing"}): no endpoint in the model serves it`,
  );
}

export function toService(ctx: Ctx, s: Service, port: number | string, depth = 0): TraceResult {
  const { client, protocol } = ctx;
  const r = ctx.result;
  r.to = {
    kind: "service",
    name: s.key,
    ip: s.clusterIPs[0] ?? "",
    port: typeof port === "number" ? port : 0,
  };
  if (s.type === "ExternalName") return externalName(ctx, s, port, depth);
  if (s.headless) {
    if (client.kind === "external") {
      ctx.hops.push({
        step: "destination",
        verdict: "drop",
        detail: `Service ${s.key} is headless: it has no address outside the cluster`,
        cause: destinationCause("not-reachable-from-outside", serviceObject(s)),
        ref: serviceRef(s, "spec.clusterIP", s.lines.clusterIP),
      });
      return finish(
        ctx,
        [],
        [],
        `dropped: Service ${s.key} is headless and not reachable from outside the cluster`,
      );
    }
    return headless(ctx, s, port);
  }
  const sp = findServicePort(s, port, protocol);
  if (!sp) {
    const have = s.ports.map(portLabel).join(", ") || "none";
    ctx.hops.push({
      step: "destination",
      verdict: "drop",
      detail: `Service ${s.key} has no port ${port}/${protocol} (ports: ${have})`,
      cause: destinationCause("no-port", serviceObject(s)),
      ref: serviceRef(s, "spec.ports", s.lines.ports),
    });
    return finish(ctx, [], [], `dropped: Service ${s.key} has no port ${port}/${protocol}`);
  }
  r.port = sp.port;
  r.to.port = sp.port;
  const primary: Family = familyOf(s.clusterIPs[0]!) ?? 4;
  if (client.kind !== "external") {
    const family: Family = client.ip(primary)
      ? primary
      : (s.clusterIPs.map((ip) => familyOf(ip)!).find((f) => client.ip(f)) ?? primary);
    const vip = s.clusterIPs.find((ip) => familyOf(ip) === family) ?? s.clusterIPs[0]!;
    r.to.ip = vip;
    r.service = serviceInfo(s, sp, "clusterIP", hostPort(vip, sp.port, family), sp.port);
    // DNS first: the name resolves through the cluster DNS Service, or the request never leaves (dns.ts).
    const lookup = lookUp(ctx, s, (sub, dns) => toService(sub, dns, 53));
    if (lookup.kind === "failed") {
      ctx.hops.push(lookup.hop);
      return finish(ctx, [], [], lookup.reason);
    }
    if (lookup.kind === "ok") ctx.hops.push(lookup.hop);
    const assumed =
      lookup.kind === "assumed"
        ? " (the input has no cluster DNS Service: kube-system/kube-dns is assumed to answer, not evaluated)"
        : "";
    ctx.hops.push({
      step: "destination",
      verdict: "pass",
      detail: `Service ${s.key} port ${portLabel(sp)}: the client resolves ${s.name}.${s.namespace}.svc.${CLUSTER_DOMAIN} to ClusterIP ${vip}${s.clusterIPsAllocated ? " (allocated by ktl: the input leaves it out)" : ""}${assumed}`,
      cause: destinationCause("clusterIP", serviceObject(s), sp.index),
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
      cause: destinationCause("nodePort", serviceObject(s), sp.index),
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
    ctx.hops.push({
      step: "destination",
      verdict: "pass",
      detail: `Service ${s.key} has externalIP ${eip}: the network routes the client's packet for ${hostPort(eip, sp.port, fam)} to ${arrive.name}`,
      ref: serviceRef(s, "spec.externalIPs", s.lines.externalIPs),
      cause: destinationCause("externalIP", serviceObject(s), sp.index),
    });
    return viaKubeProxy(ctx, s, sp, "externalIP", fam, arrive);
  }
  const why =
    s.type === "LoadBalancer"
      ? `is a LoadBalancer with no address${s.loadBalancerPending ? " (pending: no status.loadBalancer.ingress)" : ""} and no NodePort (allocateLoadBalancerNodePorts: false)`
      : `is type ${s.type} with no externalIPs`;
  ctx.hops.push({
    step: "destination",
    verdict: "drop",
    detail: `Service ${s.key} ${why}: nothing outside the cluster can reach it (a route to the ClusterIP through a node would: try ip:${s.clusterIPs[0] ?? "CLUSTERIP"}:${sp.port})`,
    cause: destinationCause("not-reachable-from-outside", serviceObject(s)),
    ref: serviceRef(s, "spec.type", s.lines.type),
  });
  return finish(
    ctx,
    [],
    [],
    `dropped: Service ${s.key} ${why}, so it is not reachable from outside the cluster`,
  );
}
