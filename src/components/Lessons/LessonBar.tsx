/**
 * The open lesson: its goal, the question to predict, the answer on demand,
 * the questions to trace, and its suggested edit with what to look for.
 */
import { questionLabel, questionOf } from "./question.ts";
import { sameQuestion } from "../../store/viewSlice.ts";
import { useEffect, useState } from "react";
import { useApp, useAppStore } from "../../store/StoreProvider.tsx";
import { LESSONS, lessonById, replaceInText, type Lesson } from "../../../scenarios/lessons.ts";
import { runTextChange, runWhatIf } from "../WhatIf/run.ts";
import { whatIfClient } from "../WhatIf/client.ts";
import { openLesson } from "./open.ts";
import { currentTrace } from "../Presenter/usePresenter.ts";
import { backendOptions, checkKey, judge, outcomeOf, VERDICT_WORDS, type Outcome } from "./predict.ts";
import type { Verdict } from "../../engine/analysis/index.ts";
import type { AppStore } from "../../store/createAppStore.ts";
import "./workshop.css";

function applyEdit(store: ReturnType<typeof useAppStore>, l: Lesson) {
  const c = l.edit.change;
  const label = `lesson ${String(l.number).padStart(2, "0")}: ${l.edit.description}`;
  if ("whatIf" in c) {
    void runWhatIf(store, whatIfClient, label, c.whatIf);
    return;
  }
  const r = replaceInText(c.replace, store.getState().text);
  if (r.error)
    store.getState().notify({ kind: "error", text: `The suggested edit does not apply: ${r.error}.` });
  else void runTextChange(store, whatIfClient, label, r.text);
}

const podName = (id: string) => id.replace(/^pod:/, "");
const NO_OUTCOMES: Record<string, Outcome> = {};

/** Reveal (or hide) the answer; the reveal traces the lesson's first question unless one is asked already. */
export function reveal(store: AppStore, l: Lesson, shown: boolean): void {
  const s = store.getState();
  s.showAnswer(shown);
  const c = l.checks[0];
  if (shown && c && !s.question) s.ask(questionOf(c));
}

/** Before the reveal: the learner's prediction for each question (the verdict, and the backend where there is a choice). */
function Predictions({ lesson }: { lesson: Lesson }) {
  const store = useAppStore();
  const predictions = useApp((s) => s.predictions);
  const analysis = useApp((s) => s.analysis.result);
  return (
    <div className="ws-predict" role="group" aria-label="Your prediction" data-testid="lesson-predict">
      <p className="ws-predict-lead">
        <strong>Predict first.</strong> The graph hides its verdicts until you reveal the answer.
      </p>
      {lesson.checks.map((c, k) => {
        const key = checkKey(c);
        const p = predictions[key];
        const options = backendOptions(analysis, c.to);
        const label = questionLabel(c);
        return (
          <div key={key} className="ws-predict-row" data-testid="prediction" data-check={key}>
            <span className="mono">{label}</span>
            <span role="radiogroup" aria-label={`Prediction for ${label}`} className="ws-predict-choices">
              {(["allow", "drop", "partial"] as Verdict[]).map((v) => (
                <label key={v}>
                  <input
                    type="radio"
                    name={`predict-${lesson.id}-${k}`}
                    value={v}
                    checked={p?.verdict === v}
                    onChange={() => store.getState().predict(key, { verdict: v })}
                  />
                  {VERDICT_WORDS[v]}
                </label>
              ))}
            </span>
            {options.length ? (
              <label>
                received by{" "}
                <select
                  aria-label={`Backend for ${label}`}
                  value={p?.backend ?? ""}
                  onChange={(e) => store.getState().predict(key, { backend: e.target.value || undefined })}
                >
                  <option value="">(no guess)</option>
                  {options.map((o) => (
                    <option key={o} value={o}>
                      {podName(o)}
                    </option>
                  ))}
                </select>
              </label>
            ) : null}
          </div>
        );
      })}
    </div>
  );
}

/** After the reveal: each question's engine verdict (once traced) against the prediction. */
function Results({ lesson }: { lesson: Lesson }) {
  const store = useAppStore();
  const predictions = useApp((s) => s.predictions);
  const outcomes = useApp((s) =>
    s.outcomes.revision === s.analysis.revision ? s.outcomes.byKey : NO_OUTCOMES,
  );
  const predicted = lesson.checks.some((c) => predictions[checkKey(c)]?.verdict);
  return (
    <ul className="ws-results" aria-label="Your predictions" data-testid="lesson-results">
      {lesson.checks.map((c) => {
        const key = checkKey(c);
        const p = predictions[key];
        const o = outcomes[key];
        const label = questionLabel(c);
        if (!o)
          return (
            <li key={key} data-testid="result" data-check={key} data-right="">
              <span className="mono">{label}</span>:{" "}
              {p?.verdict
                ? `you predicted ${VERDICT_WORDS[p.verdict]}; `
                : predicted
                  ? "no prediction; "
                  : ""}
              <button type="button" className="btn small" onClick={() => store.getState().ask(questionOf(c))}>
                trace it to see
              </button>
            </li>
          );
        const j = judge(p, o);
        const right = !!p?.verdict && j.verdict.right && (!j.backend || j.backend.right);
        return (
          <li key={key} data-testid="result" data-check={key} data-right={p?.verdict ? String(right) : ""}>
            <span className="mono">{label}</span>: <strong>{VERDICT_WORDS[o.verdict]}</strong>
            {p?.verdict ? (
              <span className={j.verdict.right ? "ws-right" : "ws-wrong"}>
                {" "}
                {j.verdict.right ? "✓ as you predicted" : `✗ you predicted ${VERDICT_WORDS[p.verdict]}`}
              </span>
            ) : (
              <span className="muted"> (no prediction)</span>
            )}
            {j.backend ? (
              <span className={j.backend.right ? "ws-right" : "ws-wrong"}>
                {"; "}
                {j.backend.right
                  ? `✓ ${podName(j.backend.said)} receives it`
                  : `✗ ${podName(j.backend.said)} does not receive it${
                      o.receiving.length
                        ? ` (${o.receiving.map(podName).join(", ")} do${o.receiving.length === 1 ? "es" : ""})`
                        : ""
                    }`}
              </span>
            ) : null}
          </li>
        );
      })}
    </ul>
  );
}

/** Keeps the engine's answer to each lesson question that gets traced (for judging predictions). */
function useRecordOutcomes(store: AppStore, lesson: Lesson | undefined) {
  const trace = useApp(currentTrace);
  const question = useApp((s) => s.question);
  const revision = useApp((s) => s.analysis.revision);
  useEffect(() => {
    if (!lesson || !trace || trace.error || !question) return;
    const key = checkKey(question);
    if (lesson.checks.some((c) => checkKey(c) === key))
      store.getState().recordOutcome(revision, key, outcomeOf(trace));
  }, [store, lesson, trace, question, revision]);
}

export function LessonBar() {
  const store = useAppStore();
  const scenarioId = useApp((s) => s.scenarioId);
  const answerShown = useApp((s) => s.answerShown);
  const question = useApp((s) => s.question);
  const [collapsed, setCollapsed] = useState(false);
  const lesson = scenarioId ? lessonById(scenarioId) : undefined;
  useRecordOutcomes(store, lesson);
  if (!lesson) return null;
  const i = LESSONS.indexOf(lesson);
  const prev = LESSONS[i - 1];
  const next = LESSONS[i + 1];
  return (
    <section className="ws-bar lesson" aria-label="Lesson" data-testid="lesson" data-lesson={lesson.id}>
      <div className="ws-row ws-head">
        <strong className="ws-title">
          Lesson {String(lesson.number).padStart(2, "0")} · {lesson.title}
        </strong>
        <button
          type="button"
          className="btn small"
          disabled={!prev}
          onClick={() => prev && openLesson(store, prev)}
          aria-label="Previous lesson"
        >
          ‹
        </button>
        <button
          type="button"
          className="btn small"
          disabled={!next}
          onClick={() => next && openLesson(store, next)}
          aria-label="Next lesson"
        >
          ›
        </button>
        <button
          type="button"
          className="btn small"
          aria-expanded={!collapsed}
          onClick={() => setCollapsed(!collapsed)}
        >
          {collapsed ? "Show lesson" : "Hide lesson"}
        </button>
      </div>
      {collapsed ? null : (
        <>
          <p className="ws-goal">{lesson.goal}</p>
          <p className="ws-question" data-testid="lesson-question">
            <strong>Question.</strong> {lesson.question}
          </p>
          {answerShown ? null : <Predictions lesson={lesson} />}
          <div className="ws-row">
            <button
              type="button"
              className="btn small primary"
              aria-expanded={answerShown}
              data-testid="lesson-reveal"
              onClick={() => reveal(store, lesson, !answerShown)}
            >
              {answerShown ? "Hide the answer" : "Reveal the answer"}
            </button>
            <span className="muted">
              {answerShown ? "Trace it:" : "Or trace it now (shows its verdict):"}
            </span>
            {lesson.checks.map((c, k) => {
              const asked = sameQuestion(question, questionOf(c));
              return (
                <button
                  key={k}
                  type="button"
                  className="btn small mono"
                  aria-pressed={asked}
                  data-testid="lesson-trace"
                  onClick={() => store.getState().ask(questionOf(c))}
                >
                  {questionLabel(c)}
                </button>
              );
            })}
          </div>
          {answerShown ? <Results lesson={lesson} /> : null}
          {answerShown ? (
            <p className="ws-answer" data-testid="lesson-answer" role="status">
              <strong>Answer.</strong> {lesson.answer}
            </p>
          ) : null}
          {answerShown ? (
            <p className="muted ws-sources" data-testid="lesson-sources">
              <strong>Sources:</strong> {lesson.sources.join("; ")}.
            </p>
          ) : null}
          <div className="ws-row ws-try">
            <strong>Try:</strong> <span>{lesson.edit.description}</span>
            <button
              type="button"
              className="btn small"
              data-testid="lesson-edit"
              onClick={() => applyEdit(store, lesson)}
            >
              Apply the suggested edit
            </button>
          </div>
          {answerShown ? (
            <p className="muted ws-lookfor">
              <strong>Look for:</strong> {lesson.edit.lookFor}
            </p>
          ) : null}
        </>
      )}
    </section>
  );
}
