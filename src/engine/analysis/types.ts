/**
 * The view-oriented result of one analysis: plain, JSON-safe data that the
 * Web Worker posts to the playground. Every verdict here was made by the
 * engine (netpol, proxy, trace); the view only draws and filters it.
 *
 * Ids follow the playground's test hooks (shared/contract/ktl-cli.md):
 * `pod:NS/NAME`, `service:NS/NAME`, `node:NAME`, `external:IP`.
 */
import type { HopCause, HopStep, HopVerdict } from "../trace/types.ts";
import type { Protocol } from "../model/types.ts";

export type Verdict = "allow" | "drop" | "partial";

/** Why a flow drops: a NetworkPolicy, or kube-proxy's traffic policy (no usable endpoint). */
export type DropCause = "policy" | "traffic-policy";

/** An object of the input and the line that decided (the `ref` of `ktl trace --json`). */
export interface RefView {
  kind: string;
  namespace?: string;
  name: string;
  /** 1-based line in the editor text; 0 when the object was not in the input. */
  line: number;
}

export interface DiagnosticView {
  code: string;
  /** The object the diagnostic is about ("Service shop/web"), when known. */
  object?: string;
  severity: "error" | "warning" | "info";
  message: string;
  line: number;
  column: number;
  hint?: string;
}

export interface ZoneView {
  name: string;
  nodes: string[];
}

export interface NodeView {
  id: string;
  name: string;
  zone?: string;
  internalIP: string;
  ready: boolean;
  unschedulable: boolean;
  /** Taints as "key[=value]:Effect", the cordon's node.kubernetes.io/unschedulable:NoSchedule included; absent when none. */
  taints?: string[];
  /** Not in the input: assumed because pods name it, or because the input has no nodes. */
  synthesized: boolean;
  ref?: RefView;
}

export interface PortView {
  name?: string;
  port: number;
  protocol: Protocol;
}

export interface PodView {
  id: string;
  namespace: string;
  name: string;
  /** Node id, undefined when unscheduled. */
  node?: string;
  /** Empty: no IP yet (Pending, or a status without podIP). */
  ips: string[];
  /** The IPs were made up by the model (the pod is written without status); absent when read from status. */
  ipsSynthesized?: boolean;
  labels: Record<string, string>;
  workload: { id: string; kind: string; name: string };
  ports: PortView[];
  hostNetwork: boolean;
  ready: boolean;
  phase: string;
  terminating: boolean;
  generated: boolean;
  ref: RefView;
  /** NetworkPolicies that isolate the pod, per direction. */
  isolatedBy: { ingress: RefView[]; egress: RefView[] };
}

export interface ServicePortView {
  name: string;
  port: number;
  protocol: Protocol;
  targetPort: number | string;
  nodePort?: number;
}

export interface ServiceView {
  id: string;
  namespace: string;
  name: string;
  type: string;
  clusterIPs: string[];
  headless: boolean;
  ports: ServicePortView[];
  externalIPs: string[];
  loadBalancerIPs: string[];
  internalTrafficPolicy: string;
  externalTrafficPolicy: string;
  /** Externally accessible (apiserver ExternallyAccessible: NodePort, LoadBalancer, ClusterIP with external IPs): externalTrafficPolicy applies. */
  external: boolean;
  ref: RefView;
}

export interface PolicyView {
  id: string;
  namespace: string;
  name: string;
  ingress: boolean;
  egress: boolean;
  /** Pods the policy selects. */
  selects: number;
  ref: RefView;
}

export interface TierPolicyView {
  kind: string;
  name: string;
  tier: "Admin" | "Baseline";
  /** spec.priority (a BaselineAdminNetworkPolicy has none). */
  priority?: number;
  /** Pods the subject selects. */
  selects: number;
  ref: RefView;
}

export interface ExternalClientView {
  id: string;
  ip: string;
}

export type FlowKind =
  /** A pod connects to a Service port (kube-proxy picks a backend). */
  | "service"
  /** A Service port forwards to one endpoint pod. */
  | "endpoint"
  /** A client outside the cluster reaches a Service (NodePort, LoadBalancer, external IP). */
  | "external"
  /** A pod connects to another pod's IP on one of its declared ports. */
  | "pod"
  /** An L7 router's own flows (routers.ts): a client into the router, and the router sending a share of a rule's requests to a Service. */
  | "route";

/**
 * One drawn edge family: every source in `from` gets the same decisions
 * (same NetworkPolicy class and, for Services, the same node), so they share
 * one flow record.
 */
export interface Flow {
  id: string;
  kind: FlowKind;
  from: string[];
  to: string;
  port: number;
  protocol: Protocol;
  portName?: string;
  verdict: Verdict;
  /** Set when the verdict is drop or partial. */
  dropCause?: DropCause;
  reason: string;
  /** The objects that decided, most specific first; the first labels the edge. */
  decidedBy: RefView[];
  /** Destination in `ktl trace` syntax; the source is each id of `from` (external ids carry `@NODE`). */
  traceTo: string;
  /** Endpoint flows: a client pod whose trace explains the edge (one that is refused, when some are). */
  client?: string;
  /** Only these L7 HTTP rules of a CNI policy allow the edge ("GET /api/.*"): other requests get 403. */
  l7?: string[];
  /** A cluster policy tier decided the edge (ClusterNetworkPolicy, AdminNetworkPolicy, BaselineAdminNetworkPolicy). */
  tier?: "Admin" | "Baseline";
  /** The CNI dialect whose own policy decided the edge (engine/cni), when not a NetworkPolicy. */
  layer?: "CiliumNetworkPolicy" | "CalicoNetworkPolicy";
  /** Route flows: the backend's share of its rule's requests (0..1), and the rule ("split rule 1: /*"). */
  weight?: number;
  match?: string;
}

/** An L7 router drawn between its clients and the Services it routes to (engine/l7, routers.ts). */
export interface RouterView {
  /** `gateway:NS/NAME`, `ingress:NS/NAME` or `virtualservice:NS/NAME`. */
  id: string;
  kind: "Gateway" | "Ingress" | "VirtualService";
  layer: "Gateway" | "Ingress" | "Istio";
  namespace: string;
  name: string;
  /** Listener ports (Gateway), 80 (Ingress); none for a mesh route. */
  ports: number[];
  hosts: string[];
  /** Its data plane's pods (ids) and Service (id), as the L7 trace finds them. */
  pods: string[];
  service?: string;
  /** Ask a question through it (`ktl trace --to gateway:NS/NAME:PORT`). */
  traceTo?: string;
  ref: RefView;
}

/**
 * What every answer on screen leaves out of the input (engine/policy/unmodelled.ts,
 * the CLI's `skipped`, `replaced` and `unmodelled`): the playground's banner
 * above the answer, never a silent omission.
 */
export interface OmissionsView {
  /** Documents that could not be read: the answers miss them. */
  skipped: { line: number; code: string; message: string; object?: string }[];
  /** Objects a later definition of the same kind, namespace and name replaced (as kubectl apply does). */
  replaced: { object: string; line: number; byLine: number }[];
  /** Objects and fields ktl reads but does not evaluate, that could change an answer. */
  unmodelled: {
    object: string;
    line: number;
    field?: string;
    message?: string;
    scope: "pod" | "route" | "reach";
  }[];
}

export interface AnalysisStats {
  objects: number;
  pods: number;
  classes: number;
  services: number;
  policies: number;
  /** Milliseconds the engine spent, for the status bar. */
  millis: number;
}

/**
 * Who can connect at scale (workloadFlows.ts): the allowed and partly
 * allowed pairs as flows, and every pair no endpoint admits as compact
 * records naming source groups, not pods (at M they are hundreds of
 * thousands of pairs: listed as flows they would be most of the answer).
 */
export interface ReachView {
  flows: Flow[];
  /** (source group, Service port) pairs no endpoint admits: the sum of `drops`' counts. */
  dropped: number;
  /** Allowed and partly allowed pairs past the listing limit: the sum of `allowed`'s counts. */
  omitted: number;
  /** Source groups: the pods (indices into `pods`) of one workload that the decider answers alike. */
  groups: ReachGroup[];
  /** The dropped pairs, one record per Service port and deciding side. */
  drops: ReachDrop[];
  /**
   * The admitted pairs past the listing limit (`flows` lists the first WORKLOAD_FLOW_LIMIT), one record per
   * Service port and verdict: drawn and counted like the listed flows, with the words a trace gives per pair.
   */
  allowed: ReachAllowed[];
}

export interface ReachGroup {
  /** Workload id, as `PodView.workload.id`. */
  workload: string;
  /** Indices into `Analysis.pods`. */
  pods: number[];
}

/**
 * A compact record of the source groups of one Service port: what the drops and the admitted pairs past the
 * listing limit share (the groups as runs, ascending [start, end) pairs of indices into `ReachView.groups`).
 */
export interface ReachRecord {
  id: string;
  to: string;
  port: number;
  protocol: Protocol;
  portName?: string;
  /** Destination in `ktl trace` syntax, as `Flow.traceTo`. */
  traceTo: string;
  /** The groups as runs: [start, end) pairs of indices into `ReachView.groups`, ascending. */
  groups: number[];
  /** How many groups the runs hold. */
  count: number;
  reason: string;
  /** As `Flow.layer`: the CNI dialect that decided, when not NetworkPolicy. */
  layer?: "CiliumNetworkPolicy" | "CalicoNetworkPolicy";
}

/** The source groups no ready endpoint of one Service port admits. */
export interface ReachDrop extends ReachRecord {
  /**
   * The side that refused: every endpoint's ingress while the sender's egress lets it out ("ingress"),
   * the sender's egress while some endpoint's ingress admits it ("egress"), both ("both": isolation as
   * written), or the decider's pair answer ("pair": a CNI dialect, a host-network sender, a sender that
   * is an endpoint). "ingress" and "egress" are near misses: one side's policy admits the connection.
   */
  side: "ingress" | "egress" | "both" | "pair";
  /** The NetworkPolicies that refused on that side (at most six; none under the tiers or a CNI dialect: trace one). */
  decidedBy: RefView[];
}

/** The source groups past the listing limit that some ready endpoint of one Service port admits. */
export interface ReachAllowed extends ReachRecord {
  /** "allow": every ready endpoint admits each group; "partial": some do. */
  verdict: "allow" | "partial";
  /** The endpoints' NetworkPolicies with rules that admit (at most six; none under the tiers or a CNI dialect: trace one). */
  decidedBy: RefView[];
}

/** A step of an analysis under way, as `AnalyzeOptions.onProgress` is told it. */
export interface AnalysisProgress {
  /** 1-based; `steps` in all (the last is sending the answer). */
  step: number;
  steps: number;
  /** What is being done, in words, with how much ("Building the cluster model from 4,210 documents"). */
  what: string;
}

export interface Analysis {
  file: string;
  diagnostics: DiagnosticView[];
  /** What the answers leave out of the input; empty lists when nothing. */
  omissions: OmissionsView;
  zones: ZoneView[];
  nodes: NodeView[];
  namespaces: { name: string; labels: Record<string, string>; ref?: RefView }[];
  pods: PodView[];
  services: ServiceView[];
  policies: PolicyView[];
  /**
   * The cluster-scoped tier policies (ClusterNetworkPolicy, AdminNetworkPolicy, BaselineAdminNetworkPolicy)
   * in evaluation order, for the playground's banner; empty when the input has none.
   */
  tiers: TierPolicyView[];
  externalClients: ExternalClientView[];
  flows: Flow[];
  /** Inputs too large to trace every pod-to-Service pair: who can connect, workload to Service (workloadFlows.ts). */
  reach?: ReachView;
  /** L7 routers (Gateway, Ingress, Istio VirtualService) and, in `flows`, their entry and route flows. */
  routers: RouterView[];
  /** Destinations (ids) behind an L7 rule or router, and why: a question to them can carry an HTTP request. */
  l7Targets: Record<string, string>;
  /** Port and protocol pairs worth offering in the matrix and the filters, most common first. */
  ports: PortView[];
  /** What the engine can answer: service flows need the kube-proxy and trace parts. */
  capabilities: { serviceTraces: boolean };
  /** Set when the flows were not all computed (too many sources or destinations). */
  truncated?: string;
  /** The cluster profile in effect (engine/cni/profile.ts): the CNI, where it came from, in words. */
  profile: { cni: string; source: "default" | "chosen" | "input"; text: string };
  stats: AnalysisStats;
}

// ---------- trace (the `ktl trace --json` shape) ----------

export interface TraceHopView {
  step: HopStep;
  verdict: HopVerdict;
  detail: string;
  /** What decided the hop, as data (trace/render.ts words it). */
  cause: HopCause;
  ref?: RefView;
  /** The candidates ("ip:port") the hop is about, when not all of them. */
  endpoints?: string[];
}

export interface TraceEndpointView {
  ip: string;
  port: number;
  pod?: string;
  node?: string;
  probability: number;
  verdict: "allow" | "drop";
  reason: string;
  /** The source address this backend sees, and whether it is the client's own. */
  sourceIP: string;
  sourceIPPreserved: boolean;
}

/**
 * One part of a traced path as the graph draws it (source -> Service, Service
 * -> each endpoint pod, or source -> pod), with the trace's verdict for that
 * part and what decided it: a lit edge shows this, not its aggregate.
 */
export interface TracePathEdge {
  /** Graph ids: `pod:NS/NAME`, `service:NS/NAME`, `node:NAME`, `external:IP`. */
  source: string;
  target: string;
  verdict: Verdict;
  dropCause?: DropCause;
  reason: string;
  decidedBy: RefView[];
  /** A cluster tier decided this part (as Flow.tier). */
  tier?: "Admin" | "Baseline";
}

export interface TraceView {
  from: string;
  to: string;
  protocol: Protocol;
  verdict: Verdict;
  reason: string;
  sourceIPPreserved: boolean;
  endpoints: TraceEndpointView[];
  hops: TraceHopView[];
  /** Ids of the graph elements on the path, in order, for highlighting. */
  path: string[];
  /** The path's parts with the trace's verdict for each: the first is the whole question's. */
  edges: TracePathEdge[];
  /** The node whose kube-proxy handles the packet, when one does. */
  handledBy?: string;
  /**
   * Asked by workload (trace/workload.ts): the answer over every pod pair;
   * the rest of the view is the trace of `workload.representative`.
   */
  workload?: WorkloadAnswerView;
  /** Set instead of a verdict when the question cannot be asked (unknown pod, bad syntax). */
  error?: string;
  // The L7 fields of `ktl trace --json` (shared/contract/ktl-cli.md), from engine/l7:
  /** The request as the routers saw it. */
  request?: { method: string; path: string; headers: Record<string, string> };
  /** 200 reached a backend; 403 refused by an L7 rule; 404 no route; 503 no backend; 3xx redirect. */
  httpStatus?: number;
  redirect?: { scheme: string; host: string; port: number; path: string };
  /** The layer (and object, rule, line) that refused the request. */
  decidedBy?: {
    layer: string;
    kind?: string;
    namespace?: string;
    name?: string;
    rule?: string;
    line?: number;
  };
  /** The Services the router chose, each with its share of the requests (weights multiplied down the path). */
  backends?: { service: string; port: number; subset?: string; weight: number; ref?: RefView }[];
  /** What the cluster profile assumed that this answer used (an Istio ingress gateway, sidecars), in words. */
  assumed?: string[];
  /** The router the request went through (`id` is its graph element, when drawn). */
  router?: { id?: string; layer: string; kind: string; namespace?: string; name: string; pods: string[] };
  /** The cluster profile when not generic, in words. */
  profile?: string;
}

export interface WorkloadAnswerView {
  /** The question as asked (`workload:NS/NAME` on one side or both). */
  from: string;
  to: string;
  /** allow: every pod pair is allowed; drop: none is; partial: some are. */
  verdict: Verdict;
  summary: string;
  /** `Kind NS/NAME` and its pod count, or the pod/Service asked. */
  source: { name: string; pods: number };
  destination: { name: string; pods: number };
  pairs: { from: string; to: string; verdict: Verdict; reason: string }[];
  representative: { from: string; to: string };
}

export interface TraceQuery {
  from: string;
  /** Also `gateway:NS/NAME:PORT`, `ingress:NS/NAME:PORT` and `host:NAME:PORT` (the L7 routers, engine/l7). */
  to: string;
  protocol: Protocol;
  /** Make it an HTTP request (`ktl trace --http 'METHOD PATH' --header 'Name: value'`): header names lower-cased, Host included. */
  http?: { method: string; path: string; headers: Record<string, string> };
}

// ---------- matrix ----------

export type MatrixGranularity = "pod" | "workload";

export interface MatrixQuery {
  port: number;
  protocol: Protocol;
  by: MatrixGranularity;
}

export interface MatrixView {
  port: number;
  protocol: Protocol;
  by: MatrixGranularity;
  /** Row and column ids: pod ids, or workload ids. Rows are sources, columns destinations. */
  ids: string[];
  labels: string[];
  /** One string per row, one character per column: a (allow), d (drop), p (partial: some pods of the workloads). */
  cells: string[];
  /** For each cell, the pod pair whose trace explains it (a dropped pair for partial cells). */
  pairs: [string, string][][];
  /**
   * With cluster tier policies in the input: one string per row, one character
   * per column, the tier whose rule dropped the cell's pair (its `pairs` entry):
   * A (Admin), B (Baseline), "." (another layer, or allowed).
   */
  tiers?: string[];
  /** Set when the matrix is too large to show. */
  tooLarge?: string;
}

// ---------- node rules (the `ktl iptables|nft|ipvs --node NAME` text) ----------

export type RulesMode = "iptables" | "nftables" | "ipvs";

export interface NodeRulesQuery {
  /** The node; undefined: the node that handles `trace`'s packet, else the first node. */
  node?: string;
  mode: RulesMode;
  /** A question whose packet's walk through the rules to show (iptables mode). */
  trace?: TraceQuery;
}

/** One rule a traced packet matched, in the order netfilter met it. */
export interface RuleStepView {
  /** 0-based line of `lines`. */
  line: number;
  table: string;
  chain: string;
  /** jump, return, accept, drop, reject, dnat, mark, masquerade or match. */
  action: string;
  /** For a `-m statistic` rule: the chance this branch took it (or passed it). */
  chance?: number;
  /** Index into the trace's hops of the hop this rule carries out; undefined when no hop matches. */
  hop?: number;
}

/** One way the packet can go (one per backend kube-proxy may pick), with its chance. */
export interface RuleBranchView {
  endpoint?: string;
  probability: number;
  verdict: "accept" | "drop" | "reject";
  masquerade: boolean;
  steps: RuleStepView[];
  /** Index into `steps` of the rule that dropped or rejected the packet. */
  stoppedAt?: number;
}

export interface RuleWalkView {
  trace: TraceQuery;
  /** What the walk shows, in one sentence. */
  note: string;
  /** The packet as it reaches the node ("10.244.2.2 -> 10.110.9.10:80/TCP arriving on veth…"); undefined when kube-proxy here does not see it. */
  packet?: string;
  /** The node whose kube-proxy handles the packet, when it is not the one shown. */
  handledElsewhere?: string;
  branches: RuleBranchView[];
}

export interface NodeRulesView {
  node: string;
  mode: RulesMode;
  /** Every node of the input, for the picker. */
  nodes: string[];
  /** The tool's output, one entry per line (`lines.join("\n") + "\n"` is what ktl prints). */
  lines: string[];
  /** How settings the input leaves open were chosen. */
  notes: string[];
  /** The mode is deprecated upstream (IPVS in 1.35, KEP-5495): the sentence to show. */
  deprecated?: string;
  walk?: RuleWalkView;
  /** Why there is no walk although a question is asked (another mode, no model). */
  walkNote?: string;
  /** Unknown node or no kube-proxy model: no rules. */
  error?: string;
}

// ---------- connectivity list (netpol-analyzer's format) ----------

export type ConnlistDownload = "txt" | "json";
