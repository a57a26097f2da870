/**
 * The engine's public API. Pure TypeScript: no DOM, React or Node imports, so
 * the same code runs in the browser's Web Worker and behind `bin/ktl`.
 *
 * Data flow: text -> parse (parseManifests) -> model (buildModel) ->
 * decisions (netpol, proxy) -> trace -> plain JSON for the view.
 */

export type { InputFile, KObject, SourceRef, ParseResult } from "./parse/manifests.ts";
export type { Diagnostic, Severity } from "./parse/diagnostics.ts";
export { DIAGNOSTIC_CODES } from "./parse/diagnostics.ts";
export { parseManifests } from "./parse/manifests.ts";
export { buildModel, loadModel } from "./load/index.ts";
export type { BuildOptions } from "./load/index.ts";
export type * from "./model/types.ts";
export type { Service, ServicePort, EndpointSlice, Endpoint } from "./model/services.ts";
export type { NetworkPolicy, PolicyRule, PolicyPeer, PolicyPort } from "./model/networkpolicy.ts";
export {
  buildPolicyIndex,
  classMatrix,
  classAllowed,
  pairAllowed,
  ownNodeOf,
  reachSummary,
  podMatrix,
  explainPair,
  explainIngress,
  explainEgress,
  policiesFor,
} from "./netpol/index.ts";
export type {
  PolicyIndex,
  ClassMatrix,
  ReachSummary,
  PairVerdict,
  DirectionVerdict,
  RuleMatch,
  PeerEndpoint,
} from "./netpol/index.ts";

export {
  buildStack,
  explainStack,
  explainStackPair,
  explainStackIngress,
  explainStackEgress,
  stackMatrix,
  stackPairAllowed,
  stackPodMatrix,
  stackReachSummary,
  decideStack,
  stackRow,
  LAYER_FACTORIES,
} from "./policy/index.ts";
export type {
  PolicyStack,
  StackMatrix,
  StackPairDecision,
  LayerFactory,
  PolicyLayer,
  LayerStep,
  LayerCause,
  LayerName,
  LayerAction,
  DirectionDecision,
  ClassEntry,
  ClassQuery,
  DirectionQuery,
  StackPeer,
} from "./policy/index.ts";
export {
  unmodelledFor,
  unmodelledHeadline,
  unmodelledTiers,
  describeUnmodelled,
  couldSelect,
} from "./policy/unmodelled.ts";
export type { UnmodelledEntry } from "./policy/unmodelled.ts";
export type { ClusterPolicy, TierRule, TierPeer, TierPort, Tier, TierAction } from "./tiers/types.ts";
export { isModelled, unmodelledScope, groupOf } from "./parse/kinds.ts";

export {
  computeConnlist,
  connlistView,
  probeStarts,
  probeIntervals,
  formatPortSet,
  parsePortSet,
  normalizeRanges,
  intersectPortSets,
  blockRanges,
  partitionIPv4,
  ipRangeNodes,
  INGRESS_CONTROLLER,
} from "./connlist/index.ts";
export type {
  ConnList,
  ConnLine,
  ConnNode,
  ConnNodeKind,
  PortSet,
  PortRange,
  IPRangeNode,
  IPRangeNodes,
} from "./connlist/index.ts";
export { formatConnlist, CONNLIST_FORMATS } from "./connlist/format.ts";
export type { ConnlistFormat } from "./connlist/format.ts";
export { parseIngressBackends, backendService, backendPodPorts } from "./model/ingress.ts";
export type { IngressBackend, BackendService } from "./model/ingress.ts";

export { validateModel, validationDiagnostics, formatFieldError } from "./validate/index.ts";
export type {
  ValidationResult,
  Finding as ValidationFinding,
  Warning as ValidationWarning,
  ValidateOptions,
} from "./validate/index.ts";
export { validateModelUpdate, immutableFieldErrors } from "./validate/update.ts";
export type { UpdateResult } from "./validate/update.ts";

export { externallyAccessible, externalPolicyLocal, needsHealthCheck } from "./model/services.ts";
export type { LoadBalancerIngress, EndpointSlicePort, EndpointHints, ServiceType } from "./model/services.ts";
export {
  buildProxyIndex,
  chooseEndpoints,
  categorizeEndpoints,
  topologyModeFromHints,
  healthCheck,
  loadBalancerHealth,
  checkSourceRanges,
  portTraits,
  findServicePort,
  servicePortEndpoints,
  skipped as proxySkipsService,
} from "./proxy/index.ts";
export type {
  ProxyIndex,
  ProxyRequest,
  ProxyDecision,
  ProxyCandidate,
  ProxyError,
  ProxyEndpoint,
  PortEndpoints,
  Frontend,
  TrafficOrigin,
  EndpointCategory,
  Categorized,
  ServicePortTraits,
  TopologyMode,
  HealthCheckStatus,
  SourceRangeCheck,
} from "./proxy/index.ts";
export {
  traceRequest,
  parseTraceSource,
  parseTraceDestination,
  formatProbability,
  stepTitle,
  verdictMark,
  causeText,
  isPolicyLayer,
  reasonAfterVerdict,
  sourceAddressText,
} from "./trace/index.ts";
export type {
  TraceResult,
  TraceHop,
  TraceEndpoint,
  TraceRef,
  TraceSource,
  TraceDestination,
  TraceVerdict,
  PolicyCheck,
  HopStep,
  HopCause,
  HopVerdict,
  CauseLayer,
  ObjectRef,
} from "./trace/index.ts";

export {
  iptablesRules,
  nftablesRules,
  ipvsRules,
  nodeRules,
  walkTrace,
  rulesWalkedByTrace,
  packetForTrace,
  dataplaneOptions,
  KUBE_PROXY_VERSION,
} from "./dataplane/index.ts";
export type {
  NodeRules,
  IptablesRules,
  ProxyMode,
  DataplaneOptions,
  TraceRuleWalk,
  TraceRuleStep,
  TraceRuleBranch,
  ProxyConfig as KubeProxyConfig,
} from "./dataplane/index.ts";

export { applyWhatIf, describeWhatIf, whatIfTargets } from "./whatif/index.ts";
export type {
  WhatIf,
  WhatIfKind,
  WhatIfResult,
  WhatIfOptions,
  WhatIfTargets,
  TextEdit,
} from "./whatif/index.ts";
export { diffModels, diffInputs, diffTexts, summarizeDiff } from "./diff/index.ts";
export type { InputDiff, FlowChange, EndpointChange, FlowState, DiffOptions } from "./diff/index.ts";

export { parseExpectations, runExpectations, NETASSERT_FIELDS, MAX_PAIRS } from "./expect/index.ts";
export type { Expectation, ExpectationResult, ExpectationCase } from "./expect/index.ts";
export {
  toL7Request,
  header as httpHeader,
  hostOf,
  formatRequest,
  traceL7,
  parseL7Destination,
  parseAnyDestination,
  decidedByOf,
} from "./l7/index.ts";
export type {
  HttpRequest as L7Request,
  L7Destination,
  L7TraceResult,
  L7Backend,
  DecidedBy,
  Redirect,
  L7Layer,
} from "./l7/index.ts";
