/**
 * Flows under a CNI's own policies (engine/cni): the verdict of a set of
 * senders toward one pod port, ingress at the destination and egress at each
 * sender, as the dialect decides it, with the rule that decided and the L7
 * HTTP rules that restrict the edge ("HTTP: GET /api/.* only").
 */
import type { Model, Pod, Protocol } from "../model/types.ts";
import { explainCniDirection, peerOf, type CniPolicies, type CniVerdict } from "../cni/index.ts";
import type { RefView, Verdict } from "./types.ts";
import { admittedSenders } from "./words.ts";

export interface CniFlowSummary {
  verdict: Verdict;
  reason: string;
  decidedBy: RefView[];
  /** The first sender the CNI refuses, else the first it admits (its trace explains the edge). */
  client?: Pod;
  /** The HTTP rules that restrict the edge, when only L7 rules allow it. */
  l7?: string[];
  /** The CNI dialect whose own policy decided (absent when a NetworkPolicy inside it did). */
  layer?: "CiliumNetworkPolicy" | "CalicoNetworkPolicy";
  /** A cluster tier around the dialect decided (cni/stack.ts), as Flow.tier. */
  tier?: "Admin" | "Baseline";
}

function ref(v: CniVerdict): RefView[] {
  if (!v.ref) return [];
  const r: RefView = { kind: v.ref.kind, name: v.ref.name, line: v.ref.line };
  if (v.ref.namespace) r.namespace = v.ref.namespace;
  return [r];
}

/** Both ends for each sender (pods with an address, other than the destination itself). */
export function cniFlow(
  model: Model,
  cni: CniPolicies,
  senders: readonly Pod[],
  dst: Pod,
  port: number,
  protocol: Protocol,
): CniFlowSummary {
  let allowed = 0;
  let refused: { pod: Pod; v: CniVerdict } | undefined;
  let admitted: { pod: Pod; v: CniVerdict } | undefined;
  let l7: string[] | undefined;
  const from = senders.filter((p) => p !== dst && p.ips.length > 0);
  for (const src of from) {
    const e = src.hostNetwork
      ? undefined
      : explainCniDirection(model, cni, "egress", src, peerOf(model, dst.ips[0] ?? "", dst), port, protocol);
    const i = dst.hostNetwork
      ? undefined
      : explainCniDirection(model, cni, "ingress", dst, peerOf(model, src.ips[0] ?? "", src), port, protocol);
    const deciding = e && !e.allowed ? e : i && !i.allowed ? i : undefined;
    if (deciding) refused ??= { pod: src, v: deciding };
    else {
      allowed++;
      const v = i ?? e;
      if (v) admitted ??= { pod: src, v };
      if (i?.l7) l7 = i.l7.rules;
    }
  }
  const n = from.length;
  const verdict: Verdict = n === 0 || allowed === n ? "allow" : allowed === 0 ? "drop" : "partial";
  const base = refused ?? admitted;
  const out: CniFlowSummary = {
    verdict,
    reason: refused
      ? `${refused.pod.key}: ${refused.v.reason}${allowed ? admittedSenders(allowed) : ""}`
      : admitted
        ? admitted.v.reason
        : "no sender",
    decidedBy: base ? ref(base.v) : [],
  };
  if (base) out.client = base.pod;
  const layer = base?.v.layer;
  if (base?.v.ref && (layer === "CiliumNetworkPolicy" || layer === "CalicoNetworkPolicy")) out.layer = layer;
  if (layer === "AdminNetworkPolicy") out.tier = "Admin";
  else if (layer === "BaselineAdminNetworkPolicy") out.tier = "Baseline";
  if (l7) out.l7 = l7;
  return out;
}
