/** Derived state, memoised so that selectors return the same object until their inputs change (useSyncExternalStore needs that). */
import type { DiagnosticView } from "../engine/analysis/index.ts";
import type { AppState } from "./types.ts";

let lastResult: unknown;
let lastValidation: unknown;
let lastMerged: DiagnosticView[] | undefined;

/** Parse and model diagnostics of the analysis, plus validation and lint once they arrive for the same text. */
export function selectDiagnostics(s: AppState): DiagnosticView[] | undefined {
  const result = s.analysis.result;
  if (!result) return undefined;
  const validation = s.validation.revision === s.analysis.revision ? s.validation.diagnostics : undefined;
  if (result === lastResult && validation === lastValidation) return lastMerged;
  lastResult = result;
  lastValidation = validation;
  lastMerged = validation?.length
    ? [...result.diagnostics, ...validation].sort((a, b) => a.line - b.line || a.column - b.column)
    : result.diagnostics;
  return lastMerged;
}
