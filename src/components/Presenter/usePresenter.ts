/** Presenter mode's steps for the current question, and the graph ids the shown hop is about. */
import type { AppState } from "../../store/types.ts";
import { sameQuestion } from "../../store/viewSlice.ts";
import type { TraceView } from "../../engine/analysis/index.ts";
import { presenterSteps, type PresenterStep } from "./steps.ts";

const cache = new WeakMap<TraceView, PresenterStep[]>();
/** One empty list, so that store selectors return the same value while there is nothing to step through. */
const NONE: PresenterStep[] = [];

/** The current answer to the current question, when there is one. */
export function currentTrace(s: AppState): TraceView | undefined {
  return s.trace.status === "ready" && s.question && sameQuestion(s.trace.query, s.question)
    ? s.trace.result
    : undefined;
}

export function stepsOf(s: AppState): PresenterStep[] {
  const t = currentTrace(s);
  if (!t || t.error || !s.question) return NONE;
  let steps = cache.get(t);
  if (!steps) {
    // Asked by workload: the steps are the representative pod's trace.
    const q = t.workload ? t.workload.representative : s.question;
    const src = q.from.startsWith("pod:")
      ? s.analysis.result?.pods.find((p) => p.id === q.from)?.node?.replace(/^node:/, "")
      : undefined;
    cache.set(t, (steps = presenterSteps(q, t, src)));
  }
  return steps;
}

/** The graph elements presenter mode lights now (undefined: presenter mode does not light anything). */
export function focusListOf(s: AppState): readonly string[] | undefined {
  if (!s.presenting || s.presenterStep < 0) return undefined;
  return stepsOf(s)[s.presenterStep]?.focus;
}
