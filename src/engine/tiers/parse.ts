/**
 * ClusterNetworkPolicy (v1alpha2), AdminNetworkPolicy and
 * BaselineAdminNetworkPolicy (v1alpha1) objects -> ClusterPolicy, with the
 * line of every rule, peer and port. Shapes as in network-policy-api's
 * apis/v1alpha2/clusternetworkpolicy_types.go and apis/v1alpha1 (v0.1.7).
 * Malformed parts are kept as harmless as the API allows (validation reports
 * them): an unknown action makes the rule match nothing, a peer with no known
 * field fails closed.
 */
import { refOf, type KObject } from "../parse/manifests.ts";
import { lineOf } from "../parse/positions.ts";
import { arr, int, isObj, str, strList, type Json } from "../parse/values.ts";
import { parseLabelSelector } from "../model/labels.ts";
import { parseCidr, type Cidr } from "../model/ip.ts";
import type { Protocol } from "../model/types.ts";
import type {
  ClusterPolicy,
  ClusterPolicyKind,
  NamespacedPods,
  TierAction,
  TierPeer,
  TierPort,
  TierRule,
} from "./types.ts";

export const CLUSTER_POLICY_KINDS: ReadonlySet<string> = new Set<ClusterPolicyKind>([
  "ClusterNetworkPolicy",
  "AdminNetworkPolicy",
  "BaselineAdminNetworkPolicy",
]);

function namespacedPods(v: Json): NamespacedPods {
  return {
    namespaceSelector: parseLabelSelector(v.namespaceSelector ?? {}),
    podSelector: parseLabelSelector(v.podSelector ?? {}),
  };
}

function protocolOf(v: unknown): Protocol | undefined {
  const p = str(v);
  return p === "TCP" || p === "UDP" || p === "SCTP" ? p : undefined;
}

function parsePeers(list: unknown): TierPeer[] {
  return arr(list).map((p, index) => {
    const peer: TierPeer = { index, line: lineOf(p) || lineOf(list, index) };
    if (!isObj(p)) {
      peer.unknown = true;
      return peer;
    }
    if (isObj(p.namespaces)) peer.namespaces = parseLabelSelector(p.namespaces);
    if (isObj(p.pods)) peer.pods = namespacedPods(p.pods);
    if (isObj(p.nodes)) peer.nodes = parseLabelSelector(p.nodes);
    if (Array.isArray(p.networks))
      peer.networks = strList(p.networks).map((cidr) => ({ cidr, parsed: parseCidr(cidr).cidr }));
    if (Array.isArray(p.domainNames)) peer.domainNames = strList(p.domainNames);
    if (!peer.namespaces && !peer.pods && !peer.nodes && !peer.networks && !peer.domainNames)
      peer.unknown = true;
    return peer;
  });
}

/** v1alpha2 `protocols`: [{tcp|udp|sctp: {destinationPort: {number | range}}} | {destinationNamedPort}]. */
function parseProtocols(list: unknown): TierPort[] | null {
  const items = arr(list);
  if (items.length === 0) return null;
  const ports: TierPort[] = [];
  items.forEach((p, index) => {
    const line = lineOf(p) || lineOf(list, index);
    if (!isObj(p)) return;
    const named = str(p.destinationNamedPort);
    if (named !== undefined) ports.push({ index, line, name: named });
    for (const [key, protocol] of [
      ["tcp", "TCP"],
      ["udp", "UDP"],
      ["sctp", "SCTP"],
    ] as const) {
      const x = p[key];
      if (!isObj(x)) continue;
      const port: TierPort = { index, line, protocol };
      const dp = isObj(x.destinationPort) ? x.destinationPort : undefined;
      const n = int(dp?.number);
      const range = isObj(dp?.range) ? dp.range : undefined;
      if (n !== undefined) port.port = n;
      else if (range) {
        port.port = int(range.start) ?? 0;
        port.endPort = int(range.end) ?? 0;
      } else port.port = 0; // no number and no range (e.g. an unknown field only): invalid, so it matches no port, never every port
      ports.push(port);
    }
  });
  return ports;
}

/** v1alpha1 `ports`: [{portNumber: {protocol, port}} | {namedPort} | {portRange: {protocol, start, end}}], protocol TCP when absent. */
function parsePorts(list: unknown): TierPort[] | null {
  const items = arr(list);
  if (items.length === 0) return null;
  const ports: TierPort[] = [];
  items.forEach((p, index) => {
    const line = lineOf(p) || lineOf(list, index);
    if (!isObj(p)) return;
    const named = str(p.namedPort);
    if (named !== undefined) ports.push({ index, line, name: named });
    if (isObj(p.portNumber))
      ports.push({
        index,
        line,
        protocol: protocolOf(p.portNumber.protocol) ?? "TCP",
        port: int(p.portNumber.port) ?? 0,
      });
    if (isObj(p.portRange)) {
      const r = p.portRange;
      ports.push({
        index,
        line,
        protocol: protocolOf(r.protocol) ?? "TCP",
        port: int(r.start) ?? 0,
        endPort: int(r.end) ?? 0,
      });
    }
  });
  return ports;
}

function parseAction(v: unknown): TierAction | undefined {
  const a = str(v);
  if (a === "Accept" || a === "Allow") return "Accept";
  if (a === "Deny" || a === "Pass") return a;
  return undefined;
}

function parseRules(list: unknown, peerKey: "from" | "to", v1alpha1: boolean): TierRule[] {
  const rules: TierRule[] = [];
  arr(list).forEach((r, index) => {
    const rule = isObj(r) ? r : {};
    const raw = str(rule.action);
    // v1alpha2 says Accept, v1alpha1 Allow; the other version's word is invalid (and matches nothing here).
    const action = raw === (v1alpha1 ? "Accept" : "Allow") ? undefined : parseAction(raw);
    if (!action) return;
    rules.push({
      index,
      line: lineOf(r) || lineOf(list, index),
      name: str(rule.name) ?? "",
      action,
      peers: parsePeers(rule[peerKey]),
      ports: v1alpha1 ? parsePorts(rule.ports) : parseProtocols(rule.protocols),
    });
  });
  return rules;
}

export function parseClusterPolicy(o: KObject, order: number): ClusterPolicy {
  const spec = isObj(o.raw.spec) ? o.raw.spec : {};
  const kind = o.kind as ClusterPolicyKind;
  const v1alpha1 = kind !== "ClusterNetworkPolicy";
  const subjectRaw = isObj(spec.subject) ? spec.subject : {};
  const subject: ClusterPolicy["subject"] = {};
  if (isObj(subjectRaw.namespaces)) subject.namespaces = parseLabelSelector(subjectRaw.namespaces);
  if (isObj(subjectRaw.pods)) subject.pods = namespacedPods(subjectRaw.pods);
  const tier =
    kind === "AdminNetworkPolicy"
      ? "Admin"
      : kind === "BaselineAdminNetworkPolicy"
        ? "Baseline"
        : str(spec.tier) === "Baseline"
          ? "Baseline"
          : "Admin";
  const { namespace: _, ...ref } = refOf(o);
  return {
    kind,
    apiVersion: o.apiVersion,
    name: o.name,
    key: `${kind}/${o.name}`,
    tier,
    priority: kind === "BaselineAdminNetworkPolicy" ? 0 : (int(spec.priority) ?? 0),
    subject,
    ingress: parseRules(spec.ingress, "from", v1alpha1),
    egress: parseRules(spec.egress, "to", v1alpha1),
    source: ref,
    order,
    lines: {
      tier: lineOf(spec, "tier"),
      priority: lineOf(spec, "priority"),
      subject: lineOf(spec, "subject"),
      ingress: lineOf(spec, "ingress"),
      egress: lineOf(spec, "egress"),
    },
  };
}

/**
 * The tiers' evaluation order: Admin before Baseline, then priority (lower
 * first), then input order (upstream leaves equal priorities undefined: lint
 * KTL611 warns where it matters).
 */
export function sortClusterPolicies(list: readonly ClusterPolicy[]): ClusterPolicy[] {
  const rank = (p: ClusterPolicy) => (p.tier === "Admin" ? 0 : 1);
  return [...list].sort((a, b) => rank(a) - rank(b) || a.priority - b.priority || a.order - b.order);
}

/**
 * Address ranges the tiers tell apart, for the pod classes (netpol's ipAtoms):
 * every `networks` CIDR, and every node address when a `nodes` peer exists.
 */
export function tierCidrs(model: {
  clusterPolicies: readonly ClusterPolicy[];
  nodes: readonly { internalIP: string; addresses: { address: string }[] }[];
}): Cidr[] {
  const out: Cidr[] = [];
  let nodes = false;
  for (const p of model.clusterPolicies) {
    for (const r of [...p.ingress, ...p.egress]) {
      for (const peer of r.peers) {
        for (const n of peer.networks ?? []) if (n.parsed) out.push(n.parsed);
        if (peer.nodes) nodes = true;
      }
    }
  }
  if (nodes) {
    for (const n of model.nodes) {
      for (const ip of [n.internalIP, ...n.addresses.map((a) => a.address)]) {
        const c = parseCidr(ip.includes(":") ? `${ip}/128` : `${ip}/32`).cidr;
        if (c) out.push(c);
      }
    }
  }
  return out;
}
