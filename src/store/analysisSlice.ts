import type { AnalysisSlice, AnswerState, SliceCreator } from "./types.ts";

const idle = <Q, R>(): AnswerState<Q, R> => ({
  status: "idle",
  query: undefined,
  result: undefined,
  error: undefined,
});

/** Written only by the engine sync: the view reads it, never decides it. */
export const createAnalysisSlice: SliceCreator<AnalysisSlice> = (set) => ({
  analysis: { status: "idle", revision: -1, result: undefined, error: undefined },
  validation: { revision: -1, diagnostics: [] },
  trace: idle(),
  matrix: idle(),
  rules: idle(),
  connlist: idle(),
  analysisStarted: () =>
    set((s) => {
      const { progress: _, ...rest } = s.analysis;
      return { analysis: { ...rest, status: "running" } };
    }),
  analysisProgress: (progress) =>
    set((s) => (s.analysis.status === "running" ? { analysis: { ...s.analysis, progress } } : {})),
  analysisReceived: (revision, result) =>
    set((s) => {
      const port = result.ports[0];
      const follow =
        !s.matrixChosen &&
        port &&
        (port.port !== s.matrixQuery.port || port.protocol !== s.matrixQuery.protocol);
      return {
        analysis: { status: "ready", revision, result, error: undefined },
        ...(follow ? { matrixQuery: { ...s.matrixQuery, port: port.port, protocol: port.protocol } } : {}),
      };
    }),
  // The last good result stays on screen: a failure never blanks the graph.
  analysisFailed: (revision, error) =>
    set((s) => {
      const { progress: _, ...rest } = s.analysis;
      return { analysis: { ...rest, status: "error", revision, error } };
    }),
  validationReceived: (revision, diagnostics) => set({ validation: { revision, diagnostics } }),
  traceStarted: (query) =>
    set((s) => ({ trace: { ...s.trace, status: "running", query, error: undefined } })),
  traceReceived: (query, result) => set({ trace: { status: "ready", query, result, error: undefined } }),
  traceFailed: (query, error) => set({ trace: { status: "error", query, result: undefined, error } }),
  matrixStarted: (query) =>
    set((s) => ({ matrix: { ...s.matrix, status: "running", query, error: undefined } })),
  matrixReceived: (query, result) => set({ matrix: { status: "ready", query, result, error: undefined } }),
  matrixFailed: (query, error) => set({ matrix: { status: "error", query, result: undefined, error } }),
  // The rules on screen stay while the next ones are computed: switching modes or questions does not blank the panel.
  rulesStarted: (query) =>
    set((s) => ({ rules: { ...s.rules, status: "running", query, error: undefined } })),
  rulesReceived: (query, result) => set({ rules: { status: "ready", query, result, error: undefined } }),
  rulesFailed: (query, error) => set({ rules: { status: "error", query, result: undefined, error } }),
  connlistStarted: (query) =>
    set({ connlist: { status: "running", query, result: undefined, error: undefined } }),
  connlistReceived: (query, result) =>
    set({ connlist: { status: "ready", query, result, error: undefined } }),
  connlistFailed: (query, error) => set({ connlist: { status: "error", query, result: undefined, error } }),
});
