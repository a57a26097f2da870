/**
 * Who can connect, workload to Service, for inputs too large to trace every
 * pod-to-Service pair (the graph's "paths" view at scale).
 *
 * Sources are the pods of one workload that share a NetworkPolicy class;
 * destinations are each Service port's ready endpoints (kube-proxy's list).
 * A pair is judged by the class matrices of the endpoint's target port
 * (`pairAllowed`: egress at the source, ingress at the endpoint, and the
 * rule that a host-network pod reaches pods on its own node), the same
 * decision as the matrix view and `ktl reach` (Cilium or Calico policies,
 * when the input has them, decide through their class matrix). The flow's verdict is allow
 * when every endpoint admits the sources, partial when some do. Pairs no
 * endpoint admits are most pairs at scale (default deny): they are not
 * flows but compact records, one per Service port and deciding side, whose
 * sources are runs of group indices (`ReachDrop`), so the graph draws them
 * at any fold level and a question traces any one of them. Past
 * WORKLOAD_FLOW_LIMIT listed flows, the admitted pairs come as compact
 * records too (`ReachAllowed`, one per Service port and verdict).
 */
import type { Model, Pod, Protocol, ServicePort } from "../model/types.ts";
import type { NetworkPolicy } from "../model/networkpolicy.ts";
import {
  classAllowed,
  egressPasses,
  pairAllowed,
  type ClassMatrix,
  type PolicyIndex,
} from "../netpol/index.ts";
import { cniName } from "../cni/index.ts";
import { decidedByClassRow, explainStackPair, type LayerStep, type PolicyStack } from "../policy/index.ts";
import { analysisDecider, stepRefs, tierOf } from "./tiers.ts";
import type { ProxyIndex } from "../proxy/index.ts";
import { senderClassOf, type Decider } from "../decide/index.ts";
import { podId, refOfPolicy, serviceId, workloadId } from "./refs.ts";
import type { Flow, ReachAllowed, ReachDrop, ReachGroup, RefView } from "./types.ts";
import { keptMatrices, sameFlowInputs, type FlowInputs, type KeptAnswer } from "./kept.ts";
import { NOT_KEPT, analysisWalks, type WalkSteps } from "./walks.ts";

/** Most flows listed; the admitted pairs beyond come as compact records (`ReachAllowed`), drawn all the same. */
export const WORKLOAD_FLOW_LIMIT = 20_000;

export interface WorkloadFlows {
  flows: Flow[];
  /** (source group, Service port) pairs that no endpoint admits. */
  dropped: number;
  /** Allowed and partly allowed pairs beyond the limit, given as compact records (`allowed`). */
  omitted: number;
  groups: ReachGroup[];
  drops: ReachDrop[];
  allowed: ReachAllowed[];
}

/** Ascending indices as [start, end) runs: most of a Service port's dropped groups are long runs. */
class Runs {
  readonly runs: number[] = [];
  count = 0;
  add(i: number) {
    const r = this.runs;
    if (r.length && r[r.length - 1] === i) r[r.length - 1] = i + 1;
    else r.push(i, i + 1);
    this.count++;
  }
}

/** What every compact record of one Service port shares: its Service, port, trace target and CNI dialect. */
function recordBase(
  service: string,
  p: { port: number; protocol: Protocol; name?: string | undefined },
  cniLayer: Flow["layer"],
) {
  return {
    to: serviceId(service),
    port: p.port,
    protocol: p.protocol,
    ...(p.name ? { portName: p.name } : {}),
    traceTo: `service:${service}:${p.port}`,
    ...(cniLayer ? { layer: cniLayer } : {}),
  };
}

/** "3 ready endpoints". */
const readyEndpoints = (n: number) => `${n} ready endpoint${n === 1 ? "" : "s"}`;

/** A Service port's dropped source groups, one record per refusing side, in the edge's words. */
function pushDrops(
  out: WorkloadFlows,
  service: string,
  p: { port: number; protocol: Protocol; name?: string | undefined },
  sides: Record<ReachDrop["side"], Runs>,
  endpoints: readonly { pod: Pod }[],
  ctx: {
    stack: PolicyStack | undefined;
    admitter: string;
    cniLayer: Flow["layer"];
    index: PolicyIndex;
    sourceClass: Int32Array;
  },
): void {
  const { stack, admitter, cniLayer, index, sourceClass } = ctx;
  const base = recordBase(service, p, cniLayer);
  const ends = readyEndpoints(endpoints.length);
  const by = stack ? "the policy stack" : "NetworkPolicy";
  const reasons: Record<ReachDrop["side"], string> = {
    ingress: `the sender's egress lets these pods out, but ${by} at the ingress of every endpoint refuses them (${ends})`,
    egress: `an endpoint's ingress admits these pods, but ${by} at the sender's egress refuses them (${ends})`,
    both: `${by} refuses these pods on both sides: the sender's egress and the ingress of every endpoint (${ends})`,
    pair: `${admitter} refuses these pods at every ready endpoint (${ends}); trace one to see which side`,
  };
  for (const side of ["ingress", "egress", "both", "pair"] as const) {
    const runs = sides[side];
    if (!runs.count) continue;
    out.drops.push({
      id: `drop|${side}|${base.to}|${p.port}/${p.protocol}`,
      ...base,
      side,
      groups: runs.runs,
      count: runs.count,
      reason: reasons[side],
      decidedBy: stack || side === "pair" ? [] : sideRefs(index, side, endpoints, runs.runs, sourceClass),
    });
    out.dropped += runs.count;
  }
}

/**
 * A Service port's admitted source groups past the listing limit, one record per verdict. The words are the
 * listed flows' own, for the whole record: which endpoints admit which group, and the rule that did, a
 * trace of one says (as for the compact drops).
 */
function pushAllowed(
  out: WorkloadFlows,
  service: string,
  p: { port: number; protocol: Protocol; name?: string | undefined },
  past: Record<ReachAllowed["verdict"], Runs>,
  endpoints: readonly { pod: Pod }[],
  ctx: {
    admitter: string;
    cniLayer: Flow["layer"];
    decider: Decider;
    stack: PolicyStack | undefined;
    index: PolicyIndex;
  },
): void {
  // Most Service ports have none: they are under the limit.
  if (past.allow.count + past.partial.count === 0) return;
  const enforcement = ctx.decider.enforcement;
  const base = recordBase(service, p, ctx.cniLayer);
  const ends = readyEndpoints(endpoints.length);
  // NetworkPolicy alone: the first endpoint's ingress policies with rules (an isolating one alone admits nothing).
  const decidedBy: RefView[] = [];
  if (enforcement.kind === "stack" && !ctx.stack)
    for (const pol of ctx.index.ingressPolicies[ctx.index.classOf[endpoints[0]!.pod.index]!] ?? [])
      if (decidedBy.length < 6 && pol.ingress.length > 0) decidedBy.push(refOfPolicy(pol));
  for (const verdict of ["allow", "partial"] as const) {
    const runs = past[verdict];
    if (!runs.count) continue;
    out.allowed.push({
      id: `allowed|${verdict}|${base.to}|${p.port}/${p.protocol}`,
      ...base,
      verdict,
      groups: runs.runs,
      count: runs.count,
      reason:
        enforcement.kind === "none"
          ? enforcement.why
          : verdict === "allow"
            ? `${ctx.admitter} admits these pods at every ready endpoint (${ends}); trace one to see the rules`
            : `${ctx.admitter} admits these pods at some of the ${ends}; trace one to see which`,
      decidedBy,
    });
    out.omitted += runs.count;
  }
}

/**
 * The flow of a source group to a Service port some endpoint admits: allowed or partly, and who decided
 * (under the policy stack, `why`: the pair that names it, and the tier step that decided, if a tier did).
 */
function admittedFlow(
  g: readonly Pod[],
  from: string[],
  at: { to: string; traceTo: string },
  p: ServicePort,
  admitted: number,
  endpoints: readonly { pod: Pod }[],
  why: { pod: Pod; step: LayerStep | undefined } | undefined,
  ctx: { decider: Decider; admitter: string; index: PolicyIndex },
): Flow {
  const { admitter, index } = ctx;
  const all = admitted === endpoints.length;
  const src = g[0]!;
  const cls = index.classOf[src.index]!;
  const enforcement = ctx.decider.enforcement;
  const flow: Flow = {
    id: `workload|${from[0]}|${at.to}|${p.port}/${p.protocol}`,
    kind: "service",
    from,
    to: at.to,
    port: p.port,
    protocol: p.protocol,
    verdict: all ? "allow" : "partial",
    reason:
      enforcement.kind === "none"
        ? enforcement.why
        : all
          ? `${admitter} admits ${src.workload.name}'s pods at every ready endpoint (${endpoints.length})`
          : `${admitter} admits ${src.workload.name}'s pods at ${admitted} of ${endpoints.length} ready endpoints`,
    decidedBy: [],
    traceTo: at.traceTo,
  };
  const tier = why && tierOf(why.step);
  if (why && tier) {
    // A cluster tier decided: name its rule, at the first refusing endpoint, else the first admitting one.
    const words = `${why.step!.label}: ${why.step!.reason}`;
    flow.reason = all
      ? `${words} (every ready endpoint, ${endpoints.length})`
      : `${admitted} of ${endpoints.length} ready endpoints admit ${src.workload.name}'s pods; ${why.pod.key}: ${words}`;
    flow.decidedBy = stepRefs(why.step);
    flow.tier = tier;
  } else if (enforcement.kind === "stack") {
    // An allowed flow was admitted by rules: a policy with none in that direction (a default deny) only
    // isolates, and did not decide it. A partly allowed one keeps the isolating policies (they refuse the rest).
    for (const pol of index.egressPolicies[cls] ?? [])
      if (flow.decidedBy.length < 3 && (!all || pol.egress.length > 0)) flow.decidedBy.push(refOfPolicy(pol));
    const dst = index.classOf[endpoints[0]!.pod.index]!;
    for (const pol of index.ingressPolicies[dst] ?? [])
      if (flow.decidedBy.length < 6 && (!all || pol.ingress.length > 0))
        flow.decidedBy.push(refOfPolicy(pol));
  }
  if (p.name) flow.portName = p.name;
  if (!all) flow.dropCause = "policy";
  return flow;
}

export function workloadFlows(
  model: Model,
  index: PolicyIndex,
  proxy: ProxyIndex,
  limit = WORKLOAD_FLOW_LIMIT,
  kept?: KeptAnswer,
): WorkloadFlows {
  // With the previous analysis's flows and pod lists (kept.ts), an unchanged flow is the very object it was.
  kept?.workloadFlows.round();
  kept?.groupPods.round();
  const groups = new Map<string, Pod[]>();
  const classOf = senderClassOf(model, index);
  for (const p of model.pods) {
    if (!p.nodeName || p.ips.length === 0) continue;
    // A host-network pod sends from its node's address, and a pod's own node is always admitted: its
    // answer depends on its node, so host-network pods group per node (a DaemonSet's are not one source).
    const k = `${workloadId(p.workload)}#${classOf(p)}${p.hostNetwork ? `@${p.nodeName}` : ""}`;
    const g = groups.get(k);
    if (g) g.push(p);
    else groups.set(k, [p]);
  }
  const sources = [...groups.values()];
  const sourceClass = Int32Array.from(sources, (g) => index.classOf[g[0]!.index]!);
  // Per source, whether its first pod is on the host network (read for every Service port).
  const sourceHost = Uint8Array.from(sources, (g) => (g[0]!.hostNetwork ? 1 : 0));
  // Per source: 1 while its class's row answers for it (a pod-network sender); under the tiers, 0 for the
  // Service port's endpoints among them too, which are judged pair by pair (set per port, then restored).
  const byRowOk = Uint8Array.from(sourceHost, (h) => 1 - h);
  const sourceOfPod = new Int32Array(model.pods.length).fill(-1);
  sources.forEach((g, k) => (sourceOfPod[g[0]!.index] = k));
  const fromOf: (string[] | undefined)[] = new Array(sources.length);
  const byClass = new Int32Array(index.classes.length);
  const marks = new Uint8Array(index.classes.length);
  // Per class, for one Service port: whether a dropped sender of the class would pass its own egress toward
  // the endpoints' classes (1) or not (0), from the matrix's egress columns (`egressPasses`). Most groups at
  // scale are dropped, many per class.
  const passesEgress = new Uint8Array(index.classes.length);
  const matrices = keptMatrices(index, kept);
  const matrixOf = (port: number, protocol: Protocol) => matrices.of(index, port, protocol);
  // The decider chooses what enforces policy (decide/): a CNI dialect, the tiers around NetworkPolicy, or nothing.
  const decider = analysisDecider(model, index, kept);
  const enforcement = decider.enforcement;
  const byClassOk = enforcement.kind === "stack";
  const stack = decider.stack?.layered ? decider.stack : undefined;
  // Who admits, in the edge's words.
  const admitter =
    enforcement.kind === "cni" ? cniName(enforcement.cni) : stack ? "the policy stack" : "NetworkPolicy";
  // The tier steps of walks between classes (walks.ts): kept from earlier analyses under NetworkPolicy and the
  // two tiers alone (a CNI dialect's layer reads what the walk keys do not name), else for this one.
  const walks = !stack
    ? undefined
    : kept && stack.layers.length === 3
      ? kept.tierWalks.open(model, index)
      : analysisWalks(model, index);
  const flowCtx = { decider, admitter, index };
  // What an admitted flow's words read of the decider (FlowInputs).
  const byPolicies = enforcement.kind === "stack";
  const probe: FlowInputs = {
    from: [],
    to: "",
    port: 0,
    protocol: "TCP",
    name: undefined,
    admitted: 0,
    endpoints: 0,
    workload: "",
    enforcement: enforcement.kind === "none" ? `none:${enforcement.why}` : enforcement.kind,
    admitter,
    egress: undefined,
    ingress: undefined,
    step: undefined,
    client: undefined,
  };

  // One judge per endpoint port: the class matrix looked up once, not per pair.
  type Judge = ((src: Pod, dst: Pod) => boolean) & { matrix?: ClassMatrix };
  const judgeOf = (port: number, protocol: Protocol): Judge => {
    if (enforcement.kind === "stack" && !stack) {
      // NetworkPolicy alone: the kept class matrices (reused across analyses while their inputs hold).
      const m = matrixOf(port, protocol);
      return Object.assign((src: Pod, dst: Pod) => pairAllowed(index, m, src, dst), { matrix: m });
    }
    const dm = decider.matrix(port, protocol);
    return Object.assign((src: Pod, dst: Pod) => dm.allowed(src, dst), dm.stack ? { matrix: dm.stack } : {});
  };
  // CNI drops carry their dialect, as a CNI flow's `layer` does.
  const cniLayer: Flow["layer"] =
    enforcement.kind !== "cni"
      ? undefined
      : enforcement.cni.cilium && !enforcement.cni.calico
        ? "CiliumNetworkPolicy"
        : enforcement.cni.calico && !enforcement.cni.cilium
          ? "CalicoNetworkPolicy"
          : undefined;
  const out: WorkloadFlows = {
    flows: [],
    dropped: 0,
    omitted: 0,
    groups: sources.map((g) => ({ workload: workloadId(g[0]!.workload), pods: g.map((p) => p.index) })),
    drops: [],
    allowed: [],
  };
  for (const s of model.services) {
    const sp = proxy.services.get(s.key);
    if (!sp) continue;
    s.ports.forEach((p, i) => {
      const at = { to: serviceId(s.key), traceTo: `service:${s.key}:${p.port}` };
      const eps = sp.ports[i];
      if (!eps) return;
      const endpoints: { pod: Pod; port: number; judge: Judge }[] = [];
      const judges = new Map<number, Judge>();
      const seen = new Set<string>();
      for (const ep of [...eps.v4, ...eps.v6]) {
        if (!ep.pod || !ep.ready || seen.has(ep.pod)) continue;
        seen.add(ep.pod);
        const pod = model.podsByKey.get(ep.pod);
        if (!pod) continue;
        let judge = judges.get(ep.port);
        if (!judge) judges.set(ep.port, (judge = judgeOf(ep.port, p.protocol)));
        endpoints.push({ pod, port: ep.port, judge });
      }
      if (endpoints.length === 0) return;
      // A pod-network source is judged by its NetworkPolicy class alone (pairAllowed's host-network rule
      // needs the pod; a CNI dialect has classes of its own), so each class is judged once per Service port.
      // Under the cluster tiers a pod's traffic to itself is NetworkPolicy's alone (stackPairAllowed), so a
      // source that is one of the endpoints is judged pair by pair.
      byClass.fill(-1);
      const endpointSources = stack
        ? endpoints.map((e) => sourceOfPod[e.pod.index]!).filter((k) => k >= 0)
        : [];
      for (const k of endpointSources) byRowOk[k] = 0;
      // Classes some endpoint's ingress admits; a pod-network source of any other class is dropped
      // without judging it (undefined: some endpoint is not isolated for ingress, every class may pass).
      let admits: Uint8Array | undefined = byClassOk ? marks.fill(0) : undefined;
      for (const ep of endpoints) {
        const row = admits && ep.judge.matrix!.ingressFrom[index.classOf[ep.pod.index]!];
        if (row === null) admits = undefined;
        else row?.forEach((a) => (admits![a] = 1));
      }
      // Dropped groups by the side that refused: every endpoint's ingress while the sender's egress would
      // let it out (a near miss), the sender's egress while some endpoint's ingress admits it (a near miss),
      // both sides (isolation as written), or the decider's pair answer alone (a CNI dialect, host network).
      const sides: Record<ReachDrop["side"], Runs> = {
        ingress: new Runs(),
        egress: new Runs(),
        both: new Runs(),
        pair: new Runs(),
      };
      // Admitted groups past the listing limit, by verdict (compact records, as the drops are).
      const past = { allow: new Runs(), partial: new Runs() };
      // Per host-network sender class: the endpoints whose class row admits it (filled as met).
      let hostCount: Map<number, number> | undefined;
      // The endpoints' classes, once each, for the egress half of the class matrix.
      if (admits)
        egressPasses(
          endpoints[0]!.judge.matrix!,
          [...new Set(endpoints.map((e) => index.classOf[e.pod.index]!))],
          passesEgress,
        );
      for (let k = 0; k < sources.length; k++) {
        const cls = sourceClass[k]!;
        const byRow = byRowOk[k] === 1;
        if (admits && byRow && admits[cls] === 0) {
          (passesEgress[cls] ? sides.ingress : sides.both).add(k);
          continue;
        }
        const g = sources[k]!;
        const src = g[0]!;
        const memo = byClassOk && byRow;
        let admitted = memo ? byClass[cls]! : -1;
        if (admitted < 0 && byClassOk && sourceHost[k] === 1)
          admitted = hostSenderAdmitted(src, cls, endpoints, index, (hostCount ??= new Map()));
        else if (admitted < 0) {
          admitted = 0;
          for (const ep of endpoints) if (ep.judge(src, ep.pod)) admitted++;
          if (memo) byClass[cls] = admitted;
        }
        if (admitted === 0) {
          sides[admits && byRow ? "egress" : "pair"].add(k);
          continue;
        }
        if (out.flows.length >= limit) {
          (admitted === endpoints.length ? past.allow : past.partial).add(k);
          continue;
        }
        // A source group's pod list is one array for every Service it reaches (no consumer changes it).
        let from = fromOf[k];
        if (!from) {
          from = g.map((x) => podId(x.key));
          fromOf[k] = from = kept ? kept.groupPods.keep(from) : from;
        }
        const why = stack && stackWhy(stack, src, endpoints, p.protocol, walks!);
        if (!kept) {
          out.flows.push(admittedFlow(g, from, at, p, admitted, endpoints, why, flowCtx));
          continue;
        }
        // A flow is its inputs (with a tier's words, the pair and the step that decided: walks.ts keeps the
        // step's object across analyses), so the kept one with the same inputs is taken unbuilt. One scratch
        // record, copied only for a flow that is built (most are taken).
        probe.from = from;
        probe.to = at.to;
        probe.port = p.port;
        probe.protocol = p.protocol;
        probe.name = p.name;
        probe.admitted = admitted;
        probe.endpoints = endpoints.length;
        probe.workload = src.workload.name;
        probe.egress = byPolicies ? index.egressPolicies[cls] : undefined;
        probe.ingress = byPolicies
          ? index.ingressPolicies[index.classOf[endpoints[0]!.pod.index]!]
          : undefined;
        probe.step = why ? why.step : undefined;
        probe.client = why?.step ? why.pod.key : undefined;
        const taken = kept.workloadFlows.takeSame(probe, sameFlowInputs);
        if (taken) {
          out.flows.push(taken);
          continue;
        }
        out.flows.push(
          kept.workloadFlows.keep(admittedFlow(g, from, at, p, admitted, endpoints, why, flowCtx), {
            ...probe,
          }),
        );
      }
      for (const k of endpointSources) byRowOk[k] = 1 - sourceHost[k]!;
      pushDrops(out, s.key, p, sides, endpoints, { stack, admitter, cniLayer, index, sourceClass });
      pushAllowed(out, s.key, p, past, endpoints, { admitter, cniLayer, decider, stack, index });
    });
  }
  return out;
}

/**
 * How many endpoints admit a host-network sender (a DaemonSet's, one source group per node) under
 * NetworkPolicy or the tiers: toward an endpoint on another node its answer is its class's row (the own-node
 * rule reads same-node pairs only), counted once per class and Service port (`byClass`); the endpoints on
 * its own node, and itself, are judged pair by pair. At L, 100 such groups times every Service port's
 * endpoints were 840,000 stack pair walks an analysis.
 */
function hostSenderAdmitted(
  src: Pod,
  cls: number,
  endpoints: readonly { pod: Pod; judge: ((src: Pod, dst: Pod) => boolean) & { matrix?: ClassMatrix } }[],
  index: PolicyIndex,
  byClass: Map<number, number>,
): number {
  // The class row's answer is read inline (a closure for it was an allocation per host sender and Service port).
  let admitted = byClass.get(cls);
  if (admitted === undefined) {
    admitted = 0;
    for (const ep of endpoints)
      if (classAllowed(ep.judge.matrix!, cls, index.classOf[ep.pod.index]!)) admitted++;
    byClass.set(cls, admitted);
  }
  for (const ep of endpoints)
    if (!decidedByClassRow(src, ep.pod)) {
      if (classAllowed(ep.judge.matrix!, cls, index.classOf[ep.pod.index]!)) admitted--;
      if (ep.judge(src, ep.pod)) admitted++;
    }
  return admitted;
}

/**
 * The NetworkPolicies that refused one side's drops (at most six a side; one for "both"): the
 * endpoints' ingress policies (isolating, with no rule for these senders),
 * the senders' egress policies, or both.
 */
function sideRefs(
  index: PolicyIndex,
  side: "ingress" | "egress" | "both",
  endpoints: readonly { pod: Pod }[],
  runs: readonly number[],
  sourceClass: Int32Array,
): RefView[] {
  const refs: RefView[] = [];
  // Isolation on both sides (most pairs at scale, drawn faint) names one policy a side: the near misses,
  // which a reader opens, name up to six.
  const most = side === "both" ? 1 : 6;
  let taken = 0;
  const add = (pols: readonly NetworkPolicy[] | undefined) => {
    for (const pol of pols ?? [])
      if (taken < most && !refs.some((r) => r.name === pol.name && r.namespace === pol.namespace)) {
        refs.push(refOfPolicy(pol));
        taken++;
      }
  };
  if (side !== "egress") for (const e of endpoints) add(index.ingressPolicies[index.classOf[e.pod.index]!]);
  taken = 0;
  if (side !== "ingress") {
    const classes = new Set<number>();
    for (let r = 0; r + 1 < runs.length && classes.size < 6; r += 2)
      for (let k = runs[r]!; k < runs[r + 1]! && classes.size < 6; k++) classes.add(sourceClass[k]!);
    for (const c of classes) add(index.egressPolicies[c]);
  }
  return refs;
}

/**
 * Under the policy stack, the tier step that decided a source's connection to
 * a Service port (undefined: no tier decided it): at the first endpoint that
 * refuses it (the refusing direction's), else at the first that admits it
 * (ingress's, else egress's), by the exact walk of that one pair. A pair the
 * class matrix answers (`decidedByClassRow`: not a pod to itself, not a sender
 * on the destination's node) toward a pod-network destination is decided by
 * the two classes, so the walk is kept per class pair in `walks`: for this
 * analysis, or for the next ones too (walks.ts).
 */
function stackWhy(
  stack: PolicyStack,
  src: Pod,
  endpoints: readonly { pod: Pod; port: number; judge: (src: Pod, dst: Pod) => boolean }[],
  protocol: Protocol,
  walks: WalkSteps,
): { pod: Pod; step: LayerStep | undefined } {
  let refused: (typeof endpoints)[number] | undefined;
  let admitted: (typeof endpoints)[number] | undefined;
  for (const ep of endpoints) {
    if (!ep.judge(src, ep.pod)) {
      refused = ep;
      break;
    }
    admitted ??= ep;
  }
  const ep = (refused ?? admitted)!;
  const byClass = decidedByClassRow(src, ep.pod) && !ep.pod.hostNetwork;
  if (!byClass) return { pod: ep.pod, step: walkedStep(stack, src, ep, protocol, !!refused) };
  const classOf = stack.index!.classOf;
  const key = `${walks.ids[classOf[src.index]!]}|${walks.ids[classOf[ep.pod.index]!]}|${ep.port}/${protocol}|${refused ? "r" : "a"}`;
  const known = walks.step(key);
  if (known !== NOT_KEPT) return { pod: ep.pod, step: known };
  const step = walkedStep(stack, src, ep, protocol, !!refused);
  walks.keep(key, step);
  return { pod: ep.pod, step };
}

/** The tier step of one pair's exact walk (undefined when no tier decided). */
function walkedStep(
  stack: PolicyStack,
  src: Pod,
  ep: { pod: Pod; port: number },
  protocol: Protocol,
  refused: boolean,
): LayerStep | undefined {
  const d = explainStackPair(stack, src, ep.pod, ep.port, protocol);
  const decided = refused
    ? (d.egress.allowed ? d.ingress : d.egress).decidedBy
    : (d.ingress.decidedBy ?? d.egress.decidedBy);
  return tierOf(decided) ? decided : undefined;
}
