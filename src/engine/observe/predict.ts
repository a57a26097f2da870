/**
 * The engine's prediction for one observed pair, asked, never decided here:
 * pod to pod by the decider (`decide/`), a pod to a Service by the trace
 * (`traceRequest`: kube-proxy's endpoints, then the decider per backend).
 */
import { deciderOf } from "../decide/index.ts";
import type { Model, Pod, Protocol } from "../model/types.ts";
import { buildProxyIndex, type ProxyIndex } from "../proxy/index.ts";
import { traceRequest } from "../trace/index.ts";
import type { TraceResult } from "../trace/types.ts";

/** The object that decided (the CLI contract's `decidedBy`). */
export interface ObservedDecidedBy {
  layer: string;
  kind?: string;
  namespace?: string;
  name?: string;
  rule?: string;
  line?: number;
}

export type PredictedVerdict = "allowed" | "dropped" | "partial";

export interface Prediction {
  verdict: PredictedVerdict;
  decidedBy?: ObservedDecidedBy;
  reason: string;
}

/** What one pair asks: a source pod and a destination pod or Service address (by key, so any model of the same input answers). */
export interface Question {
  src: Pod["key"];
  dst: { kind: "pod"; pod: Pod["key"] } | { kind: "service"; service: string; ip?: string };
  port: number;
  protocol: Protocol;
}

/** Answers questions over one model; the proxy index is built on the first Service question. */
export class Predictor {
  private proxy?: ProxyIndex;
  constructor(readonly model: Model) {}

  ask(q: Question): Prediction | { error: string } {
    const src = this.model.podsByKey.get(q.src);
    if (!src) return { error: `pod ${q.src} is not in the model` };
    if (q.dst.kind === "pod") {
      const dst = this.model.podsByKey.get(q.dst.pod);
      if (!dst) return { error: `pod ${q.dst.pod} is not in the model` };
      return this.pair(src, dst, q.port, q.protocol);
    }
    this.proxy ??= buildProxyIndex(this.model);
    const to = q.dst.ip
      ? ({ kind: "ip", ip: q.dst.ip, port: q.port } as const)
      : ({ kind: "service", service: q.dst.service, port: q.port } as const);
    const t = traceRequest(this.model, this.proxy, { kind: "pod", pod: src.key }, to, q.protocol);
    if (t.error) return { error: t.error };
    return fromTrace(t);
  }

  private pair(src: Pod, dst: Pod, port: number, protocol: Protocol): Prediction {
    const d = deciderOf(this.model).explain(src, dst, port, protocol);
    const p: Prediction = { verdict: d.allowed ? "allowed" : "dropped", reason: d.reason };
    if (d.decidedBy) p.decidedBy = { ...d.decidedBy };
    return p;
  }
}

function fromTrace(t: TraceResult): Prediction {
  const verdict: PredictedVerdict =
    t.verdict === "allow" ? "allowed" : t.verdict === "drop" ? "dropped" : "partial";
  const p: Prediction = { verdict, reason: t.reason };
  if (verdict === "allowed") return p;
  const refused = t.endpoints.find((e) => e.verdict === "drop");
  const check = refused && (refused.egress.verdict === "drop" ? refused.egress : refused.ingress);
  const by: ObservedDecidedBy | undefined =
    t.decidedBy ?? refused?.decidedBy ?? (check?.ref ? { layer: "NetworkPolicy", ...check.ref } : undefined);
  if (by) {
    const out: ObservedDecidedBy = { layer: by.layer };
    if (by.kind !== undefined) out.kind = by.kind;
    if (by.namespace !== undefined) out.namespace = by.namespace;
    if (by.name !== undefined) out.name = by.name;
    if (by.rule !== undefined) out.rule = by.rule;
    if (by.line !== undefined) out.line = by.line;
    p.decidedBy = out;
  }
  return p;
}
