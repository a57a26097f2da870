/**
 * The Tests tab: a `ktl test` file the user pasted or opened, whether it is
 * on (run against every new analysis, its failures marked on the graph), and
 * the engine's run of it. The run is written only by the engine sync
 * (engineSync.ts); the view reads it, never decides it.
 */
import type { SliceCreator, TestsSlice } from "./types.ts";
import { sameQuestion } from "./viewSlice.ts";

export const TESTS_FILE = "tests.yaml";

export const createTestsSlice =
  (initial: { text?: string; file?: string; on?: boolean } = {}): SliceCreator<TestsSlice> =>
  (set) => ({
    testsText: initial.text ?? "",
    testsFile: initial.file ?? TESTS_FILE,
    testsOn: (initial.on ?? false) && (initial.text ?? "").trim() !== "",
    testRun: { status: "idle", revision: -1, text: "", result: undefined, error: undefined },
    testSelected: undefined,
    setTestsText: (testsText, file) =>
      set((s) => ({ testsText, testsFile: file ?? s.testsFile, testSelected: undefined })),
    runTests: () => set((s) => ({ testsOn: s.testsText.trim() !== "", side: "tests" })),
    stopTests: () =>
      set({
        testsOn: false,
        testSelected: undefined,
        testRun: { status: "idle", revision: -1, text: "", result: undefined, error: undefined },
      }),
    // Selecting an expectation asks its explaining pair, so the graph lights its path; the Tests tab stays open.
    selectTest: (testSelected, question) =>
      set((s) =>
        !question
          ? { testSelected }
          : sameQuestion(s.question, question)
            ? { testSelected, selection: { kind: "question" } }
            : {
                testSelected,
                question,
                selection: { kind: "question" },
                rulesNode: undefined,
                hopFocus: undefined,
              },
      ),
    testsStarted: (revision, text) =>
      set((s) => ({ testRun: { ...s.testRun, status: "running", revision, text, error: undefined } })),
    testsReceived: (revision, text, result) =>
      set({ testRun: { status: "ready", revision, text, result, error: undefined } }),
    testsFailed: (revision, text, error) =>
      set({ testRun: { status: "error", revision, text, result: undefined, error } }),
  });
