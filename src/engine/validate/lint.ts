/**
 * Lint: manifests the apiserver accepts but that break traffic. Each rule has
 * a stable code, points at the field to change and suggests a fix.
 *
 * KTL601 a NetworkPolicy selects no pod
 * KTL602 a Service selector matches no pod
 * KTL603 a named targetPort that no selected pod has
 * KTL604 externalTrafficPolicy Local with backends on few nodes
 * KTL605 internalTrafficPolicy Local with clients on nodes without a backend
 * KTL606 egress isolation without a DNS allowance
 * KTL607 ipBlock rules for clients that kube-proxy masquerades
 * KTL608 topology hints or trafficDistribution that cannot apply
 * KTL609 a static ClusterIP or nodePort in the allocator's dynamic band
 * KTL610 a policy rule's podSelector or namespaceSelector that selects nothing in the input
 * (KTL510, unknown fields, comes from decoding in index.ts.)
 *
 * Backends are found as the EndpointSlice controller finds them: pods of the
 * Service's namespace matching a non-empty selector, with an IP, not in a
 * terminal phase (pkg/controller/endpointslice, podEndpointsChanged/shouldPodBeInEndpoints).
 * Policy questions go through the NetworkPolicy class index (netpol), so the
 * cost grows with pod classes, not pods times policies.
 */
import type { KObject } from "../parse/manifests.ts";
import { isObj, obj, str } from "../parse/values.ts";
import type { Model, Node, Pod, Protocol } from "../model/types.ts";
import type { Endpoint, EndpointSlice } from "../model/services.ts";
import type { PathSegment } from "./errors.ts";
import { warning, type Warning } from "./findings.ts";
import {
  ANNOTATION_TOPOLOGY_HINTS,
  ANNOTATION_TOPOLOGY_MODE,
  externallyAccessible,
  parseIPSloppy,
  type Svc,
} from "./service.ts";
import { staticBandIPs, staticBandPorts, type Allocations } from "./serviceCreate.ts";
import { cidrHas } from "../model/ip.ts";
import {
  backendsOf,
  context,
  dedupeWorkloads,
  labelsOf,
  list,
  nearestMatches,
  nearestWords,
  ZONE,
  type Ctx,
} from "./lintContext.ts";
import {
  lintDNS,
  lintMasquerade,
  lintPeersSelectNothing,
  lintPolicySelectsNothing,
  selectedClasses,
} from "./lintPolicy.ts";

/** The Service's endpoints as kube-proxy sees them: its EndpointSlices in the model (given, derived or mirrored), one per backend. */
function endpointsOf(ctx: Ctx, s: Svc): { endpoints: Endpoint[]; slices: EndpointSlice[] } {
  const slices = ctx.slicesByService.get(`${s.namespace}/${s.name}`) ?? [];
  const seen = new Set<string>();
  const endpoints: Endpoint[] = [];
  for (const sl of slices) {
    for (const e of sl.endpoints) {
      const k = e.pod ?? e.addresses[0] ?? "";
      if (seen.has(k)) continue;
      seen.add(k);
      endpoints.push(e);
    }
  }
  return { endpoints, slices };
}

/** KTL602, KTL603 */
function lintSelector(ctx: Ctx, o: KObject, s: Svc, out: Warning[]): void {
  const sel = s.selector;
  if (!sel || Object.keys(sel).length === 0) return;
  const backends = backendsOf(ctx, s);
  if (backends.length === 0) {
    const inNs = ctx.podsByNs.get(s.namespace) ?? [];
    const pairs = Object.entries(sel);
    // Pods the selector does match, but that have no address (Pending: no node can run them) or have ended:
    // the EndpointSlice controller lists none of them, and the selector is not what to fix.
    const unaddressed = inNs.filter((p) => pairs.every(([k, v]) => p.labels[k] === v));
    if (unaddressed.length) {
      const why = (p: Pod) =>
        p.phase === "Succeeded" || p.phase === "Failed"
          ? `it has ended (${p.phase})`
          : "it has no IP (Pending)";
      out.push(
        warning(
          o,
          ["spec", "selector"],
          "KTL602",
          `the selector ${pairs.map(([k, v]) => `${k}=${v}`).join(",")} matches ${list(
            unaddressed.map((p) => p.key),
          )}, but ${unaddressed.length === 1 ? "that pod is not" : "none of those pods is"} an endpoint: ${why(unaddressed[0]!)}; the Service has no endpoints and connections to it fail`,
          "See why the pods are not running (a nodeSelector, affinity or taint no node satisfies is reported on the pod as KTL203).",
          "EndpointSlice controller (pkg/controller/endpointslice: only pods with an IP, not terminated)",
        ),
      );
      return;
    }
    const near = dedupeWorkloads(
      nearestMatches({ matchLabels: sel, matchExpressions: [], key: "" }, inNs, (p) => p.labels),
    );
    const hint = near.length
      ? `${nearestWords(near, (pod) => `pod ${pod.key}`)} Fix ${near[0]!.fails.length === 1 ? "the one label that differs" : "the labels that differ"}, in the selector or in the pod template.`
      : inNs.length
        ? `Use labels the backend pods carry, e.g. ${labelsOf(inNs[0]!)}.`
        : `Namespace ${s.namespace} has no pods: deploy the backends there or move the Service.`;
    out.push(
      warning(
        o,
        ["spec", "selector"],
        "KTL602",
        `the selector ${Object.entries(sel)
          .map(([k, v]) => `${k}=${v}`)
          .join(
            ",",
          )} matches no pod in namespace ${s.namespace}: the Service has no endpoints and connections to it fail`,
        hint,
        "EndpointSlice controller (pkg/controller/endpointslice)",
      ),
    );
    return;
  }
  s.ports.forEach((sp, i) => {
    if (typeof sp.targetPort !== "string") return;
    const name = sp.targetPort;
    const proto = sp.protocol as Protocol;
    const having = backends.filter((p) => p.ports.some((c) => c.name === name && c.protocol === proto));
    if (having.length === backends.length) return;
    const lacking = backends.filter((p) => !having.includes(p)).map((p) => p.key);
    const names = [
      ...new Set(
        backends.flatMap((p) => p.ports.filter((c) => c.protocol === proto && c.name).map((c) => c.name!)),
      ),
    ];
    const hint = names.length
      ? `Use a port name the pods declare (${list(names)}), or add \`name: ${name}\` to their containerPort.`
      : `Name the container port \`${name}\` (containers[].ports[].name) or use its number.`;
    const detail =
      having.length === 0
        ? `no selected pod has a ${proto} container port named "${name}": this port has no endpoints`
        : `${lacking.length} of ${backends.length} selected pods (${list(lacking)}) have no ${proto} container port named "${name}": they are left out of this port's endpoints`;
    out.push(
      warning(
        o,
        ["spec", "ports", i, "targetPort"],
        "KTL603",
        detail,
        hint,
        "EndpointSlice controller (podutil.FindPort)",
      ),
    );
  });
}

/** KTL604, KTL605, KTL608 */
function lintEndpoints(ctx: Ctx, o: KObject, s: Svc, out: Warning[]): void {
  const { model } = ctx;
  const { endpoints, slices } = endpointsOf(ctx, s);
  // Local traffic policies use a node's ready endpoints, else its serving terminating ones (KEP-1669).
  const servingNodes = new Set(
    endpoints
      .filter((e) => e.serving)
      .map((e) => e.nodeName)
      .filter((n): n is string => !!n),
  );
  const ready = endpoints.filter((e) => e.ready && !e.terminating);
  const perNode = new Map<string, number>();
  for (const e of ready) if (e.nodeName) perNode.set(e.nodeName, (perNode.get(e.nodeName) ?? 0) + 1);
  if (
    (s.type === "NodePort" || s.type === "LoadBalancer") &&
    s.externalTrafficPolicy === "Local" &&
    ready.length > 0
  ) {
    const without = model.nodes.filter((n) => !servingNodes.has(n.name)).map((n) => n.name);
    const counts = [...perNode.values()];
    const uneven = counts.length > 0 && Math.max(...counts) !== Math.min(...counts);
    if (without.length || uneven) {
      const parts: string[] = [];
      if (without.length)
        parts.push(
          `${without.length} of ${model.nodes.length} nodes (${list(without)}) have no ready backend: external traffic that reaches them is dropped${s.type === "LoadBalancer" ? " (the load balancer's health check on healthCheckNodePort takes them out)" : ""}`,
        );
      if (uneven)
        parts.push(
          `backends are spread unevenly (${[...perNode].map(([n, c]) => `${n}: ${c}`).join(", ")}): each node gets an equal share, so pods on emptier nodes get more`,
        );
      out.push(
        warning(
          o,
          ["spec", "externalTrafficPolicy"],
          "KTL604",
          `externalTrafficPolicy Local: ${parts.join("; ")}`,
          "Spread the backends evenly over the nodes (topologySpreadConstraints or a DaemonSet), or use externalTrafficPolicy: Cluster when the client IP need not be kept.",
          "kube-proxy externalTrafficPolicy Local (pkg/proxy/topology.go CategorizeEndpoints)",
        ),
      );
    }
  }
  if (s.internalTrafficPolicy === "Local" && s.type !== "ExternalName") {
    const clientNodes = new Map<string, Pod[]>();
    for (const [node, pods] of ctx.podsByNode) {
      if (servingNodes.has(node)) continue;
      const running = pods.filter((p) => p.phase !== "Succeeded" && p.phase !== "Failed");
      if (running.length) clientNodes.set(node, running);
    }
    if (clientNodes.size) {
      const nodes = [...clientNodes.keys()];
      const sample = [...clientNodes.values()].flat().map((p) => p.key);
      out.push(
        warning(
          o,
          ["spec", "internalTrafficPolicy"],
          "KTL605",
          `internalTrafficPolicy Local: pods on ${list(nodes)} (${list(sample)}) have no backend on their node, so kube-proxy drops their connections to this Service`,
          "Run a backend on every node that has clients (a DaemonSet), or use internalTrafficPolicy: Cluster.",
          "kube-proxy internalTrafficPolicy Local (pkg/proxy/topology.go CategorizeEndpoints)",
        ),
      );
    }
  }
  lintTopology(model, o, s, ready, slices, out);
}

/** KTL608: hints need zones on nodes and endpoints (pkg/proxy/topology.go, pkg/controller/endpointslice/topologycache). */
function lintTopology(
  model: Model,
  o: KObject,
  s: Svc,
  ready: Endpoint[],
  slices: EndpointSlice[],
  out: Warning[],
): void {
  const mode = s.annotations[ANNOTATION_TOPOLOGY_MODE] ?? s.annotations[ANNOTATION_TOPOLOGY_HINTS];
  const auto = mode !== undefined && mode.toLowerCase() === "auto";
  const td = s.trafficDistribution;
  const zonal = td === "PreferClose" || td === "PreferSameZone";
  if (!auto && !zonal) return;
  const path: PathSegment[] = zonal
    ? ["spec", "trafficDistribution"]
    : [
        "metadata",
        "annotations",
        {
          key:
            s.annotations[ANNOTATION_TOPOLOGY_MODE] !== undefined
              ? ANNOTATION_TOPOLOGY_MODE
              : ANNOTATION_TOPOLOGY_HINTS,
        },
      ];
  const what = zonal ? `trafficDistribution ${td}` : `topology-aware routing (topology-mode ${mode})`;
  const up = "pkg/proxy/topology.go CategorizeEndpoints; pkg/controller/endpointslice/topologycache";
  const noZone = model.nodes.filter((n: Node) => !n.zone).map((n) => n.name);
  if (noZone.length) {
    out.push(
      warning(
        o,
        path,
        "KTL608",
        `${what} cannot apply: nodes ${list(noZone)} have no ${ZONE} label, so endpoints get no zone hints and kube-proxy spreads traffic cluster-wide`,
        `Label every node with ${ZONE}.`,
        up,
      ),
    );
    return;
  }
  if (s.internalTrafficPolicy === "Local" || (s.externalTrafficPolicy === "Local" && externallyAccessible(s)))
    return;
  const unhinted = slices.map((sl) => sl.hintsNote).find((n) => n?.includes("set no hints"));
  if (auto && unhinted) {
    out.push(
      warning(
        o,
        path,
        "KTL608",
        `${what} cannot apply: ${unhinted.replace(/^topology-mode Auto: /, "")}`,
        "Run enough backends in every zone (roughly in proportion to the zones' CPU), or remove the annotation.",
        up,
      ),
    );
    return;
  }
  const zones = new Set(model.nodes.map((n) => n.zone!));
  const epZones = new Set(ready.map((e) => e.zone).filter((z): z is string => !!z));
  const missing = [...zones].filter((z) => !epZones.has(z));
  if (ready.length > 0 && missing.length) {
    out.push(
      warning(
        o,
        path,
        "KTL608",
        `${what}: zones ${list(missing)} have no ready endpoint, so clients there are served from other zones`,
        "Run backends in every zone where clients are (topologySpreadConstraints on the zone label).",
        up,
      ),
    );
  }
}

/** KTL609 */
function lintBands(o: KObject, s: Svc, al: Allocations, out: Warning[]): void {
  const raw = obj(o.raw.spec);
  if (!raw) return;
  const written = str(raw.clusterIP) ?? "";
  const explicitIPs = written && written !== "None" ? [written] : [];
  for (const ip of explicitIPs) {
    const p = parseIPSloppy(ip);
    const r = p && al.ranges.find((x) => cidrHas(x.cidr, p));
    if (!p || !r) continue;
    const band = staticBandIPs(r.cidr);
    if (band.offset > 0 && p.value >= band.first + BigInt(band.offset)) {
      out.push(
        warning(
          o,
          ["spec", "clusterIP"],
          "KTL609",
          `clusterIP ${ip} is in the dynamic band of ${r.text}: the allocator hands these out to Services without a clusterIP, so creating this Service can fail with "provided IP is already allocated"`,
          `Pick an address among the first ${band.offset} of ${r.text} (the static band, KEP-3070).`,
          "ipallocator calculateRangeOffset (KEP-3070)",
        ),
      );
    }
  }
  const base = al.nodePortRange[0];
  const offset = staticBandPorts(al.nodePortRange);
  if (offset === 0 || !isObj(raw)) return;
  const inDynamicBand = (port: number) => port >= base + offset && port <= al.nodePortRange[1];
  if (s.healthCheckNodePort !== 0 && inDynamicBand(s.healthCheckNodePort)) {
    out.push(
      warning(
        o,
        ["spec", "healthCheckNodePort"],
        "KTL609",
        `healthCheckNodePort ${s.healthCheckNodePort} is in the dynamic band of ${base}-${al.nodePortRange[1]}: the allocator hands these out to Services without a nodePort, so creating this Service can fail with "provided port is already allocated"`,
        `Pick a port from ${base} to ${base + offset - 1} (the static band, KEP-3668), or leave it out to have one allocated.`,
        "portallocator calculateRangeOffset (KEP-3668)",
      ),
    );
  }
  s.ports.forEach((sp, i) => {
    if (sp.dynamicNodePort || sp.nodePort === 0 || !inDynamicBand(sp.nodePort)) return;
    out.push(
      warning(
        o,
        ["spec", "ports", i, "nodePort"],
        "KTL609",
        `nodePort ${sp.nodePort} is in the dynamic band of ${base}-${al.nodePortRange[1]}: the allocator hands these out to Services without a nodePort, so creating this Service can fail with "provided port is already allocated"`,
        `Pick a port from ${base} to ${base + offset - 1} (the static band, KEP-3668).`,
        "portallocator calculateRangeOffset (KEP-3668)",
      ),
    );
  });
}

export function lintModel(model: Model, services: Map<KObject, Svc>, al: Allocations): Warning[] {
  const out: Warning[] = [];
  const ctx = context(model);
  const selected = selectedClasses(ctx);
  lintPolicySelectsNothing(ctx, selected, out);
  lintPeersSelectNothing(ctx, out);
  for (const [o, s] of services) {
    if (s.type === "ExternalName") continue;
    lintSelector(ctx, o, s, out);
    lintEndpoints(ctx, o, s, out);
    lintBands(o, s, al, out);
  }
  lintDNS(ctx, out);
  lintMasquerade(ctx, services, out);
  return out;
}
