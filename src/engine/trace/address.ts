/** A request to a pod or to an address: a ClusterIP, a LoadBalancer or external IP, a node port, a pod IP or outside. */
import type { Pod } from "../model/types.ts";
import type { Family } from "../model/ip.ts";
import { findServicePort, portLabel } from "../proxy/index.ts";
import type { TraceResult } from "./types.ts";
import { finish, type Ctx } from "./result.ts";
import { evaluate } from "./policy.ts";
import type { Backend } from "./backend.ts";
import { viaKubeProxy } from "./kubeproxy.ts";
import { viaLoadBalancer } from "./loadbalancer.ts";
import {
  destinationCause,
  familyOf,
  hostPort,
  nodeObject,
  podObject,
  serviceInfo,
  serviceObject,
  serviceRef,
  traceRef,
} from "./format.ts";

export function toPod(ctx: Ctx, pod: Pod, port: number, family: Family, how: string): TraceResult {
  const { client, model } = ctx;
  const ip = pod.ips.find((x) => familyOf(x) === family) ?? pod.ips[0] ?? "";
  ctx.result.to = { kind: "pod", name: pod.key, ip, port };
  ctx.result.port = port;
  ctx.hops.push({
    step: "destination",
    verdict: ip ? "pass" : "drop",
    detail: ip
      ? `${how} pod ${pod.key} at ${ip} on ${pod.nodeName ?? "no node"}: no Service, so kube-proxy is not involved`
      : `pod ${pod.key} has no IP (not scheduled)`,
    cause: destinationCause(ip ? "pod" : "no-address", podObject(pod)),
    ref: traceRef(pod.source)!,
  });
  if (!ip) return finish(ctx, [], [], `dropped: pod ${pod.key} has no IP`);
  const clientIP = client.ip(familyOf(ip) ?? family) ?? "";
  const b: Backend = {
    ip,
    port,
    probability: 1,
    sourceIP: clientIP,
    preserved: true,
    podKey: pod.key,
    pod,
    ready: pod.ready,
  };
  if (pod.nodeName) b.node = pod.nodeName;
  const zone = pod.nodeName ? model.nodesByName.get(pod.nodeName)?.zone : undefined;
  if (zone) b.zone = zone;
  const ev = evaluate(ctx, [b], familyOf(ip) ?? family);
  return finish(ctx, ev.endpoints, ev.hops);
}

export function toIP(ctx: Ctx, ip: string, port: number): TraceResult {
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
        cause: destinationCause("no-port", serviceObject(cluster)),
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
      cause: destinationCause("clusterIP", serviceObject(cluster), sp.index),
      ref: serviceRef(cluster, `spec.ports[${sp.index}]`, sp.line),
    });
    return viaKubeProxy(ctx, cluster, sp, "clusterIP", family, handling);
  }
  const lb = (index.byLoadBalancerIP.get(ip) ?? [])
    .map((s) => ({ s, sp: findServicePort(s, port, protocol) }))
    .find((x) => x.sp);
  if (lb) return viaLoadBalancer(ctx, lb.s, lb.sp!, ip, family, client.node);
  const ext = (index.byExternalIP.get(ip) ?? [])
    .map((s) => ({ s, sp: findServicePort(s, port, protocol) }))
    .find((x) => x.sp);
  if (ext) {
    r.service = serviceInfo(ext.s, ext.sp!, "externalIP", hostPort(ip, port, family), port);
    ctx.hops.push({
      step: "destination",
      verdict: "pass",
      detail:
        client.kind === "external"
          ? `${ip} is an externalIP of Service ${ext.s.key}: the network routes the client's packet to ${client.node.name}`
          : `${ip} is an externalIP of Service ${ext.s.key}: kube-proxy on the sender's own node ${client.node.name} takes the packet`,
      cause: destinationCause("externalIP", serviceObject(ext.s), ext.sp!.index),
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
        cause: destinationCause("nodePort", serviceObject(np.service), np.port.index),
        ref: serviceRef(np.service, `spec.ports[${np.port.index}].nodePort`, np.port.line),
      });
      return viaKubeProxy(ctx, np.service, np.port, "nodePort", family, node);
    }
    // Not a NodePort: a hostPort pod (CNI portmap), a hostNetwork pod, or the node itself.
    const hp = index.hostPorts.get(`${node.name}|${protocol}|${port}`);
    if (hp) {
      ctx.hops.push({
        step: "destination",
        verdict: "pass",
        detail: `${hostPort(ip, port, family)} is hostPort ${port} of pod ${hp.pod.key}: the CNI portmap plugin DNATs it to container port ${hp.containerPort}`,
        cause: destinationCause("hostPort", podObject(hp.pod)),
        ref: traceRef(hp.pod.source)!,
      });
      return toPod(ctx, hp.pod, hp.containerPort, family, "the CNI delivers it to");
    }
    const hn = index.hostNetworkPorts.get(`${node.name}|${protocol}|${port}`);
    const clientIP = client.ip(family) ?? "";
    ctx.hops.push({
      step: "destination",
      verdict: "pass",
      detail: hn
        ? `${ip} is node ${node.name}'s address and hostNetwork pod ${hn.key} listens on ${protocol}/${port}`
        : `${ip} is node ${node.name}'s address and ${protocol}/${port} is no NodePort: the packet goes to the node's own network stack (whether anything listens there is outside the input)`,
      cause: hn
        ? destinationCause("hostNetwork", podObject(hn))
        : destinationCause("node", nodeObject(node.name)),
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
    cause: proxied
      ? destinationCause("loadBalancer-proxy", serviceObject(proxied))
      : destinationCause("outside"),
    ...(proxied
      ? { ref: serviceRef(proxied, "status.loadBalancer.ingress", proxied.lines.loadBalancerIngress) }
      : {}),
  });
  const ev = evaluate(ctx, [{ ip, port, probability: 1, sourceIP: clientIP, preserved: true }], family);
  return finish(ctx, ev.endpoints, ev.hops);
}
