/**
 * The playground's state: one Zustand store made of three slices
 * (zustand's slices pattern, mermaid-live-editor's one-way flow):
 *
 *   input    the editor text and the scenario it came from; written only by
 *            its named actions; the one thing that is persisted and shared
 *   analysis what the engine said about the text, and about the questions
 *            asked; written only by the engine sync (engineSync.ts)
 *   view     selection, filters, grouping, theme, layout positions
 *
 * Graph nodes and edges are derived from analysis + view by memoised
 * selectors (src/graph), never stored.
 */
import type { LayerFilter } from "../graph/verdicts.ts";
import type { NsGroupBy } from "../graph/nsGroups.ts";
import type { StateCreator } from "zustand";
import type { InputDiff } from "../engine/index.ts";
import type { Outcome, Prediction } from "../components/Lessons/predict.ts";
import type { ClusterAssumptions, CniName } from "../engine/cni/profile.ts";
import type {
  Analysis,
  AnalysisProgress,
  ConnlistDownload,
  DiagnosticView,
  MatrixQuery,
  MatrixView,
  NodeRulesQuery,
  NodeRulesView,
  RulesMode,
  TestRunView,
  TraceQuery,
  TraceView,
  Protocol,
  ObserveView,
} from "../engine/analysis/index.ts";

/** Where the text came from; "whatif" is an edit made for the user (a what-if, a lesson's or a near miss's edit), which the editor takes in as one undoable change. */
export type TextOrigin =
  "default" | "storage" | "share" | "scenario" | "edit" | "whatif" | "restore" | "file";

export interface InputSlice {
  text: string;
  /** The file name the engine reports diagnostics against. */
  file: string;
  /** Catalogue id of the scenario the text started from. */
  scenarioId: string | undefined;
  origin: TextOrigin;
  /** Increments on every change of the text. */
  revision: number;
  /** The user typed in the editor ("edit"), or an edit was made for them ("whatif": the editor takes it in; the question stays). */
  editText(text: string, origin?: "edit" | "whatif"): void;
  /** Text from elsewhere (a scenario, a share link, saved work): the editor shows it. */
  replaceText(text: string, origin: Exclude<TextOrigin, "edit">, scenarioId?: string): void;
}

export type Status = "idle" | "running" | "ready" | "error";

export interface AnalysisState {
  status: Status;
  /** Input revision of `result`. */
  revision: number;
  result: Analysis | undefined;
  error: string | undefined;
  /** While running: the step the engine reported last (what it is doing, how far). */
  progress?: AnalysisProgress;
}

export interface AnswerState<Q, R> {
  status: Status;
  query: Q | undefined;
  result: R | undefined;
  error: string | undefined;
}

export interface AnalysisSlice {
  analysis: AnalysisState;
  /** apiserver validation and lint, which arrive after the analysis of the same revision. */
  validation: { revision: number; diagnostics: DiagnosticView[] };
  trace: AnswerState<TraceQuery, TraceView>;
  matrix: AnswerState<MatrixQuery, MatrixView>;
  rules: AnswerState<NodeRulesQuery, NodeRulesView>;
  connlist: AnswerState<ConnlistRequest, string>;
  analysisStarted(revision: number): void;
  /** A step of the running analysis (engine onProgress, through the worker). */
  analysisProgress(progress: AnalysisProgress): void;
  analysisReceived(revision: number, result: Analysis): void;
  analysisFailed(revision: number, error: string): void;
  validationReceived(revision: number, diagnostics: DiagnosticView[]): void;
  traceStarted(q: TraceQuery): void;
  traceReceived(q: TraceQuery, result: TraceView): void;
  traceFailed(q: TraceQuery, error: string): void;
  matrixStarted(q: MatrixQuery): void;
  matrixReceived(q: MatrixQuery, result: MatrixView): void;
  matrixFailed(q: MatrixQuery, error: string): void;
  rulesStarted(q: NodeRulesQuery): void;
  rulesReceived(q: NodeRulesQuery, result: NodeRulesView): void;
  rulesFailed(q: NodeRulesQuery, error: string): void;
  connlistStarted(q: ConnlistRequest): void;
  connlistReceived(q: ConnlistRequest, result: string): void;
  connlistFailed(q: ConnlistRequest, error: string): void;
}

/** A download of the connectivity list; the nonce makes asking twice ask twice. */
export interface ConnlistRequest {
  format: ConnlistDownload;
  nonce: number;
}

export type Selection =
  | { kind: "edge"; id: string }
  | { kind: "pod"; id: string }
  | { kind: "service"; id: string }
  | { kind: "node"; id: string }
  | { kind: "group"; id: string }
  | { kind: "external"; id: string }
  /** An L7 router of the paths lens (Gateway, Ingress, VirtualService). */
  | { kind: "router"; id: string }
  /** A zone, a packed block, or the unscheduled bucket of the topology lens. */
  | { kind: "container"; id: string }
  | { kind: "question" };

export type Grouping = "auto" | "pod" | "workload" | "namespace";
/** The graph's frame: cluster zones and nodes as containers ("topology"), or layered request paths ("paths"); "auto" picks topology when zones or nodes decide something. */
export type GraphLens = "auto" | "topology" | "paths";
export type Theme = "light" | "dark";
export type MainTab = "graph" | "matrix" | "rules";
export type SideTab = "details" | "problems" | "tests" | "observed";

export interface Filters {
  /** Namespaces whose pods and Services are hidden. */
  hiddenNamespaces: string[];
  /** "all", or "PORT/PROTOCOL" of the flows to show. */
  port: string;
  onlyDrops: boolean;
  /** Only the edges a policy layer decided (graph/verdicts.ts LAYER_FILTERS); absent: any. */
  layer?: LayerFilter;
}

export interface Notice {
  kind: "info" | "error";
  text: string;
  /** An undo for the change the notice reports (e.g. the text a share link replaced). */
  undoText?: string;
  /** The undo button's label ("Undo" when absent). */
  undoLabel?: string;
  /** Offer to download the editor text as a file (a share link too long to send). */
  offerDownload?: boolean;
  /** The notice reports a new scenario (scenarioSlice.ts): its Undo puts back the text and its view. */
  undoScenario?: boolean;
}

export interface LayoutPositions {
  /** Structure key the positions belong to. */
  key: string;
  positions: Record<string, { x: number; y: number; width: number; height: number }>;
}

export interface ViewSlice {
  theme: Theme;
  tab: MainTab;
  side: SideTab;
  selection: Selection | undefined;
  filters: Filters;
  grouping: Grouping;
  graphLens: GraphLens;
  /** How namespaces fold into families past the budget: "auto" (an owner label such as team, else the name prefix), "prefix", "label:KEY". */
  nsGroupBy: NsGroupBy;
  /** Namespaces ("ns:NAME") and workloads (their id) the user opened (true) or closed (false) in the graph. */
  graphOpen: Record<string, boolean>;
  /** How many elements the graph pane shows legibly at fit view (from its size); the automatic grouping stays within it. */
  graphBudget: number;
  /** The question being asked (Ask a question, an edge or a matrix cell): the engine sync traces it. */
  question: TraceQuery | undefined;
  matrixQuery: MatrixQuery;
  /** The user picked the matrix port; until then it follows the scenario's most common declared port. */
  matrixChosen: boolean;
  /** A line to show in the editor; the nonce makes asking twice for one line move it again. */
  reveal: { line: number; nonce: number } | undefined;
  layout: LayoutPositions | undefined;
  notice: Notice | undefined;
  /** The node whose kube-proxy rules the Node rules tab shows; undefined follows the question's node. */
  rulesNode: string | undefined;
  rulesMode: RulesMode;
  /** The cluster profile chosen in the toolbar (engine/cni/profile.ts); undefined: read from the input, else generic. It changes the answers, so the engine analyses again. */
  cni: CniName | undefined;
  /** The toolbar's assumptions about the cluster around the application (an Istio ingress gateway, sidecar injection): they change answers, so the engine analyses again. */
  assume: ClusterAssumptions | undefined;
  /** A trace hop to highlight and scroll to in the details (a rule's link); the nonce makes asking twice move it again. */
  hopFocus: { index: number; nonce: number } | undefined;
  connlistRequest: ConnlistRequest | undefined;
  setTheme(t: Theme): void;
  setTab(t: MainTab): void;
  setSide(t: SideTab): void;
  select(s: Selection | undefined): void;
  setFilters(f: Partial<Filters>): void;
  toggleNamespace(ns: string): void;
  setGrouping(g: Grouping): void;
  setGraphLens(l: GraphLens): void;
  setNsGroupBy(g: NsGroupBy): void;
  setGraphOpen(key: string, open: boolean): void;
  setGraphBudget(n: number): void;
  ask(q: TraceQuery, selection?: Selection): void;
  clearQuestion(): void;
  setMatrixQuery(q: Partial<MatrixQuery>): void;
  revealLine(line: number): void;
  setLayout(l: LayoutPositions): void;
  notify(n: Notice | undefined): void;
  setRulesNode(node: string | undefined): void;
  setRulesMode(mode: RulesMode): void;
  setCni(cni: CniName | undefined): void;
  setAssume(assume: ClusterAssumptions | undefined): void;
  focusHop(index: number): void;
  requestConnlist(format: ConnlistDownload): ConnlistRequest;
  /** Puts back a view from a share link or the saved work (question, filters, tabs, matrix port, lesson step). */
  restoreView(view: SharedView): void;
}

export type AppState = InputSlice &
  AnalysisSlice &
  ViewSlice &
  WorkshopSlice &
  SessionSlice &
  TestsSlice &
  ScenarioSlice &
  ObserveSlice;

/** What a new scenario replaced, for its Undo (scenarioSlice.ts). */
export interface ScenarioSnapshot {
  text: string;
  scenarioId: string | undefined;
  question: TraceQuery | undefined;
  selection: Selection | undefined;
  filters: Filters;
  graphOpen: Record<string, boolean>;
  answerShown: boolean;
  presenting: boolean;
  presenterStep: number;
  predictions: Record<string, Prediction>;
}

/** A paste or an opened file is a new scenario (scenarioSlice.ts). */
export interface ScenarioSlice {
  scenarioUndo: ScenarioSnapshot | undefined;
  /** The revision whose analysis prunes the filters that no longer apply. */
  pruneFiltersAt: number | undefined;
  /** The text is a new scenario: what belonged to the old one resets, undoably. `what` starts the notice ("The pasted text"). */
  newScenario(text: string, origin: "edit" | "file", what: string): void;
  /** The engine's analysis of a revision arrived (engineSync.ts): prune the filters if it is a new scenario's. */
  analysisForNewScenario(revision: number, a: Analysis): void;
  undoNewScenario(): void;
}

/** The Observed tab (observeSlice.ts): a flow file, and the engine's comparison of it with the analysed text. */
export interface ObserveSlice {
  /** The flow file's text; "" when none is open. Not saved: flow files are large and about one cluster. */
  observeText: string;
  observeFile: string;
  /** The engine's answer, for the analysis revision and flow text it was computed on. */
  observeRun: {
    status: Status;
    revision: number;
    text: string;
    result: ObserveView | undefined;
    error: string | undefined;
  };
  /** Opens a flow file: it is compared with every new analysis, and the Observed tab shows. */
  openFlows(text: string, file: string): void;
  closeFlows(): void;
  observeStarted(revision: number, text: string): void;
  observeReceived(revision: number, text: string, result: ObserveView): void;
  observeFailed(revision: number, text: string, error: string): void;
}

/** The Tests tab (testsSlice.ts): a `ktl test` file, and the engine's run of it against the analysed text. */
export interface TestsSlice {
  testsText: string;
  /** The test file's name, for messages (an opened file's, else tests.yaml). */
  testsFile: string;
  /** Run against every new analysis and marked on the graph (the user pressed Run). */
  testsOn: boolean;
  /** The engine's answer, for the analysis revision and test text it was run on. */
  testRun: {
    status: Status;
    revision: number;
    text: string;
    result: TestRunView | undefined;
    error: string | undefined;
  };
  /** The expectation whose path the graph lights (its index in the run's results). */
  testSelected: number | undefined;
  setTestsText(text: string, file?: string): void;
  runTests(): void;
  stopTests(): void;
  /** Selects an expectation and asks its explaining pair (the graph lights its path). */
  selectTest(index: number | undefined, question?: TraceQuery): void;
  testsStarted(revision: number, text: string): void;
  testsReceived(revision: number, text: string, result: TestRunView): void;
  testsFailed(revision: number, text: string, error: string): void;
}
export type { Protocol };

/** A slice of the combined store; the middleware sits on the combined store only (zustand's slices guide). */
export type SliceCreator<T> = StateCreator<AppState, [["zustand/subscribeWithSelector", never]], [], T>;

// The workshop slice's shape lives here, not in workshopSlice.ts, so the store's types and the slice do not import each other.

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
  /** The learner's predictions for the open lesson's questions, by question key (predict, then reveal). */
  predictions: Record<string, Prediction>;
  /** The engine's answers to those questions once traced, for the text revision they were traced on. */
  outcomes: { revision: number; byKey: Record<string, Outcome> };
  whatIf: WhatIfState;
  /** A workshop session: lesson ids in the teacher's order (one link carries them); undefined outside a session. */
  session: string[] | undefined;
  presenting: boolean;
  /** The hop shown in presenter mode; -1 is the question's overview. */
  presenterStep: number;
  showAnswer(shown: boolean): void;
  predict(key: string, p: Prediction): void;
  recordOutcome(revision: number, key: string, o: Outcome): void;
  /** A new lesson: no predictions, no answers. */
  clearPredictions(): void;
  setSession(ids: readonly string[] | undefined): void;
  whatIfStarted(label: string, before: string): void;
  whatIfApplied(after: string, notes: string[]): void;
  whatIfCompared(after: string, diff: InputDiff): void;
  whatIfFailed(error: string): void;
  clearWhatIf(): void;
  setPresenting(on: boolean): void;
  setPresenterStep(step: number): void;
}

// The session slice's shape (sessionSlice.ts), here for the same reason.

export interface TabConflict {
  /** The text the other tab saved. */
  otherText: string;
}

export interface SessionSlice {
  /** Safe mode: the previous load did not reach its first drawing, so this one does not analyse until asked. */
  paused: boolean;
  /** The text kept before something replaced the editor's text; undefined when none is kept. */
  previous: string | undefined;
  /** Another tab saved different text over this tab's; this tab stops saving until the user chooses. */
  tabConflict: TabConflict | undefined;
  /** Another tab of the playground is open in this browser. */
  otherTab: boolean;
  resumeAnalysis(): void;
  keepPreviousText(text: string): void;
  /** Swaps the editor's text and the kept one, so restoring is itself undoable. */
  restorePrevious(): void;
  tabConflicted(otherText: string): void;
  /** The user chose: "mine" keeps this tab's text (the other's becomes the previous text), "theirs" opens the other's (this tab's becomes the previous text). */
  resolveTabConflict(choice: "mine" | "theirs"): void;
  setOtherTab(open: boolean): void;
}

/** The view a share link and the saved work carry besides the text (share/view.ts reads and checks it). */
export interface SharedView {
  question?: TraceQuery;
  filters?: Filters;
  tab?: MainTab;
  side?: SideTab;
  /** Only when the user chose the matrix port (otherwise it follows the scenario). */
  matrix?: MatrixQuery;
  /** The lesson's step: the answer revealed, presenter mode and its hop (-1: the question's overview). */
  lesson?: { revealed: boolean; presenting: boolean; step: number };
  /** The cluster profile chosen in the toolbar (format 3 on); absent: read from the input, else generic. */
  cni?: CniName;
  /** The profile's assumptions about the cluster around the application (format 4 on). */
  assume?: ClusterAssumptions;
  /**
   * The graph as drawn (optional in format 3, older versions leave it out): how it groups, its lens,
   * the boxes the user opened or folded, how namespaces fold into families, and the selected element.
   */
  graph?: {
    grouping?: Grouping;
    lens?: GraphLens;
    open?: Record<string, boolean>;
    nsGroupBy?: NsGroupBy;
    selection?: Selection;
  };
}
