import type { SliceCreator, Theme, ViewSlice } from "./types.ts";
import type { NodeRulesQuery, TraceQuery } from "../engine/analysis/index.ts";
import type { AppState } from "./types.ts";

/** The same HTTP request (method, path, headers), or both none. */
export function sameHttp(a: TraceQuery["http"], b: TraceQuery["http"]): boolean {
  if (a === b) return true;
  if (!a || !b || a.method !== b.method || a.path !== b.path) return false;
  const ka = Object.keys(a.headers);
  return ka.length === Object.keys(b.headers).length && ka.every((k) => a.headers[k] === b.headers[k]);
}

export function sameQuestion(a: TraceQuery | undefined, b: TraceQuery | undefined): boolean {
  return (
    a === b ||
    (a !== undefined &&
      b !== undefined &&
      a.from === b.from &&
      a.to === b.to &&
      a.protocol === b.protocol &&
      sameHttp(a.http, b.http))
  );
}

/** What the Node rules tab asks the engine: the chosen node (else the question's), the mode, and the question whose walk to show. */
export function rulesQueryOf(s: Pick<AppState, "rulesNode" | "rulesMode" | "question">): NodeRulesQuery {
  const q: NodeRulesQuery = { mode: s.rulesMode };
  if (s.rulesNode !== undefined) q.node = s.rulesNode;
  if (s.question) q.trace = s.question;
  return q;
}

export function sameRulesQuery(a: NodeRulesQuery | undefined, b: NodeRulesQuery | undefined): boolean {
  return (
    a === b ||
    (a !== undefined &&
      b !== undefined &&
      a.node === b.node &&
      a.mode === b.mode &&
      sameQuestion(a.trace, b.trace))
  );
}

export const createViewSlice =
  (initial: { theme: Theme }): SliceCreator<ViewSlice> =>
  (set, get) => ({
    theme: initial.theme,
    tab: "graph",
    side: "details",
    selection: undefined,
    filters: { hiddenNamespaces: [], port: "all", onlyDrops: false },
    grouping: "auto",
    graphLens: "auto",
    nsGroupBy: "auto",
    graphOpen: {},
    graphBudget: 30,
    question: undefined,
    matrixQuery: { port: 80, protocol: "TCP", by: "pod" },
    matrixChosen: false,
    reveal: undefined,
    layout: undefined,
    notice: undefined,
    rulesNode: undefined,
    rulesMode: "iptables",
    cni: undefined,
    assume: undefined,
    hopFocus: undefined,
    connlistRequest: undefined,
    setTheme: (theme) => set({ theme }),
    setTab: (tab) => set({ tab }),
    setSide: (side) => set({ side }),
    // Selecting a cluster node also picks it for the Node rules tab.
    select: (selection) =>
      set(
        selection
          ? {
              selection,
              side: "details",
              ...(selection.kind === "node" ? { rulesNode: selection.id.replace(/^node:/, "") } : {}),
            }
          : { selection },
      ),
    setFilters: (f) => set((s) => ({ filters: { ...s.filters, ...f } })),
    toggleNamespace: (ns) =>
      set((s) => {
        const hidden = s.filters.hiddenNamespaces;
        return {
          filters: {
            ...s.filters,
            hiddenNamespaces: hidden.includes(ns) ? hidden.filter((n) => n !== ns) : [...hidden, ns].sort(),
          },
        };
      }),
    setGrouping: (grouping) => set({ grouping, graphOpen: {} }),
    setGraphLens: (graphLens) => set({ graphLens }),
    // The families change: the user's open and closed families no longer name the same namespaces.
    setNsGroupBy: (nsGroupBy) =>
      set((s) => ({
        nsGroupBy,
        graphOpen: Object.fromEntries(Object.entries(s.graphOpen).filter(([k]) => !k.startsWith("nsg:"))),
      })),
    setGraphOpen: (key, open) => set((s) => ({ graphOpen: { ...s.graphOpen, [key]: open } })),
    setGraphBudget: (graphBudget) => set((s) => (s.graphBudget === graphBudget ? {} : { graphBudget })),
    // Asking the same question again keeps its object, so the answer already on its way still counts.
    ask: (question, selection = { kind: "question" }) =>
      set((s) =>
        sameQuestion(s.question, question)
          ? { selection, side: "details" }
          : // A new question: the Node rules tab follows the node that handles its packet.
            { question, selection, side: "details", rulesNode: undefined, hopFocus: undefined },
      ),
    clearQuestion: () => set({ question: undefined }),
    setMatrixQuery: (q) =>
      set((s) => ({
        matrixQuery: { ...s.matrixQuery, ...q },
        matrixChosen: s.matrixChosen || q.port !== undefined || q.protocol !== undefined,
      })),
    revealLine: (line) => set((s) => ({ reveal: { line, nonce: (s.reveal?.nonce ?? 0) + 1 } })),
    setLayout: (layout) => set({ layout }),
    notify: (notice) => set({ notice }),
    setRulesNode: (rulesNode) => set({ rulesNode }),
    setRulesMode: (rulesMode) => set({ rulesMode }),
    setCni: (cni) => set({ cni }),
    setAssume: (assume) => set({ assume }),
    focusHop: (index) =>
      set((s) => ({ hopFocus: { index, nonce: (s.hopFocus?.nonce ?? 0) + 1 }, side: "details" })),
    restoreView: (v) =>
      set((s) => ({
        ...(v.question
          ? { question: v.question, selection: { kind: "question" as const }, side: "details" as const }
          : {}),
        ...(v.filters ? { filters: v.filters } : {}),
        ...(v.tab ? { tab: v.tab } : {}),
        ...(v.side ? { side: v.side } : {}),
        ...(v.matrix ? { matrixQuery: v.matrix, matrixChosen: true } : {}),
        cni: v.cni,
        assume: v.assume,
        ...(v.graph
          ? {
              grouping: v.graph.grouping ?? "auto",
              graphLens: v.graph.lens ?? "auto",
              graphOpen: v.graph.open ?? {},
              nsGroupBy: v.graph.nsGroupBy ?? "auto",
              ...(v.graph.selection && !v.question ? { selection: v.graph.selection } : {}),
            }
          : {}),
        ...(v.lesson
          ? { answerShown: v.lesson.revealed, presenting: v.lesson.presenting, presenterStep: v.lesson.step }
          : { answerShown: s.answerShown }),
      })),
    requestConnlist: (format) => {
      const connlistRequest = { format, nonce: (get().connlistRequest?.nonce ?? 0) + 1 };
      set({ connlistRequest });
      return connlistRequest;
    },
  });
