/**
 * Ask by workload (issue 14 item 5): a Deployment, StatefulSet, DaemonSet (or
 * any owner the model expanded into pods) as the source or the destination
 * of a question. Every pod of it is traced; the answer is the aggregate (all,
 * some or none of the pairs allowed) with each pair's verdict, and the full
 * trace of one representative pair: a refused one when some are, so the
 * hop-by-hop explains the pods that differ.
 *
 * Syntax: `workload:NAMESPACE/NAME` or `workload:NAMESPACE/KIND/NAME` as a
 * source, with `:PORT` as a destination (each pod's IP on that port, as
 * `pod:NS/NAME:PORT`). KIND tells apart two owners of one name.
 */
import type { Model, Pod, Protocol } from "../model/types.ts";
import type { ProxyIndex } from "../proxy/index.ts";
import { traceRequest } from "./index.ts";
import { emptyResult } from "./result.ts";
import type { TraceResult, TraceVerdict } from "./types.ts";

/** Pairs one workload question may trace; beyond it the question must name a smaller workload or a pod. */
export const MAX_WORKLOAD_PAIRS = 2000;

export interface WorkloadPair {
  from: string;
  to: string;
  verdict: TraceVerdict;
  reason: string;
  sourceIPPreserved: boolean;
}

export interface WorkloadTrace {
  /** allow: every pair is allowed; drop: none is (not even partly); partial: some are. */
  verdict: TraceVerdict;
  /** One sentence: how many pairs of how many are allowed, and what differs. */
  summary: string;
  /** The workloads asked about, as `Kind NS/NAME` with their pod count. */
  from: { name: string; pods: number };
  to: { name: string; pods: number };
  pairs: WorkloadPair[];
  /** The pair whose full trace is shown: the first refused one when some are, else the first. */
  representative: { from: string; to: string };
  trace: TraceResult;
  /** Every pair's own trace, in the order of `pairs` (the graph lights each pod's path). */
  traces: TraceResult[];
  error?: string;
}

export function isWorkloadQuery(text: string): boolean {
  return text.startsWith("workload:");
}

/** The pods of `NS/NAME` or `NS/KIND/NAME` (KIND compared without case), and the workload's name in words. */
export function workloadPods(model: Model, ref: string): { pods: Pod[]; name: string } | { error: string } {
  const parts = ref.split("/");
  if (parts.length < 2 || parts.length > 3 || parts.some((x) => !x))
    return { error: `workload:${ref}: expected workload:NAMESPACE/NAME or workload:NAMESPACE/KIND/NAME` };
  const ns = parts[0]!;
  const name = parts[parts.length - 1]!;
  const kind = parts.length === 3 ? parts[1]!.toLowerCase() : undefined;
  const pods = model.pods.filter(
    (p) =>
      p.workload.namespace === ns &&
      p.workload.name === name &&
      (kind === undefined || p.workload.kind.toLowerCase() === kind),
  );
  if (!pods.length) return { error: `workload:${ref}: no workload ${ref} with pods in the input` };
  const kinds = new Set(pods.map((p) => p.workload.kind));
  if (kinds.size > 1)
    return {
      error: `workload:${ref}: ${[...kinds].join(" and ")} share the name ${ns}/${name}: write workload:${ns}/KIND/${name}`,
    };
  return { pods, name: `${pods[0]!.workload.kind} ${ns}/${name}` };
}

/** A side of the question as trace strings: a workload's pods, or the one source or destination given. */
function side(
  model: Model,
  text: string,
  dest: boolean,
): { list: string[]; name: string; pods: number } | { error: string } {
  if (!isWorkloadQuery(text)) return { list: [text], name: text, pods: 1 };
  let ref = text.slice("workload:".length);
  let port = "";
  if (dest) {
    const i = ref.lastIndexOf(":");
    if (i <= 0)
      return { error: `${text}: a workload destination needs a port (workload:NAMESPACE/NAME:PORT)` };
    port = ref.slice(i + 1);
    ref = ref.slice(0, i);
  }
  const w = workloadPods(model, ref);
  if ("error" in w) return w;
  const usable = w.pods.filter((p) => p.ips.length > 0);
  if (!usable.length) return { error: `${text}: no pod of ${w.name} has an IP yet` };
  return {
    list: usable.map((p) => (dest ? `pod:${p.key}:${port}` : `pod:${p.key}`)),
    name: w.name,
    pods: usable.length,
  };
}

/**
 * Traces every pod pair of a question whose source or destination is a
 * workload. Never throws: a question that cannot be asked comes back with
 * `error` (and an empty trace carrying it).
 */
export function traceWorkload(
  model: Model,
  index: ProxyIndex,
  from: string,
  to: string,
  protocol: Protocol = "TCP",
): WorkloadTrace {
  const src = side(model, from, false);
  const dst = side(model, to, true);
  const failed = (error: string): WorkloadTrace => {
    const trace = emptyResult(protocol, 0);
    trace.error = error;
    trace.reason = error;
    return {
      verdict: "drop",
      summary: error,
      from: { name: from, pods: 0 },
      to: { name: to, pods: 0 },
      pairs: [],
      representative: { from, to },
      trace,
      traces: [],
      error,
    };
  };
  if ("error" in src) return failed(src.error);
  if ("error" in dst) return failed(dst.error);
  const total = src.list.length * dst.list.length;
  if (total > MAX_WORKLOAD_PAIRS)
    return failed(
      `${total} pod pairs to trace (more than ${MAX_WORKLOAD_PAIRS}): ask about a smaller workload or one pod`,
    );
  const pairs: WorkloadPair[] = [];
  const traces = new Map<WorkloadPair, TraceResult>();
  for (const f of src.list) {
    for (const t of dst.list) {
      // A pod to itself is not what a question about two workloads means.
      if (f.startsWith("pod:") && t.startsWith(`${f}:`)) continue;
      const r = traceRequest(model, index, f, t, protocol);
      if (r.error) return failed(r.error);
      const pair: WorkloadPair = {
        from: f,
        to: t,
        verdict: r.verdict,
        reason: r.reason,
        sourceIPPreserved: r.sourceIPPreserved,
      };
      pairs.push(pair);
      traces.set(pair, r);
    }
  }
  if (!pairs.length)
    return failed(`${from} -> ${to}: no pair to trace (the only pod on both sides is the same)`);
  const allowed = pairs.filter((p) => p.verdict === "allow").length;
  const dropped = pairs.filter((p) => p.verdict === "drop").length;
  const verdict: TraceVerdict =
    allowed === pairs.length ? "allow" : dropped === pairs.length ? "drop" : "partial";
  const chosen =
    pairs.find((p) => p.verdict === "drop") ?? pairs.find((p) => p.verdict !== "allow") ?? pairs[0]!;
  const srcW = isWorkloadQuery(from);
  const dstW = isWorkloadQuery(to);
  // What is counted: the source's pods, the destination's pods, or pod pairs when both are workloads.
  const unit =
    srcW && dstW
      ? `pod pairs from ${src.name} to ${dst.name}`
      : srcW
        ? `pods of ${src.name}`
        : `pods of ${dst.name} (as destinations)`;
  const n = pairs.length;
  const summary =
    verdict === "allow"
      ? `all ${n} ${unit} are allowed`
      : verdict === "drop"
        ? `none of the ${n} ${unit} ${n === 1 ? "is" : "are"} allowed`
        : `${allowed} of the ${n} ${unit} ${allowed === 1 ? "is" : "are"} allowed, ${n - allowed} ${n - allowed === 1 ? "is" : "are"} not: the pods differ`;
  return {
    verdict,
    summary,
    from: { name: src.name, pods: src.pods },
    to: { name: dst.name, pods: dst.pods },
    pairs,
    representative: { from: chosen.from, to: chosen.to },
    trace: traces.get(chosen)!,
    traces: pairs.map((p) => traces.get(p)!),
  };
}
