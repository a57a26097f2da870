/** The model as the playground lists it: nodes and zones, pods, Services, policies, ports (plain JSON views). */
import { taintText } from "../model/taints.ts";
import { externallyAccessible } from "../model/services.ts";
import type { Model, Pod, Protocol } from "../model/types.ts";
import type { PolicyIndex } from "../netpol/index.ts";
import { podId, nodeId, refOfPod, refOfPolicy, refOfSource, serviceId, workloadId } from "./refs.ts";
import type { NodeView, PodView, PolicyView, PortView, ServiceView, ZoneView } from "./types.ts";
import type { KeptAnswer } from "./kept.ts";

export function nodesOf(model: Model): { nodes: NodeView[]; zones: ZoneView[] } {
  const zones = new Map<string, string[]>();
  const nodes = model.nodes.map((n) => {
    const v: NodeView = {
      id: nodeId(n.name),
      name: n.name,
      internalIP: n.internalIP,
      ready: n.ready,
      unschedulable: n.unschedulable,
      synthesized: n.synthesized,
    };
    if (n.taints.length) v.taints = n.taints.map(taintText);
    if (n.zone) {
      v.zone = n.zone;
      const l = zones.get(n.zone);
      if (l) l.push(v.id);
      else zones.set(n.zone, [v.id]);
    }
    if (n.source) v.ref = refOfSource(n.source);
    return v;
  });
  return { nodes, zones: [...zones].map(([name, ids]) => ({ name, nodes: ids })) };
}

/** With `kept` (the previous analysis's views), an unchanged pod's view is the very object it was. */
export function podsOf(model: Model, index: PolicyIndex, kept?: KeptAnswer): PodView[] {
  kept?.pods.round();
  // One isolation record per NetworkPolicy class, shared by its pods (sent once by structured clone).
  const isolation = index.classes.map((c) => ({
    ingress: index.ingressPolicies[c.index]!.map((pol) => refOfPolicy(pol)),
    egress: index.egressPolicies[c.index]!.map((pol) => refOfPolicy(pol)),
  }));
  // Replicas share their workload reference and port list in the model: their views share them too.
  const workloads = new Map<Pod["workload"], PodView["workload"]>();
  const ports = new Map<Pod["ports"], PodView["ports"]>();
  const refs = new Map<Pod["source"], PodView["ref"]>();
  return model.pods.map((p) => {
    const c = index.classOf[p.index]!;
    let workload = workloads.get(p.workload);
    if (!workload)
      workloads.set(
        p.workload,
        (workload = { id: workloadId(p.workload), kind: p.workload.kind, name: p.workload.name }),
      );
    let portViews = ports.get(p.ports);
    if (!portViews)
      ports.set(
        p.ports,
        (portViews = p.ports.map((cp) =>
          cp.name
            ? { name: cp.name, port: cp.containerPort, protocol: cp.protocol }
            : { port: cp.containerPort, protocol: cp.protocol },
        )),
      );
    let ref = refs.get(p.source);
    if (!ref) refs.set(p.source, (ref = refOfPod(p)));
    const v: PodView = {
      id: podId(p.key),
      namespace: p.namespace,
      name: p.name,
      ips: p.ips,
      ipsSynthesized: p.ipsSynthesized,
      labels: p.labels,
      workload,
      ports: portViews,
      hostNetwork: p.hostNetwork,
      ready: p.ready,
      phase: p.phase,
      terminating: p.terminating,
      generated: p.generated,
      ref,
      isolatedBy: isolation[c]!,
    };
    if (p.nodeName) v.node = nodeId(p.nodeName);
    return kept ? kept.pods.keep(v) : v;
  });
}

export function servicesOf(model: Model): ServiceView[] {
  return model.services.map((s) => ({
    id: serviceId(s.key),
    namespace: s.namespace,
    name: s.name,
    type: s.type,
    clusterIPs: s.clusterIPs,
    headless: s.headless,
    ports: s.ports.map((p) => {
      const v: ServiceView["ports"][number] = {
        name: p.name,
        port: p.port,
        protocol: p.protocol,
        targetPort: p.targetPort,
      };
      if (p.nodePort !== undefined) v.nodePort = p.nodePort;
      return v;
    }),
    externalIPs: s.externalIPs,
    loadBalancerIPs: s.loadBalancerIPs,
    internalTrafficPolicy: s.internalTrafficPolicy,
    externalTrafficPolicy: s.externalTrafficPolicy,
    external: externallyAccessible(s),
    ref: refOfSource(s.source),
  }));
}

export function policiesOf(model: Model, index: PolicyIndex): PolicyView[] {
  const selects = new Map<string, number>();
  index.classes.forEach((c) => {
    const seen = new Set<string>();
    for (const p of [...index.ingressPolicies[c.index]!, ...index.egressPolicies[c.index]!]) {
      if (seen.has(p.key)) continue;
      seen.add(p.key);
      selects.set(p.key, (selects.get(p.key) ?? 0) + c.pods.length);
    }
  });
  return model.policies.map((p) => ({
    id: `networkpolicy:${p.key}`,
    namespace: p.namespace,
    name: p.name,
    ingress: p.ingressIsolation,
    egress: p.egressIsolation,
    selects: selects.get(p.key) ?? 0,
    ref: refOfPolicy(p),
  }));
}

/** Declared container ports and Service ports, most common first. */
export function portsOf(model: Model): PortView[] {
  const counts = new Map<string, { v: PortView; n: number }>();
  const add = (port: number, protocol: Protocol, name: string | undefined) => {
    const k = `${port}/${protocol}`;
    const e = counts.get(k);
    if (e) e.n++;
    else counts.set(k, { v: name ? { name, port, protocol } : { port, protocol }, n: 1 });
  };
  for (const p of model.pods) for (const cp of p.ports) add(cp.containerPort, cp.protocol, cp.name);
  return [...counts.values()].sort((a, b) => b.n - a.n || a.v.port - b.v.port).map((e) => e.v);
}

// ---------- NetworkPolicy decisions as flow records ----------
