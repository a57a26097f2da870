import type { SliceCreator, Theme, ViewSlice } from "./types.ts";
import type { TraceQuery } from "../engine/analysis/index.ts";

export function sameQuestion(a: TraceQuery | undefined, b: TraceQuery | undefined): boolean {
  return a === b || (a !== undefined && b !== undefined && a.from === b.from && a.to === b.to && a.protocol === b.protocol);
}

export const createViewSlice =
  (initial: { theme: Theme }): SliceCreator<ViewSlice> =>
  (set) => ({
    theme: initial.theme,
    tab: "graph",
    side: "details",
    selection: undefined,
    filters: { hiddenNamespaces: [], port: "all", onlyDrops: false },
    grouping: "auto",
    question: undefined,
    matrixQuery: { port: 80, protocol: "TCP", by: "pod" },
    matrixChosen: false,
    reveal: undefined,
    layout: undefined,
    notice: undefined,
    setTheme: (theme) => set({ theme }),
    setTab: (tab) => set({ tab }),
    setSide: (side) => set({ side }),
    select: (selection) => set(selection ? { selection, side: "details" } : { selection }),
    setFilters: (f) => set((s) => ({ filters: { ...s.filters, ...f } })),
    toggleNamespace: (ns) =>
      set((s) => {
        const hidden = s.filters.hiddenNamespaces;
        return { filters: { ...s.filters, hiddenNamespaces: hidden.includes(ns) ? hidden.filter((n) => n !== ns) : [...hidden, ns].sort() } };
      }),
    setGrouping: (grouping) => set({ grouping }),
    // Asking the same question again keeps its object, so the answer already on its way still counts.
    ask: (question, selection = { kind: "question" }) =>
      set((s) => ({ question: sameQuestion(s.question, question) ? s.question : question, selection, side: "details" })),
    clearQuestion: () => set({ question: undefined }),
    setMatrixQuery: (q) => set((s) => ({ matrixQuery: { ...s.matrixQuery, ...q }, matrixChosen: s.matrixChosen || q.port !== undefined || q.protocol !== undefined })),
    revealLine: (line) => set((s) => ({ reveal: { line, nonce: (s.reveal?.nonce ?? 0) + 1 } })),
    setLayout: (layout) => set({ layout }),
    notify: (notice) => set({ notice }),
  });
