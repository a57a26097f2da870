/**
 * The flow model: what a Service flow is, which ones an input has, and which
 * Services an outside client can reach. The playground's flows
 * (analysis/flows.ts), `ktl diff` and the what-if marks (diff/) enumerate
 * through here, so the marks cannot drift from the graph.
 *
 * - A Service flow is a pod (kind "service") or an outside client arriving at
 *   one node (kind "external") sending to one port of a Service that
 *   kube-proxy programs or that the trace names (every type but
 *   ExternalName; a headless Service's flows are the trace's answer about
 *   it).
 * - Pods of one NetworkPolicy class on one node get the same trace to a
 *   Service (no policy and no kube-proxy rule tells them apart), so a flow
 *   carries every pod of such a group and one trace stands for all. A pod
 *   that is itself an endpoint of the Service port may be sent back to
 *   itself (hairpin): it is a flow of its own.
 * - An outside client reaches a Service that is externally accessible
 *   (pkg/api/v1/service ExternallyAccessible: NodePort, LoadBalancer, or
 *   ClusterIP with external IPs) and that kube-proxy programs at all
 *   (proxy/util ShouldSkipService: not headless, not ExternalName).
 */
import { externalAtNode, podId, serviceId } from "../model/ids.ts";
import { externallyAccessible, type Service, type ServicePort } from "../model/services.ts";
import type { Model, Pod } from "../model/types.ts";
import type { PolicyIndex } from "../netpol/index.ts";
import { senderClassOf } from "../decide/index.ts";
import { skipped, type ProxyIndex } from "../proxy/index.ts";

/**
 * An outside client's way in exists: ExternallyAccessible, and kube-proxy
 * programs the Service (a headless Service with external IPs is externally
 * accessible to the apiserver, but no node answers on them).
 */
export function reachableFromOutside(s: Service): boolean {
  return externallyAccessible(s) && !skipped(s);
}

/** Services whose ports are flow destinations: all but ExternalName (a DNS alias, no port is programmed). */
export function flowDestination(s: Service): boolean {
  return s.type !== "ExternalName";
}

export interface ServiceFlowSpec {
  kind: "service" | "external";
  /** The pods the flow stands for (one trace for all); empty for an outside client. */
  pods: Pod[];
  /** The flow's sources as ids: `pod:NS/NAME` per pod, or `external:IP@NODE`. */
  from: string[];
  /** The source the trace starts from (`ktl trace --from`): the group's first pod, or the client. */
  traceFrom: string;
  service: Service;
  port: ServicePort;
  /** `service:NS/NAME:PORT`, as `ktl trace --to` takes it. */
  traceTo: string;
  /** `service:NS/NAME`, the graph's id of the Service. */
  to: string;
}

/** Pods that can send: scheduled and with an address. */
export function senderPods(model: Model): Pod[] {
  return model.pods.filter((p) => p.nodeName && p.ips.length > 0);
}

/** Pods grouped by the decider's sender class (`senderClassOf`) and node, in pod order. */
function sourceGroups(model: Model, index: PolicyIndex): Pod[][] {
  const groups = new Map<string, Pod[]>();
  const classOf = senderClassOf(model, index);
  for (const p of senderPods(model)) {
    const k = `${classOf(p)}|${p.nodeName}`;
    const g = groups.get(k);
    if (g) g.push(p);
    else groups.set(k, [p]);
  }
  return [...groups.values()];
}

/** The pods kube-proxy lists as endpoints of one Service port (any node, any readiness). */
function endpointPods(proxy: ProxyIndex, s: Service, portIndex: number): Set<string> {
  const out = new Set<string>();
  const eps = proxy.services.get(s.key)?.ports[portIndex];
  if (eps) for (const ep of [...eps.v4, ...eps.v6]) if (ep.pod) out.add(ep.pod);
  return out;
}

/**
 * How many pod-sourced Service flows `serviceFlowSpecs` would list, without listing them (a budget
 * check). Per Service port, a group gives one flow for its pods that are not the port's endpoints
 * (if any) and one per pod that is: a group with none of the endpoints gives 1, so the count is
 * the number of groups plus what the endpoints' own groups add. It walks the endpoints, not every
 * pod: at L (10,000 pods, 1,400 Services) walking every pod per port was most of an analysis.
 */
export function serviceFlowCount(model: Model, index: PolicyIndex, proxy: ProxyIndex): number {
  let n = 0;
  const groups = sourceGroups(model, index);
  const groupOf = new Map<string, number>();
  groups.forEach((g, gi) => {
    for (const p of g) groupOf.set(p.key, gi);
  });
  const self = new Int32Array(groups.length);
  const touched: number[] = [];
  for (const s of model.services) {
    if (!flowDestination(s)) continue;
    s.ports.forEach((_, i) => {
      n += groups.length;
      for (const pod of endpointPods(proxy, s, i)) {
        const gi = groupOf.get(pod);
        if (gi === undefined) continue;
        const k = self[gi]!;
        self[gi] = k + 1;
        if (k === 0) touched.push(gi);
      }
      for (const gi of touched) {
        const k = self[gi]!;
        n += k + (k < groups[gi]!.length ? 1 : 0) - 1;
        self[gi] = 0;
      }
      touched.length = 0;
    });
  }
  return n;
}

/** Every pod-to-Service flow of the input, grouped as above, by Service, port, then group. */
export function serviceFlowSpecs(model: Model, index: PolicyIndex, proxy: ProxyIndex): ServiceFlowSpec[] {
  const out: ServiceFlowSpec[] = [];
  const groups = sourceGroups(model, index);
  for (const s of model.services) {
    if (!flowDestination(s)) continue;
    s.ports.forEach((port, i) => {
      const own = endpointPods(proxy, s, i);
      const traceTo = `service:${s.key}:${port.port}`;
      for (const g of groups) {
        const others = g.filter((p) => !own.has(p.key));
        const parts = others.length ? [others] : [];
        for (const p of g) if (own.has(p.key)) parts.push([p]);
        for (const pods of parts)
          out.push({
            kind: "service",
            pods,
            from: pods.map((p) => podId(p.key)),
            traceFrom: podId(pods[0]!.key),
            service: s,
            port,
            traceTo,
            to: serviceId(s.key),
          });
      }
    });
  }
  return out;
}

/** Every outside-client flow: each port of each Service reachable from outside, arriving at each node. */
export function externalFlowSpecs(model: Model, clientIP: string): ServiceFlowSpec[] {
  const out: ServiceFlowSpec[] = [];
  for (const s of model.services) {
    if (!reachableFromOutside(s)) continue;
    for (const port of s.ports)
      for (const n of model.nodes) {
        const from = externalAtNode(clientIP, n.name);
        out.push({
          kind: "external",
          pods: [],
          from: [from],
          traceFrom: from,
          service: s,
          port,
          traceTo: `service:${s.key}:${port.port}`,
          to: serviceId(s.key),
        });
      }
  }
  return out;
}

/** Some Service has an outside way in (the playground then draws the outside client). */
export function hasExternalServices(model: Model): boolean {
  return model.services.some(reachableFromOutside);
}
