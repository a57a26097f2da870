/**
 * NetworkPolicy verdicts (networking.k8s.io/v1), two ways that must agree:
 *
 * - `explain*`: one connection, exactly, with the policies and rules that
 *   decided it (for traces and the UI);
 * - `classMatrix`: every pod pair at once, over equivalence classes of pods
 *   (same namespace, labels, container ports, hostNetwork and ipBlock atom:
 *   no policy can tell such pods apart), with peer sets as bitsets.
 *
 * Semantics (upstream API docs and test/e2e/network/netpol):
 * 1. A pod is isolated for a direction when some policy in its namespace
 *    selects it and has that policyType. Isolated pods accept only what some
 *    selecting policy's rule allows; policies are additive (a union).
 * 2. A connection needs both egress at the source and ingress at the
 *    destination to allow it.
 * 3. A rule with no peers (from/to empty or absent) matches every peer; with
 *    no ports, every port and protocol.
 * 4. A peer's podSelector alone means pods in the policy's namespace;
 *    namespaceSelector alone, every pod in matching namespaces; both in one
 *    peer, pods matching both (AND); separate peers are ORed.
 * 5. ipBlock matches by IP: cidr minus every except. IPv4 blocks never match
 *    IPv6 addresses and vice versa.
 * 6. A port entry matches its protocol (default TCP) and a port number, a
 *    range port..endPort, or a named port, resolved on the destination pod's
 *    containers (same name and protocol); no port means all of the protocol.
 * 7. hostNetwork pods are outside NetworkPolicy (the API leaves them
 *    undefined and common CNIs ignore them): no policy isolates them and no
 *    pod or namespace selector matches them; ipBlock can match their node IP.
 * 8. A pod's own node is always admitted at ingress (networking/v1
 *    NetworkPolicySpec.ingress: "Traffic is allowed to a pod if there are no
 *    NetworkPolicies selecting the pod ..., OR if the traffic source is the
 *    pod's local node, OR if the traffic matches at least one ingress rule").
 *    The API says nothing alike for egress. Classes do not know nodes, so
 *    `pairAllowed` adds this to `classAllowed` for host-network senders.
 */
export type {
  Direction,
  PeerEndpoint,
  RuleMatch,
  DirectionVerdict,
  PairVerdict,
  PolicyMiss,
} from "./explain.ts";
export {
  peerMatches,
  portMatches,
  selects,
  policiesFor,
  ownNodeOf,
  explainIngress,
  explainEgress,
  explainPair,
  policyMiss,
} from "./explain.ts";
export type { PodClass, PolicyIndex } from "./classes.ts";
export { buildPolicyIndex, policyIndexOf } from "./classes.ts";
export type { ClassMatrix, PriorRows, ReachSummary } from "./matrix.ts";
export {
  ClassMatrices,
  classMatrix,
  pairAllowed,
  classAllowed,
  egressPasses,
  reachSummary,
  podMatrix,
  ownNodeSenders,
} from "./matrix.ts";
