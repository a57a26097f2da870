/** One connection, exactly: the policies and rules that decided it (index.ts rules 1-8). */
import type { Model, Pod, Protocol } from "../model/types.ts";
import { matchesSelector } from "../model/labels.ts";
import { cidrContains, parseIPKept, type IP } from "../model/ip.ts";
import type { IPBlock, NetworkPolicy, PolicyPeer, PolicyPort, PolicyRule } from "../model/networkpolicy.ts";

export type Direction = "ingress" | "egress";

/** The other end of a connection as policy sees it: an IP, and the pod behind it if any. */
export interface PeerEndpoint {
  ip: string;
  pod?: Pod | undefined;
}

export interface RuleMatch {
  policy: NetworkPolicy;
  direction: Direction;
  rule: PolicyRule;
  /** The peer that matched (undefined when the rule has no peers). */
  peer?: PolicyPeer;
  /** The port entry that matched (undefined when the rule has no ports). */
  port?: PolicyPort;
}

export interface DirectionVerdict {
  direction: Direction;
  allowed: boolean;
  /** Some policy selects the pod for this direction. */
  isolated: boolean;
  /** Policies that select the pod for this direction. */
  selecting: readonly NetworkPolicy[];
  /** Every rule that allows the connection. */
  allowedBy: RuleMatch[];
  /** Set when the connection is admitted only because it comes from the pod's own node (rule 8). */
  ownNode?: string;
  reason: string;
}

export interface PairVerdict {
  allowed: boolean;
  egress: DirectionVerdict;
  ingress: DirectionVerdict;
}

export function inBlock(b: IPBlock, ip: IP | undefined): boolean {
  if (!ip || !b.parsed || !cidrContains(b.parsed, ip)) return false;
  return !b.exceptParsed.some((e) => cidrContains(e, ip));
}

export function namespaceLabels(model: Model, ns: string): Record<string, string> {
  return model.namespaces.get(ns)?.labels ?? { "kubernetes.io/metadata.name": ns };
}

/** Rule 4 and 5: does a peer entry match the endpoint? */
export function peerMatches(
  model: Model,
  policy: NetworkPolicy,
  peer: PolicyPeer,
  ep: PeerEndpoint,
): boolean {
  if (peer.ipBlock) return inBlock(peer.ipBlock, parseIPKept(ep.ip));
  const pod = ep.pod;
  if (!pod || pod.hostNetwork) return false;
  if (!peer.podSelector && !peer.namespaceSelector) return false;
  if (peer.namespaceSelector) {
    if (!matchesSelector(peer.namespaceSelector, namespaceLabels(model, pod.namespace))) return false;
  } else if (pod.namespace !== policy.namespace) return false;
  return !peer.podSelector || matchesSelector(peer.podSelector, pod.labels);
}

/** Rule 6: does a port entry match (port, protocol) at the destination? */
export function portMatches(p: PolicyPort, port: number, protocol: Protocol, dst: Pod | undefined): boolean {
  if (p.protocol !== protocol) return false;
  if (p.port === undefined) return true;
  if (typeof p.port === "number")
    return p.endPort !== undefined ? port >= p.port && port <= p.endPort : port === p.port;
  if (!dst) return false;
  return dst.ports.some((cp) => cp.name === p.port && cp.protocol === protocol && cp.containerPort === port);
}

export function selects(policy: NetworkPolicy, pod: Pod): boolean {
  return (
    !pod.hostNetwork && policy.namespace === pod.namespace && matchesSelector(policy.podSelector, pod.labels)
  );
}

/** A model's policies by namespace, built once per policy list: a policy selects pods of its own namespace only. */
const byNamespace = new WeakMap<readonly NetworkPolicy[], Map<string, NetworkPolicy[]>>();

function policiesIn(model: Model, ns: string): readonly NetworkPolicy[] {
  let m = byNamespace.get(model.policies);
  if (!m) {
    m = new Map();
    for (const p of model.policies) {
      const l = m.get(p.namespace);
      if (l) l.push(p);
      else m.set(p.namespace, [p]);
    }
    byNamespace.set(model.policies, m);
  }
  return m.get(ns) ?? [];
}

/**
 * Per policy list, per pod: the policies that select it, by direction. A model is not changed once built, so a
 * pod's answer holds for its model; the graph's flows under the tiers explain the same senders and endpoints
 * thousands of times an analysis (each a filter of the namespace's policies with their selectors before).
 */
const selectedOf = new WeakMap<
  readonly NetworkPolicy[],
  WeakMap<Pod, { ingress?: readonly NetworkPolicy[]; egress?: readonly NetworkPolicy[] }>
>();

/** The policies of `model` that select `pod` and isolate it for `direction`, in the model's order (do not change the list). */
export function policiesFor(model: Model, pod: Pod, direction: Direction): readonly NetworkPolicy[] {
  let byPod = selectedOf.get(model.policies);
  if (!byPod) selectedOf.set(model.policies, (byPod = new WeakMap()));
  let known = byPod.get(pod);
  if (!known) byPod.set(pod, (known = {}));
  return (known[direction] ??= policiesIn(model, pod.namespace).filter(
    (p) => (direction === "ingress" ? p.ingressIsolation : p.egressIsolation) && selects(p, pod),
  ));
}

function ruleMatches(
  model: Model,
  policy: NetworkPolicy,
  direction: Direction,
  rule: PolicyRule,
  peer: PeerEndpoint,
  port: number,
  protocol: Protocol,
  dst: Pod | undefined,
): RuleMatch | undefined {
  let matchedPeer: PolicyPeer | undefined;
  if (rule.peers !== null) {
    matchedPeer = rule.peers.find((p) => peerMatches(model, policy, p, peer));
    if (!matchedPeer) return undefined;
  }
  let matchedPort: PolicyPort | undefined;
  if (rule.ports !== null) {
    matchedPort = rule.ports.find((p) => portMatches(p, port, protocol, dst));
    if (!matchedPort) return undefined;
  }
  const m: RuleMatch = { policy, direction, rule };
  if (matchedPeer) m.peer = matchedPeer;
  if (matchedPort) m.port = matchedPort;
  return m;
}

function explainDirection(
  model: Model,
  direction: Direction,
  self: Pod,
  other: PeerEndpoint,
  port: number,
  protocol: Protocol,
  dst: Pod | undefined,
): DirectionVerdict {
  const selecting = policiesFor(model, self, direction);
  if (selecting.length === 0) {
    return {
      direction,
      allowed: true,
      isolated: false,
      selecting,
      allowedBy: [],
      reason: `no NetworkPolicy selects ${self.key} for ${direction}, so it is not isolated`,
    };
  }
  const allowedBy: RuleMatch[] = [];
  for (const policy of selecting) {
    for (const rule of direction === "ingress" ? policy.ingress : policy.egress) {
      const m = ruleMatches(model, policy, direction, rule, other, port, protocol, dst);
      if (m) allowedBy.push(m);
    }
  }
  const names = selecting.map((p) => p.key).join(", ");
  const reason = allowedBy.length
    ? `allowed by ${allowedBy[0]!.policy.key} ${direction} rule ${allowedBy[0]!.rule.index + 1}`
    : `${self.key} is isolated for ${direction} by ${names} and no rule allows ${protocol}/${port} ${direction === "ingress" ? "from" : "to"} ${other.pod ? other.pod.key : other.ip}`;
  return { direction, allowed: allowedBy.length > 0, isolated: true, selecting, allowedBy, reason };
}

/** The node `pod` runs on, when `ip` is one of that node's addresses. */
export function ownNodeOf(model: Model, pod: Pod, ip: string): string | undefined {
  const node = pod.nodeName ? model.nodesByName.get(pod.nodeName) : undefined;
  return node && ip && node.addresses.some((a) => a.address === ip) ? node.name : undefined;
}

/** Ingress at `dst` for a connection from `src` to dst's (port, protocol). */
export function explainIngress(
  model: Model,
  dst: Pod,
  src: PeerEndpoint,
  port: number,
  protocol: Protocol,
): DirectionVerdict {
  const v = explainDirection(model, "ingress", dst, src, port, protocol, dst);
  if (v.allowed) return v;
  const node = ownNodeOf(model, dst, src.ip);
  if (!node) return v;
  const names = v.selecting.map((p) => p.key).join(", ");
  return {
    ...v,
    allowed: true,
    ownNode: node,
    reason: `${src.ip} is the address of ${dst.key}'s own node ${node}: a pod's own node is always admitted, whatever ${names} allow${v.selecting.length === 1 ? "s" : ""}`,
  };
}

/** Egress at `src` for a connection to `dst` on (port, protocol); named ports resolve on dst.pod. */
export function explainEgress(
  model: Model,
  src: Pod,
  dst: PeerEndpoint,
  port: number,
  protocol: Protocol,
): DirectionVerdict {
  return explainDirection(model, "egress", src, dst, port, protocol, dst.pod);
}

/** Pod to pod by the destination's primary IP. */
export function explainPair(model: Model, src: Pod, dst: Pod, port: number, protocol: Protocol): PairVerdict {
  const egress = explainEgress(model, src, { ip: dst.ips[0] ?? "", pod: dst }, port, protocol);
  const ingress = explainIngress(model, dst, { ip: src.ips[0] ?? "", pod: src }, port, protocol);
  return { allowed: egress.allowed && ingress.allowed, egress, ingress };
}

/**
 * Why an isolating policy admits nothing for this connection, per rule, as
 * netpol-analyzer's explanation names it (its NetworkPolicy
 * GetXgressAllowedConns): the policy has no rules in the direction; no rule's
 * peers match the other end; or some rules' peers match but none of their
 * ports does (`named` when every port entry of the rule is a name that the
 * destination does not define).
 */
export type PolicyMiss =
  { kind: "no-rules" } | { kind: "no-peer" } | { kind: "ports"; rules: { index: number; named: boolean }[] };

export function policyMiss(
  model: Model,
  policy: NetworkPolicy,
  direction: Direction,
  other: PeerEndpoint,
  dst: Pod | undefined,
): PolicyMiss {
  const rules = direction === "ingress" ? policy.ingress : policy.egress;
  if (rules.length === 0) return { kind: "no-rules" };
  const matched = rules.filter(
    (r) => r.peers === null || r.peers.some((p) => peerMatches(model, policy, p, other)),
  );
  if (matched.length === 0) return { kind: "no-peer" };
  return {
    kind: "ports",
    rules: matched.map((r) => ({
      index: r.index,
      named:
        r.ports !== null &&
        r.ports.length > 0 &&
        r.ports.every(
          (p) =>
            typeof p.port === "string" &&
            !(dst?.ports ?? []).some((cp) => cp.name === p.port && cp.protocol === p.protocol),
        ),
    })),
  };
}
