/**
 * The open lesson: its goal, the question to predict, the answer on demand,
 * the questions to trace, and its suggested edit with what to look for.
 */
import { questionLabel, questionOf } from "./question.ts";
import { sameQuestion } from "../../store/viewSlice.ts";
import { useEffect, useState } from "react";
import { useApp, useAppStore } from "../../store/StoreProvider.tsx";
import {
  LESSONS,
  lessonById,
  replaceInText,
  type Lesson,
  type LessonCheck,
} from "../../../scenarios/lessons.ts";
import { runTextChange, runWhatIf } from "../WhatIf/run.ts";
import { whatIfClient } from "../WhatIf/client.ts";
import { lessonOrder, openLesson } from "./open.ts";
import { currentTrace } from "../Presenter/usePresenter.ts";
import {
  backendOptions,
  checkKey,
  judge,
  outcomeOf,
  predictionKey,
  STATUS_CHOICES,
  statusWords,
  VERDICT_WORDS,
  type Outcome,
  type Prediction,
} from "./predict.ts";
import { sourceLink } from "./sources.ts";
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

const podName = (id: string) => id.replace(/^(pod|service):/, "");
const NO_OUTCOMES: Record<string, Outcome> = {};

/** Asks one of the lesson's questions under the cluster profile it is about (undefined: the one the input implies). */
export function askCheck(store: AppStore, c: LessonCheck): void {
  const s = store.getState();
  if (s.cni !== c.cni) s.setCni(c.cni);
  s.ask(questionOf(c));
}

/** Reveal (or hide) the answer; the reveal traces the lesson's first question unless one is asked already. */
export function reveal(store: AppStore, l: Lesson, shown: boolean): void {
  const s = store.getState();
  s.showAnswer(shown);
  const c = l.checks[0];
  if (shown && c && !s.question) askCheck(store, c);
}

/** The question as the rows name it: the trace, and the cluster profile when the lesson compares profiles. */
function checkLabel(c: LessonCheck): string {
  return `${questionLabel(c)}${c.cni ? ` · --cni ${c.cni}` : ""}`;
}

/** Before the reveal: the learner's prediction for each question (the verdict, the HTTP status of a request, and the backend where there is a choice). */
function Predictions({ lesson }: { lesson: Lesson }) {
  const store = useAppStore();
  const predictions = useApp((s) => s.predictions);
  const analysis = useApp((s) => s.analysis.result);
  return (
    <div className="ws-predict" role="group" aria-label="Your prediction" data-testid="lesson-predict">
      <p className="ws-predict-lead">
        <strong>Predict first.</strong> Verdicts stay hidden, on the graph and in every tab, until you reveal
        the answer.
      </p>
      {lesson.checks.map((c, k) => {
        const key = checkKey(lesson.id, c);
        const p = predictions[key];
        const options = backendOptions(analysis, c.to);
        const label = checkLabel(c);
        const predict = (q: Prediction) => store.getState().predict(key, q);
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
                    onChange={() => predict({ verdict: v })}
                  />
                  {VERDICT_WORDS[v]}
                </label>
              ))}
            </span>
            {c.http ? (
              <label>
                answer{" "}
                <select
                  aria-label={`HTTP answer for ${label}`}
                  value={p?.status === undefined ? "" : String(p.status)}
                  onChange={(e) =>
                    predict({
                      status:
                        e.target.value === ""
                          ? undefined
                          : e.target.value === "none"
                            ? "none"
                            : Number(e.target.value),
                    })
                  }
                >
                  <option value="">(no guess)</option>
                  {STATUS_CHOICES.map((st) => (
                    <option key={st} value={String(st)}>
                      {statusWords(st)}
                    </option>
                  ))}
                </select>
              </label>
            ) : null}
            {options.length ? (
              <label>
                received by{" "}
                <select
                  aria-label={`Backend for ${label}`}
                  value={p?.backend ?? ""}
                  onChange={(e) => predict({ backend: e.target.value || undefined })}
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

/** What the engine answered, in words: the verdict, the HTTP status of a request, who receives it. */
function answerWords(c: LessonCheck, o: Outcome): string {
  const status = c.http ? ` (${statusWords(o.httpStatus ?? "none")})` : "";
  return `${VERDICT_WORDS[o.verdict]}${status}`;
}

/** After the reveal: each question's engine answer (once traced) against the prediction, part by part. */
function Results({ lesson }: { lesson: Lesson }) {
  const store = useAppStore();
  const predictions = useApp((s) => s.predictions);
  const outcomes = useApp((s) =>
    s.outcomes.revision === s.analysis.revision ? s.outcomes.byKey : NO_OUTCOMES,
  );
  const predicted = lesson.checks.some((c) => predictions[checkKey(lesson.id, c)]?.verdict);
  return (
    <ul className="ws-results" aria-label="Your predictions" data-testid="lesson-results">
      {lesson.checks.map((c) => {
        const key = checkKey(lesson.id, c);
        const p = predictions[key];
        const o = outcomes[key];
        const label = checkLabel(c);
        if (!o)
          return (
            <li key={key} data-testid="result" data-check={key} data-right="">
              <span className="mono">{label}</span>:{" "}
              {p?.verdict
                ? `you predicted ${VERDICT_WORDS[p.verdict]}${c.http && p.status !== undefined ? ` (${statusWords(p.status)})` : ""}; `
                : predicted
                  ? "no prediction; "
                  : ""}
              <button type="button" className="btn small" onClick={() => askCheck(store, c)}>
                trace it to see
              </button>
            </li>
          );
        const j = judge(p, o, !!c.http);
        return (
          <li key={key} data-testid="result" data-check={key} data-right={p?.verdict ? String(j.right) : ""}>
            <span className="mono">{label}</span>: <strong>{answerWords(c, o)}</strong>
            {p?.verdict ? (
              <span className={j.verdict.right ? "ws-right" : "ws-wrong"}>
                {" "}
                {j.verdict.right ? "✓ as you predicted" : `✗ you predicted ${VERDICT_WORDS[p.verdict]}`}
              </span>
            ) : (
              <span className="muted"> (no prediction)</span>
            )}
            {j.status && p?.verdict ? (
              <span className={j.status.right ? "ws-right" : "ws-wrong"}>
                {"; "}
                {j.status.said === undefined
                  ? `✗ no HTTP answer predicted (${statusWords(j.status.is)})`
                  : j.status.right
                    ? `✓ ${statusWords(j.status.said)}`
                    : `✗ you predicted ${statusWords(j.status.said)}`}
              </span>
            ) : null}
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

/** After the reveal: where the answer comes from, each source a link. */
function Sources({ lesson }: { lesson: Lesson }) {
  return (
    <div className="muted ws-sources" data-testid="lesson-sources">
      <strong>Sources:</strong>
      <ul>
        {lesson.sources.map((src) => {
          const l = sourceLink(src);
          return (
            <li key={src}>
              {l.href ? (
                <a href={l.href} target="_blank" rel="noreferrer noopener">
                  {l.text}
                </a>
              ) : (
                l.text
              )}
              {l.note ? ` ${l.note}` : ""}
            </li>
          );
        })}
      </ul>
    </div>
  );
}

/** Keeps the engine's answer to each lesson question that gets traced (for judging predictions): the lesson, the whole question, the profile. */
function useRecordOutcomes(store: AppStore, lesson: Lesson | undefined) {
  const trace = useApp(currentTrace);
  const question = useApp((s) => s.question);
  const revision = useApp((s) => s.analysis.revision);
  useEffect(() => {
    if (!lesson || !trace || trace.error || !question) return;
    const key = predictionKey(lesson.id, question, store.getState().cni);
    if (lesson.checks.some((c) => checkKey(lesson.id, c) === key))
      store.getState().recordOutcome(revision, key, outcomeOf(trace));
  }, [store, lesson, trace, question, revision]);
}

export function LessonBar() {
  const store = useAppStore();
  const scenarioId = useApp((s) => s.scenarioId);
  const answerShown = useApp((s) => s.answerShown);
  const question = useApp((s) => s.question);
  const cni = useApp((s) => s.cni);
  const session = useApp((s) => s.session);
  const [collapsed, setCollapsed] = useState(false);
  const lesson = scenarioId ? lessonById(scenarioId) : undefined;
  useRecordOutcomes(store, lesson);
  if (!lesson) return null;
  // In a workshop session, previous and next follow the teacher's order.
  const order = lessonOrder(lesson, session);
  const inSession = order !== LESSONS;
  const i = order.indexOf(lesson);
  const prev = order[i - 1];
  const next = order[i + 1];
  return (
    <section className="ws-bar lesson" aria-label="Lesson" data-testid="lesson" data-lesson={lesson.id}>
      <div className="ws-row ws-head">
        <strong className="ws-title">
          {inSession ? (
            <span className="ws-session-step" data-testid="session-step">
              Session {i + 1}/{order.length} ·{" "}
            </span>
          ) : null}
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
            {/* Tracing a question shows its verdict: the trace buttons, like the edit to try, come with the answer. */}
            {answerShown ? <span className="muted">Trace it:</span> : null}
            {answerShown
              ? lesson.checks.map((c, k) => (
                  <button
                    key={k}
                    type="button"
                    className="btn small mono"
                    aria-pressed={sameQuestion(question, questionOf(c)) && cni === c.cni}
                    data-testid="lesson-trace"
                    onClick={() => askCheck(store, c)}
                  >
                    {checkLabel(c)}
                  </button>
                ))
              : null}
          </div>
          {answerShown ? (
            <>
              <Results lesson={lesson} />
              <p className="ws-answer" data-testid="lesson-answer" role="status">
                <strong>Answer.</strong> {lesson.answer}
              </p>
              <Sources lesson={lesson} />
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
              <p className="muted ws-lookfor">
                <strong>Look for:</strong> {lesson.edit.lookFor}
              </p>
            </>
          ) : null}
        </>
      )}
    </section>
  );
}
