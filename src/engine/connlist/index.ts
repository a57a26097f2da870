/**
 * Workload-level connectivity as np-guard netpol-analyzer lists it
 * (`netpol-analyzer list`): for every ordered pair of distinct nodes
 * (workloads, IP ranges, the ingress controller) the set of permitted
 * (protocol, port) over TCP, UDP and SCTP.
 *
 * This is a VIEW of the cluster with netpol-analyzer's conventions, not a
 * change of the engine's semantics (`reach` and `trace` keep upstream's):
 * - one node per workload (model.workloads), labels and ports of its pod
 *   template; pods of one workload never form a pair with each other;
 * - pods have no IPs, so ipBlock never matches a pod, and selectors never
 *   match an IP node;
 * - hostNetwork is ignored: such pods are under NetworkPolicy like any other;
 * - a line from an IP node counts only the destination's ingress, a line to
 *   an IP node only the source's egress.
 *
 * Verdicts come from the one decider (decide/) over this view, so the
 * profile, the CNI dialects and the tiers apply as in `reach` and `trace`:
 * its class matrix for workload pairs, one side's ingress or egress for IP
 * nodes and the ingress controller. A verdict can change only at a bound
 * some rule names (NetworkPolicy, a tier, a CNI dialect), so each protocol
 * is probed once per interval between bounds.
 */
import type { Diagnostic } from "../parse/diagnostics.ts";
import type { Model, Pod, Protocol, Workload, WorkloadKey, WorkloadRef } from "../model/types.ts";
import { PROTOCOLS } from "../model/types.ts";
import { asPodKey } from "../model/ids.ts";
import type { NetworkPolicy } from "../model/networkpolicy.ts";
import { formatSelector, matchesSelector, type LabelSelector } from "../model/labels.ts";
import { deciderOf, type Decider } from "../decide/index.ts";
import { cniNetworkRanges, cniProbeCuts } from "./cni.ts";
import type { ClusterPolicy } from "../tiers/types.ts";
import { backendPodPorts, backendService, parseIngressBackends, type BackendService } from "./ingress.ts";
import {
  blockRanges,
  ipRangeNodes,
  type AddressRange,
  type IPRangeNode,
  type IPRangeNodes,
} from "./ipnodes.ts";
import { hasCniPolicies, type CniPolicies } from "../cni/index.ts";
import {
  addRange,
  emptyPortSet,
  formatPortSet,
  isEmptyPortSet,
  MAX_PORT,
  MIN_PORT,
  type PortSet,
} from "./ports.ts";

export {
  formatPortSet,
  parsePortSet,
  normalizeRanges,
  intersectPortSets,
  subtractPortSets,
  isEmptyPortSet,
  emptyPortSet,
  fullPortSet,
} from "./ports.ts";
export type { PortSet, PortRange } from "./ports.ts";
export { blockRanges, partitionIPv4, ipRangeNodes } from "./ipnodes.ts";
export type { IPRangeNode, IPRangeNodes } from "./ipnodes.ts";

/** The ingress controller's name as a source; it is never a destination. */
export const INGRESS_CONTROLLER = "{ingress-controller}";
/** netpol-analyzer's stand-in for the ingress controller: a pod without labels in this namespace. */
export const INGRESS_CONTROLLER_NAMESPACE = "ingress-controller-ns";

export type ConnNodeKind = "workload" | "external" | "ingress-controller";

export interface ConnNode {
  /** As printed: `ns/name[Kind]`, `a.b.c.d-e.f.g.h[External]` or `{ingress-controller}`. */
  name: string;
  kind: ConnNodeKind;
  namespace?: string;
  workload?: WorkloadRef;
  /** For workloads: the keys of its pods in the model (none when replicas is 0), for a pod/workload toggle. */
  pods?: string[];
  /** For external nodes: the inclusive IPv4 range, dotted. */
  range?: [string, string];
}

export interface ConnLine {
  src: string;
  dst: string;
  conns: PortSet;
  /** `conns` in netpol-analyzer's grammar. */
  conn: string;
}

export interface ConnList {
  nodes: ConnNode[];
  /** Sorted by source, then destination, byte by byte; only pairs with a permitted connection. */
  lines: ConnLine[];
  diagnostics: Diagnostic[];
}

export const externalName = (n: IPRangeNode) => `${n.name}[External]`;

/** netpol-analyzer's name of a workload: "namespace/name[Kind]". */
export const connlistName = (w: WorkloadRef): string => `${w.namespace}/${w.name}[${w.kind}]`;

const byName = new WeakMap<Model, Workload[]>();

/** The model's workloads in netpol-analyzer's order: by its name of them. */
function workloadsOf(model: Model): Workload[] {
  let list = byName.get(model);
  if (!list) {
    const named = model.workloads.map((w) => [connlistName(w), w] as const);
    named.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    byName.set(model, (list = named.map(([, w]) => w)));
  }
  return list;
}

/** A pod standing for a workload: its template's labels and ports, no IP, not host-network. */
function representative(w: Workload, index: number): Pod {
  return {
    index,
    namespace: w.namespace,
    name: w.name,
    // netpol-analyzer names a workload's stand-in by its own spelling, not NAMESPACE/NAME.
    key: asPodKey(connlistName(w)),
    labels: w.labels,
    annotations: {},
    nodeName: undefined,
    ips: [],
    ipsSynthesized: false,
    hostNetwork: false,
    serviceAccount: w.serviceAccount,
    phase: "Running",
    ready: true,
    terminating: false,
    ports: w.ports,
    workload: { kind: w.kind, namespace: w.namespace, name: w.name },
    generated: true,
    source: w.source,
    raw: {},
  };
}

/** netpol-analyzer's ingress controller: a pod without labels in a namespace of its own. */
export function standInController(index: number): Pod {
  const w: Workload = {
    kind: "Pod",
    namespace: INGRESS_CONTROLLER_NAMESPACE,
    name: "ingress-controller",
    key: INGRESS_CONTROLLER as WorkloadKey, // netpol-analyzer's own name for its stand-in
    labels: {},
    ports: [],
    hostNetwork: false,
    serviceAccount: "default",
    pods: [],
    given: false,
    source: { kind: "Pod", name: "ingress-controller", file: "", doc: 0, line: 0 },
  };
  return representative(w, index);
}

/**
 * The model as netpol-analyzer sees it: one IP-less, pod-network pod per
 * workload; the tiers' `nodes` peers match nothing (the analyzer ignores them).
 */
export function connlistView(model: Model): { view: Model; reprs: Pod[] } {
  const reprs = workloadsOf(model).map(representative);
  const withoutNodes = (rules: ClusterPolicy["egress"]) =>
    rules.map((r) => ({ ...r, peers: r.peers.filter((p) => !p.nodes) }));
  const clusterPolicies = model.clusterPolicies.map((p) => ({ ...p, egress: withoutNodes(p.egress) }));
  const view: Model = {
    ...model,
    pods: reprs,
    podsByKey: new Map(reprs.map((p) => [p.key, p])),
    podsByIP: new Map(),
    clusterPolicies,
  };
  return { view, reprs };
}

/** probeStarts' cuts for the cluster tiers' ports: numbers, ranges, and named ports as the pods resolve them (with the container port's protocol). */
function tierProbeCuts(
  policies: readonly ClusterPolicy[],
  pods: readonly Pod[],
  starts: Record<Protocol, number[]>,
): Record<Protocol, number[]> {
  const cuts: Record<Protocol, Set<number>> = {
    TCP: new Set(starts.TCP),
    UDP: new Set(starts.UDP),
    SCTP: new Set(starts.SCTP),
  };
  for (const policy of policies) {
    for (const rule of [...policy.ingress, ...policy.egress]) {
      for (const p of rule.ports ?? []) {
        if (p.name !== undefined) {
          for (const pod of pods)
            for (const cp of pod.ports)
              if (cp.name === p.name) {
                cuts[cp.protocol].add(cp.containerPort);
                cuts[cp.protocol].add(cp.containerPort + 1);
              }
        } else if (p.protocol && p.port !== undefined) {
          cuts[p.protocol].add(p.port);
          cuts[p.protocol].add((p.endPort ?? p.port) + 1);
        }
      }
    }
  }
  const out = {} as Record<Protocol, number[]>;
  for (const proto of PROTOCOLS)
    out[proto] = [...cuts[proto]].filter((n) => n >= MIN_PORT && n <= MAX_PORT).sort((a, b) => a - b);
  return out;
}

/** The tiers' egress `networks` as IPv4 ranges (IPv6 entries are skipped, as the analyzer does). */
function tierNetworkRanges(policies: readonly ClusterPolicy[]): [number, number][] {
  const out: [number, number][] = [];
  for (const p of policies)
    for (const r of p.egress)
      for (const peer of r.peers)
        for (const n of peer.networks ?? []) {
          if (n.parsed && n.parsed.family === 4) out.push([Number(n.parsed.first), Number(n.parsed.last)]);
        }
  return out;
}

/**
 * Per protocol, the first port of every interval over which no rule can
 * change its verdict: 1, every port p and p+1, every endPort + 1, and named
 * ports as the workloads' container ports of that name resolve them.
 */
export function probeStarts(
  policies: readonly NetworkPolicy[],
  pods: readonly Pod[],
): Record<Protocol, number[]> {
  const cuts: Record<Protocol, Set<number>> = {
    TCP: new Set([MIN_PORT]),
    UDP: new Set([MIN_PORT]),
    SCTP: new Set([MIN_PORT]),
  };
  for (const policy of policies) {
    for (const rule of [...policy.ingress, ...policy.egress]) {
      for (const p of rule.ports ?? []) {
        const set = cuts[p.protocol];
        if (typeof p.port === "number") {
          set.add(p.port);
          set.add((p.endPort ?? p.port) + 1);
        } else if (typeof p.port === "string") {
          for (const pod of pods)
            for (const cp of pod.ports)
              if (cp.name === p.port && cp.protocol === p.protocol) {
                set.add(cp.containerPort);
                set.add(cp.containerPort + 1);
              }
        }
      }
    }
  }
  const out = {} as Record<Protocol, number[]>;
  for (const proto of PROTOCOLS)
    out[proto] = [...cuts[proto]].filter((n) => n >= MIN_PORT && n <= MAX_PORT).sort((a, b) => a - b);
  return out;
}

/** Every probe start of the view: NetworkPolicy's, the tiers' and the CNI dialect's cuts (exposure.ts and explain.ts probe the same). */
export function connlistProbeStarts(
  view: Model,
  reprs: readonly Pod[],
  decider: Decider,
): Record<Protocol, number[]> {
  const cni = decider.enforcement.kind === "cni" ? decider.enforcement.cni : undefined;
  return cniProbeCuts(
    cni,
    reprs,
    tierProbeCuts(view.clusterPolicies, reprs, probeStarts(view.policies, reprs)),
  );
}

/** [first, last] of each probe interval. */
export function probeIntervals(starts: readonly number[]): [number, number][] {
  return starts.map((s, i) => [s, (starts[i + 1] ?? MAX_PORT + 1) - 1]);
}

/**
 * netpol-analyzer refuses pods of one owner that some policy selector tells
 * apart (example_pods_w_same_owner_and_labels_gap_with_good_match_expression:
 * pods that differ only in labels no selector separates are fine); we warn
 * and analyse the workload with its first pod's labels.
 */
function checkOwnerLabels(model: Model, diagnostics: Diagnostic[]): void {
  const selectors: LabelSelector[] = [];
  for (const p of model.policies) {
    selectors.push(p.podSelector);
    for (const r of [...p.ingress, ...p.egress])
      for (const peer of r.peers ?? []) if (peer.podSelector) selectors.push(peer.podSelector);
  }
  for (const w of workloadsOf(model)) {
    if (w.given || w.pods.length < 2) continue;
    const first = w.pods[0]!;
    for (const other of w.pods.slice(1)) {
      const sel = selectors.find(
        (s) => matchesSelector(s, first.labels) !== matchesSelector(s, other.labels),
      );
      if (!sel) continue;
      diagnostics.push({
        code: "KTL703",
        severity: "warning",
        file: other.source.file,
        doc: other.source.doc,
        line: other.source.line,
        column: 1,
        kind: "Pod",
        namespace: other.namespace,
        name: other.name,
        message: `pods ${first.key} and ${other.key} of ${connlistName(w)} differ in labels that the selector "${formatSelector(sel)}" tells apart; the workload is analysed with the labels of ${first.key}`,
      });
      break;
    }
  }
}

/** Ingress and Route backends -> the TCP ports the ingress controller may open to each workload (items 14-18 of the peer README). */
/** One Ingress or Route that reaches a workload: the object, the Service it goes through and the pod ports. */
export interface IngressTarget {
  /** "Ingress" or "Route". */
  kind: string;
  /** "namespace/name" of the Ingress or Route. */
  object: string;
  service: string;
  ports: Set<number>;
}

/** Per workload (its index among connlist's workloads), the Ingress and Route backends that reach it. */
export function ingressTargets(model: Model, diagnostics: Diagnostic[]): Map<number, IngressTarget[]> {
  const out = new Map<number, IngressTarget[]>();
  const backends = parseIngressBackends(model.objects, diagnostics);
  if (backends.length === 0) return out;
  const services = new Map<string, BackendService>();
  for (const o of model.objects)
    if (o.kind === "Service") {
      const s = backendService(o);
      services.set(`${s.namespace}/${s.name}`, s);
    }
  for (const b of backends) {
    const svc = services.get(`${b.namespace}/${b.serviceName}`);
    const where = {
      file: b.source.file,
      doc: b.source.doc,
      line: b.line,
      column: 1,
      kind: b.source.kind,
      namespace: b.namespace,
      name: b.source.name,
    };
    if (!svc || !svc.selector || Object.keys(svc.selector).length === 0) {
      diagnostics.push({
        code: "KTL701",
        severity: "warning",
        ...where,
        message: `${b.source.kind} ${b.namespace}/${b.source.name} points at Service ${b.serviceName}, which ${svc ? "has no selector" : "the input does not define"}: no workload is reached through it`,
      });
      continue;
    }
    const selector = svc.selector;
    workloadsOf(model).forEach((w, i) => {
      if (w.namespace !== b.namespace || !Object.keys(selector).every((k) => w.labels[k] === selector[k]))
        return;
      let list = out.get(i);
      if (!list) out.set(i, (list = []));
      const object = `${b.namespace}/${b.source.name}`;
      let t = list.find(
        (x) => x.kind === b.source.kind && x.object === object && x.service === b.serviceName,
      );
      if (!t) list.push((t = { kind: b.source.kind, object, service: b.serviceName, ports: new Set() }));
      for (const p of backendPodPorts(b, svc, w.ports)) t.ports.add(p);
    });
  }
  return out;
}

function ingressControllerLines(
  model: Model,
  reprs: readonly Pod[],
  diagnostics: Diagnostic[],
  decider: Decider,
): ConnLine[] {
  const targets = ingressTargets(model, diagnostics);
  if (targets.size === 0) return [];
  const ports = new Map<number, Set<number>>();
  for (const [i, list] of targets) ports.set(i, new Set(list.flatMap((t) => [...t.ports])));
  const controller = standInController(reprs.length);
  const lines: ConnLine[] = [];
  for (const [i, set] of [...ports].sort((a, b) => a[0] - b[0])) {
    const dst = reprs[i]!;
    const conns = emptyPortSet();
    for (const port of [...set].sort((a, b) => a - b)) {
      const ok =
        decider.egress(controller, { ip: "", pod: dst }, port, "TCP") &&
        decider.ingress(dst, { ip: "", pod: controller }, port, "TCP");
      if (ok) addRange(conns, "TCP", port, port);
    }
    if (isEmptyPortSet(conns)) {
      if (set.size > 0) {
        const w = workloadsOf(model)[i]!;
        diagnostics.push({
          code: "KTL702",
          severity: "warning",
          file: w.source.file,
          doc: w.source.doc,
          line: w.source.line,
          column: 1,
          kind: w.kind,
          namespace: w.namespace,
          name: w.name,
          message: `an Ingress or Route reaches ${connlistName(w)}, but its NetworkPolicies block ingress from an arbitrary in-cluster source, so no {ingress-controller} line is listed`,
        });
      }
      continue;
    }
    lines.push({ src: INGRESS_CONTROLLER, dst: dst.key, conns, conn: formatPortSet(conns) });
  }
  return lines;
}

/** Address ranges another input's rules name, to cut this input's IP nodes at the same edges (ktl diff). */
export interface ConnlistOptions {
  ranges?: AddressRanges;
}

export interface AddressRanges {
  sources: AddressRange[];
  destinations: AddressRange[];
}

/** Every address range the input's rules name: ipBlocks, the tiers' networks, the CNI dialects' CIDRs. */
export function connlistRanges(model: Model): AddressRanges {
  const blocks = (rules: (p: NetworkPolicy) => NetworkPolicy["ingress"]) =>
    model.policies.flatMap((p) =>
      rules(p).flatMap((r) =>
        (r.peers ?? []).flatMap((peer) => (peer.ipBlock ? blockRanges(peer.ipBlock) : [])),
      ),
    );
  const cni = cniNetworkRanges(hasCniPolicies(model.cni) ? model.cni : undefined);
  return {
    sources: [...blocks((p) => p.ingress), ...cni.sources],
    destinations: [
      ...blocks((p) => p.egress),
      ...tierNetworkRanges(model.clusterPolicies),
      ...cni.destinations,
    ],
  };
}

/** The [External] nodes: IPv4 ranges cut from every range the view's rules name (and `ranges`, another model's). */
export function connlistIPNodes(
  view: Model,
  cni: CniPolicies | undefined,
  ranges?: AddressRanges,
): IPRangeNodes {
  const cniRanges = cniNetworkRanges(cni);
  return ipRangeNodes(
    view.policies,
    [...tierNetworkRanges(view.clusterPolicies), ...cniRanges.destinations, ...(ranges?.destinations ?? [])],
    [...cniRanges.sources, ...(ranges?.sources ?? [])],
  );
}

export function computeConnlist(model: Model, options: ConnlistOptions = {}): ConnList {
  const diagnostics: Diagnostic[] = [];
  checkOwnerLabels(model, diagnostics);
  const { view, reprs } = connlistView(model);
  // The one decider (decide/), over netpol-analyzer's view of the workloads: the profile, a CNI dialect, the tiers.
  const decider = deciderOf(view);
  const { classes, classOf } = decider;
  const C = classes.length;
  const cni = decider.enforcement.kind === "cni" ? decider.enforcement.cni : undefined;
  const starts = connlistProbeStarts(view, reprs, decider);

  // Class pairs: one class matrix per probe.
  const pairSets: (PortSet | undefined)[] = new Array<PortSet | undefined>(C * C);
  for (const proto of PROTOCOLS) {
    for (const [first, last] of probeIntervals(starts[proto])) {
      const m = decider.matrix(first, proto);
      for (let a = 0; a < C; a++) {
        for (let b = 0; b < C; b++) {
          if (!m.classAllowed(a, b)) continue;
          const k = a * C + b;
          addRange((pairSets[k] ??= emptyPortSet()), proto, first, last);
        }
      }
    }
  }

  const lines: ConnLine[] = [];
  for (const src of reprs) {
    for (const dst of reprs) {
      if (src === dst) continue;
      const conns = pairSets[classOf[src.index]! * C + classOf[dst.index]!];
      if (conns && !isEmptyPortSet(conns))
        lines.push({ src: src.key, dst: dst.key, conns, conn: formatPortSet(conns) });
    }
  }

  // IP nodes: only the workload's side of the connection decides. Under NetworkPolicy alone, classes with
  // the same policies (and, for ingress, the same named ports) share the answer; otherwise each class is probed.
  const ipNodes = connlistIPNodes(view, cni, options.ranges);
  const index = decider.index;
  const netpolOnly = decider.enforcement.kind === "stack" && !decider.stack?.layered;
  const sideSets = (nodes: IPRangeNode[], direction: "ingress" | "egress") => {
    const out = new Map<string, PortSet>();
    const memo = new Map<string, PortSet[]>();
    classes.forEach((members, ci) => {
      const repr = members[0]!;
      const policies = netpolOnly
        ? direction === "ingress"
          ? index.ingressPolicies[index.classOf[repr.index]!]!
          : index.egressPolicies[index.classOf[repr.index]!]!
        : [];
      const key = netpolOnly
        ? `${policies.map((p) => p.key).join(",")}|${direction === "ingress" ? repr.ports.map((p) => `${p.name ?? ""}:${p.containerPort}/${p.protocol}`).join(",") : ""}`
        : `c${ci}`;
      let sets = memo.get(key);
      if (!sets) {
        const local = netpolOnly ? probeStarts(policies, direction === "ingress" ? [repr] : []) : starts;
        sets = nodes.map((n) => {
          const conns = emptyPortSet();
          for (const proto of PROTOCOLS) {
            for (const [first, last] of probeIntervals(local[proto])) {
              const ok =
                direction === "ingress"
                  ? decider.ingress(repr, { ip: n.probe }, first, proto)
                  : decider.egress(repr, { ip: n.probe }, first, proto);
              if (ok) addRange(conns, proto, first, last);
            }
          }
          return conns;
        });
        memo.set(key, sets);
      }
      nodes.forEach((n, i) => out.set(`${ci}|${n.name}`, sets[i]!));
    });
    return out;
  };
  const fromIP = sideSets(ipNodes.sources, "ingress");
  const toIP = sideSets(ipNodes.destinations, "egress");
  for (const n of ipNodes.sources) {
    for (const dst of reprs) {
      const conns = fromIP.get(`${classOf[dst.index]}|${n.name}`)!;
      if (!isEmptyPortSet(conns))
        lines.push({ src: externalName(n), dst: dst.key, conns, conn: formatPortSet(conns) });
    }
  }
  for (const src of reprs) {
    for (const n of ipNodes.destinations) {
      const conns = toIP.get(`${classOf[src.index]}|${n.name}`)!;
      if (!isEmptyPortSet(conns))
        lines.push({ src: src.key, dst: externalName(n), conns, conn: formatPortSet(conns) });
    }
  }
  if (reprs.length > 0) lines.push(...ingressControllerLines(model, reprs, diagnostics, decider));

  const byteOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  lines.sort((x, y) => byteOrder(x.src, y.src) || byteOrder(x.dst, y.dst));

  const nodes: ConnNode[] = workloadsOf(model).map((w) => ({
    name: connlistName(w),
    kind: "workload",
    namespace: w.namespace,
    workload: { kind: w.kind, namespace: w.namespace, name: w.name },
    pods: w.pods.map((p) => p.key),
  }));
  const seen = new Set<string>();
  for (const n of [...ipNodes.sources, ...ipNodes.destinations]) {
    const name = externalName(n);
    if (seen.has(name)) continue;
    seen.add(name);
    const [a, b] = n.name.split("-") as [string, string];
    nodes.push({ name, kind: "external", range: [a, b] });
  }
  if (lines.some((l) => l.src === INGRESS_CONTROLLER))
    nodes.push({ name: INGRESS_CONTROLLER, kind: "ingress-controller" });
  return { nodes, lines, diagnostics };
}
