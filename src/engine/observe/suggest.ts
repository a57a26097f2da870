/**
 * Least-privilege NetworkPolicies from observed traffic, proved before they
 * are offered.
 *
 * Written from the rows with forwarded flows: per destination workload one
 * ingress policy admitting exactly the sources seen, on exactly the ports
 * seen; per source workload one egress policy to exactly the destinations
 * seen, plus DNS (kube-system's kube-dns, UDP and TCP 53) since its egress
 * is then isolated. A flow to a Service is written to the backends the trace
 * chooses, on their target ports (NetworkPolicy sees the connection after
 * kube-proxy's DNAT). Selectors use the pod template's stable labels
 * (`stableLabels`: no pod-template-hash, controller-revision-hash or
 * StatefulSet pod name); a port is named where every pod of the workload
 * names it so. A side whose traffic ktl did not see all of (a flow to or from
 * an end outside the model) gets no policy, saying why: isolating it would
 * cut that traffic.
 *
 * The proof loads the input plus the policies (the YAML printed, parsed
 * again) and asks the decider: every observed forwarded row must be allowed,
 * every observed drop still dropped; then, over the ports involved, every
 * pod pair the policies govern that is allowed but was not observed is
 * listed, with what admits it.
 */
import { deciderOf } from "../decide/index.ts";
import { buildProxyIndex } from "../proxy/index.ts";
import type { Model, Pod, Protocol, Workload } from "../model/types.ts";
import { traceRequest } from "../trace/index.ts";
import type { ObserveAnalysis, ObserveInput, ObservedRow } from "./report.ts";
import { variantModel } from "./hypotheses.ts";
import { stableLabels } from "./match.ts";
import { Predictor, type ObservedDecidedBy, type PredictedVerdict } from "./predict.ts";
import { appendYaml, yamlDocuments } from "./yaml.ts";
import type { BuildOptions } from "../load/index.ts";
import { buildModel } from "../load/index.ts";
import { parseManifests } from "../parse/manifests.ts";
import { parseFlows } from "./parse.ts";
import { analyzeObserved } from "./compare.ts";
import { dialectOf, DNS, writePolicy, type PortRef } from "./dialects.ts";

export interface SuggestedPolicy {
  namespace: string;
  name: string;
  direction: "ingress" | "egress";
  /** The workload it selects. */
  selects: string;
  rules: number;
}

export interface ProofFailure {
  src: string;
  dst: string;
  port: number;
  protocol: Protocol;
  observed: { forwarded: number; dropped: number };
  /** The answer under the input plus the policies. */
  now: PredictedVerdict;
  reason: string;
}

export interface ExtraReach {
  src: string;
  dst: string;
  port: number;
  protocol: Protocol;
  /** Pod pairs of these workloads allowed. */
  pods: number;
  decidedBy?: ObservedDecidedBy;
  reason: string;
}

export interface SuggestResult {
  yaml: string;
  policies: SuggestedPolicy[];
  /** Workloads given no policy on one side, and why. */
  skipped: { workload: string; direction: "ingress" | "egress"; reason: string }[];
  /** Workloads a policy selects besides the one it was written for (they share its stable labels). */
  alsoSelects: { policy: string; workload: string }[];
  proof: {
    /** Every observed forwarded row still allowed and every observed drop still dropped. */
    holds: boolean;
    forwarded: { checked: number; failed: ProofFailure[] };
    dropped: { checked: number; failed: ProofFailure[] };
    /** Ports the reachability check covered: `TCP/8080`. */
    ports: string[];
    /** Workload pairs the policies govern that are allowed on those ports but were not observed. */
    extra: ExtraReach[];
    /** Set when the pairs were not all checked (too many pods). */
    note?: string;
  };
}

/** Peers and ports per policy subject, in first-seen order. */
type Rules = Map<
  string,
  { subject: Workload; peers: Map<string, { peer: Workload; ports: Map<string, PortRef> }> }
>;

/** The most pods whose pairs the extra-reach check walks. */
const MAX_PODS = 3000;

function entry(rules: Rules, subject: Workload) {
  let r = rules.get(subject.key);
  if (!r) rules.set(subject.key, (r = { subject, peers: new Map() }));
  return r;
}

function addRule(rules: Rules, subject: Workload, peer: Workload, port: PortRef): void {
  const r = entry(rules, subject);
  let p = r.peers.get(peer.key);
  if (!p) r.peers.set(peer.key, (p = { peer, ports: new Map() }));
  p.ports.set(`${port.protocol}/${port.port}`, port);
}

function policyName(direction: "ingress" | "egress", w: Workload, taken: Set<string>): string {
  const base = `allow-observed-${direction}-${w.name}`.slice(0, 200);
  let name = base;
  for (let i = 2; taken.has(`${w.namespace}/${name}`); i++)
    name = `${base}-${w.kind.toLowerCase()}${i > 2 ? i : ""}`;
  taken.add(`${w.namespace}/${name}`);
  return name;
}

/** The backends (workload, target port) of a Service row, as the trace from its source pod chooses them. */
function backends(
  model: Model,
  row: ObservedRow,
  workloadOf: Map<Pod, Workload>,
): { w: Workload; port: number }[] {
  const src = row.asked.src.replace(/^pod:/, "");
  const t = traceRequest(
    model,
    buildProxyIndex(model),
    { kind: "pod", pod: src as Pod["key"] },
    { kind: "service", service: row.dst.replace(/^service:/, ""), port: row.port },
    row.protocol,
  );
  const out: { w: Workload; port: number }[] = [];
  for (const e of t.endpoints) {
    const pod = e.pod && model.podsByKey.get(e.pod);
    const w = pod && workloadOf.get(pod);
    if (w && !out.some((x) => x.w === w && x.port === e.port)) out.push({ w, port: e.port });
  }
  return out;
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The sides no policy is written for: one with traffic ktl could not match (a policy would cut it), a
 * host-network subject or peer, or pods without a stable label to select them by.
 */
function skippedSides(
  report: ObserveAnalysis["report"],
  ingress: Rules,
  egress: Rules,
): SuggestResult["skipped"] {
  const skipped: SuggestResult["skipped"] = [];
  const skip = (w: string, direction: "ingress" | "egress", reason: string) => {
    if (!skipped.some((s) => s.workload === w && s.direction === direction))
      skipped.push({ workload: w, direction, reason });
  };
  // A side with traffic ktl could not match is left open: a policy would cut that traffic.
  for (const u of report.unmatched) {
    if (u.verdict !== "forwarded") continue;
    // DNS to kube-system: the egress policies' DNS rule admits it.
    const dns = u.port === 53 && u.protocol !== "SCTP" && u.dstNamespace === DNS.namespace;
    if (u.srcMatched && !u.srcMatched.startsWith("service:") && !dns)
      skip(
        u.srcMatched,
        "egress",
        `it sent ${u.count} flows to ${u.dst}, which is not in the input (${u.first.file}:${u.first.line})`,
      );
    if (u.dstMatched && !u.dstMatched.startsWith("service:"))
      skip(
        u.dstMatched,
        "ingress",
        `it received ${u.count} flows from ${u.src}, which is not in the input (${u.first.file}:${u.first.line})`,
      );
  }
  for (const [rules, direction] of [
    [ingress, "ingress"],
    [egress, "egress"],
  ] as const)
    for (const { subject, peers } of rules.values()) {
      if (subject.hostNetwork)
        skip(subject.key, direction, "it runs in the host network, which NetworkPolicy does not select");
      else if (Object.keys(stableLabels(subject.labels)).length === 0)
        skip(subject.key, direction, "its pods have no stable label to select them by");
      for (const { peer } of peers.values())
        if (peer.hostNetwork || Object.keys(stableLabels(peer.labels)).length === 0)
          skip(
            subject.key,
            direction,
            `its peer ${peer.key} ${peer.hostNetwork ? "runs in the host network" : "has no stable label"}, so no podSelector can name it`,
          );
    }
  return skipped;
}

export function suggestPolicies(input: ObserveInput, analysis: ObserveAnalysis): SuggestResult {
  const { model, groups, report } = analysis;
  const workloadOf = new Map<Pod, Workload>();
  const byKey = new Map<string, Workload>();
  for (const w of model.workloads) {
    byKey.set(w.key, w);
    for (const p of w.pods) workloadOf.set(p, w);
  }
  const ingress: Rules = new Map();
  const egress: Rules = new Map();
  /** Observed allowed workload pairs per port: `src|dst|TCP/80`. */
  const observed = new Set<string>();
  /** Every port a row involves, for the reachability check. */
  const ports = new Map<string, PortRef>();
  for (const g of groups) {
    const row = g.row;
    const src = byKey.get(row.src);
    if (!src) continue;
    const dsts = row.dst.startsWith("service:")
      ? backends(model, row, workloadOf)
      : byKey.get(row.dst)
        ? [{ w: byKey.get(row.dst)!, port: row.port }]
        : [];
    // Every workload seen sending or receiving gets a policy: what it was only seen refused stays refused.
    entry(egress, src);
    for (const d of dsts) {
      const port = { protocol: row.protocol, port: d.port };
      ports.set(`${port.protocol}/${port.port}`, port);
      entry(ingress, d.w);
      if (row.observed.forwarded === 0) continue;
      observed.add(`${src.key}|${d.w.key}|${row.protocol}/${d.port}`);
      addRule(ingress, d.w, src, port);
      addRule(egress, src, d.w, port);
    }
  }
  const skipped = skippedSides(report, ingress, egress);
  const skippedSide = (w: string, d: "ingress" | "egress") =>
    skipped.some((s) => s.workload === w && s.direction === d);

  const docs: { comment?: string; value: unknown }[] = [];
  const policies: SuggestedPolicy[] = [];
  const taken = new Set<string>();
  // In the profile's dialect (dialects.ts): NetworkPolicy, CiliumNetworkPolicy or Calico's NetworkPolicy.
  const dialect = dialectOf(model.profile?.cni);
  let dns = false;
  for (const [rules, direction] of [
    [ingress, "ingress"],
    [egress, "egress"],
  ] as const)
    for (const { subject, peers } of rules.values()) {
      if (skippedSide(subject.key, direction)) continue;
      const name = policyName(direction, subject, taken);
      // Its egress is isolated now: name lookups need their own rule (kube-dns's conventional labels).
      if (direction === "egress") dns = true;
      const written = writePolicy(
        dialect,
        direction,
        subject,
        name,
        [...peers.values()].map(({ peer, ports }) => ({ peer, ports: [...ports.values()] })),
      );
      policies.push({
        namespace: subject.namespace,
        name,
        direction,
        selects: subject.key,
        rules: written.rules,
      });
      const who = `${subject.kind} ${subject.namespace}/${subject.name}`;
      docs.push({
        comment:
          direction === "ingress"
            ? peers.size
              ? `${who} accepts only what was observed reaching it`
              : `${who} was only observed refusing connections: it accepts none`
            : peers.size
              ? `${who} opens only what it was observed opening, and DNS`
              : `${who} was only observed being refused: it opens nothing but DNS`,
        value: written.value,
      });
    }
  // Per namespace, ingress before egress, by name: the same traffic prints the same YAML.
  const order = policies
    .map((p, i) => ({ p, d: docs[i]! }))
    .sort(
      (a, b) =>
        cmp(a.p.namespace, b.p.namespace) ||
        cmp(a.p.direction, b.p.direction) * -1 ||
        cmp(a.p.name, b.p.name),
    );
  policies.splice(0, policies.length, ...order.map((x) => x.p));
  const yaml = order.length ? yamlDocuments(order.map((x) => x.d)) : "";

  // The proof: the YAML above, parsed again, on top of the input.
  const proved = variantModel(input.parsed, input.options ?? {}, yaml ? { addYaml: yaml } : {});
  const { forwardedFailed, droppedFailed, fwdChecked, dropChecked } = checkProof(proved, groups);

  // Everything else the policies let through, on the ports involved.
  if (dns) {
    ports.set("UDP/53", { protocol: "UDP", port: 53 });
    ports.set("TCP/53", { protocol: "TCP", port: 53 });
  }
  const { alsoSelects, extra, note } = widerReach(model, byKey, proved, policies, ports, observed);
  const result: SuggestResult = {
    yaml,
    policies,
    skipped,
    alsoSelects,
    proof: {
      holds: forwardedFailed.length === 0 && droppedFailed.length === 0,
      forwarded: { checked: fwdChecked, failed: forwardedFailed },
      dropped: { checked: dropChecked, failed: droppedFailed },
      ports: [...ports.keys()].sort(),
      extra,
    },
  };
  if (note) result.proof.note = note;
  return result;
}

/** The proof in words, one line each (the CLI prints them as YAML comments; the playground as the what-if's notes). */
export function suggestProofLines(s: SuggestResult, judgedBy: string): string[] {
  const out: string[] = [];
  out.push(
    `Proof: the input plus these ${s.policies.length} policies, asked again by the decider (${judgedBy}):`,
  );
  const f = s.proof.forwarded;
  const d = s.proof.dropped;
  out.push(`  ${f.checked - f.failed.length} of ${f.checked} observed forwarded rows still allowed`);
  for (const x of f.failed)
    out.push(`    NOT ALLOWED ${x.src} -> ${x.dst} ${x.protocol}/${x.port}: now ${x.now}: ${x.reason}`);
  out.push(`  ${d.checked - d.failed.length} of ${d.checked} observed dropped rows still dropped`);
  for (const x of d.failed)
    out.push(`    NOT DROPPED ${x.src} -> ${x.dst} ${x.protocol}/${x.port}: now ${x.now}: ${x.reason}`);
  if (s.proof.note) out.push(`  ${s.proof.note}`);
  else if (s.proof.extra.length === 0)
    out.push(
      `  nothing else is allowed between the workloads they govern on ${s.proof.ports.join(", ") || "the ports involved"}`,
    );
  else {
    out.push(`  also allowed, beyond the observed flows, on ${s.proof.ports.join(", ")}:`);
    for (const x of s.proof.extra)
      out.push(
        `    ${x.src} -> ${x.dst} ${x.protocol}/${x.port} (${x.pods} pod pair${x.pods === 1 ? "" : "s"})${x.decidedBy?.name ? ` by ${x.decidedBy.kind ?? x.decidedBy.layer} ${x.decidedBy.namespace ? `${x.decidedBy.namespace}/` : ""}${x.decidedBy.name}` : `: ${x.reason}`}`,
      );
  }
  for (const a of s.alsoSelects)
    out.push(`  ${a.policy} also selects ${a.workload}: it carries the same stable labels`);
  for (const k of s.skipped) out.push(`  no ${k.direction} policy for ${k.workload}: ${k.reason}`);
  out.push(s.proof.holds ? "The proof holds." : "The proof FAILS: see the rows above.");
  return out;
}

/** Policies from a flow file, as an edit of the editor's text (the playground's "Write policies from these flows"). */
export interface TextSuggestion {
  /** True when the text was edited: some policy was written and its proof holds. */
  changed: boolean;
  text: string;
  /** The YAML appended. */
  added: string;
  summary: string;
  /** The proof, one line each (suggestProofLines). */
  lines: string[];
  holds: boolean;
}

/**
 * Writes the policies from the flows and proves them, as `ktl observe
 * --suggest` does, and appends them to the text only when the proof holds:
 * what is not proved is not offered (its lines say what failed).
 */
export function suggestForText(
  input: { text: string; file: string; options?: BuildOptions },
  flows: { name: string; text: string },
): TextSuggestion {
  const options = input.options ?? {};
  const parsed = parseManifests([{ name: input.file, text: input.text }]);
  const model = buildModel(parsed, options);
  const none = (summary: string, lines: string[] = []): TextSuggestion => ({
    changed: false,
    text: input.text,
    added: "",
    summary,
    lines,
    holds: false,
  });
  const set = parseFlows([flows]);
  const bad = set.errors[0];
  if (bad) return none(`${bad.file}:${bad.line}: ${bad.message}: no policy written`);
  const analysis = analyzeObserved({ parsed, options, model }, set);
  const s = suggestPolicies({ parsed, options, model }, analysis);
  const lines = suggestProofLines(s, analysis.report.judgedBy);
  if (!s.yaml)
    return none(
      "No policy written: no observed forwarded flow between workloads that a policy can select.",
      lines,
    );
  const dialect = dialectOf(model.profile?.cni);
  const what = `${s.policies.length} ${dialect === "CalicoNetworkPolicy" ? "Calico NetworkPolicies" : dialect === "CiliumNetworkPolicy" ? "CiliumNetworkPolicies" : "NetworkPolicies"} from the observed flows`;
  if (!s.proof.holds) return { ...none(`Not offered: the proof of ${what} fails`, lines), added: s.yaml };
  return {
    changed: true,
    text: appendYaml(input.text, s.yaml),
    added: s.yaml,
    summary: what,
    lines,
    holds: true,
  };
}

/**
 * What the suggested policies let through beyond the observed flows: what
 * each selects (its subject, and any workload of its namespace with the same
 * stable labels), then every pod pair that such a workload is in and the
 * decider allows on the ports involved, over the input with the policies.
 */
function widerReach(
  model: Model,
  byKey: ReadonlyMap<string, Workload>,
  proved: Model,
  policies: readonly SuggestedPolicy[],
  ports: ReadonlyMap<string, PortRef>,
  observed: ReadonlySet<string>,
): { alsoSelects: SuggestResult["alsoSelects"]; extra: ExtraReach[]; note: string | undefined } {
  // What each policy selects: its subject, and any workload of its namespace that carries the same stable labels.
  const governedIn = new Set<string>();
  const governedOut = new Set<string>();
  const alsoSelects: SuggestResult["alsoSelects"] = [];
  for (const p of policies) {
    const subject = byKey.get(p.selects)!;
    const want = stableLabels(subject.labels);
    for (const w of model.workloads) {
      if (w.namespace !== p.namespace || w.pods.length === 0) continue;
      if (Object.keys(want).some((k) => w.labels[k] !== want[k])) continue;
      (p.direction === "ingress" ? governedIn : governedOut).add(w.key);
      if (w.key !== p.selects) alsoSelects.push({ policy: `${p.namespace}/${p.name}`, workload: w.key });
    }
  }
  const extra: ExtraReach[] = [];
  let note: string | undefined;
  if (proved.pods.length > MAX_PODS) {
    note = `${proved.pods.length} pods: more than the ${MAX_PODS} whose pairs ktl walks; pairs beyond the observed flows were not listed`;
  } else if (policies.length) {
    const decider = deciderOf(proved);
    const provedWorkloadOf = new Map<Pod, Workload>();
    for (const w of proved.workloads) for (const p of w.pods) provedWorkloadOf.set(p, w);
    for (const p of [...ports.values()].sort(
      (a, b) => a.port - b.port || (a.protocol < b.protocol ? -1 : 1),
    )) {
      const m = decider.matrix(p.port, p.protocol);
      const found = new Map<string, ExtraReach & { first: [Pod, Pod] }>();
      for (const a of proved.pods) {
        const wa = provedWorkloadOf.get(a);
        if (!wa) continue;
        for (const b of proved.pods) {
          const wb = provedWorkloadOf.get(b);
          if (!wb || !(governedOut.has(wa.key) || governedIn.has(wb.key))) continue;
          if (observed.has(`${wa.key}|${wb.key}|${p.protocol}/${p.port}`)) continue;
          // DNS to kube-dns is allowed on purpose.
          if (
            p.port === 53 &&
            wb.namespace === DNS.namespace &&
            wb.labels["k8s-app"] === DNS.labels["k8s-app"]
          )
            continue;
          if (!m.allowed(a, b)) continue;
          const k = `${wa.key}|${wb.key}`;
          const e = found.get(k);
          if (e) e.pods++;
          else
            found.set(k, {
              src: wa.key,
              dst: wb.key,
              port: p.port,
              protocol: p.protocol,
              pods: 1,
              reason: "",
              first: [a, b],
            });
        }
      }
      for (const e of found.values()) {
        const d = decider.explain(e.first[0], e.first[1], p.port, p.protocol);
        const out: ExtraReach = {
          src: e.src,
          dst: e.dst,
          port: e.port,
          protocol: e.protocol,
          pods: e.pods,
          reason: d.reason,
        };
        if (d.decidedBy) out.decidedBy = { ...d.decidedBy };
        extra.push(out);
      }
    }
  }
  return { alsoSelects, extra, note };
}

/** The proof: every observed row asked again over the input with the suggested policies; a forwarded row must stay allowed, a dropped one dropped. */
function checkProof(
  proved: Model,
  groups: ObserveAnalysis["groups"],
): {
  forwardedFailed: ProofFailure[];
  droppedFailed: ProofFailure[];
  fwdChecked: number;
  dropChecked: number;
} {
  const predictor = new Predictor(proved);
  const forwardedFailed: ProofFailure[] = [];
  const droppedFailed: ProofFailure[] = [];
  let fwdChecked = 0;
  let dropChecked = 0;
  for (const g of groups) {
    const row = g.row;
    const answers = g.questions.map((q) => predictor.ask(q));
    const err = answers.find((a) => "error" in a);
    const verdicts = answers.flatMap((a) => ("error" in a ? [] : [a]));
    const now: PredictedVerdict = err
      ? "partial"
      : verdicts.every((a) => a.verdict === "allowed")
        ? "allowed"
        : verdicts.every((a) => a.verdict === "dropped")
          ? "dropped"
          : "partial";
    const reason = err && "error" in err ? err.error : (verdicts[0]?.reason ?? "");
    const failure = (): ProofFailure => ({
      src: row.src,
      dst: row.dst,
      port: row.port,
      protocol: row.protocol,
      observed: row.observed,
      now,
      reason,
    });
    if (row.observed.forwarded > 0) {
      fwdChecked++;
      if (now !== "allowed") forwardedFailed.push(failure());
    }
    if (row.observed.dropped > 0) {
      dropChecked++;
      if (now !== "dropped") droppedFailed.push(failure());
    }
  }

  return { forwardedFailed, droppedFailed, fwdChecked, dropChecked };
}
