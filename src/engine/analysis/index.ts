/**
 * The playground's view of the engine: editor text in, plain JSON out
 * (diagnostics, zones and nodes, pods, services, flows with verdicts and
 * causes, matrices, traces). Composed only from engine decisions: NetworkPolicy
 * verdicts come from netpol (explainPair, classMatrix), Service paths from
 * the trace. Nothing here decides traffic on its own.
 *
 * A session keeps the model so that traces and matrices reuse it; the Web
 * Worker holds one session per editor text.
 */
import {
  describeAssumptions,
  describeProfile,
  type ClusterAssumptions,
  type CniName,
} from "../cni/profile.ts";
import { cniFlow } from "./cni.ts";
import { analysisDecider } from "./tiers.ts";
import type { PairDecision } from "../decide/index.ts";
import { subjectSelects } from "../tiers/layer.ts";
import { routerFlows } from "./routers.ts";
import type { InputFile } from "../parse/manifests.ts";
import { buildModel } from "../load/index.ts";
import { parseManifests } from "../parse/manifests.ts";
import type { YamlPartCache } from "../parse/yaml.ts";
import type { Model, Protocol } from "../model/types.ts";
import { explainPair, policyIndexOf, type PairVerdict, type PolicyIndex } from "../netpol/index.ts";
import { buildProxyIndex, type ProxyIndex } from "../proxy/index.ts";
import { traceRequest } from "../trace/index.ts";
import { thousands } from "../trace/format.ts";
import { validateModel, validationDiagnostics } from "../validate/index.ts";
import { computeConnlist, type ConnList } from "../connlist/index.ts";
import { formatConnlist } from "../connlist/format.ts";
import { openRules } from "./rules.ts";
import { WORKLOAD_FLOW_LIMIT, workloadFlows } from "./workloadFlows.ts";
import type { KeptAnswer } from "./kept.ts";
import { runTests, type TestRunView, type TestsQuery } from "./tests.ts";
import { observeFlows, type ObserveQuery, type ObserveView } from "./observe.ts";
import type { Diagnostic } from "../parse/diagnostics.ts";
import { inputOmissions } from "../policy/unmodelled.ts";
import { podId, refName, refOfMatch, refOfPolicy, refOfSource, externalId } from "./refs.ts";
import {
  EXTERNAL_CLIENT_IP,
  FLOW_BUDGET,
  endpointFlows,
  externalFlows,
  causesOf,
  hasExternalServices,
  serviceFlows,
} from "./flows.ts";
import type {
  Analysis,
  ConnlistDownload,
  DiagnosticView,
  DropCause,
  Flow,
  MatrixQuery,
  MatrixView,
  NodeRulesQuery,
  NodeRulesView,
  OmissionsView,
  AnalysisProgress,
  TierPolicyView,
  RefView,
  TraceQuery,
  TraceView,
} from "./types.ts";

import { nodesOf, podsOf, policiesOf, portsOf, servicesOf } from "./views.ts";
import { matrix, trace } from "./queries.ts";

export type * from "./types.ts";
export type { TestMark, TestResultView, TestRunView, TestsQuery } from "./tests.ts";
export type { ObserveQuery, ObserveView, ObservedRowView } from "./observe.ts";
export type { Protocol } from "../model/types.ts";
export { EXTERNAL_CLIENT_IP, FLOW_BUDGET } from "./flows.ts";
export { KeptAnswer } from "./kept.ts";
export {
  causeText,
  nearMissEditText,
  nearMissesOf,
  reasonAfterVerdict,
  sourceAddressText,
  stepTitle,
  verdictMark,
} from "../trace/render.ts";
export { formatProbability } from "../trace/format.ts";
export type {
  CauseLayer,
  HopCause,
  HopStep,
  HopVerdict,
  NearMiss,
  ObjectRef,
  ProxyNearMiss,
} from "../trace/types.ts";

export interface AnalyzeOptions {
  /** Pod-to-pod flows are drawn only when the input has no Service and at most this many pods (the matrix covers the rest). */
  maxDirectFlowPods?: number;
  /** Matrices larger than this many rows are refused with a message. */
  maxMatrixRows?: number;
  /** The CNI that enforces policy (the toolbar's profile); otherwise read from the input, else generic. */
  cni?: CniName;
  /** The toolbar's assumptions about the cluster around the application (an Istio ingress gateway, sidecar injection). */
  assume?: ClusterAssumptions;
  /** Most traces the drawn flows may cost (FLOW_BUDGET); beyond it the graph shows workload flows. */
  flowBudget?: number;
  /** Most workload flows listed (WORKLOAD_FLOW_LIMIT); the admitted pairs past it come as compact records. */
  workloadFlowLimit?: number;
  /** The docs of the texts analysed last: an edit re-parses only the docs it changed (the worker keeps one). */
  parseCache?: YamlPartCache;
  /**
   * The previous analysis's flows (kept.ts): an unchanged flow is returned as the very object it was, which
   * the worker's delta settles by identity (the worker keeps one); without it nothing is kept.
   */
  keep?: KeptAnswer;
  /** Told as each step starts (what is being done, how far): the playground shows it for a load over a second. */
  onProgress?: (p: AnalysisProgress) => void;
}

export interface AnalysisSession {
  analysis: Analysis;
  /** apiserver validation and lint (src/engine/validate), asked for after the analysis so that the graph does not wait for it. */
  validate(): DiagnosticView[];
  trace(q: TraceQuery): TraceView;
  matrix(q: MatrixQuery): MatrixView;
  /** What `ktl iptables|nft|ipvs --node NAME` prints, and the rules a question's packet walks (src/engine/dataplane). */
  rules(q: NodeRulesQuery): NodeRulesView;
  /** What `ktl connlist --format txt|json` prints (src/engine/connlist, netpol-analyzer's conventions). */
  connlist(format: ConnlistDownload): string;
  /** A `ktl test` file run against this model (engine/expect), with the graph's marks (tests.ts). */
  tests(q: TestsQuery): TestRunView;
  /** A flow file compared with this model as `ktl observe` compares (engine/observe; observe.ts). */
  observe(q: ObserveQuery): ObserveView;
}

const DEFAULTS: Required<Omit<AnalyzeOptions, "cni" | "parseCache" | "keep" | "assume" | "onProgress">> = {
  maxDirectFlowPods: 60,
  maxMatrixRows: 400,
  flowBudget: FLOW_BUDGET,
  workloadFlowLimit: WORKLOAD_FLOW_LIMIT,
};

const clock = (globalThis as { performance?: { now(): number } }).performance;
const now = (): number => (clock ? clock.now() : Date.now());

function diagnosticsOf(list: readonly Diagnostic[], file: string): DiagnosticView[] {
  return list
    .filter((d) => d.file === file || d.file === "")
    .map((d) => {
      const v: DiagnosticView = {
        code: d.code,
        severity: d.severity,
        message: d.message,
        line: d.line,
        column: d.column,
      };
      if (d.kind && d.name)
        v.object = `${d.kind} ${d.namespace !== undefined ? `${d.namespace}/` : ""}${d.name}`;
      if (d.hint) v.hint = d.hint;
      return v;
    })
    .sort((a, b) => a.line - b.line || a.column - b.column);
}

/** A part of the engine that throws (a bug) becomes a diagnostic; the rest of the analysis still shows. */
function guarded<T>(what: string, file: string, diagnostics: Diagnostic[], fallback: T, f: () => T): T {
  try {
    return f();
  } catch (e) {
    diagnostics.push({
      code: "KTL901",
      severity: "error",
      file,
      doc: 0,
      line: 0,
      column: 0,
      message: `internal error in ${what}: ${e instanceof Error ? e.message : String(e)}; the rest of the analysis is shown`,
    });
    return fallback;
  }
}

interface Decision {
  verdict: "allow" | "drop";
  reason: string;
  decidedBy: RefView[];
}

/** The decider's answer for one pair as a flow record. */
function decisionOf(d: PairDecision): Decision {
  const by = d.decidedBy;
  const refs: RefView[] = [];
  if (by?.kind && by.name) {
    const r: RefView = { kind: by.kind, name: by.name, line: by.line ?? 0 };
    if (by.namespace) r.namespace = by.namespace;
    refs.push(r);
  }
  return { verdict: d.allowed ? "allow" : "drop", reason: d.reason, decidedBy: refs };
}

/** Both directions of one pod-to-pod connection, from explainPair, in plain words. */
function describePair(v: PairVerdict, port: number, protocol: Protocol): Decision {
  if (v.allowed) {
    const refs = [...v.ingress.allowedBy.slice(0, 1), ...v.egress.allowedBy.slice(0, 1)].map(refOfMatch);
    const parts: string[] = [];
    if (v.ingress.isolated)
      parts.push(`ingress allowed by ${refName(refs[0]!)} rule ${v.ingress.allowedBy[0]!.rule.index + 1}`);
    if (v.egress.isolated)
      parts.push(
        `egress allowed by ${v.egress.allowedBy[0]!.policy.key} rule ${v.egress.allowedBy[0]!.rule.index + 1}`,
      );
    return {
      verdict: "allow",
      reason: parts.length ? parts.join("; ") : "no NetworkPolicy isolates either end",
      decidedBy: refs,
    };
  }
  const failing = [v.ingress, v.egress].filter((d) => !d.allowed);
  const decidedBy = failing.flatMap((d) => d.selecting.map((p) => refOfPolicy(p)));
  const reason = failing
    .map(
      (d) =>
        `${d.direction} ${d.direction === "ingress" ? "at the destination" : "at the source"} is isolated by ${d.selecting.map((p) => p.key).join(", ")} and no rule allows ${protocol}/${port}`,
    )
    .join("; ");
  return { verdict: "drop", reason, decidedBy };
}

/**
 * Pod-to-pod flows on every declared port, for inputs without Services. With
 * the kube-proxy model built, each flow is its representative pair's trace
 * (verdict, reason and deciding lines exactly as the trace and ktl show them);
 * otherwise explainPair's verdict.
 */
function directFlows(
  model: Model,
  index: PolicyIndex,
  proxy: ProxyIndex | undefined,
  keep: KeptAnswer | undefined,
): Flow[] {
  const flows: Flow[] = [];
  const decider = analysisDecider(model, index, keep);
  for (const dst of model.pods) {
    if (dst.ips.length === 0) continue;
    for (const cp of dst.ports) {
      for (const c of index.classes) {
        const sources = c.pods.filter((p) => p !== dst && p.ips.length > 0);
        if (sources.length === 0) continue;
        const enforcement = decider.enforcement;
        // The verdict counts every sender by the decider; the reason is one pair's trace (the first refused sender, else the first).
        const m = decider.matrix(cp.containerPort, cp.protocol);
        const refused = sources.filter((p) => !m.allowed(p, dst));
        const verdict: Flow["verdict"] =
          refused.length === 0 ? "allow" : refused.length === sources.length ? "drop" : "partial";
        const pick = refused[0] ?? sources[0]!;
        const cniSummary =
          enforcement.kind === "cni"
            ? cniFlow(model, enforcement.cni, sources, dst, cp.containerPort, cp.protocol)
            : undefined;
        const traced = proxy
          ? traceRequest(model, proxy, `pod:${pick.key}`, `pod:${dst.key}:${cp.containerPort}`, cp.protocol)
          : undefined;
        const why: { reason: string; decidedBy: RefView[]; dropCause?: DropCause } =
          traced && !traced.error && traced.verdict !== "partial"
            ? causesOf(traced)
            : (cniSummary ??
              (decider.stack?.layered || enforcement.kind === "none"
                ? decisionOf(decider.explain(pick, dst, cp.containerPort, cp.protocol))
                : describePair(
                    explainPair(model, pick, dst, cp.containerPort, cp.protocol),
                    cp.containerPort,
                    cp.protocol,
                  )));
        const d = {
          ...why,
          verdict,
          reason:
            verdict === "partial"
              ? `${refused.length} of ${sources.length} senders are refused; ${pick.key}: ${why.reason}`
              : why.reason,
        };
        const flow: Flow = {
          id: `pod|${podId(sources[0]!.key)}|${podId(dst.key)}|${cp.containerPort}/${cp.protocol}`,
          kind: "pod",
          from: sources.map((p) => podId(p.key)),
          to: podId(dst.key),
          port: cp.containerPort,
          protocol: cp.protocol,
          verdict: d.verdict,
          reason: d.reason,
          decidedBy: d.decidedBy,
          traceTo: `pod:${dst.key}:${cp.containerPort}`,
        };
        if (cp.name) flow.portName = cp.name;
        if (cniSummary?.l7) flow.l7 = cniSummary.l7;
        const layer = traced?.endpoints[0]?.decidedBy?.layer;
        if (layer === "AdminNetworkPolicy") flow.tier = "Admin";
        else if (layer === "BaselineAdminNetworkPolicy") flow.tier = "Baseline";
        if (cniSummary?.layer) flow.layer = cniSummary.layer;
        if (d.verdict !== "allow") flow.dropCause = d.dropCause ?? "policy";
        flows.push(flow);
      }
    }
  }
  return flows;
}

// ---------- traces ----------

/** Destinations whose requests a CNI policy's HTTP rules judge (Flow.l7), added to the routers' targets. */
function withCniL7(targets: Analysis["l7Targets"], flows: Flow[]): Analysis["l7Targets"] {
  const ofService = new Map<string, string[]>();
  for (const f of flows) {
    if (!f.l7?.length) continue;
    const why = `HTTP rules allow only ${f.l7.join(", ")}`;
    targets[f.to] ??= why;
    if (f.kind === "endpoint" && f.from[0]) {
      targets[f.from[0]] ??= why;
      ofService.set(f.from[0], f.l7);
    }
  }
  // A connection to such a Service that the CNI's policy admits is admitted for those requests only (the rules' own words, from the endpoint flow).
  for (const f of flows)
    if ((f.kind === "service" || f.kind === "external") && f.verdict !== "drop" && !f.l7) {
      const rules = ofService.get(f.to);
      if (rules && f.decidedBy.some((r) => r.kind.startsWith("Cilium"))) f.l7 = rules;
    }
  return targets;
}

/** The input the answers leave out, for the playground's banner (the editor's file only). */
function omissionsView(model: Model, file: string): Analysis["omissions"] {
  const { skipped, replaced } = inputOmissions(model);
  const objectOf = (o: { kind: string; namespace?: string; name: string }) =>
    `${o.kind} ${o.namespace !== undefined ? `${o.namespace}/` : ""}${o.name}`;
  return {
    skipped: skipped
      .filter((s) => s.file === file)
      .map((s) => {
        const v: OmissionsView["skipped"][number] = { line: s.line, code: s.code, message: s.message };
        if (s.kind && s.name)
          v.object = objectOf({
            kind: s.kind,
            name: s.name,
            ...(s.namespace ? { namespace: s.namespace } : {}),
          });
        return v;
      }),
    replaced: replaced
      .filter((r) => r.file === file)
      .map((r) => ({ object: objectOf(r), line: r.line, byLine: r.by.line })),
    unmodelled: model.unmodelled
      .filter((u) => u.file === file)
      .map((u) => {
        const v: OmissionsView["unmodelled"][number] = { object: objectOf(u), line: u.line, scope: u.scope };
        if (u.field !== undefined) v.field = u.field;
        if (u.message !== undefined) v.message = u.message;
        return v;
      }),
  };
}

function profileView(model: Model): Analysis["profile"] {
  const p = model.profile ?? { cni: "generic", source: "default" as const };
  const assumed = describeAssumptions(p.assume);
  return {
    cni: p.cni,
    source: p.source,
    text: assumed ? `${describeProfile(p)}; ${assumed}` : describeProfile(p),
  };
}

/**
 * How many pods a cluster policy's subject selects. The pods of a class agree on their namespace, host
 * network and every label a selector reads (the tiers' included), so the class's first pod answers for
 * all: at L, 30 policies over 10,000 pods were 300,000 selector matches an analysis, now over 2,000 classes.
 */
function selectedPods(model: Model, index: PolicyIndex, p: Model["clusterPolicies"][number]): number {
  let n = 0;
  for (const c of index.classes) if (subjectSelects(model, p, c.repr)) n += c.pods.length;
  return n;
}

/** The steps `openAnalysis` reports (`AnalyzeOptions.onProgress`); the sixth only past the trace budget. */
export const ANALYSIS_STEPS = 7;

function progressOf(
  report: ((p: AnalysisProgress) => void) | undefined,
): (what: string, at?: number) => void {
  let n = 0;
  return (what, at) => {
    n = at ?? n + 1;
    report?.({ step: n, steps: ANALYSIS_STEPS, what });
  };
}

const count = (n: number, one: string, many = `${one}s`) => `${thousands(n)} ${n === 1 ? one : many}`;
const megabytes = (chars: number) =>
  chars >= 1e6 ? `${(chars / 1e6).toFixed(1)} MB` : `${Math.max(1, Math.round(chars / 1e3))} kB`;

export function openAnalysis(files: readonly InputFile[], options: AnalyzeOptions = {}): AnalysisSession {
  const opts = { ...DEFAULTS, ...options };
  const t0 = now();
  const file = files[0]?.name ?? "editor";
  const step = progressOf(options.onProgress);
  const bytes = files.reduce((n, f) => n + f.text.length, 0);
  step(`Reading the YAML (${megabytes(bytes)})`);
  const parsed = parseManifests(files, options.parseCache ? { cache: options.parseCache } : {});
  step(`Building the cluster model from ${count(parsed.objects.length + parsed.ignored.length, "object")}`);
  const model = buildModel(parsed, {
    ...(options.cni ? { cni: options.cni } : {}),
    ...(options.assume ? { assume: options.assume } : {}),
  });
  const extra: Diagnostic[] = [];
  step(
    `Grouping ${count(model.pods.length, "pod")} by the ${count(model.policies.length, "NetworkPolicy", "NetworkPolicies")} that select them`,
  );
  const index = policyIndexOf(model);
  step(`Choosing kube-proxy's endpoints for ${count(model.services.length, "Service")}`);
  const proxy = guarded("the kube-proxy model", file, extra, undefined, () => buildProxyIndex(model));
  step("Judging the flows to and from Services");
  const { nodes, zones } = nodesOf(model);
  const pods = podsOf(model, index, options.keep);
  const services = servicesOf(model);
  let flows: Flow[] = [];
  const notes: string[] = [];
  let reach: Analysis["reach"];
  let routers: Analysis["routers"] = [];
  const l7Targets: Analysis["l7Targets"] = {};
  if (model.services.length === 0) {
    if (model.pods.length <= opts.maxDirectFlowPods)
      flows = guarded("pod flows", file, extra, [], () => directFlows(model, index, proxy, options.keep));
    else notes.push(`${model.pods.length} pods and no Service: pod-to-pod flows are in the matrix view`);
  } else if (proxy) {
    const budget = { left: opts.flowBudget };
    const ext = guarded("external flows", file, extra, [], () => externalFlows(model, proxy, budget));
    const svc = guarded("service flows", file, extra, { flows: [], skipped: false }, () =>
      serviceFlows(model, index, proxy, budget),
    );
    const eps = guarded("endpoint flows", file, extra, [], () =>
      endpointFlows(model, index, proxy, options.keep),
    );
    const l7 = guarded("L7 routers", file, extra, { routers: [], flows: [], l7Targets: {} }, () =>
      routerFlows(model, proxy),
    );
    routers = l7.routers;
    Object.assign(l7Targets, l7.l7Targets);
    flows = [...svc.flows, ...eps, ...ext, ...l7.flows];
    if (svc.skipped) {
      notes.push(
        "Pod-to-Service flows are traced for small scenarios only: the graph shows who can connect (workload to Service); ask a question, or click an edge, to trace one",
      );
      step(`Judging who can connect, workload to Service (${count(model.pods.length, "pod")})`, 6);
      reach = guarded("workload flows", file, extra, undefined, () =>
        workloadFlows(model, index, proxy, opts.workloadFlowLimit, options.keep),
      );
    }
  }
  const analysis: Analysis = {
    file,
    diagnostics: diagnosticsOf([...model.diagnostics, ...extra], file),
    omissions: omissionsView(model, file),
    zones,
    nodes,
    namespaces: [...model.namespaces.values()].map((n) =>
      n.source
        ? { name: n.name, labels: n.labels, ref: refOfSource(n.source) }
        : { name: n.name, labels: n.labels },
    ),
    pods,
    services,
    policies: policiesOf(model, index),
    tiers: model.clusterPolicies.map((p) => {
      const v: TierPolicyView = {
        kind: p.kind,
        name: p.name,
        tier: p.tier,
        selects: selectedPods(model, index, p),
        ref: { kind: p.kind, name: p.name, line: p.source.line },
      };
      if (p.kind !== "BaselineAdminNetworkPolicy") v.priority = p.priority;
      return v;
    }),
    externalClients: hasExternalServices(model)
      ? [{ id: externalId(EXTERNAL_CLIENT_IP), ip: EXTERNAL_CLIENT_IP }]
      : [],
    flows,
    routers,
    l7Targets: withCniL7(l7Targets, flows),
    ports: portsOf(model),
    capabilities: { serviceTraces: proxy !== undefined },
    profile: profileView(model),
    stats: {
      objects: model.objects.length,
      pods: model.pods.length,
      classes: index.classes.length,
      services: model.services.length,
      policies: model.policies.length,
      millis: 0,
    },
  };
  if (reach) analysis.reach = reach;
  step("Sending the answer to the page", ANALYSIS_STEPS);
  if (notes.length) analysis.truncated = notes.join(". ");
  analysis.stats.millis = Math.round(now() - t0);
  let rules: ReturnType<typeof openRules> | undefined;
  let connlist: ConnList | undefined;
  let validated: DiagnosticView[] | undefined;
  return {
    analysis,
    validate: () => (validated ??= validateOnce()),
    trace: (q) => trace(model, proxy, q),
    matrix: (q) => matrix(model, index, q, opts.maxMatrixRows),
    rules: (q) => (rules ??= openRules(model, proxy)).rules(q),
    connlist: (format) => formatConnlist((connlist ??= computeConnlist(model)), format),
    tests: (q) => runTests(model, proxy, (t) => trace(model, proxy, t), q),
    observe: (q) => observeFlows({ parsed, options: options.cni ? { cni: options.cni } : {}, model }, q),
  };
  function validateOnce(): DiagnosticView[] {
    const found: Diagnostic[] = [];
    guarded(
      "validation",
      file,
      found,
      undefined,
      () => void found.push(...validationDiagnostics(validateModel(model))),
    );
    return diagnosticsOf(found, file);
  }
}

/** One-shot analysis of the editor text, validation included. */
export function analyzeText(text: string, file = "manifests.yaml", options: AnalyzeOptions = {}): Analysis {
  const s = openAnalysis([{ name: file, text }], options);
  return {
    ...s.analysis,
    diagnostics: [...s.analysis.diagnostics, ...s.validate()].sort(
      (a, b) => a.line - b.line || a.column - b.column,
    ),
  };
}
