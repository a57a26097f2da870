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
import { isCniObject } from "../cni/index.ts";
import type { KObject } from "../parse/manifests.ts";
import { isObj, obj, str } from "../parse/values.ts";
import type { Model, Node, Pod, Protocol } from "../model/types.ts";
import { failedRequirements, formatSelector, matchesSelector, type LabelSelector } from "../model/labels.ts";
import { buildPolicyIndex, peerMatches, portMatches, type PolicyIndex } from "../netpol/index.ts";
import type { NetworkPolicy, PolicyPort } from "../model/networkpolicy.ts";
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
import { cidrHas, parseCIDRSloppy } from "../model/ip.ts";

const ZONE = "topology.kubernetes.io/zone";

function list(items: string[], max = 3): string {
  const shown = items.slice(0, max).join(", ");
  return items.length > max ? `${shown} and ${items.length - max} more` : shown;
}

interface Ctx {
  model: Model;
  index: PolicyIndex;
  podsByNs: Map<string, Pod[]>;
  podsByNode: Map<string, Pod[]>;
  policyObjects: Map<string, KObject>;
  slicesByService: Map<string, EndpointSlice[]>;
  /** Every pod IP, sorted per family, for "does this CIDR hold a pod" questions. */
  podIPs: Record<4 | 6, bigint[]>;
}

function group<T>(items: readonly T[], key: (t: T) => string | undefined): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const it of items) {
    const k = key(it);
    if (k === undefined) continue;
    const l = m.get(k);
    if (l) l.push(it);
    else m.set(k, [it]);
  }
  return m;
}

function context(model: Model): Ctx {
  const podIPs: Record<4 | 6, bigint[]> = { 4: [], 6: [] };
  for (const p of model.pods) {
    for (const ip of p.ips) {
      const x = parseIPSloppy(ip);
      if (x) podIPs[x.family].push(x.value);
    }
  }
  for (const f of [4, 6] as const) podIPs[f].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const policyObjects = new Map<string, KObject>();
  for (const o of model.objects)
    if (o.kind === "NetworkPolicy" && !isCniObject(o))
      policyObjects.set(`${o.namespace ?? "default"}/${o.name}`, o);
  return {
    model,
    index: buildPolicyIndex(model),
    podsByNs: group(model.pods, (p) => p.namespace),
    podsByNode: group(model.pods, (p) => p.nodeName),
    policyObjects,
    slicesByService: group(model.endpointSlices, (sl) => `${sl.namespace}/${sl.serviceName}`),
    podIPs,
  };
}

/** Does any pod IP fall in [first, last]? */
function holdsPodIP(ctx: Ctx, family: 4 | 6, first: bigint, last: bigint): boolean {
  const a = ctx.podIPs[family];
  let lo = 0,
    hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid]! < first) lo = mid + 1;
    else hi = mid;
  }
  return lo < a.length && a[lo]! <= last;
}

/** shouldPodBeInEndpoints: not terminal, has an IP. */
function backendsOf(ctx: Ctx, s: Svc): Pod[] {
  const sel = s.selector;
  if (!sel || Object.keys(sel).length === 0) return [];
  const pairs = Object.entries(sel);
  return (ctx.podsByNs.get(s.namespace) ?? []).filter(
    (p) =>
      p.ips.length > 0 &&
      p.phase !== "Succeeded" &&
      p.phase !== "Failed" &&
      pairs.every(([k, v]) => p.labels[k] === v),
  );
}

/** Policies that select each pod class, by direction, from the index. */
function selectedClasses(ctx: Ctx): Map<NetworkPolicy, number[]> {
  const m = new Map<NetworkPolicy, number[]>();
  const add = (p: NetworkPolicy, c: number) => {
    const l = m.get(p);
    if (!l) m.set(p, [c]);
    else if (l[l.length - 1] !== c) l.push(c);
  };
  ctx.index.classes.forEach((c) => {
    for (const p of ctx.index.ingressPolicies[c.index]!) add(p, c.index);
    for (const p of ctx.index.egressPolicies[c.index]!) add(p, c.index);
  });
  return m;
}

/** KTL601 */
function lintPolicySelectsNothing(ctx: Ctx, selected: Map<NetworkPolicy, number[]>, out: Warning[]): void {
  for (const p of ctx.model.policies) {
    const o = ctx.policyObjects.get(p.key);
    if (!o || p.podSelector.invalid || selected.has(p)) continue;
    const all = ctx.podsByNs.get(p.namespace) ?? [];
    const inNs = all.filter((pod) => !pod.hostNetwork);
    // The policy does select host-network pods by their labels; the CNI is what leaves them out
    // (kubernetes.io, Network Policies, "NetworkPolicy and hostNetwork pods").
    const host = all.filter((pod) => pod.hostNetwork && matchesSelector(p.podSelector, pod.labels));
    if (host.length) {
      const names =
        host
          .slice(0, 3)
          .map((pod) => pod.key)
          .join(", ") + (host.length > 3 ? ", ..." : "");
      out.push(
        warning(
          o,
          ["spec", "podSelector"],
          "KTL601",
          `this policy selects only host-network pods (${names}): the network plugin cannot tell their traffic from their node's and applies no NetworkPolicy to them (the common implementation; Kubernetes leaves it undefined), so it isolates nothing`,
          "Run the pod on the pod network (hostNetwork: false) to protect it with NetworkPolicy, or use the CNI's host policy (Calico: a HostEndpoint and a GlobalNetworkPolicy; Cilium: the host firewall and a CiliumClusterwideNetworkPolicy with nodeSelector).",
          "NetworkPolicy and hostNetwork pods (kubernetes.io, Network Policies)",
        ),
      );
      continue;
    }
    const why =
      inNs.length === 0
        ? all.length
          ? `namespace ${p.namespace} has no pods on the pod network (only ${all.length} host-network pod(s), which its selector does not match either)`
          : `namespace ${p.namespace} has no pods`
        : `none of the ${inNs.length} pods of namespace ${p.namespace} has its labels`;
    const near = dedupeWorkloads(nearestMatches(p.podSelector, inNs, (pod) => pod.labels));
    const hint = near.length
      ? `${nearestWords(near, (pod) => `pod ${pod.key}`)} Match the labels of the pods to protect.`
      : inNs.length
        ? `Match the labels of the pods to protect, e.g. ${labelsOf(inNs[0]!)}.`
        : `Create the policy in the namespace of the pods it should protect (metadata.namespace).`;
    out.push(
      warning(
        o,
        ["spec", "podSelector"],
        "KTL601",
        `this policy selects no pod (${why}), so it isolates nothing and allows nothing`,
        hint,
        "NetworkPolicy spec.podSelector semantics",
      ),
    );
  }
}

/**
 * The objects closest to matching a selector: fewest failed requirements, a
 * requirement on a label the object has counting less than one on a label it
 * lacks; ties kept in input order. Empty when some candidate matches, when
 * there is none, or when the selector is invalid.
 */
export function nearestMatches<T>(
  sel: LabelSelector,
  candidates: readonly T[],
  labels: (t: T) => Record<string, string>,
): { item: T; fails: string[] }[] {
  if (sel.invalid) return [];
  let best: { item: T; fails: string[] }[] = [];
  let bestScore = Infinity;
  for (const c of candidates) {
    const fails = failedRequirements(sel, labels(c));
    if (fails.length === 0) return [];
    // A label with the asked value under another key is nearer than a different value, which is nearer than nothing.
    const score = fails.reduce(
      (n, f) => n + (f.includes("but has") || f.includes("(and") ? 1 : f.includes("it has no label") ? 3 : 2),
      0,
    );
    if (score < bestScore) {
      bestScore = score;
      best = [{ item: c, fails }];
    } else if (score === bestScore) best.push({ item: c, fails });
  }
  return best;
}

/** "namespace web: the selector asks for `team=web`; it has `team=storefront`" for up to three nearest objects. */
function nearestWords<T>(near: { item: T; fails: string[] }[], name: (t: T) => string): string {
  const shown = near
    .slice(0, 3)
    .map((n) => `${name(n.item)}: the selector asks for ${n.fails.join(" and ")}`);
  return `The nearest ${near.length === 1 ? "is" : "are"} ${shown.join("; ")}${near.length > 3 ? `; and ${near.length - 3} more` : ""}.`;
}

/** One pod per workload: replicas share their labels, so naming each adds nothing. */
function dedupeWorkloads(near: { item: Pod; fails: string[] }[]): { item: Pod; fails: string[] }[] {
  const seen = new Set<string>();
  return near.filter((n) => {
    const k = `${n.item.workload.kind}/${n.item.workload.namespace}/${n.item.workload.name}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** KTL610: a peer of a policy rule whose selectors select no namespace or no pod of the input. */
function lintPeersSelectNothing(ctx: Ctx, out: Warning[]): void {
  const namespaces = [...ctx.model.namespaces.values()];
  const up = "NetworkPolicyPeer semantics (namespaceSelector AND podSelector)";
  for (const p of ctx.model.policies) {
    const o = ctx.policyObjects.get(p.key);
    if (!o) continue;
    for (const [dir, rules] of [
      ["ingress", p.ingress],
      ["egress", p.egress],
    ] as const) {
      const field = dir === "ingress" ? "from" : "to";
      for (const rule of rules) {
        for (const peer of rule.peers ?? []) {
          if (peer.ipBlock) continue;
          const at: PathSegment[] = ["spec", dir, rule.index, field, peer.index];
          const where = `rule ${rule.index + 1} of ${dir}`;
          let nsList: string[];
          if (peer.namespaceSelector) {
            const sel = peer.namespaceSelector;
            if (sel.invalid) continue;
            nsList = namespaces.filter((n) => matchesSelector(sel, n.labels)).map((n) => n.name);
            if (nsList.length === 0) {
              // Namespaces another peer of the rule already selects are not the ones this peer was meant for.
              const others = new Set(
                namespaces
                  .filter((n) =>
                    (rule.peers ?? []).some(
                      (q) =>
                        q !== peer &&
                        !q.ipBlock &&
                        q.namespaceSelector &&
                        matchesSelector(q.namespaceSelector, n.labels),
                    ),
                  )
                  .map((n) => n.name),
              );
              const fresh = namespaces.filter((n) => !others.has(n.name));
              const near = nearestMatches(sel, fresh.length ? fresh : namespaces, (n) => n.labels);
              const detail = `the namespaceSelector ${formatSelector(sel)} of ${where} matches no namespace in the input, so this peer allows nothing`;
              const hint = near.length
                ? `${nearestWords(near, (n) => `namespace ${n.name}`)} Fix the selector or label the namespace.`
                : `Define the Namespace with these labels, or select it by \`kubernetes.io/metadata.name\`.`;
              out.push(warning(o, [...at, "namespaceSelector"], "KTL610", detail, hint, up));
              continue;
            }
          } else nsList = [p.namespace];
          const sel = peer.podSelector;
          if (!sel || sel.invalid) continue;
          const pods = nsList.flatMap((n) => ctx.podsByNs.get(n) ?? []);
          if (pods.some((pod) => matchesSelector(sel, pod.labels))) continue;
          const nsWords = peer.namespaceSelector
            ? `the ${nsList.length} selected namespace(s) (${list(nsList)})`
            : `namespace ${p.namespace}`;
          const near = nearestMatches(sel, pods, (pod) => pod.labels);
          const detail = `the podSelector ${formatSelector(sel)} of ${where} matches no pod in ${nsWords}, so this peer allows nothing`;
          const hint = near.length
            ? `${nearestWords(dedupeWorkloads(near), (pod) => `pod ${pod.key}`)} Fix the selector or the pod's labels.`
            : peer.namespaceSelector
              ? `No pod runs in ${list(nsList)}: select the namespace of the pods this rule is for.`
              : `No pod runs in namespace ${p.namespace}: a podSelector without a namespaceSelector only selects pods of the policy's own namespace; add a namespaceSelector.`;
          out.push(warning(o, [...at, "podSelector"], "KTL610", detail, hint, up));
        }
      }
    }
  }
}

function labelsOf(p: Pod): string {
  const l = Object.entries(p.labels);
  return l.length ? `{${l.map(([k, v]) => `${k}: ${v}`).join(", ")}}` : "(the pod has no labels)";
}

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

function allowsUDP53(p: PolicyPort): boolean {
  if (p.protocol !== "UDP") return false;
  if (p.port === undefined) return true;
  if (typeof p.port === "number")
    return p.endPort !== undefined ? 53 >= p.port && 53 <= p.endPort : p.port === 53;
  return true;
}

/** KTL606 */
function lintDNS(ctx: Ctx, out: Warning[]): void {
  const { model, index } = ctx;
  const dnsPods = (ctx.podsByNs.get("kube-system") ?? []).filter(
    (p) => (p.labels["k8s-app"] === "kube-dns" || p.labels["k8s-app"] === "coredns") && p.ips.length,
  );
  // Per class isolated for egress: does some rule of its policies allow UDP/53 (to a DNS pod when the input has them)?
  const lacks = index.classes.map((c) => {
    const policies = index.egressPolicies[c.index]!;
    if (policies.length === 0) return false;
    return !policies.some((p) =>
      p.egress.some((r) => {
        if (dnsPods.length === 0) return r.ports === null || r.ports.some(allowsUDP53);
        return dnsPods.some(
          (d) =>
            (r.ports === null || r.ports.some((port) => portMatches(port, 53, "UDP", d))) &&
            (r.peers === null ||
              r.peers.some((peer) => peerMatches(model, p, peer, { ip: d.ips[0]!, pod: d }))),
        );
      }),
    );
  });
  const lackingByPolicy = new Map<NetworkPolicy, number[]>();
  index.classes.forEach((c) => {
    if (!lacks[c.index]) return;
    for (const p of index.egressPolicies[c.index]!) {
      const l = lackingByPolicy.get(p);
      if (l) l.push(c.index);
      else lackingByPolicy.set(p, [c.index]);
    }
  });
  for (const p of model.policies) {
    if (!p.egressIsolation) continue;
    const o = ctx.policyObjects.get(p.key);
    if (!o) continue;
    const lacking = (lackingByPolicy.get(p) ?? []).flatMap((c) => index.classes[c]!.pods);
    if (lacking.length === 0) continue;
    const spec = obj(o.raw.spec) ?? {};
    const at =
      "egress" in spec ? ["spec", "egress"] : "policyTypes" in spec ? ["spec", "policyTypes"] : ["spec"];
    out.push(
      warning(
        o,
        at,
        "KTL606",
        `egress is isolated for ${lacking.length} pod(s) (${list(lacking.map((x) => x.key))}) and no egress rule allows DNS (UDP/53): name lookups fail, so connections by name fail even where allowed`,
        "Add an egress rule: `- to: [{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: kube-system}}, podSelector: {matchLabels: {k8s-app: kube-dns}}}]` with `ports: [{protocol: UDP, port: 53}, {protocol: TCP, port: 53}]`.",
        "NetworkPolicy egress isolation (policyTypes: [Egress])",
        at,
      ),
    );
  }
}

/** KTL607 */
function lintMasquerade(ctx: Ctx, services: Map<KObject, Svc>, out: Warning[]): void {
  const { model, index } = ctx;
  // Policies isolating (for ingress) the backends of Services reached from outside through kube-proxy's SNAT.
  const via = new Map<NetworkPolicy, Set<string>>();
  for (const s of services.values()) {
    if (!externallyAccessible(s) || s.externalTrafficPolicy === "Local") continue;
    const classes = new Set(backendsOf(ctx, s).map((pod) => index.classOf[pod.index]!));
    for (const c of classes) {
      for (const p of index.ingressPolicies[c]!) {
        const l = via.get(p) ?? new Set<string>();
        l.add(`${s.namespace}/${s.name}`);
        via.set(p, l);
      }
    }
  }
  if (!via.size) return;
  const nodeIPs = model.nodes
    .flatMap((n) => n.addresses.map((a) => parseIPSloppy(a.address)))
    .filter((x) => x !== undefined);
  for (const [p, svcNames] of via) {
    const o = ctx.policyObjects.get(p.key);
    if (!o) continue;
    const names = [...svcNames];
    for (const rule of p.ingress) {
      for (const peer of rule.peers ?? []) {
        const b = peer.ipBlock;
        if (!b) continue;
        const c = parseCIDRSloppy(b.cidr);
        if (!c || nodeIPs.some((ip) => cidrHas(c, ip)) || holdsPodIP(ctx, c.family, c.first, c.last))
          continue;
        out.push(
          warning(
            o,
            ["spec", "ingress", rule.index, "from", peer.index, "ipBlock"],
            "KTL607",
            `ipBlock ${b.cidr} will not see external clients of ${list(names)}: with externalTrafficPolicy Cluster kube-proxy masquerades them to a node IP, so this rule never matches their traffic`,
            `Set externalTrafficPolicy: Local on ${list(names)} to keep client source IPs (then clients must reach nodes with a backend), or allow the node addresses instead.`,
            "kube-proxy masquerade for externalTrafficPolicy Cluster (pkg/proxy/iptables/proxier.go KUBE-MARK-MASQ)",
          ),
        );
      }
    }
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
