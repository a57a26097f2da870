/**
 * Workshop state: the lesson's answer (hidden until asked), the last what-if
 * with its before/after comparison, and presenter mode. Written only through
 * these named actions; the comparison itself comes from the engine
 * (src/engine/diff) by way of the what-if worker.
 */
import type { InputDiff } from "../engine/index.ts";
import type { SliceCreator } from "./types.ts";

export interface WhatIfState {
  status: "idle" | "running" | "ready" | "error";
  /** What was done, in words ("drain node-a"). */
  label: string;
  /** The text before and right after the change; the comparison holds while the editor shows `after`. */
  before: string;
  after: string;
  /** What the edit did beyond the text (pods removed, fields dropped). */
  notes: string[];
  diff: InputDiff | undefined;
  error: string | undefined;
}

export interface WorkshopSlice {
  answerShown: boolean;
  whatIf: WhatIfState;
  presenting: boolean;
  /** The hop shown in presenter mode; -1 is the question's overview. */
  presenterStep: number;
  showAnswer(shown: boolean): void;
  whatIfStarted(label: string, before: string): void;
  whatIfApplied(after: string, notes: string[]): void;
  whatIfCompared(after: string, diff: InputDiff): void;
  whatIfFailed(error: string): void;
  clearWhatIf(): void;
  setPresenting(on: boolean): void;
  setPresenterStep(step: number): void;
}

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
  whatIf: NO_WHAT_IF,
  presenting: false,
  presenterStep: -1,
  showAnswer: (answerShown) => set({ answerShown }),
  whatIfStarted: (label, before) => set({ whatIf: { ...NO_WHAT_IF, status: "running", label, before } }),
  whatIfApplied: (after, notes) => set((s) => ({ whatIf: { ...s.whatIf, after, notes } })),
  whatIfCompared: (after, diff) =>
    set((s) => (s.whatIf.after === after ? { whatIf: { ...s.whatIf, status: "ready", diff } } : {})),
  whatIfFailed: (error) => set((s) => ({ whatIf: { ...s.whatIf, status: "error", error } })),
  clearWhatIf: () => set({ whatIf: NO_WHAT_IF }),
  setPresenting: (presenting) => set({ presenting, presenterStep: -1 }),
  setPresenterStep: (presenterStep) => set({ presenterStep }),
});
