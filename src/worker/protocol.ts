/**
 * Messages between the playground and the engine's Web Worker. One request,
 * one response, paired by id; the handler map in engine.worker.ts answers.
 */
import type {
  Analysis,
  ConnlistDownload,
  DiagnosticView,
  MatrixQuery,
  MatrixView,
  NodeRulesQuery,
  NodeRulesView,
  TraceQuery,
  TraceView,
} from "../engine/analysis/index.ts";

export interface AnalyzeParams {
  text: string;
  file: string;
  /** The client's generation for this text; the worker echoes it with every later answer. */
  generation: number;
}

export interface EngineHandlers {
  analyze(params: AnalyzeParams): Analysis;
  /** apiserver validation and lint of the analysed text. */
  validate(params: Record<string, never>): DiagnosticView[];
  trace(params: TraceQuery): TraceView;
  matrix(params: MatrixQuery): MatrixView;
  /** A node's kube-proxy rules in one mode, and a question's walk through them. */
  rules(params: NodeRulesQuery): NodeRulesView;
  /** The workload connectivity list in netpol-analyzer's text or JSON. */
  connlist(params: { format: ConnlistDownload }): string;
}

export type EngineMethod = keyof EngineHandlers;

export interface EngineRequest<M extends EngineMethod = EngineMethod> {
  id: number;
  method: M;
  params: Parameters<EngineHandlers[M]>[0];
}

export type EngineResponse =
  | { id: number; ok: true; result: unknown; generation: number }
  | { id: number; ok: false; error: string; generation: number };
