/**
 * NetworkPolicy's answer for one side of a trace in the trace's words: the
 * check (verdict, isolation, reason, cause and YAML line), the near misses
 * appended to a refusal, and why a host-network pod or an address outside
 * the cluster is out of NetworkPolicy's reach. policy.ts groups them into hops.
 */
import type { Model, Pod, Protocol } from "../model/types.ts";
import type { DirectionVerdict } from "../netpol/index.ts";
import { matchesSelector } from "../model/labels.ts";
import type { NearMiss } from "../netpol/nearmiss.ts";
import type { HopCause, PolicyCheck, PolicyDirection, TraceRef } from "./types.ts";
import { traceRef } from "./format.ts";

export function policyRef(v: DirectionVerdict): TraceRef | undefined {
  const m = v.allowedBy[0];
  if (m) {
    const line = m.peer?.line || m.port?.line || m.rule.line || m.policy.source.line;
    return traceRef({ ...m.policy.source, line }, `spec.${m.direction}[${m.rule.index}]`);
  }
  const p = v.selecting[0];
  if (p) return traceRef({ ...p.source, line: p.lines.podSelector || p.source.line }, "spec.podSelector");
  return undefined;
}

type NetworkPolicyCause = Extract<HopCause, { layer: "NetworkPolicy" }>;

/** The verdict of one direction as a cause: the allowing rule, or the isolating policies. */
export function policyCause(v: DirectionVerdict): NetworkPolicyCause {
  const direction = v.direction;
  const policies = v.selecting.map((p) => p.key);
  if (v.ownNode) return { layer: "NetworkPolicy", direction, category: "own-node", policies };
  if (!v.isolated) return { layer: "NetworkPolicy", direction, category: "not-isolated" };
  const m = v.allowedBy[0];
  if (v.allowed && m) {
    const { kind, namespace, name } = m.policy.source;
    return {
      layer: "NetworkPolicy",
      direction,
      category: "allowed",
      object: namespace !== undefined ? { kind, namespace, name } : { kind, name },
      rule: { index: m.rule.index },
      policies,
    };
  }
  return { layer: "NetworkPolicy", direction, category: "denied", policies };
}

function describe(
  v: DirectionVerdict,
  self: string,
  other: string,
  port: number,
  protocol: Protocol,
): string {
  if (!v.isolated) return `no NetworkPolicy selects ${self} for ${v.direction}`;
  const m = v.allowedBy[0];
  if (m) return `allowed by ${m.policy.key} ${v.direction} rule ${m.rule.index + 1}`;
  const names = v.selecting.map((p) => p.key).join(", ");
  return `${self} is isolated for ${v.direction} by ${names} and no rule allows ${protocol}/${port} ${v.direction === "ingress" ? "from" : "to"} ${other}`;
}

export function check(
  v: DirectionVerdict,
  self: string,
  other: string,
  port: number,
  protocol: Protocol,
): PolicyCheck {
  const c: PolicyCheck = {
    verdict: v.allowed ? "allow" : "drop",
    isolated: v.isolated,
    reason: describe(v, self, other, port, protocol),
    cause: policyCause(v),
  };
  const r = policyRef(v);
  if (r) c.ref = r;
  return c;
}

/** Puts the near misses on a denied check's cause; the words for its detail ("; nearest: ..."). */
export function withNearMisses(c: PolicyCheck, misses: NearMiss[]): string {
  if (!misses.length || c.cause.layer !== "NetworkPolicy") return "";
  c.cause = { ...c.cause, nearMisses: misses };
  return `; nearest: ${misses[0]!.text}`;
}

/**
 * A host-network pod's NetworkPolicy in words: a policy may select it by its
 * labels, but "NetworkPolicy behaviour for hostNetwork pods is undefined" and
 * in the most common implementation the plugin cannot tell its traffic from
 * its node's, ignores it when matching, and treats its traffic as the node's
 * (kubernetes.io, Network Policies, "NetworkPolicy and hostNetwork pods").
 * ktl follows that implementation; this names the policies that select it so
 * that nobody reads "no policy selects it".
 */
export function hostNetworkWords(model: Model, pod: Pod, direction: PolicyDirection): string {
  const selecting = model.policies.filter(
    (p) =>
      p.namespace === pod.namespace &&
      (direction === "ingress" ? p.ingressIsolation : p.egressIsolation) &&
      matchesSelector(p.podSelector, pod.labels),
  );
  if (selecting.length === 0) return `${pod.key} uses the host network: NetworkPolicy does not apply to it`;
  const names = selecting.map((p) => p.key).join(", ");
  return `${pod.key} uses the host network: NetworkPolicy ${names} select${selecting.length === 1 ? "s" : ""} it for ${direction} by its labels, but the network plugin cannot tell a host-network pod's traffic from its node's and applies no NetworkPolicy to it (the common implementation; Kubernetes leaves it undefined), so it is not isolated`;
}

export const NOT_APPLICABLE = (reason: string, direction: PolicyDirection): PolicyCheck => ({
  verdict: "allow",
  isolated: false,
  reason,
  cause: { layer: "NetworkPolicy", direction, category: "not-applicable" },
});

/** A backend to evaluate: where the packet goes after DNAT, and what it carries. */
