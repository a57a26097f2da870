/**
 * Connects the store to the engine worker: edits are debounced and analysed,
 * questions are traced and matrices computed against the newest analysis.
 * The only writer of the analysis slice.
 */
import { BudgetError, type EngineClient, type Outcome } from "../worker/engineClient.ts";
import type { AppStore } from "./createAppStore.ts";
import type { Analysis, MatrixQuery, NodeRulesQuery, TraceQuery } from "../engine/analysis/index.ts";
import type { ConnlistRequest } from "./types.ts";
import { rulesQueryOf, sameHttp, sameRulesQuery } from "./viewSlice.ts";
import { inSlices } from "./tasks.ts";

export interface SyncOptions {
  /** Quiet time after the last keystroke before analysing; larger texts wait longer. */
  debounceMs?: (textLength: number) => number;
  schedule?: (f: () => void, ms: number) => unknown;
  cancel?: (h: unknown) => void;
  /**
   * Work the page does with an answer before drawing it, a slice per task (the graph's mapping of a large
   * answer: `components/Graph/useGraph.ts` prepareGraph), or undefined when there is none. The answer is shown
   * in a task after the last slice: React's render of it then finds the graph built, so no main-thread task
   * holds both the mapping and the render, or the whole mapping.
   */
  prepareDraw?: (result: Analysis) => PreparedDraw | undefined;
  /** Runs `f` in a task of its own, after what is queued (a zero timeout unless given). */
  nextTask?: (f: () => void) => void;
}

/** A draw's preparation, a slice at a time: `step` runs one slice and says whether the work has ended. */
export interface PreparedDraw {
  step(): boolean;
}

// No pause here: the worker re-parses only the edited docs, and never queues more than the newest text
// (engineClient supersedes older ones), so typing needs no long wait. A text the editor hands over per
// keystroke (under 200 kB, mount.ts LARGE) is sent at once: its analysis takes tens of ms, and a frame's
// wait was a sixth of the keystroke-to-graph time at 200 pods. A larger text reaches the store only after
// the editor's own pause (mount.ts pushDelay: a frame, longer for very large texts), which already joins
// the keys typed in it; a second pause here doubled it (32 ms at 2,000 pods, 120 ms at 10,000).
const defaultDebounce = (_textLength: number) => 0;

/** Quiet time after typing in the Tests tab's editor before the tests run again. */
const TESTS_DEBOUNCE_MS = 250;

const sameTrace = (a: TraceQuery | undefined, b: TraceQuery | undefined) =>
  a?.from === b?.from && a?.to === b?.to && a?.protocol === b?.protocol && sameHttp(a?.http, b?.http);
const sameMatrix = (a: MatrixQuery | undefined, b: MatrixQuery | undefined) =>
  a?.port === b?.port && a?.protocol === b?.protocol && a?.by === b?.by;

/** A User Timing mark, for benchmarks (no-op where the Performance API is missing). */
function mark(name: string) {
  globalThis.performance?.mark?.(name);
}

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** The questions the store asks the engine besides the analysis: each said started, then answered or failed. */
function questions(store: AppStore, client: EngineClient, live: () => boolean) {
  // Each question: said started, then its answer or failure, unless a newer text or question made it stale.
  const ask = <V>(
    call: Promise<Outcome<V>>,
    current: () => boolean,
    received: (v: V) => void,
    failed: (message: string) => void,
  ) =>
    call.then(
      (o) => {
        if (live() && !o.stale && current()) received(o.value);
      },
      (e: unknown) => {
        if (live() && current()) failed(message(e));
      },
    );
  const state = () => store.getState();

  const trace = (q: TraceQuery) => {
    state().traceStarted(q);
    void ask(
      client.trace(q),
      () => sameTrace(state().question, q),
      (v) => state().traceReceived(q, v),
      (m) => state().traceFailed(q, m),
    );
  };
  const matrix = (q: MatrixQuery) => {
    state().matrixStarted(q);
    void ask(
      client.matrix(q),
      () => sameMatrix(state().matrixQuery, q),
      (v) => state().matrixReceived(q, v),
      (m) => state().matrixFailed(q, m),
    );
  };
  const rules = (q: NodeRulesQuery) => {
    state().rulesStarted(q);
    void ask(
      client.rules(q),
      () => sameRulesQuery(rulesQueryOf(state()), q),
      (v) => state().rulesReceived(q, v),
      (m) => state().rulesFailed(q, m),
    );
  };
  const connlist = (q: ConnlistRequest) => {
    state().connlistStarted(q);
    void ask(
      client.connlist({ format: q.format }),
      () => state().connlistRequest === q,
      (v) => state().connlistReceived(q, v),
      (m) => state().connlistFailed(q, m),
    );
  };

  // The Tests tab's file, run against the analysed text; a newer text or test file makes an answer stale.
  const tests = () => {
    const { testsText, testsFile, testsOn, analysis } = state();
    if (!testsOn || !analysis.result) return;
    const revision = analysis.revision;
    state().testsStarted(revision, testsText);
    void ask(
      client.tests({ text: testsText, file: testsFile }),
      () => state().analysis.revision === revision && state().testsText === testsText && state().testsOn,
      (v) => state().testsReceived(revision, testsText, v),
      (m) => state().testsFailed(revision, testsText, m),
    );
  };

  // The Observed tab's flow file, compared with the analysed text; a newer text or flow file makes an answer stale.
  const observe = () => {
    const { observeText, observeFile, analysis } = state();
    if (observeText === "" || !analysis.result) return;
    const revision = analysis.revision;
    state().observeStarted(revision, observeText);
    void ask(
      client.observe({ text: observeText, file: observeFile }),
      () => state().analysis.revision === revision && state().observeText === observeText,
      (v) => state().observeReceived(revision, observeText, v),
      (m) => state().observeFailed(revision, observeText, m),
    );
  };
  return { trace, matrix, rules, connlist, tests, observe };
}

/** A zero wait's handle: the microtask runs unless cancelled first. */
class Soon {
  cancelled = false;
}

/**
 * A zero wait ends with the task that made the change (the keystroke's, in Monaco's handler), so the text
 * reaches the worker while the page renders the keystroke: a `setTimeout(0)` ran after that frame, 20 to
 * 60 ms after the keydown at 200 pods on two cores (Chromium trace of the bench's edits). Changes made in
 * one go (a paste that is a new scenario sets the text and the profile) are still sent once.
 */
function scheduleSoon(f: () => void, ms: number): unknown {
  if (ms > 0) return setTimeout(f, ms);
  const soon = new Soon();
  queueMicrotask(() => {
    if (!soon.cancelled) f();
  });
  return soon;
}

function cancelSoon(h: unknown): void {
  if (h instanceof Soon) h.cancelled = true;
  else clearTimeout(h as ReturnType<typeof setTimeout>);
}

export function connectEngine(store: AppStore, client: EngineClient, options: SyncOptions = {}): () => void {
  const debounce = options.debounceMs ?? defaultDebounce;
  const schedule = options.schedule ?? scheduleSoon;
  const cancel = options.cancel ?? cancelSoon;
  const nextTask = options.nextTask ?? ((f: () => void) => void setTimeout(f, 0));
  let timer: unknown;
  let disposed = false;

  const analyze = () => {
    timer = undefined;
    const { text, file, revision, cni, assume } = store.getState();
    mark(`ktl:analysis-sent:${revision}`);
    store.getState().analysisStarted(revision);
    (cni || assume ? client.analyze(text, file, cni, assume) : client.analyze(text, file)).then(
      (o) => {
        if (disposed || o.stale) return;
        mark(`ktl:analysis-received:${revision}`);
        const prepared = options.prepareDraw?.(o.value);
        if (!prepared) return show(revision, o.value);
        received = Math.max(received, revision);
        // A newer answer received (it prepares its own) or shown, or a newer failure, wins: this one stops.
        const current = () => !disposed && settled <= revision && received <= revision;
        inSlices(
          () => prepared.step(),
          current,
          () =>
            nextTask(() => {
              if (current()) show(revision, o.value);
            }),
          nextTask,
        );
      },
      (e: unknown) => {
        if (disposed || store.getState().revision !== revision) return;
        const kept = store.getState().analysis.result
          ? "Your text is kept; the graph shows the last good result."
          : "Your text is kept.";
        const what =
          e instanceof BudgetError ? message(e) : `The engine could not analyse this text: ${message(e)}`;
        settled = Math.max(settled, revision);
        store.getState().analysisFailed(revision, `${what}. ${kept}`);
      },
    );
  };
  // The revision of the newest answer shown or failure reported, and of the newest answer being prepared.
  let settled = -1;
  let received = -1;
  const show = (revision: number, result: Analysis) => {
    settled = revision;
    store.getState().analysisReceived(revision, result);
    store.getState().analysisForNewScenario(revision, result);
    client.validate({}).then(
      (v) => {
        if (!disposed && !v.stale && store.getState().analysis.revision === revision)
          store.getState().validationReceived(revision, v.value);
      },
      () => {
        /* validation is extra: the analysis already shows */
      },
    );
  };

  const {
    trace,
    matrix,
    rules,
    connlist,
    tests: runTests,
    observe,
  } = questions(store, client, () => !disposed);
  let testsTimer: unknown;
  const tests = () => {
    testsTimer = undefined;
    runTests();
  };

  // A new text, or another cluster profile (which changes the answers), is analysed again.
  const offText = store.subscribe(
    (s) => [s.revision, s.cni, s.assume] as const,
    () => {
      if (timer !== undefined) cancel(timer);
      timer = schedule(analyze, debounce(store.getState().text.length));
    },
    { equalityFn: (a, b) => a[0] === b[0] && a[1] === b[1] && a[2] === b[2] },
  );
  // Questions and matrices follow the newest analysis, so the details panel never shows an answer about old text.
  const offAnswers = store.subscribe(
    (s) => [s.analysis.result, s.question, s.tab, s.matrixQuery] as const,
    ([result, question, tab, mq], [prevResult, prevQuestion, prevTab, prevMq]) => {
      if (!result) return;
      const fresh = result !== prevResult;
      if (question && (fresh || !sameTrace(question, prevQuestion))) trace(question);
      if (tab === "matrix" && (fresh || tab !== prevTab || !sameMatrix(mq, prevMq))) matrix(mq);
    },
    { equalityFn: (a, b) => a[0] === b[0] && a[1] === b[1] && a[2] === b[2] && a[3] === b[3] },
  );
  // The Node rules tab computes only while it is open; the rules follow the newest analysis, node, mode and question.
  const offRules = store.subscribe(
    (s) => [s.analysis.result, s.tab === "rules" ? rulesQueryOf(s) : undefined] as const,
    ([result, q], [prevResult, prevQ]) => {
      if (result && q && (result !== prevResult || !sameRulesQuery(q, prevQ))) rules(q);
    },
    { equalityFn: (a, b) => a[0] === b[0] && sameRulesQuery(a[1], b[1]) },
  );
  // A connectivity list download asks once; an answer made stale by a newer text is asked for again.
  const offConnlist = store.subscribe(
    (s) => [s.analysis.result, s.connlistRequest] as const,
    ([result, q], [, prevQ]) => {
      if (!result || !q) return;
      const answered = store.getState().connlist;
      if (q !== prevQ || answered.query !== q || answered.status !== "ready") connlist(q);
    },
    { equalityFn: (a, b) => a[0] === b[0] && a[1] === b[1] },
  );
  // Tests run with each new analysis (so they follow every edit of the manifests, debounced with it) and, a
  // moment after typing stops, with each edit of the test file.
  const offTests = store.subscribe(
    (s) => [s.analysis.result, s.testsText, s.testsOn] as const,
    ([result, text, on], [prevResult, prevText, prevOn]) => {
      if (!result || !on) return;
      if (testsTimer !== undefined) cancel(testsTimer);
      testsTimer = undefined;
      if (result !== prevResult || on !== prevOn) tests();
      else if (text !== prevText) testsTimer = schedule(tests, TESTS_DEBOUNCE_MS);
    },
    { equalityFn: (a, b) => a[0] === b[0] && a[1] === b[1] && a[2] === b[2] },
  );
  // A flow file is compared with each new analysis, and when another file is opened.
  const offObserve = store.subscribe(
    (s) => [s.analysis.result, s.observeText] as const,
    ([result, text]) => {
      if (result && text !== "") observe();
    },
    { equalityFn: (a, b) => a[0] === b[0] && a[1] === b[1] },
  );
  analyze();
  // A long analysis says what it is doing (engine onProgress, posted by the worker as each step starts).
  const offProgress = client.onProgress?.((p) => store.getState().analysisProgress(p));
  return () => {
    disposed = true;
    offProgress?.();
    if (timer !== undefined) cancel(timer);
    offText();
    offAnswers();
    offRules();
    offConnlist();
    offTests();
    offObserve();
    if (testsTimer !== undefined) cancel(testsTimer);
  };
}
