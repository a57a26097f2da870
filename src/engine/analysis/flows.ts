/**
 * Flow records for the graph, each made of engine decisions:
 *
 * - endpoint: Service port -> endpoint pod. The verdict is NetworkPolicy
 *   ingress at the endpoint on its port, over every pod of the cluster as a
 *   source (classMatrix): allow when every source passes, drop when none
 *   does, partial otherwise. An endpoint that is not ready is a traffic
 *   policy drop: kube-proxy leaves it out while a ready one exists
 *   (pkg/proxy/topology.go CategorizeEndpoints).
 * - service: a pod sends to a Service port; external: a client outside the
 *   cluster (203.0.113.10) reaches a Service at each node. Both are the flow
 *   model's (flows/, shared with `ktl diff` and the what-if marks), each with
 *   `traceRequest`'s verdict. Service flows are drawn for small inputs only
 *   (FLOW_BUDGET traces); larger inputs show these on demand.
 */
import { cniFlow } from "./cni.ts";
import { analysisDecider, tierFlowJudge } from "./tiers.ts";
import type { Model, Pod, Protocol } from "../model/types.ts";
import type { NetworkPolicy } from "../model/networkpolicy.ts";
import { asPodKey } from "../model/ids.ts";
import type { PolicyIndex } from "../netpol/index.ts";
import type { ClassSet } from "../netpol/bitset.ts";
import type { ProxyIndex } from "../proxy/index.ts";
import { meshPresent, parseAnyDestination, traceL7 } from "../l7/index.ts";
import { traceRequest, type TraceEndpoint, type TraceRef, type TraceResult } from "../trace/index.ts";
import type { WorkloadTrace } from "../trace/workload.ts";
import { isPolicyLayer } from "../trace/render.ts";
import { externalId, podId, refOfPolicy, refOfSource, serviceId } from "./refs.ts";
import {
  externalFlowSpecs,
  hasExternalServices,
  serviceFlowCount,
  senderPods,
  serviceFlowSpecs,
  type ServiceFlowSpec,
} from "../flows/index.ts";
import type { DropCause, Flow, RefView, TracePathEdge, TraceView } from "./types.ts";

import { EXTERNAL_CLIENT_IP } from "./constants.ts";
import { keptMatrices, sameEndpointInputs, type EndpointInputs, type KeptAnswer } from "./kept.ts";

export { EXTERNAL_CLIENT_IP };

/** Most traces the drawn flows may cost per analysis (about 0.2 ms each at the S tier). */
export const FLOW_BUDGET = 400;

export function refOfTrace(r: TraceRef): RefView {
  const v: RefView = { kind: r.kind, name: r.name, line: r.line };
  if (r.namespace !== undefined) v.namespace = r.namespace;
  return v;
}

function sameRef(a: RefView, b: RefView): boolean {
  return a.kind === b.kind && a.name === b.name && a.namespace === b.namespace && a.line === b.line;
}

function pushRef(list: RefView[], r: RefView | undefined) {
  if (r && !list.some((x) => sameRef(x, r))) list.push(r);
}

function tierOfLayer(layer: string | undefined): "Admin" | "Baseline" | undefined {
  return layer === "AdminNetworkPolicy"
    ? "Admin"
    : layer === "BaselineAdminNetworkPolicy"
      ? "Baseline"
      : undefined;
}

/** The cluster tier that decided a trace: its first refusing endpoint's, or (allowed) its first endpoint's. */
export function traceTier(t: TraceResult): "Admin" | "Baseline" | undefined {
  const ep =
    t.verdict === "allow" ? t.endpoints[0] : t.endpoints.find((e) => e.verdict === "drop" && e.decidedBy);
  return tierOfLayer(ep?.decidedBy?.layer);
}

/** What decided a trace, read off its hops and endpoints. */
export function causesOf(t: TraceResult): { dropCause?: DropCause; decidedBy: RefView[]; reason: string } {
  const decidedBy: RefView[] = [];
  const drop = t.hops.find((h) => h.verdict === "drop");
  if (t.verdict === "allow") {
    for (const ep of t.endpoints) {
      if (ep.ingress.isolated && ep.ingress.ref) pushRef(decidedBy, refOfTrace(ep.ingress.ref));
      if (ep.egress.isolated && ep.egress.ref) pushRef(decidedBy, refOfTrace(ep.egress.ref));
    }
    return { decidedBy, reason: t.reason };
  }
  const policyDrop = t.endpoints.some((ep) => ep.verdict === "drop");
  for (const ep of t.endpoints) {
    if (ep.verdict !== "drop") continue;
    if (ep.ingress.verdict === "drop" && ep.ingress.ref) pushRef(decidedBy, refOfTrace(ep.ingress.ref));
    if (ep.egress.verdict === "drop" && ep.egress.ref) pushRef(decidedBy, refOfTrace(ep.egress.ref));
  }
  for (const h of t.hops) if (h.verdict === "drop" && h.ref) pushRef(decidedBy, refOfTrace(h.ref));
  const dropCause: DropCause =
    policyDrop || (drop !== undefined && isPolicyLayer(drop.cause.layer)) ? "policy" : "traffic-policy";
  return { dropCause, decidedBy, reason: t.reason };
}

/** What decided one endpoint of a trace: the policies that dropped it, or the ones that isolate it and allowed it. */
function endpointCauses(ep: TraceEndpoint): { dropCause?: DropCause; decidedBy: RefView[] } {
  const decidedBy: RefView[] = [];
  for (const check of [ep.ingress, ep.egress]) {
    const decides = ep.verdict === "allow" ? check.isolated : check.verdict === "drop";
    if (decides && check.ref) pushRef(decidedBy, refOfTrace(check.ref));
  }
  return ep.verdict === "drop" ? { dropCause: "policy", decidedBy } : { decidedBy };
}

/** The parts of a traced path with the trace's verdict for each (TracePathEdge). */
function pathParts(t: TraceResult, path: readonly string[]): TracePathEdge[] {
  if (path.length < 2) return [];
  const whole = causesOf(t);
  const first: TracePathEdge = {
    source: path[0]!,
    target: path[1]!,
    verdict: t.verdict,
    reason: whole.reason,
    decidedBy: whole.decidedBy,
  };
  if (t.verdict !== "allow" && whole.dropCause) first.dropCause = whole.dropCause;
  const tier = traceTier(t);
  if (tier) first.tier = tier;
  const parts = [first];
  if (!path[1]!.startsWith("service:")) return parts;
  const seen = new Set<string>();
  for (const ep of t.endpoints) {
    if (!ep.pod || seen.has(ep.pod)) continue;
    seen.add(ep.pod);
    const part: TracePathEdge = {
      source: path[1]!,
      target: podId(ep.pod),
      verdict: ep.verdict,
      reason: ep.reason,
      ...endpointCauses(ep),
    };
    const epTier = tierOfLayer(ep.decidedBy?.layer);
    if (epTier) part.tier = epTier;
    parts.push(part);
  }
  return parts;
}

/** The trace in the view's shape, with the ids of the graph elements on its path. */
function pathOf(t: TraceResult, from: string): string[] {
  const path: string[] = [];
  if (!t.error) {
    // An external client is one graph element whichever node its packet arrives at.
    path.push(from.startsWith("external:") ? from.split("@")[0]! : from);
    if (t.service) path.push(serviceId(`${t.service.namespace}/${t.service.name}`));
    for (const ep of t.endpoints) if (ep.pod) path.push(podId(ep.pod));
    if (path.length === 1 && t.to.kind === "pod") path.push(podId(asPodKey(t.to.name)));
  }
  return path;
}

/**
 * Asked by workload: every pair's path, each part with its own trace's
 * verdict, the representative's first (so `edges[0]` stays the traced
 * pair's). A part that several pairs cross (a Service to one backend) keeps
 * one verdict when they agree; where they differ it is partial, with each
 * distinct reason and every deciding object.
 */
export function workloadPaths(w: WorkloadTrace): { path: string[]; edges: TracePathEdge[] } {
  const rep = w.pairs.findIndex((p) => p.from === w.representative.from && p.to === w.representative.to);
  const order =
    rep < 0 ? w.pairs.map((_, i) => i) : [rep, ...w.pairs.map((_, i) => i).filter((i) => i !== rep)];
  const path: string[] = [];
  const onPath = new Set<string>();
  const parts = new Map<string, TracePathEdge[]>();
  for (const i of order) {
    const t = w.traces[i];
    if (!t) continue;
    const p = pathOf(t, w.pairs[i]!.from);
    for (const id of p) {
      if (onPath.has(id)) continue;
      onPath.add(id);
      path.push(id);
    }
    for (const part of pathParts(t, p)) {
      const k = `${part.source}->${part.target}`;
      const l = parts.get(k);
      if (l) l.push(part);
      else parts.set(k, [part]);
    }
  }
  const edges = [...parts.values()].map((l): TracePathEdge => {
    const first = l[0]!;
    if (l.every((x) => x.verdict === first.verdict)) {
      if (l.length === 1) return first;
      const merged: TracePathEdge = { ...first, reason: [...new Set(l.map((x) => x.reason))].join("; ") };
      merged.decidedBy = refsOf(l);
      return merged;
    }
    const out: TracePathEdge = {
      source: first.source,
      target: first.target,
      verdict: "partial",
      reason: [...new Set(l.map((x) => x.reason))].join("; "),
      decidedBy: refsOf(l),
    };
    const cause = l.find((x) => x.dropCause)?.dropCause;
    if (cause) out.dropCause = cause;
    // The tier that refused some of the pods, as the refused part carries it.
    const tier = l.find((x) => x.verdict !== "allow" && x.tier)?.tier;
    if (tier) out.tier = tier;
    return out;
  });
  return { path, edges };
}

function refsOf(parts: readonly TracePathEdge[]): RefView[] {
  const seen = new Set<string>();
  const out: RefView[] = [];
  for (const r of parts.flatMap((p) => p.decidedBy)) {
    const k = JSON.stringify(r);
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(r);
  }
  return out;
}

export function traceView(t: TraceResult, from: string, to: string, protocol: Protocol): TraceView {
  const path = pathOf(t, from);
  const v: TraceView = {
    from,
    to,
    protocol,
    verdict: t.verdict,
    reason: t.reason,
    sourceIPPreserved: t.sourceIPPreserved,
    endpoints: t.endpoints.map((ep) => {
      const e: TraceView["endpoints"][number] = {
        ip: ep.ip,
        port: ep.port,
        probability: ep.probability,
        verdict: ep.verdict,
        reason: ep.reason,
        sourceIP: ep.sourceIP,
        sourceIPPreserved: ep.sourceIPPreserved,
      };
      if (ep.pod) e.pod = ep.pod;
      if (ep.node) e.node = ep.node;
      return e;
    }),
    hops: t.hops.map((h) => {
      const hop: TraceView["hops"][number] = {
        step: h.step,
        verdict: h.verdict,
        detail: h.detail,
        cause: h.cause,
      };
      if (h.ref) hop.ref = refOfTrace(h.ref);
      if (h.endpoints) hop.endpoints = [...h.endpoints];
      return hop;
    }),
    path,
    edges: pathParts(t, path),
  };
  if (t.handledBy) v.handledBy = t.handledBy;
  if (t.error) v.error = t.error;
  return v;
}

interface Budget {
  left: number;
}

/** One flow of the flow model (flows/), traced. */
function tracedFlow(model: Model, proxy: ProxyIndex, spec: ServiceFlowSpec): Flow {
  const { port, protocol, name } = spec.port;
  // In a mesh the client's sidecar routes the request: the flow says what `ktl trace` says for it.
  const dst = meshPresent(model) ? parseAnyDestination(spec.traceTo) : undefined;
  const t =
    dst && !("error" in dst)
      ? traceL7(model, proxy, spec.traceFrom, dst, protocol)
      : traceRequest(model, proxy, spec.traceFrom, spec.traceTo, protocol);
  const c = causesOf(t);
  const flow: Flow = {
    id: `${spec.kind}|${spec.traceFrom}|${spec.traceTo}/${protocol}`,
    kind: spec.kind,
    from: spec.from,
    to: spec.to,
    port,
    protocol,
    verdict: t.verdict,
    reason: c.reason,
    decidedBy: c.decidedBy,
    traceTo: spec.traceTo,
  };
  if (name) flow.portName = name;
  if (t.verdict !== "allow" && c.dropCause) flow.dropCause = c.dropCause;
  const tier = traceTier(t);
  if (tier) flow.tier = tier;
  return flow;
}

/** Every pod-to-Service flow of the flow model, traced; none when they would cost more than the budget. */
export function serviceFlows(
  model: Model,
  index: PolicyIndex,
  proxy: ProxyIndex,
  budget: Budget,
): { flows: Flow[]; skipped: boolean } {
  const n = serviceFlowCount(model, index, proxy);
  if (n > budget.left) return { flows: [], skipped: n > 0 };
  budget.left -= n;
  return {
    flows: serviceFlowSpecs(model, index, proxy).map((f) => tracedFlow(model, proxy, f)),
    skipped: false,
  };
}

/** Outside-client flows of the flow model, traced, while the budget lasts. */
export function externalFlows(model: Model, proxy: ProxyIndex, budget: Budget): Flow[] {
  const flows: Flow[] = [];
  for (const spec of externalFlowSpecs(model, EXTERNAL_CLIENT_IP)) {
    if (budget.left-- <= 0) return flows;
    flows.push(tracedFlow(model, proxy, spec));
  }
  return flows;
}

export { externalId, hasExternalServices };

interface IngressSummary {
  verdict: "allow" | "drop" | "partial";
  reason: string;
  decidedBy: RefView[];
  /** A source pod whose trace explains the verdict: a refused one when some are. */
  client: Pod | undefined;
}

/**
 * How one ingress row splits the source classes: how many it admits and refuses, the pods it admits, and the
 * first two classes of each side (a summary's client is a pod of the first of them that has one other than
 * the endpoint: a pod is in one class, so the second always does). No list of every class: there is a split
 * per distinct row, and the lists were most of what an analysis's endpoint flows allocated.
 */
interface RowSplit {
  admitted: number;
  refused: number;
  admittedPods: number;
  firstAdmitted: number[];
  firstRefused: number[];
}

function splitSources(index: PolicyIndex, from: ClassSet | null, sources: readonly number[]): RowSplit {
  const split: RowSplit = { admitted: 0, refused: 0, admittedPods: 0, firstAdmitted: [], firstRefused: [] };
  for (const c of sources) {
    if (from === null || from.has(c)) {
      if (split.admitted++ < 2) split.firstAdmitted.push(c);
      split.admittedPods += index.classes[c]!.pods.length;
    } else if (split.refused++ < 2) split.firstRefused.push(c);
  }
  return split;
}

/**
 * A class's ingress policies as an edge names them: the references, those with ingress rules (the ones that
 * can admit) first, and the first three names. Once per class's list, not per port (the list is one array
 * per class of an index).
 */
const wordsOf = new WeakMap<readonly NetworkPolicy[], { policies: RefView[]; names: string }>();

function ingressWords(list: readonly NetworkPolicy[]): { policies: RefView[]; names: string } {
  let w = wordsOf.get(list);
  if (w) return w;
  const policies = list.map((pol) => refOfPolicy(pol));
  const listed = policies.slice(0, 3).map((r) => `${r.namespace}/${r.name}`);
  const names =
    policies.length > 3 ? `${listed.join(", ")} and ${policies.length - 3} more` : listed.join(", ");
  const rules = new Map(list.map((pol) => [pol.key, pol.ingress.length]));
  policies.sort(
    (a, b) =>
      (rules.get(`${b.namespace}/${b.name}`) ? 1 : 0) - (rules.get(`${a.namespace}/${a.name}`) ? 1 : 0),
  );
  wordsOf.set(list, (w = { policies, names }));
  return w;
}

/** NetworkPolicy ingress at one class of endpoint pods on one port, over every pod of the cluster as a source. */
function summarizeIngress(
  index: PolicyIndex,
  split: RowSplit,
  cls: number,
  endpoint: Pod,
  port: number,
  protocol: Protocol,
): IngressSummary {
  const { policies, names } = ingressWords(index.ingressPolicies[cls]!);
  const reprOf = (c: number) =>
    index.classes[c]!.pods.find((x) => x !== endpoint && x.ips.length > 0 && x.nodeName);
  const { admitted, refused, firstAdmitted, firstRefused } = split;
  let client: Pod | undefined;
  for (const c of firstRefused) if ((client = reprOf(c))) break;
  if (!client) for (const c of firstAdmitted) if ((client = reprOf(c))) break;
  if (refused === 0) {
    return {
      verdict: "allow",
      reason: policies.length
        ? `every pod is admitted on ${protocol}/${port} (ingress isolated by ${names})`
        : `no NetworkPolicy isolates ${endpoint.key} for ingress`,
      decidedBy: policies,
      client,
    };
  }
  if (admitted === 0) {
    return {
      verdict: "drop",
      reason: `isolated for ingress by ${names}; no rule admits any pod on ${protocol}/${port}`,
      decidedBy: policies,
      client,
    };
  }
  return {
    verdict: "partial",
    // The refused are "every other pod", not a count: a count of the whole cluster would change this edge's
    // words on every replica edit anywhere (and send every endpoint flow again).
    reason: `${split.admittedPods} ${split.admittedPods === 1 ? "pod is" : "pods are"} admitted on ${protocol}/${port}, every other pod is refused (ingress isolated by ${names})`,
    decidedBy: policies,
    client,
  };
}

export function endpointFlows(
  model: Model,
  index: PolicyIndex,
  proxy: ProxyIndex,
  kept?: KeptAnswer,
): Flow[] {
  // With the previous analysis's flows (kept.ts), an unchanged flow is the very object it was.
  kept?.endpointFlows.round();
  const flows: Flow[] = [];
  const matrices = keptMatrices(index, kept);
  const splits = new Map<ClassSet | null, RowSplit>();
  const summaries = new Map<string, IngressSummary>();
  const sources = index.classes
    .filter((c) => c.pods.some((p) => p.ips.length > 0 && p.nodeName))
    .map((c) => c.index);
  let senders: Pod[] | undefined;
  // The decider chooses what enforces policy (decide/); this only words its answer per edge.
  const decider = analysisDecider(model, index, kept);
  const enforcement = decider.enforcement;
  const stack = decider.stack?.layered ? decider.stack : undefined;
  let tierJudge: ReturnType<typeof tierFlowJudge> | undefined;
  // One scratch record of a flow's inputs (EndpointInputs), copied only for a flow that is built.
  const plain = kept && (enforcement.kind === "none" || (enforcement.kind === "stack" && !stack));
  const probe: EndpointInputs = {
    service: "",
    pod: "",
    port: 0,
    protocol: "TCP",
    name: undefined,
    enforcement: enforcement.kind === "none" ? `none:${enforcement.why}` : enforcement.kind,
    verdict: "",
    reason: "",
    decidedBy: [],
    client: undefined,
  };
  const summaryOf = (pod: Pod, port: number, protocol: Protocol): IngressSummary => {
    const cls = index.classOf[pod.index]!;
    const key = `${cls}/${port}/${protocol}`;
    let sum = summaries.get(key);
    if (!sum) {
      // A class no policy isolates for ingress admits every class (classMatrix's null row): no matrix needed.
      let from: ClassSet | null = null;
      if (index.ingressPolicies[cls]!.length > 0) {
        from = matrices.of(index, port, protocol).ingressFrom[cls] ?? null;
      }
      let split = splits.get(from);
      if (!split) splits.set(from, (split = splitSources(index, from, sources)));
      summaries.set(key, (sum = summarizeIngress(index, split, cls, pod, port, protocol)));
    }
    return sum;
  };
  for (const s of model.services) {
    const sp = proxy.services.get(s.key);
    if (!sp) continue;
    s.ports.forEach((p, i) => {
      const eps = sp.ports[i];
      if (!eps) return;
      const seen = new Set<string>();
      for (const ep of [...eps.v4, ...eps.v6]) {
        if (!ep.pod || seen.has(ep.pod)) continue;
        seen.add(ep.pod);
        const pod = model.podsByKey.get(ep.pod);
        if (!pod) continue;
        // NetworkPolicy's own summary of the endpoint's ingress, built only for the flows that read it: under
        // a CNI's policies or the cluster tiers a ready endpoint's flow is their judge's (at 10,000 pods with
        // tiers, building it anyway took a class matrix per port and 50 ms an analysis).
        const judged = ep.ready && (enforcement.kind === "none" || enforcement.kind === "cni" || !!stack);
        const sum = judged ? undefined : summaryOf(pod, ep.port, p.protocol);
        if (plain && ep.ready) {
          // The kept flow with this one's inputs is taken unbuilt (most are, after an edit).
          probe.service = s.key;
          probe.pod = pod.key;
          probe.port = p.port;
          probe.protocol = p.protocol;
          probe.name = p.name;
          const none = enforcement.kind === "none";
          probe.verdict = none ? "allow" : sum!.verdict;
          probe.reason = none ? enforcement.why : sum!.reason;
          probe.decidedBy = none ? [] : sum!.decidedBy;
          probe.client = none ? undefined : sum!.client?.key;
          const taken = kept.endpointFlows.takeSame(probe, sameEndpointInputs);
          if (taken) {
            flows.push(taken);
            continue;
          }
        }
        const flow: Flow = {
          id: `endpoint|${serviceId(s.key)}|${podId(pod.key)}|${p.port}/${p.protocol}`,
          kind: "endpoint",
          from: [serviceId(s.key)],
          to: podId(pod.key),
          port: p.port,
          protocol: p.protocol,
          traceTo: `service:${s.key}:${p.port}`,
          verdict: "allow",
          reason: "",
          decidedBy: [],
        };
        if (p.name) flow.portName = p.name;
        if (sum?.client) flow.client = podId(sum.client.key);
        if (!ep.ready) {
          flow.verdict = "drop";
          flow.dropCause = "traffic-policy";
          flow.reason = `endpoint ${ep.key} is not ready${ep.serving ? " (terminating but serving)" : ""}: kube-proxy uses it only when the Service has no ready endpoint`;
          flow.decidedBy = [refOfSource(ep.ref)];
        } else if (enforcement.kind === "none") {
          flow.verdict = "allow";
          flow.reason = enforcement.why;
          flow.decidedBy = [];
          delete flow.client;
        } else if (enforcement.kind === "cni") {
          // The CNI's own policies decide (engine/cni), with NetworkPolicy inside them.
          const c = cniFlow(
            model,
            enforcement.cni,
            (senders ??= senderPods(model)),
            pod,
            ep.port,
            p.protocol,
          );
          flow.verdict = c.verdict;
          flow.reason = c.reason;
          flow.decidedBy = c.decidedBy;
          if (c.client) flow.client = podId(c.client.key);
          else delete flow.client;
          if (c.l7) flow.l7 = c.l7;
          if (c.layer) flow.layer = c.layer;
          if (c.tier) flow.tier = c.tier;
          if (c.verdict !== "allow") flow.dropCause = "policy";
        } else if (stack) {
          // The cluster tiers around NetworkPolicy decide (policy/stack.ts, analysis/tiers.ts).
          const c = (tierJudge ??= tierFlowJudge(stack, (senders ??= senderPods(model))))(
            pod,
            ep.port,
            p.protocol,
          );
          flow.verdict = c.verdict;
          flow.reason = c.reason;
          flow.decidedBy = c.decidedBy;
          if (c.client) flow.client = podId(c.client.key);
          else delete flow.client;
          if (c.tier) flow.tier = c.tier;
          if (c.verdict !== "allow") flow.dropCause = "policy";
        } else {
          flow.verdict = sum!.verdict;
          flow.reason = sum!.reason;
          flow.decidedBy = sum!.decidedBy;
          if (sum!.verdict !== "allow") flow.dropCause = "policy";
        }
        if (!kept) {
          flows.push(flow);
          continue;
        }
        flows.push(kept.endpointFlows.keep(flow, plain && ep.ready ? { ...probe } : undefined));
      }
    });
  }
  return flows;
}
