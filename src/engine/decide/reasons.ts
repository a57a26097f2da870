/**
 * Every reason for one direction of one connection: not only the step that
 * decided (`Decider.explain`'s `decidedBy`) but each object that took part,
 * as netpol-analyzer's `list --explain` lists them: the cluster tiers' Pass
 * rules on the way, every NetworkPolicy rule that admits, and, when
 * NetworkPolicy refuses, every policy that isolates the pod with why none of
 * its rules admits. An empty list means no policy took part: the default
 * allowed.
 *
 * The verdict is the decider's own walk (policy/ `decideStack`, cni/
 * `explainCniDirection`); this only reads the steps it took.
 */
import type { Model, Pod, Protocol } from "../model/types.ts";
import type { CniPolicies, CniVerdict } from "../cni/index.ts";
import { explainCniDirection, peerOf } from "../cni/index.ts";
import { policyMiss, type PolicyMiss } from "../netpol/index.ts";
import {
  explainStackEgress,
  explainStackIngress,
  type LayerName,
  type PolicyStack,
  type StackPeer,
} from "../policy/index.ts";

export type ReasonEffect = "allows" | "denies" | "passes" | "isolates";

export interface Reason {
  layer: LayerName | CniVerdict["layer"];
  /** "NetworkPolicy", "AdminNetworkPolicy", "ClusterNetworkPolicy", "CiliumNetworkPolicy", ... */
  kind: string;
  namespace?: string;
  name: string;
  /** `isolates`: the policy selects the pod for the direction and none of its rules admits the connection. */
  effect: ReasonEffect;
  /** The rule: its name where it has one, else `ingress[i]`/`egress[i]`. */
  rule?: string;
  /** 0-based, for NetworkPolicy rules. */
  ruleIndex?: number;
  /** For `isolates`: why no rule admits. */
  miss?: PolicyMiss;
  line?: number;
  /** In words, where no structured field says it (a pod's own node, a CNI's walk). */
  text?: string;
}

export interface DirectionReasons {
  direction: "ingress" | "egress";
  allowed: boolean;
  /** In the order the layers were walked; empty: no policy took part (the default allows). */
  reasons: Reason[];
}

type Side = "ingress" | "egress";

export function stackReasons(
  stack: PolicyStack,
  direction: Side,
  self: Pod,
  other: StackPeer,
  port: number,
  protocol: Protocol,
): DirectionReasons {
  const d =
    direction === "ingress"
      ? explainStackIngress(stack, self, other, port, protocol)
      : explainStackEgress(stack, self, other, port, protocol);
  const reasons: Reason[] = [];
  for (const step of d.steps) {
    if (step.action === "none") continue;
    const v = step.netpol;
    if (v) {
      if (v.ownNode) {
        reasons.push({
          layer: step.layer,
          kind: "Node",
          name: v.ownNode,
          effect: "allows",
          text: v.reason,
        });
        continue;
      }
      if (v.allowed) {
        for (const m of v.allowedBy)
          reasons.push({
            layer: step.layer,
            kind: "NetworkPolicy",
            namespace: m.policy.namespace,
            name: m.policy.name,
            effect: "allows",
            rule: `${direction}[${m.rule.index}]`,
            ruleIndex: m.rule.index,
            line: m.peer?.line || m.port?.line || m.rule.line || m.policy.source.line,
          });
        continue;
      }
      const dst = direction === "ingress" ? self : other.pod;
      for (const p of v.selecting)
        reasons.push({
          layer: step.layer,
          kind: "NetworkPolicy",
          namespace: p.namespace,
          name: p.name,
          effect: "isolates",
          miss: policyMiss(stack.model, p, direction, other, dst),
          line: p.source.line,
        });
      continue;
    }
    const c = step.cause;
    if (!c) continue;
    const r: Reason = {
      layer: step.layer,
      kind: c.kind,
      name: c.name,
      effect: step.action === "Pass" ? "passes" : step.action === "Accept" ? "allows" : "denies",
      line: c.line,
    };
    if (c.namespace) r.namespace = c.namespace;
    if (c.rule) r.rule = c.rule;
    if (c.ruleIndex !== undefined) r.ruleIndex = c.ruleIndex;
    reasons.push(r);
  }
  return { direction, allowed: d.allowed, reasons };
}

export function cniReasons(
  model: Model,
  cni: CniPolicies,
  direction: Side,
  self: Pod,
  other: StackPeer,
  port: number,
  protocol: Protocol,
): DirectionReasons {
  // A host-network pod is no CNI endpoint: its own side enforces nothing (cniPairAllowed).
  if (self.hostNetwork) return { direction, allowed: true, reasons: [] };
  const v = explainCniDirection(
    model,
    cni,
    direction,
    self,
    peerOf(model, other.ip, other.pod),
    port,
    protocol,
  );
  const reasons: Reason[] = [];
  if (v.ref) {
    const r: Reason = {
      layer: v.layer,
      kind: v.ref.kind,
      name: v.ref.name,
      effect: v.allowed ? "allows" : "denies",
      line: v.ref.line,
      text: v.reason,
    };
    if (v.ref.namespace) r.namespace = v.ref.namespace;
    if (v.ref.rule) r.rule = v.ref.rule;
    reasons.push(r);
  } else if (!v.allowed)
    reasons.push({ layer: v.layer, kind: v.layer, name: "", effect: "denies", text: v.reason });
  return { direction, allowed: v.allowed, reasons };
}
