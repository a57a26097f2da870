/**
 * Observed flows against the engine's predictions (`ktl observe`): read
 * Hubble, Calico and CSV flow records, match them to the model, compare each
 * with the decider's answer, test what would explain a disagreement, and
 * write least-privilege NetworkPolicies from the traffic, proved.
 */
export { parseFlows } from "./parse.ts";
export type { FlowSet, ObservedFlow, FlowEnd, FlowError, SkippedFlow, FlowFormat } from "./types.ts";
export { analyzeObserved, compareObserved } from "./compare.ts";
export { DISAGREEMENTS } from "./report.ts";
export type {
  ObserveAnalysis,
  ObserveCase,
  ObserveInput,
  ObserveReport,
  ObservedRow,
  UnmatchedFlow,
  SkippedSummary,
  Hypothesis,
  HypothesisKind,
} from "./report.ts";
export type { ObservedDecidedBy, PredictedVerdict } from "./predict.ts";
export { suggestForText, suggestPolicies, suggestProofLines } from "./suggest.ts";
export type { TextSuggestion, SuggestResult, SuggestedPolicy, ProofFailure, ExtraReach } from "./suggest.ts";
export { stableLabels, UNSTABLE_LABELS } from "./match.ts";
export { editForEdge } from "./edge.ts";
export type { EdgeEdit, EdgeEditQuery, EdgeEditProof, EdgeVerdict } from "./edge.ts";
