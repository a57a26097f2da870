/**
 * The engine's public API. Pure TypeScript: no DOM, React or Node imports, so
 * the same code runs in the browser's Web Worker and behind `bin/ktl`.
 *
 * Data flow: text -> parse (parseManifests) -> model (buildModel) ->
 * decisions (netpol, proxy) -> trace -> plain JSON for the view.
 *
 * It exports what the front ends use (src/cli, src/worker, the UI, bench/):
 * nothing more, and no `export type *`. Engine folders never import it; they
 * import each other downward (ARCHITECTURE.md, import direction).
 */

export type { InputFile } from "./parse/manifests.ts";
export type { Diagnostic } from "./parse/diagnostics.ts";

export { parseManifests } from "./parse/manifests.ts";
export { buildModel, loadModel } from "./load/index.ts";

export type { Model, Protocol } from "./model/types.ts";

export { buildPolicyIndex, classMatrix, podMatrix, reachSummary } from "./netpol/index.ts";

export { buildStack, stackMatrix, stackPodMatrix, stackReachSummary } from "./policy/index.ts";

export { deciderOf, enforcementOf } from "./decide/index.ts";
export type { Decider, DecisionMatrix, PairDecision, Enforcement } from "./decide/index.ts";

export {
  unmodelledFor,
  unmodelledHeadline,
  unmodelledTiers,
  inputOmissions,
  skippedHeadline,
} from "./policy/unmodelled.ts";
export type { InputOmissions, UnmodelledEntry } from "./policy/unmodelled.ts";
export type { SkippedDocument } from "./parse/diagnostics.ts";

export { computeConnlist } from "./connlist/index.ts";

export { formatConnlist, CONNLIST_FORMATS } from "./connlist/format.ts";
export type { ConnlistFormat } from "./connlist/format.ts";

export { validateModel, formatFieldError } from "./validate/index.ts";
export type { Finding as ValidationFinding, Warning as ValidationWarning } from "./validate/index.ts";
export { validateModelUpdate } from "./validate/update.ts";

export { buildProxyIndex } from "./proxy/index.ts";

export {
  traceRequest,
  parseTraceSource,
  formatProbability,
  stepTitle,
  verdictMark,
  reasonAfterVerdict,
  sourceAddressText,
} from "./trace/index.ts";
export { nearMissesOf, nearMissLines, nearMissEditText } from "./trace/render.ts";
export type { TraceResult, TraceRef } from "./trace/index.ts";
export { traceWorkload, isWorkloadQuery } from "./trace/workload.ts";

export { nodeRules, walkTrace, dataplaneOptions } from "./dataplane/index.ts";
export type { ProxyMode, DataplaneOptions, TraceRuleWalk } from "./dataplane/index.ts";

export { applyWhatIf } from "./whatif/index.ts";
export type { WhatIf, WhatIfKind, WhatIfResult } from "./whatif/index.ts";
export { diffModels, diffTexts } from "./diff/index.ts";
export type { InputDiff, FlowChange, EndpointChange, WorkloadChange } from "./diff/index.ts";

export { parseExpectations, runExpectations, NETASSERT_FIELDS } from "./expect/index.ts";
export type { ExpectationResult } from "./expect/index.ts";
export { traceL7, parseAnyDestination } from "./l7/index.ts";
export type { L7TraceResult } from "./l7/index.ts";

export {
  parseFlows,
  analyzeObserved,
  compareObserved,
  suggestPolicies,
  suggestProofLines,
  suggestForText,
  editForEdge,
  DISAGREEMENTS,
} from "./observe/index.ts";
export type {
  FlowSet,
  ObserveAnalysis,
  ObserveCase,
  ObserveReport,
  ObservedRow,
  SuggestResult,
  TextSuggestion,
  Hypothesis,
  EdgeEdit,
  EdgeEditQuery,
  EdgeEditProof,
} from "./observe/index.ts";
