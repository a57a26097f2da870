/**
 * The open lesson: its goal, the question to predict, the answer on demand,
 * the questions to trace, and its suggested edit with what to look for.
 */
import { useState } from "react";
import { useApp, useAppStore } from "../../store/StoreProvider.tsx";
import { LESSONS, lessonById, replaceInText, type Lesson } from "../../../scenarios/lessons.ts";
import { runTextChange, runWhatIf } from "../WhatIf/run.ts";
import { whatIfClient } from "../WhatIf/client.ts";
import { openLesson } from "./open.ts";
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

export function LessonBar() {
  const store = useAppStore();
  const scenarioId = useApp((s) => s.scenarioId);
  const answerShown = useApp((s) => s.answerShown);
  const question = useApp((s) => s.question);
  const [collapsed, setCollapsed] = useState(false);
  const lesson = scenarioId ? lessonById(scenarioId) : undefined;
  if (!lesson) return null;
  const i = LESSONS.indexOf(lesson);
  const prev = LESSONS[i - 1];
  const next = LESSONS[i + 1];
  return (
    <section className="ws-bar lesson" aria-label="Lesson" data-testid="lesson" data-lesson={lesson.id}>
      <div className="ws-row">
        <strong className="ws-title">
          Lesson {String(lesson.number).padStart(2, "0")} · {lesson.title}
        </strong>
        <span className="spacer" />
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
          <div className="ws-row">
            <button
              type="button"
              className="btn small primary"
              aria-expanded={answerShown}
              onClick={() => store.getState().showAnswer(!answerShown)}
            >
              {answerShown ? "Hide the answer" : "Reveal the answer"}
            </button>
            <span className="muted">Trace it:</span>
            {lesson.checks.map((c, k) => {
              const asked =
                question?.from === c.from &&
                question.to === c.to &&
                question.protocol === (c.protocol ?? "TCP");
              return (
                <button
                  key={k}
                  type="button"
                  className="btn small mono"
                  aria-pressed={asked}
                  data-testid="lesson-trace"
                  onClick={() =>
                    store.getState().ask({ from: c.from, to: c.to, protocol: c.protocol ?? "TCP" })
                  }
                >
                  {c.from.replace(/^(pod|external):/, "")} → {c.to.replace(/^(service|pod):/, "")}
                  {c.protocol && c.protocol !== "TCP" ? ` ${c.protocol}` : ""}
                </button>
              );
            })}
          </div>
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
