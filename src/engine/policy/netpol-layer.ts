/**
 * NetworkPolicy (networking.k8s.io/v1) as a layer of the stack: a pod that
 * some policy isolates for a direction gets a final answer (Accept when a
 * rule allows, Deny otherwise); a pod that none isolates gets no decision, so
 * the layers below (the Baseline tier, then the default) decide.
 */
import { ClassMatrices, explainEgress, explainIngress, type PolicyIndex } from "../netpol/index.ts";
import type { ClassSet } from "../netpol/bitset.ts";
import type { ClassEntry, ClassQuery, DirectionQuery, LayerCause, LayerStep, PolicyLayer } from "./stack.ts";

/** `matrices`: NetworkPolicy-only class matrices by `port/protocol`, shared with the caller. */
export function netpolLayer(index?: PolicyIndex, matrices = new ClassMatrices()): PolicyLayer {
  const layer = "NetworkPolicy" as const;
  const label = "NetworkPolicy";
  const rowIds = new Map<ClassSet | null, number>();
  return {
    layer,
    label,
    order: 200,
    decide(q: DirectionQuery): LayerStep {
      const v =
        q.direction === "ingress"
          ? explainIngress(q.model, q.self, q.other, q.port, q.protocol)
          : explainEgress(q.model, q.self, q.other, q.port, q.protocol);
      if (!v.isolated)
        return {
          layer,
          label,
          action: "none",
          reason: `no NetworkPolicy selects ${q.self.key} for ${q.direction}`,
        };
      const m = v.allowedBy[0];
      const p = m?.policy ?? v.selecting[0]!;
      const cause: LayerCause = {
        layer,
        kind: "NetworkPolicy",
        namespace: p.namespace,
        name: p.name,
        file: p.source.file,
        doc: p.source.doc,
        line: p.source.line,
      };
      if (m) {
        cause.rule = `${m.direction}[${m.rule.index}]`;
        cause.ruleIndex = m.rule.index;
        cause.line = m.peer?.line || m.port?.line || m.rule.line || p.source.line;
      }
      return { layer, label, action: v.allowed ? "Accept" : "Deny", cause, reason: v.reason, netpol: v };
    },
    classEntries(q: ClassQuery): { key: string; entries: ClassEntry[] } {
      if (!index) throw new Error("netpolLayer: classEntries needs the policy index");
      const isolated =
        q.direction === "ingress" ? index.isolatedIngress[q.subject] : index.isolatedEgress[q.subject];
      if (!isolated) return { key: "", entries: [] };
      const m = matrices.of(index, q.port, q.protocol);
      const row = q.direction === "ingress" ? m.ingressFrom[q.subject]! : m.egressTo[q.subject]!;
      let id = rowIds.get(row);
      if (id === undefined) rowIds.set(row, (id = rowIds.size));
      return {
        key: `np${id}`,
        entries: [
          { action: "Accept", set: row },
          { action: "Deny", set: null },
        ],
      };
    },
  };
}
