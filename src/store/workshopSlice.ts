/**
 * Workshop state: the lesson's answer (hidden until asked), the learner's
 * predictions and the engine's outcomes (keyed by lesson and whole question,
 * Lessons/predict.ts), the workshop session's lessons, the last what-if with
 * its before/after comparison, and presenter mode. Written only through
 * these named actions; the comparison itself comes from the engine
 * (src/engine/diff) by way of the what-if worker.
 */
import type { SliceCreator, WhatIfState, WorkshopSlice } from "./types.ts";

export type { WhatIfState, WorkshopSlice };

export const NO_WHAT_IF: WhatIfState = {
  status: "idle",
  label: "",
  before: "",
  after: "",
  notes: [],
  diff: undefined,
  error: undefined,
};

export const createWorkshopSlice: SliceCreator<WorkshopSlice> = (set) => ({
  answerShown: false,
  predictions: {},
  outcomes: { revision: -1, byKey: {} },
  whatIf: NO_WHAT_IF,
  session: undefined,
  presenting: false,
  presenterStep: -1,
  showAnswer: (answerShown) => set({ answerShown }),
  predict: (key, p) =>
    set((s) => ({ predictions: { ...s.predictions, [key]: { ...s.predictions[key], ...p } } })),
  recordOutcome: (revision, key, o) =>
    set((s) => ({
      outcomes: {
        revision,
        byKey: s.outcomes.revision === revision ? { ...s.outcomes.byKey, [key]: o } : { [key]: o },
      },
    })),
  clearPredictions: () => set({ predictions: {}, outcomes: { revision: -1, byKey: {} } }),
  setSession: (ids) => set({ session: ids && ids.length ? [...ids] : undefined }),
  whatIfStarted: (label, before) => set({ whatIf: { ...NO_WHAT_IF, status: "running", label, before } }),
  whatIfApplied: (after, notes) => set((s) => ({ whatIf: { ...s.whatIf, after, notes } })),
  whatIfCompared: (after, diff) =>
    set((s) => (s.whatIf.after === after ? { whatIf: { ...s.whatIf, status: "ready", diff } } : {})),
  whatIfFailed: (error) => set((s) => ({ whatIf: { ...s.whatIf, status: "error", error } })),
  clearWhatIf: () => set({ whatIf: NO_WHAT_IF }),
  setPresenting: (presenting) => set({ presenting, presenterStep: -1 }),
  setPresenterStep: (presenterStep) => set({ presenterStep }),
});
