/**
 * Presenter mode: larger type, one trace in focus, stepped hop by hop with
 * the keyboard (→ next, ← back, Home overview, End last, R reset between
 * questions, Esc leave); each hop is lit on the graph with its explanation.
 */
import { useEffect, useState } from "react";
import { useApp, useAppStore } from "../../store/StoreProvider.tsx";
import { lessonById, type Lesson } from "../../../scenarios/lessons.ts";
import type { TraceView } from "../../engine/analysis/index.ts";
import { presenterKey, type PresenterStep } from "./steps.ts";
import { currentTrace, stepsOf } from "./usePresenter.ts";
import { askCheck, reveal } from "../Lessons/LessonBar.tsx";

const WORD: Record<string, string> = { pass: "passes", drop: "drops", info: "note" };

function typing(el: Element | null): boolean {
  return (
    !!el &&
    (el.tagName === "INPUT" ||
      el.tagName === "SELECT" ||
      el.tagName === "TEXTAREA" ||
      (el as HTMLElement).isContentEditable ||
      !!el.closest(".monaco-editor"))
  );
}

/** No question yet: how to ask one, and the lesson's own questions. */
function PresenterAsk({ lesson }: { lesson: Lesson | undefined }) {
  const store = useAppStore();
  return (
    <div className="presenter-empty">
      <p>
        Ask a question to step through it: use the question bar, click an edge
        {lesson ? ", or pick one of the lesson's questions:" : "."}
      </p>
      {lesson ? (
        <ul>
          {lesson.checks.map((c, i) => (
            <li key={i}>
              <button
                type="button"
                className="btn mono"
                data-testid="presenter-question"
                onClick={() => askCheck(store, c)}
              >
                {c.from} → {c.to}
                {c.http ? ` · ${c.http}` : ""}
                {c.cni ? ` · --cni ${c.cni}` : ""}
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/** The traced question hop by hop: the hop shown, Back and Next, and every hop to jump to. */
function PresenterHops({
  trace,
  steps,
  step,
}: {
  trace: TraceView;
  steps: readonly PresenterStep[];
  step: number;
}) {
  const store = useAppStore();
  const shown = step >= 0 ? steps[step] : undefined;
  return (
    <>
      {shown ? (
        <div
          className="presenter-hop"
          data-testid="presenter-hop"
          data-verdict={shown.verdict}
          aria-live="polite"
        >
          <p className="presenter-count">
            Hop {shown.number} of {steps.length}: <strong>{shown.title}</strong>{" "}
            <span className={`verdict ${shown.verdict}`}>{WORD[shown.verdict]}</span>
          </p>
          <p className="presenter-detail">{shown.detail}</p>
          {shown.ref ? (
            <p className="muted">
              decided by {shown.ref.kind} {shown.ref.namespace !== undefined ? `${shown.ref.namespace}/` : ""}
              {shown.ref.name}
              {shown.ref.line ? `, line ${shown.ref.line}` : ""}
            </p>
          ) : null}
        </div>
      ) : (
        <div
          className="presenter-hop"
          data-testid="presenter-hop"
          data-verdict={trace.verdict}
          aria-live="polite"
        >
          <p className="presenter-count">{steps.length} hops. Press → to step through them.</p>
        </div>
      )}
      <div className="ws-row">
        <button
          type="button"
          className="btn"
          onClick={() => store.getState().setPresenterStep(Math.max(-1, step - 1))}
          disabled={step < 0}
          aria-label="Previous hop"
        >
          ← Back
        </button>
        <button
          type="button"
          className="btn primary"
          onClick={() => store.getState().setPresenterStep(Math.min(steps.length - 1, step + 1))}
          disabled={step >= steps.length - 1}
          aria-label="Next hop"
        >
          Next →
        </button>
      </div>
      <ol className="presenter-hops" aria-label="Hops">
        {steps.map((s, i) => (
          <li key={i} data-verdict={s.verdict} aria-current={i === step ? "step" : undefined}>
            <button type="button" onClick={() => store.getState().setPresenterStep(i)}>
              {s.number}. {s.title}
            </button>
          </li>
        ))}
      </ol>
    </>
  );
}

export function PresenterPanel() {
  const store = useAppStore();
  const question = useApp((s) => s.question);
  const trace = useApp(currentTrace);
  const steps = useApp(stepsOf);
  const step = useApp((s) => s.presenterStep);
  const status = useApp((s) => s.trace.status);
  const lesson = useApp((s) => (s.scenarioId ? lessonById(s.scenarioId) : undefined));
  // In a lesson whose answer is not revealed yet, the verdict waits for the last hop.
  const [lessonOpen, setLessonOpen] = useState(false);
  const revealed = useApp((s) => s.answerShown);
  const hideVerdict = !!lesson && !revealed;

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey || typing(document.activeElement)) return;
      const s = store.getState();
      const r = presenterKey(e.key, s.presenterStep, stepsOf(s).length);
      if (r === undefined) return;
      e.preventDefault();
      if (r === "exit") s.setPresenting(false);
      else if (r === "reset") {
        s.clearQuestion();
        s.showAnswer(false);
        s.setPresenterStep(-1);
      } else s.setPresenterStep(r);
    };
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  }, [store]);

  return (
    <aside className="presenter" aria-label="Presenter" data-testid="presenter" data-step={step}>
      <div className="ws-row">
        <strong>Presenter</strong>
        <span className="spacer" />
        <button
          type="button"
          className="btn small"
          onClick={() => {
            store.getState().clearQuestion();
            store.getState().showAnswer(false);
            store.getState().setPresenterStep(-1);
          }}
          title="Clear the question and the answer (R)"
        >
          Reset
        </button>
        {lesson ? (
          <button
            type="button"
            className="btn small"
            aria-pressed={revealed}
            data-testid="presenter-reveal"
            onClick={() => reveal(store, lesson, !revealed)}
            title="Show the verdicts on the graph and the lesson's answer to the room"
          >
            {revealed ? "Hide verdicts" : "Reveal"}
          </button>
        ) : null}
        <button
          type="button"
          className="btn small"
          onClick={() => store.getState().setPresenting(false)}
          title="Leave presenter mode (Esc)"
        >
          Leave
        </button>
      </div>
      {lesson ? (
        <p
          className={lessonOpen ? "presenter-lesson open" : "presenter-lesson"}
          data-testid="presenter-lesson"
          title={lessonOpen ? undefined : "Show the whole question"}
          onClick={() => setLessonOpen(!lessonOpen)}
        >
          <span className="ws-title">
            Lesson {String(lesson.number).padStart(2, "0")} · {lesson.title}
          </span>
          {lesson.question}
        </p>
      ) : null}
      {!question ? (
        <PresenterAsk lesson={lesson} />
      ) : (
        <>
          <p className="presenter-q mono">
            {question.from} → {question.to} <span className="muted">{question.protocol}</span>
          </p>
          {trace && !trace.error && (step === steps.length - 1 || !hideVerdict) ? (
            <p className="presenter-verdict" data-testid="presenter-verdict">
              <span className={`verdict ${trace.verdict}`}>{trace.verdict}</span> {trace.reason}
            </p>
          ) : null}
          {!trace ? (
            <p className="muted">{status === "error" ? "The engine could not trace this." : "Tracing…"}</p>
          ) : null}
          {trace?.error ? <p role="alert">{trace.error}</p> : null}
          {trace && !trace.error ? <PresenterHops trace={trace} steps={steps} step={step} /> : null}
        </>
      )}
      <p className="muted presenter-keys">→ next hop · ← back · Home overview · R reset · Esc leave</p>
    </aside>
  );
}

/** Fits the graph to its new size once the layout around it has changed (React Flow's own fit-view control). */
function refitGraph() {
  requestAnimationFrame(() =>
    requestAnimationFrame(() =>
      document
        .querySelector<HTMLButtonElement>('[data-testid="graph"] .react-flow__controls-fitview')
        ?.click(),
    ),
  );
}

export function PresentButton() {
  const store = useAppStore();
  const presenting = useApp((s) => s.presenting);
  useEffect(refitGraph, [presenting]);
  return (
    <button
      type="button"
      className="btn small"
      aria-pressed={presenting}
      onClick={() => {
        // Presenter mode shows the graph (its tabs are hidden while presenting).
        if (!presenting) store.getState().setTab("graph");
        store.getState().setPresenting(!presenting);
      }}
      title="Presenter mode: larger type, one trace stepped hop by hop"
    >
      Present
    </button>
  );
}
