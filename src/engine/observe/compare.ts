/**
 * Observed against predicted: each matched flow beside the engine's answer
 * for it, per source workload, destination workload (or Service), port and
 * protocol, in one of four cases (plus `partial`, a Service whose backends
 * answer differently, which no observation contradicts):
 *
 * - agree-allowed, agree-dropped;
 * - observed-forwarded-but-predicted-dropped: the CNI does not enforce the
 *   policy, or a policy in the cluster that the input lacks allows it;
 * - observed-dropped-but-predicted-allowed: a layer not in the input (a
 *   host firewall, a mesh, a CNI policy, a default deny) dropped it.
 *
 * Counting: a connection allowed at both ends is reported twice, by its
 * source and by its destination (Calico's `reporter`, Hubble's
 * `traffic_direction`). The destination's reports count, the source's only
 * where the destination reported nothing (a destination outside the CNI's
 * view); every drop counts, wherever it was seen.
 *
 * The explanations are tested by the decider (`hypotheses.ts`), never
 * guessed.
 */
import { buildModel } from "../load/index.ts";
import { deciderOf } from "../decide/index.ts";
import type { ParseResult } from "../parse/manifests.ts";
import { matchIndex, resolveEnd, type Resolved } from "./match.ts";
import { Predictor, type PredictedVerdict, type Prediction, type Question } from "./predict.ts";
import { testHypotheses } from "./hypotheses.ts";
import {
  DISAGREEMENTS,
  type Group,
  type ObserveAnalysis,
  type ObserveCase,
  type ObserveInput,
  type ObserveReport,
  type ObservedRow,
  type SkippedSummary,
  type UnmatchedFlow,
} from "./report.ts";
import type { FlowSet, ObservedFlow, ObservedPolicy } from "./types.ts";

const MAX_PAIRS = 32;

function questionOf(src: Resolved & { kind: "pod" }, dst: Resolved, f: ObservedFlow): Question {
  return {
    src: src.pod.key,
    dst:
      dst.kind === "pod"
        ? { kind: "pod", pod: dst.pod.key }
        : {
            kind: "service",
            service: dst.service.key,
            ...(dst.how === "ip" && f.dst.ip ? { ip: f.dst.ip } : {}),
          },
    port: f.port,
    protocol: f.protocol,
  };
}

const qText = (q: Question) =>
  `pod:${q.src} -> ${q.dst.kind === "pod" ? `pod:${q.dst.pod}` : `service:${q.dst.service}`}:${q.port}`;

/** The group's answer: its pairs' answers when they agree, else partial (the first pair's cause kept). */
export function predictGroup(p: Predictor, questions: readonly Question[]): Prediction | { error: string } {
  let first: Prediction | undefined;
  let allowed = 0;
  let dropped = 0;
  for (const q of questions) {
    const a = p.ask(q);
    if ("error" in a) return a;
    first ??= a;
    if (a.verdict === "allowed") allowed++;
    else if (a.verdict === "dropped") dropped++;
  }
  if (!first) return { error: "no pair to ask" };
  if (allowed === questions.length || dropped === questions.length) return first;
  const out: Prediction = {
    verdict: "partial",
    reason: `${allowed} of ${questions.length} pod pairs allowed${first.verdict === "partial" ? `; ${first.reason}` : ""}`,
  };
  if (first.decidedBy) out.decidedBy = first.decidedBy;
  return out;
}

export function caseOf(
  predicted: PredictedVerdict,
  observed: { forwarded: number; dropped: number },
): ObserveCase {
  if (predicted === "allowed")
    return observed.dropped > 0 ? "observed-dropped-but-predicted-allowed" : "agree-allowed";
  if (predicted === "dropped")
    return observed.forwarded > 0 ? "observed-forwarded-but-predicted-dropped" : "agree-dropped";
  return "partial";
}

interface Tally {
  fwd: { src: number; dst: number; none: number };
  drop: number;
  hasDst: boolean;
}

/** Observed flows against the model of an input: matched, aggregated, predicted, the disagreements explained. */
export function compareObserved(input: ObserveInput, set: FlowSet): ObserveReport {
  return analyzeObserved(input, set).report;
}

/** What the rows of one source, destination, port and protocol gather while the flows are read. */
interface GroupEntry {
  g: Omit<Group, "prediction">;
  tally: Tally;
  seen: Set<string>;
  drops: Set<string>;
  logged: Map<string, { policy: string; inInput: boolean; records: number }>;
}

/** A row's first flow: the question it asks, and empty tallies. */
function newEntry(src: Resolved & { kind: "pod" }, dst: Resolved, f: ObservedFlow): GroupEntry {
  const q = questionOf(src, dst, f);
  return {
    g: {
      row: {
        src: src.key,
        dst: dst.key,
        port: f.port,
        protocol: f.protocol,
        observed: { forwarded: 0, dropped: 0 },
        records: 0,
        predicted: "allowed",
        case: "agree-allowed",
        reason: "",
        asked: {
          src: `pod:${q.src}`,
          dst: qText(q).split(" -> ")[1]!,
          matchedBy: [src.how, dst.how],
          pairs: 0,
        },
        first: { file: f.file, line: f.line },
      },
      questions: [],
    },
    tally: { fwd: { src: 0, dst: 0, none: 0 }, drop: 0, hasDst: false },
    seen: new Set(),
    drops: new Set(),
    logged: new Map(),
  };
}

export function analyzeObserved(input: ObserveInput, set: FlowSet): ObserveAnalysis {
  const model = input.model ?? buildModel(input.parsed, input.options ?? {});
  const ix = matchIndex(model);
  const predictor = new Predictor(model);
  const unmatched = new Map<string, UnmatchedFlow>();
  const groups = new Map<string, GroupEntry>();
  const inInput = policyLookup(input.parsed);
  let matched = 0;
  const miss = (f: ObservedFlow, reason: string, matchedEnd?: { src?: string; dst?: string }) => {
    const k = `${f.src.text}|${f.dst.text}|${f.port}|${f.protocol}|${f.verdict}|${reason}`;
    const u = unmatched.get(k);
    if (u) {
      u.count += f.count;
      u.records++;
      return;
    }
    unmatched.set(k, {
      src: f.src.text,
      dst: f.dst.text,
      port: f.port,
      protocol: f.protocol,
      verdict: f.verdict,
      count: f.count,
      records: 1,
      reason,
      first: { file: f.file, line: f.line },
      ...(matchedEnd?.src ? { srcMatched: matchedEnd.src } : {}),
      ...(matchedEnd?.dst ? { dstMatched: matchedEnd.dst } : {}),
      ...(f.dst.namespace ? { dstNamespace: f.dst.namespace } : {}),
    });
  };
  for (const f of set.flows) {
    const src = resolveEnd(ix, f.src);
    const dst = resolveEnd(ix, f.dst);
    const ends = {
      ...("reason" in src ? {} : { src: src.key }),
      ...("reason" in dst ? {} : { dst: dst.key }),
    };
    if ("reason" in src) {
      miss(f, `source: ${src.reason}`, ends);
      continue;
    }
    if ("reason" in dst) {
      miss(f, `destination: ${dst.reason}`, ends);
      continue;
    }
    if (src.kind !== "pod") {
      miss(f, `source: ${src.key} is a Service address; a connection starts at a pod`, { dst: dst.key });
      continue;
    }
    matched++;
    const key = `${src.key}|${dst.key}|${f.port}|${f.protocol}`;
    let entry = groups.get(key);
    if (!entry) groups.set(key, (entry = newEntry(src, dst, f)));
    const q = questionOf(src, dst, f);
    const qk = qText(q);
    if (!entry.seen.has(qk) && entry.seen.size < MAX_PAIRS) {
      entry.seen.add(qk);
      entry.g.questions.push(q);
    }
    const t = entry.tally;
    entry.g.row.records++;
    if (f.reporter === "dst") t.hasDst = true;
    if (f.policy) {
      const text = policyText(f.policy);
      const l = entry.logged.get(text);
      if (l) l.records++;
      else entry.logged.set(text, { policy: text, inInput: inInput(f.policy), records: 1 });
    }
    if (f.verdict === "dropped") {
      t.drop += f.count;
      if (f.dropReason) entry.drops.add(f.dropReason);
    } else t.fwd[f.reporter ?? "none"] += f.count;
  }

  const built: Group[] = [];
  for (const { g, tally, drops, logged } of groups.values()) {
    const row = g.row;
    if (logged.size) row.logged = [...logged.values()];
    row.observed = {
      forwarded: tally.fwd.none + (tally.hasDst ? tally.fwd.dst : tally.fwd.src),
      dropped: tally.drop,
    };
    if (drops.size) row.dropReasons = [...drops].sort();
    row.asked.pairs = g.questions.length;
    const p = predictGroup(predictor, g.questions);
    if ("error" in p) {
      // The trace could not be asked (a pod without an address): the flow is listed, not guessed.
      matched -= row.records;
      for (const q of g.questions.slice(0, 1))
        unmatched.set(`${row.src}|${row.dst}|${row.port}|error`, {
          src: `pod:${q.src}`,
          dst: row.dst,
          port: row.port,
          protocol: row.protocol,
          verdict: row.observed.dropped ? "dropped" : "forwarded",
          count: row.observed.forwarded + row.observed.dropped,
          records: row.records,
          reason: `the engine cannot answer it: ${p.error}`,
          first: row.first,
        });
      continue;
    }
    row.predicted = p.verdict;
    row.reason = p.reason;
    if (p.decidedBy) row.decidedBy = p.decidedBy;
    row.case = caseOf(p.verdict, row.observed);
    built.push({ row, questions: g.questions, prediction: p });
  }
  built.sort((a, b) => rowOrder(a.row, b.row));

  const hypotheses = testHypotheses(input, model, built);
  const skipped = new Map<string, SkippedSummary>();
  for (const s of set.skipped) {
    const e = skipped.get(s.reason);
    if (e) e.records++;
    else skipped.set(s.reason, { reason: s.reason, records: 1, first: { file: s.file, line: s.line } });
  }
  const report: ObserveReport = {
    records: set.flows.length,
    matched,
    unmatched: [...unmatched.values()],
    skippedFlows: [...skipped.values()],
    flows: built.map((g) => g.row),
    disagreements: built.filter((g) => DISAGREEMENTS.has(g.row.case)).length,
    hypotheses,
    judgedBy: deciderOf(model).judgedBy,
    formats: set.formats,
  };
  return { report, groups: built, model };
}

export function policyText(p: ObservedPolicy): string {
  return `${p.kind ?? "policy"} ${p.namespace ? `${p.namespace}/` : ""}${p.name}${p.tier ? ` (tier ${p.tier})` : ""}`;
}

/** Whether the input has the policy a flow log names (Calico writes a tiered policy's name with its tier in front). */
function policyLookup(parsed: ParseResult): (p: ObservedPolicy) => boolean {
  const all = [...parsed.objects, ...parsed.ignored];
  return (p) =>
    all.some(
      (o) =>
        (!p.kind || o.kind === p.kind || (p.kind === "NetworkPolicy" && o.kind.endsWith("NetworkPolicy"))) &&
        (o.name === p.name || (p.tier !== undefined && `${p.tier}.${o.name}` === p.name)) &&
        (p.namespace === undefined || (o.namespace ?? "default") === p.namespace),
    );
}

const CASE_ORDER: Record<ObserveCase, number> = {
  "observed-dropped-but-predicted-allowed": 0,
  "observed-forwarded-but-predicted-dropped": 1,
  partial: 2,
  "agree-dropped": 3,
  "agree-allowed": 4,
};

function rowOrder(a: ObservedRow, b: ObservedRow): number {
  return (
    CASE_ORDER[a.case] - CASE_ORDER[b.case] ||
    (a.src < b.src ? -1 : a.src > b.src ? 1 : 0) ||
    (a.dst < b.dst ? -1 : a.dst > b.dst ? 1 : 0) ||
    a.port - b.port ||
    (a.protocol < b.protocol ? -1 : a.protocol > b.protocol ? 1 : 0)
  );
}
