/** The Tests tab's run as the page shows it: the engine's last answer while the tests are on (a newer one replaces it as it arrives). */
import type { TestResultView } from "../../engine/analysis/index.ts";
import type { AppState } from "../../store/types.ts";

export function currentTestResults(s: AppState): readonly TestResultView[] | undefined {
  return s.testsOn ? s.testRun.result?.results : undefined;
}

/** The run is about the text on screen and the test file as it reads now. */
export function testRunCurrent(s: AppState): boolean {
  const r = s.testRun;
  return r.status === "ready" && r.revision === s.analysis.revision && r.text === s.testsText;
}

/** Character offsets of a 1-based line in a text. */
export function lineRange(text: string, line: number): { start: number; end: number } {
  let start = 0;
  for (let i = 1; i < line; i++) {
    const next = text.indexOf("\n", start);
    if (next < 0) return { start: text.length, end: text.length };
    start = next + 1;
  }
  const end = text.indexOf("\n", start);
  return { start, end: end < 0 ? text.length : end };
}
