/** The playground's questions of a session: one trace (L4, or L7 through a router or mesh) and a port's matrix. */
import { analysisDecider, tierOf } from "./tiers.ts";
import { explainStackPair, type PolicyStack } from "../policy/index.ts";
import { meshPresent, parseAnyDestination, traceL7, type L7TraceResult } from "../l7/index.ts";
import type { Model, Pod } from "../model/types.ts";
import type { PolicyIndex } from "../netpol/index.ts";
import type { ProxyIndex } from "../proxy/index.ts";
import { traceRequest } from "../trace/index.ts";
import { isWorkloadQuery, traceWorkload } from "../trace/workload.ts";
import { podId, serviceId, workloadId } from "./refs.ts";
import { refOfTrace, traceView, workloadPaths } from "./flows.ts";
import type { MatrixQuery, MatrixView, TraceQuery, TraceView } from "./types.ts";

export function trace(model: Model, proxy: ProxyIndex | undefined, q: TraceQuery): TraceView {
  if (!proxy)
    return {
      from: q.from,
      to: q.to,
      protocol: q.protocol,
      verdict: "drop",
      reason: "the kube-proxy model failed to build",
      sourceIPPreserved: true,
      endpoints: [],
      hops: [],
      path: [],
      edges: [],
      error: "the kube-proxy model failed to build",
    };
  if (isWorkloadQuery(q.from) || isWorkloadQuery(q.to)) {
    const w = traceWorkload(model, proxy, q.from, q.to, q.protocol);
    if (w.error) return { ...traceView(w.trace, q.from, q.to, q.protocol), error: w.error };
    const v = traceView(w.trace, w.representative.from, w.representative.to, q.protocol);
    v.workload = {
      from: q.from,
      to: q.to,
      verdict: w.verdict,
      summary: w.summary,
      source: w.from,
      destination: w.to,
      pairs: w.pairs.map((p) => ({ from: p.from, to: p.to, verdict: p.verdict, reason: p.reason })),
      representative: w.representative,
    };
    // The graph lights every pod's path, each with its own verdict, not only the traced pair's.
    const lit = workloadPaths(w);
    v.path = lit.path;
    v.edges = lit.edges;
    return v;
  }
  const dst = parseAnyDestination(q.to);
  // A plain question (no HTTP request, no router, no mesh) keeps the packet-level answer the graph's flows give;
  // in a mesh the sidecars decide, and every surface answers as `ktl trace` does (engine/l7).
  // An ExternalName Service outside the cluster is answered as its name (engine/l7 hostTrace), as `ktl trace` does.
  const externalName =
    !("error" in dst) &&
    dst.kind === "service" &&
    model.services.some((s) => `${s.namespace}/${s.name}` === dst.service && s.type === "ExternalName");
  if (
    "error" in dst ||
    (!q.http &&
      !externalName &&
      (dst.kind === "service" || dst.kind === "pod" || dst.kind === "ip") &&
      !meshPresent(model))
  )
    return traceView(traceRequest(model, proxy, q.from, q.to, q.protocol), q.from, q.to, q.protocol);
  // As `ktl trace` answers: every destination of the contract, with or without an HTTP request (engine/l7).
  const t = traceL7(model, proxy, q.from, dst, q.protocol, q.http);
  return l7View(t, q);
}

/** The trace view plus the L7 fields of `ktl trace --json` (backends, httpStatus, redirect, decidedBy) and the router on the path. */
function l7View(t: L7TraceResult, q: TraceQuery): TraceView {
  const v = traceView(t, q.from, q.to, q.protocol);
  if (t.httpStatus !== undefined) v.httpStatus = t.httpStatus;
  if (t.redirect) v.redirect = { ...t.redirect };
  if (t.decidedBy) v.decidedBy = { ...t.decidedBy };
  if (t.request)
    v.request = { method: t.request.method, path: t.request.path, headers: { ...t.request.headers } };
  if (t.profile) v.profile = t.profile;
  if (t.assumed?.length) v.assumed = [...t.assumed];
  if (t.backends)
    v.backends = t.backends.map((b) => {
      const x: NonNullable<TraceView["backends"]>[number] = {
        service: serviceId(b.service),
        port: b.port,
        weight: b.weight,
      };
      if (b.subset) x.subset = b.subset;
      if (b.ref) x.ref = refOfTrace(b.ref);
      return x;
    });
  // The router on the path: the Gateway or Ingress, or the VirtualService that routed in the client's sidecar.
  let router: string | undefined;
  if (t.router?.kind === "Gateway" || t.router?.kind === "Ingress")
    router = `${t.router.kind.toLowerCase()}:${t.router.namespace ?? ""}/${t.router.name}`;
  else {
    const vs = t.hops.find((h) => h.ref?.kind === "VirtualService")?.ref;
    if (vs) router = `virtualservice:${vs.namespace ?? ""}/${vs.name}`;
  }
  if (t.router) {
    v.router = {
      layer: t.router.layer,
      kind: t.router.kind,
      name: t.router.name,
      pods: t.router.pods.map(podId),
    };
    if (t.router.namespace) v.router.namespace = t.router.namespace;
    if (router) v.router.id = router;
  }
  // The graph lights the path as a star from its second element (graph/model.ts pathEdges): client -> router -> each backend Service.
  if (router && !v.error)
    v.path = [...new Set([v.path[0]!, router, ...(v.backends ?? []).map((b) => b.service)])];
  return v;
}

// ---------- matrix ----------

export function matrix(model: Model, index: PolicyIndex, q: MatrixQuery, maxRows: number): MatrixView {
  const base = { port: q.port, protocol: q.protocol, by: q.by };
  // Every cell is the decider's (decide/): the profile, a CNI dialect and the tiers are its choice.
  const decider = analysisDecider(model, index);
  const dm = decider.matrix(q.port, q.protocol);
  const allowed = (a: Pod, b: Pod) => dm.allowed(a, b);
  const pods = model.pods;
  const stack = decider.stack?.layered ? decider.stack : undefined;
  const tierMark = stack && model.clusterPolicies.length > 0 ? tierMarker(stack, index, q) : undefined;
  if (q.by === "pod") {
    if (pods.length > maxRows)
      return tooLarge(base, `${pods.length} pods are too many to show one by one: view by workload instead`);
    const ids = pods.map((p) => podId(p.key));
    const cells = pods.map((a) => pods.map((b) => (allowed(a, b) ? "a" : "d")).join(""));
    const out: MatrixView = {
      ...base,
      ids,
      labels: pods.map((p) => p.key),
      cells,
      pairs: pods.map((a) => pods.map((b) => [podId(a.key), podId(b.key)] as [string, string])),
    };
    if (tierMark)
      out.tiers = pods.map((a, i) =>
        pods.map((b, j) => (cells[i]![j] === "a" ? "." : tierMark(a, b))).join(""),
      );
    return out;
  }
  const groups = new Map<string, { label: string; pods: Pod[] }>();
  for (const p of pods) {
    const id = workloadId(p.workload);
    const g = groups.get(id);
    if (g) g.pods.push(p);
    else groups.set(id, { label: `${p.workload.namespace}/${p.workload.name}`, pods: [p] });
  }
  const list = [...groups];
  if (list.length > maxRows) return tooLarge(base, `${list.length} workloads are too many to show`);
  const cells: string[] = [];
  const pairs: [string, string][][] = [];
  const tierRows: string[] = [];
  for (const [, ga] of list) {
    let row = "";
    let tierRow = "";
    const rowPairs: [string, string][] = [];
    for (const [, gb] of list) {
      let any = false;
      let all = true;
      let firstAllowed: [string, string] | undefined;
      let firstDropped: [string, string] | undefined;
      let droppedBy: string | undefined;
      for (const a of ga.pods) {
        for (const b of gb.pods) {
          if (allowed(a, b)) {
            any = true;
            firstAllowed ??= [podId(a.key), podId(b.key)];
          } else {
            all = false;
            if (!firstDropped) {
              firstDropped = [podId(a.key), podId(b.key)];
              if (tierMark) droppedBy = tierMark(a, b);
            }
          }
        }
      }
      row += all ? "a" : any ? "p" : "d";
      tierRow += droppedBy ?? ".";
      rowPairs.push(firstDropped ?? firstAllowed!);
    }
    cells.push(row);
    pairs.push(rowPairs);
    tierRows.push(tierRow);
  }
  const out: MatrixView = {
    ...base,
    ids: list.map(([id]) => id),
    labels: list.map(([, g]) => g.label),
    cells,
    pairs,
  };
  if (tierMark) out.tiers = tierRows;
  return out;
}

/** A matrix too large to show cell by cell: no cells, and why. */
function tooLarge(base: Pick<MatrixView, "port" | "protocol" | "by">, why: string): MatrixView {
  return { ...base, ids: [], labels: [], cells: [], pairs: [], tooLarge: why };
}

/**
 * The tier whose rule drops a pair, for the matrix's cells ("A", "B" or "."):
 * the exact stack walk of the pair (as its trace), once per pair of policy
 * classes (their pods get the same decisions), except for a pod to itself and a
 * host-network sender, which the stack judges one by one.
 */
function tierMarker(stack: PolicyStack, index: PolicyIndex, q: MatrixQuery): (a: Pod, b: Pod) => string {
  const byClass = new Map<number, string>();
  const n = index.classes.length;
  const mark = (a: Pod, b: Pod) => {
    const d = explainStackPair(stack, a, b, q.port, q.protocol);
    if (d.allowed) return ".";
    const tier = tierOf(d.egress.allowed ? d.ingress.decidedBy : d.egress.decidedBy);
    return tier === "Admin" ? "A" : tier === "Baseline" ? "B" : ".";
  };
  return (a, b) => {
    if (a === b || a.hostNetwork) return mark(a, b);
    const k = index.classOf[a.index]! * n + index.classOf[b.index]!;
    let m = byClass.get(k);
    if (m === undefined) byClass.set(k, (m = mark(a, b)));
    return m;
  };
}

// ---------- the session ----------
