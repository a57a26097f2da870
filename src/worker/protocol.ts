/**
 * Messages between the playground and the engine's Web Worker. One request,
 * one response, paired by id; the handler map in engine.worker.ts answers.
 * The analysis methods ask the session of the newest text; `whatIf` and
 * `diff` are about the texts they carry (they need no session).
 */
import type {
  Analysis,
  AnalysisProgress,
  ConnlistDownload,
  DiagnosticView,
  MatrixQuery,
  MatrixView,
  NodeRulesQuery,
  NodeRulesView,
  ObserveQuery,
  ObserveView,
  TestRunView,
  TestsQuery,
  TraceQuery,
  TraceView,
} from "../engine/analysis/index.ts";
import type {
  EdgeEdit,
  EdgeEditQuery,
  InputDiff,
  TextSuggestion,
  WhatIf,
  WhatIfResult,
} from "../engine/index.ts";
import type { AnalysisMessage } from "./delta.ts";
import type { ClusterAssumptions, CniName } from "../engine/cni/profile.ts";

export interface AnalyzeParams {
  text: string;
  file: string;
  /** The client's generation for this text; the worker echoes it with every later answer. */
  generation: number;
  /**
   * The generation of the analysis the client holds, when it holds one: the
   * worker answers with the parts that changed since it (delta.ts).
   */
  base?: number;
  /** The cluster profile chosen in the toolbar (engine/cni/profile.ts); absent: read from the input, else generic. */
  cni?: CniName;
  /** The profile's assumptions about the cluster around the application (the toolbar's Assume switches). */
  assume?: ClusterAssumptions;
}

export interface WhatIfAnswer {
  result: WhatIfResult;
  /** Before against after, when the what-if changed the text. */
  diff?: InputDiff;
}

export interface SuggestAnswer {
  result: TextSuggestion;
  /** Before against after, when the policies went into the text. */
  diff?: InputDiff;
}

export interface EdgeEditAnswer {
  result: EdgeEdit;
  /** Before against after, when the edit changed the text. */
  diff?: InputDiff;
}

export interface EngineHandlers {
  analyze(params: AnalyzeParams): AnalysisMessage;
  /** apiserver validation and lint of the analysed text. */
  validate(params: Record<string, never>): DiagnosticView[];
  trace(params: TraceQuery): TraceView;
  matrix(params: MatrixQuery): MatrixView;
  /** A node's kube-proxy rules in one mode, and a question's walk through them. */
  rules(params: NodeRulesQuery): NodeRulesView;
  /** The workload connectivity list in netpol-analyzer's text or JSON. */
  connlist(params: { format: ConnlistDownload }): string;
  /** A `ktl test` file run against the analysed text (engine/expect), with the graph's marks. */
  tests(params: TestsQuery): TestRunView;
  /** A flow file (Hubble, Calico, CSV) compared with the analysed text, as `ktl observe` compares (engine/observe). */
  observe(params: ObserveQuery): ObserveView;
  /** A what-if control's rewrite of a text (engine whatif), with before against after (engine diff). */
  whatIf(params: { text: string; op: WhatIf }): WhatIfAnswer;
  /** "Allow this edge" / "Deny this edge": the smallest edit of a text for one connection, proved by the decider (engine/observe/edge.ts). */
  edgeEdit(params: { text: string; file: string; query: EdgeEditQuery }): EdgeEditAnswer;
  /** Policies written from a flow file and proved (engine/observe suggest.ts), as an edit of the text. */
  suggest(params: { text: string; file: string; flows: { name: string; text: string } }): SuggestAnswer;
  /** Two texts compared (engine diff), for an edit made elsewhere (a lesson's suggested edit). */
  diff(params: { before: string; after: string }): InputDiff;
}

export type EngineMethod = keyof EngineHandlers;

/**
 * How the page sends each method (engineClient.ts), declared once beside the
 * handler's signature: `analyze` is the text's analysis; a `query` asks the
 * newest text's session and waits for its analysis; a `call` carries its own
 * texts. `what` names it in messages ("The trace took longer than ...").
 */
export const ENGINE_METHODS = {
  analyze: { kind: "analyze", what: "The analysis" },
  validate: { kind: "query", what: "Validation" },
  trace: { kind: "query", what: "The trace" },
  matrix: { kind: "query", what: "The matrix" },
  rules: { kind: "query", what: "The node rules" },
  connlist: { kind: "query", what: "The connectivity list" },
  tests: { kind: "query", what: "The tests" },
  observe: { kind: "query", what: "The flow comparison" },
  whatIf: { kind: "call", what: "The what-if" },
  edgeEdit: { kind: "call", what: "The edge's edit" },
  suggest: { kind: "call", what: "The policies from the flows" },
  diff: { kind: "call", what: "The comparison" },
} as const satisfies Record<EngineMethod, { kind: "analyze" | "query" | "call"; what: string }>;

type KindOf<M extends EngineMethod> = (typeof ENGINE_METHODS)[M]["kind"];
export type QueryMethod = { [M in EngineMethod]: KindOf<M> extends "query" ? M : never }[EngineMethod];
export type CallMethod = { [M in EngineMethod]: KindOf<M> extends "call" ? M : never }[EngineMethod];
export type ParamsOf<M extends EngineMethod> = Parameters<EngineHandlers[M]>[0];
export type ResultOf<M extends EngineMethod> = ReturnType<EngineHandlers[M]>;

export interface EngineRequest<M extends EngineMethod = EngineMethod> {
  id: number;
  method: M;
  params: Parameters<EngineHandlers[M]>[0];
}

export type EngineResponse =
  | { id: number; ok: true; result: unknown; generation: number }
  | { id: number; ok: false; error: string; generation: number };

/** Sent while an analysis runs, before its response: the step under way (engine/analysis `onProgress`). */
export interface EngineProgress {
  progress: AnalysisProgress;
  /** The client's generation of the text being analysed. */
  generation: number;
}

/** Everything the worker posts: responses, and progress on the way to an analysis's response. */
export type EngineMessage = EngineResponse | EngineProgress;

/** Re-exported so that the store need not import the engine for the analysis type. */
export type { Analysis };
