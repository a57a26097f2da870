/**
 * The cluster policy tiers in a trace (policy/stack.ts, tiers/layer.ts): per
 * direction, the Admin tier before NetworkPolicy and the Baseline tier after
 * it. Each tier's step is a hop of its own ("admin tier at source", "baseline
 * tier at backend"), with a typed cause (the policy, its priority, the rule)
 * that render.ts words; a tier that decides (Accept or Deny) gives the
 * direction's check and the endpoint's `decidedBy`.
 */
import type { Pod, Protocol, Model } from "../model/types.ts";
import type { StackPeer } from "../policy/stack.ts";
import { firstMatch, subjectSelects, tierPolicies } from "../tiers/layer.ts";
import type { ClusterPolicy, Tier, TierRule } from "../tiers/types.ts";
import { tierText } from "./render.ts";
import type { HopCause, HopStep, PolicyCheck, PolicyDirection, TraceDecidedBy, TraceRef } from "./types.ts";

export type TierCause = Extract<HopCause, { layer: "AdminNetworkPolicy" | "BaselineAdminNetworkPolicy" }>;

/** The tiers' policies in evaluation order; undefined when the input has none (the trace then has no tier hops). */
export interface TraceTiers {
  Admin: ClusterPolicy[];
  Baseline: ClusterPolicy[];
}

export function traceTiers(model: Model): TraceTiers | undefined {
  if (model.clusterPolicies.length === 0) return undefined;
  return { Admin: tierPolicies(model, "Admin"), Baseline: tierPolicies(model, "Baseline") };
}

/** One tier's step for one direction of one connection. */
export interface TierStep {
  tier: Tier;
  step: HopStep;
  action: "Accept" | "Deny" | "Pass" | "none";
  cause: TierCause;
  /** Grouping key: endpoints with equal keys share a hop. */
  key: string;
  /** Prose for the hop; `{who}` stands for the backends the hop is about. */
  detail: string;
  ref?: TraceRef;
  policy?: ClusterPolicy;
  rule?: TierRule;
  line?: number;
}

const STEP: Record<Tier, Record<PolicyDirection, HopStep>> = {
  Admin: { egress: "admin tier at source", ingress: "admin tier at backend" },
  Baseline: { egress: "baseline tier at source", ingress: "baseline tier at backend" },
};

export interface TierQuery {
  direction: PolicyDirection;
  /** The pod whose side is judged: the sender for egress, the backend for ingress. */
  self: Pod;
  other: StackPeer;
  /** How the other end is named in the prose (the backends are `{who}` for ingress). */
  otherName: string;
  port: number;
  protocol: Protocol;
  dst: Pod | undefined;
  /** A pod's traffic to itself: not subject to the tiers (site-src/api-overview.md). */
  hairpin: boolean;
}

/** Walks one tier for one direction: the first matching rule in priority and rule order (tiers/layer.ts firstMatch). */
export function tierStep(model: Model, tiers: TraceTiers, tier: Tier, q: TierQuery): TierStep {
  const layer = tier === "Admin" ? "AdminNetworkPolicy" : "BaselineAdminNetworkPolicy";
  const step = STEP[tier][q.direction];
  const policies = tiers[tier];
  const direction = q.direction;
  const context =
    direction === "egress"
      ? `${q.self.key} sending ${q.protocol}/${q.port} to {who}`
      : `{who} receiving ${q.protocol}/${q.port} from ${q.otherName}`;
  const none = (category: "no-match" | "not-selected" | "hairpin"): TierStep => {
    const cause: TierCause = { layer, direction, category };
    return {
      tier,
      step,
      action: "none",
      cause,
      key: `${tier}|${category}`,
      detail: `${tierText(cause)}: ${context}`,
    };
  };
  if (q.hairpin) return none("hairpin");
  const m = firstMatch(model, policies, {
    model,
    direction,
    self: q.self,
    other: q.other,
    port: q.port,
    protocol: q.protocol,
    dst: q.dst,
    hairpin: false,
  });
  if (!m) {
    const selects = policies.some(
      (p) => (direction === "ingress" ? p.ingress : p.egress).length > 0 && subjectSelects(model, p, q.self),
    );
    return none(selects ? "no-match" : "not-selected");
  }
  const { policy, rule, line } = m;
  const cause: TierCause = {
    layer,
    direction,
    category: rule.action,
    object: { kind: policy.kind, name: policy.name },
    rule: rule.name ? { index: rule.index, name: rule.name } : { index: rule.index },
  };
  if (policy.kind !== "BaselineAdminNetworkPolicy") cause.priority = policy.priority;
  const why =
    rule.action === "Deny" && tier === "Admin"
      ? "; the Admin tier comes before NetworkPolicy: no namespace's policy can override it"
      : rule.action === "Accept" && tier === "Admin"
        ? "; the Admin tier comes before NetworkPolicy, which is not consulted"
        : tier === "Baseline"
          ? `; no NetworkPolicy isolates the pod for ${direction}, so the Baseline tier decides`
          : "";
  const ref: TraceRef = {
    kind: policy.kind,
    name: policy.name,
    line,
    file: policy.source.file,
    field: `spec.${direction}[${rule.index}]`,
  };
  return {
    tier,
    step,
    action: rule.action,
    cause,
    key: `${tier}|${rule.action}|${policy.key}|${direction}|${rule.index}`,
    detail: `${tierText(cause)}: ${context}${why}`,
    ref,
    policy,
    rule,
    line,
  };
}

/** A tier's Accept or Deny as the direction's check. */
export function tierCheck(s: TierStep): PolicyCheck {
  const c: PolicyCheck = {
    verdict: s.action === "Deny" ? "drop" : "allow",
    isolated: true,
    reason: tierText(s.cause),
    cause: s.cause,
  };
  if (s.ref) c.ref = s.ref;
  return c;
}

/** The contract's `decidedBy` for a tier's decision, with the policy's priority. */
export function tierDecidedBy(s: TierStep): TraceDecidedBy {
  const p = s.policy!;
  const d: TraceDecidedBy = {
    layer: s.cause.layer,
    kind: p.kind,
    name: p.name,
    rule: s.rule!.name || `${s.cause.direction}[${s.rule!.index}]`,
    line: s.line!,
  };
  if (p.kind !== "BaselineAdminNetworkPolicy") d.priority = p.priority;
  return d;
}

/** The Admin rule whose Pass handed a connection down, for `decidedBy.passedBy`. */
export function passedBy(s: TierStep | undefined): TraceDecidedBy["passedBy"] {
  if (!s || s.action !== "Pass") return undefined;
  return {
    kind: s.policy!.kind,
    name: s.policy!.name,
    rule: s.rule!.name || `${s.cause.direction}[${s.rule!.index}]`,
    priority: s.policy!.priority,
    line: s.line!,
  };
}

/** A NetworkPolicy check's decision as `decidedBy` (its ref names the policy and rule). */
export function checkDecidedBy(c: PolicyCheck): TraceDecidedBy | undefined {
  if (c.cause.layer === "AdminNetworkPolicy" || c.cause.layer === "BaselineAdminNetworkPolicy")
    return undefined;
  if (!c.isolated || !c.ref) return undefined;
  return {
    layer: c.cause.layer,
    kind: c.ref.kind,
    ...(c.ref.namespace !== undefined ? { namespace: c.ref.namespace } : {}),
    name: c.ref.name,
    ...(c.ref.field ? { rule: c.ref.field } : {}),
    line: c.ref.line,
  };
}
