/**
 * Flows under the cluster tiers (policy/stack.ts): the verdict of a set of
 * senders toward one pod port through Admin tier -> NetworkPolicy -> Baseline
 * tier, with the layer that decided (a tier's policy and rule, or a
 * NetworkPolicy) and which tier it was, for the graph's tier mark.
 */
import type { Model, Pod, Protocol } from "../model/types.ts";
import type { PolicyIndex } from "../netpol/index.ts";
import { buildStack, explainStackPair, type LayerStep, type PolicyStack } from "../policy/index.ts";
import type { RefView, Verdict } from "./types.ts";

export interface TierFlowSummary {
  verdict: Verdict;
  reason: string;
  decidedBy: RefView[];
  client?: Pod;
  /** A cluster tier decided the edge (the first refused sender's, else the first admitted one's). */
  tier?: "Admin" | "Baseline";
}

const stacks = new WeakMap<Model, PolicyStack>();

/** The model's stack, built once (undefined when the input has no cluster tier policy). */
export function tierStack(model: Model, index: PolicyIndex): PolicyStack | undefined {
  if (model.clusterPolicies.length === 0) return undefined;
  let s = stacks.get(model);
  if (!s) stacks.set(model, (s = buildStack(model, index)));
  return s;
}

function ref(s: LayerStep | undefined): RefView[] {
  const c = s?.cause;
  if (!c) return [];
  const r: RefView = { kind: c.kind, name: c.name, line: c.line };
  if (c.namespace) r.namespace = c.namespace;
  return [r];
}

export function tierOf(s: LayerStep | undefined): "Admin" | "Baseline" | undefined {
  return s?.layer === "AdminNetworkPolicy"
    ? "Admin"
    : s?.layer === "BaselineAdminNetworkPolicy"
      ? "Baseline"
      : undefined;
}

/** Every sender (with an address, other than the destination) toward `dst`, each pair through the stack. */
export function tierFlow(
  stack: PolicyStack,
  senders: readonly Pod[],
  dst: Pod,
  port: number,
  protocol: Protocol,
): TierFlowSummary {
  let allowed = 0;
  let refused: { pod: Pod; step: LayerStep | undefined } | undefined;
  let admitted: { pod: Pod; step: LayerStep | undefined } | undefined;
  const from = senders.filter((p) => p !== dst && p.ips.length > 0);
  for (const src of from) {
    const d = explainStackPair(stack, src, dst, port, protocol);
    if (!d.allowed) {
      refused ??= { pod: src, step: (d.egress.allowed ? d.ingress : d.egress).decidedBy };
    } else {
      allowed++;
      admitted ??= { pod: src, step: d.ingress.decidedBy ?? d.egress.decidedBy };
    }
  }
  const n = from.length;
  const verdict: Verdict = n === 0 || allowed === n ? "allow" : allowed === 0 ? "drop" : "partial";
  const base = refused ?? admitted;
  const words = (s: LayerStep | undefined) => (s ? `${s.label}: ${s.reason}` : "no policy decides: allowed");
  const out: TierFlowSummary = {
    verdict,
    reason: refused
      ? `${refused.pod.key}: ${words(refused.step)}${allowed ? ` (${allowed} of ${n} senders are admitted)` : ""}`
      : admitted
        ? words(admitted.step)
        : "no sender",
    decidedBy: ref(base?.step),
  };
  if (base) out.client = base.pod;
  const tier = tierOf(base?.step);
  if (tier) out.tier = tier;
  return out;
}
