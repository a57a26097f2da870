/**
 * `ktl test` in the playground: a test file run against the session's model
 * (engine/expect decides each expectation, as `ktl test` does), plus what the
 * page needs to show it: the pair that explains each result as a question
 * the graph can light, the objects that decided it with their editor lines,
 * and the parts of the path where the traffic contradicts the expectation
 * (the graph's "test failed" marks).
 */
import {
  caseFailure,
  parseExpectations,
  runExpectation,
  type Expectation,
  type ExpectationCase,
  type ExpectedVerdict,
} from "../expect/index.ts";
import type { Model } from "../model/types.ts";
import type { ProxyIndex } from "../proxy/index.ts";
import type { DiagnosticView, RefView, TracePathEdge, TraceQuery, TraceView } from "./types.ts";

export interface TestsQuery {
  /** The test file's text: ktl's `tests:` list or netassert v2's list. */
  text: string;
  /** Its name, for messages. */
  file: string;
}

/** A part of a traced path (graph ids, as `TracePathEdge`) on which an expectation fails. */
export interface TestMark {
  source: string;
  target: string;
}

export interface TestResultView {
  name: string;
  /** 1-based line of the expectation in the test file. */
  line: number;
  from: string;
  to: string;
  expect: ExpectedVerdict;
  pass: boolean;
  /** One line: the decision (passing) or how many pairs fail. */
  summary: string;
  /** Why it failed, one line per failing pair (capped) or per problem. */
  failures: string[];
  /** Pod pairs checked. */
  pairs: number;
  /** The pair that explains the result (the first failing one, else the first), as a question to trace. */
  question?: TraceQuery;
  /** The objects that decided it (where it fails: on the contradicting parts), with their editor lines. */
  decidedBy: RefView[];
  /** Where the traffic contradicts the expectation, for the failing pairs traced (at most MARKED_PAIRS). */
  marks: TestMark[];
}

export interface TestRunView {
  file: string;
  /** Problems of the test file itself, with its lines; when any is an error, no expectation is run. */
  diagnostics: DiagnosticView[];
  results: TestResultView[];
  passed: number;
  failed: number;
}

/** Failing pairs traced for the graph's marks, per expectation: enough to show where, few enough to stay quick. */
export const MARKED_PAIRS = 12;

function refKey(r: RefView): string {
  return `${r.kind}|${r.namespace ?? ""}|${r.name}`;
}

function questionOf(e: Expectation, c: ExpectationCase): TraceQuery {
  const q: TraceQuery = { from: c.from, to: c.to, protocol: e.protocol };
  if (e.http) q.http = e.http;
  return q;
}

/** The parts of a traced path that contradict the expectation; all of them when none does by verdict (a source-address expectation). */
function contradicting(e: Expectation, t: TraceView): TracePathEdge[] {
  const parts = t.edges.filter((p) => p.verdict !== e.expect);
  return parts.length ? parts : t.edges;
}

export function runTests(
  model: Model,
  proxy: ProxyIndex | undefined,
  trace: (q: TraceQuery) => TraceView,
  q: TestsQuery,
): TestRunView {
  const parsed = parseExpectations(q.file, q.text);
  const diagnostics: DiagnosticView[] = parsed.diagnostics
    .map((d) => {
      const v: DiagnosticView = {
        code: d.code,
        severity: d.severity,
        message: d.message,
        line: d.line,
        column: d.column,
      };
      if (d.hint) v.hint = d.hint;
      return v;
    })
    .sort((a, b) => a.line - b.line || a.column - b.column);
  const view: TestRunView = { file: q.file, diagnostics, results: [], passed: 0, failed: 0 };
  if (diagnostics.some((d) => d.severity === "error")) return view;
  for (const e of parsed.expectations) {
    const base = { name: e.name, line: e.line, from: e.from, to: e.to, expect: e.expect };
    if (!proxy) {
      const failure = "the kube-proxy model failed to build";
      view.results.push({
        ...base,
        pass: false,
        summary: failure,
        failures: [failure],
        pairs: 0,
        decidedBy: [],
        marks: [],
      });
      continue;
    }
    const r = runExpectation(model, proxy, e);
    const failing = r.cases.filter((c) => caseFailure(e, c) !== undefined);
    const result: TestResultView = {
      ...base,
      pass: r.pass,
      summary: r.summary,
      failures: r.failures,
      pairs: r.cases.length,
      decidedBy: [],
      marks: [],
    };
    const explaining = failing[0] ?? (r.pass ? r.cases[0] : undefined);
    if (explaining) result.question = questionOf(e, explaining);
    const refs = new Map<string, RefView>();
    const marks = new Map<string, TestMark>();
    if (failing.length) {
      for (const c of failing.slice(0, MARKED_PAIRS)) {
        const t = trace(questionOf(e, c));
        if (t.error) continue;
        for (const p of contradicting(e, t)) {
          marks.set(`${p.source}>${p.target}`, { source: p.source, target: p.target });
          for (const ref of p.decidedBy) refs.set(refKey(ref), ref);
        }
      }
    } else if (explaining && result.question) {
      const t = trace(result.question);
      for (const ref of t.edges[0]?.decidedBy ?? []) refs.set(refKey(ref), ref);
    }
    result.decidedBy = [...refs.values()];
    result.marks = [...marks.values()];
    view.results.push(result);
    if (result.pass) view.passed++;
    else view.failed++;
  }
  return view;
}
