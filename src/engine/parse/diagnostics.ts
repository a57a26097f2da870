/**
 * Bad input is a value, never a thrown exception. Every diagnostic has a stable
 * code (listed in DIAGNOSTIC_CODES) so that docs, tests and the UI can refer to it.
 */
export type Severity = "error" | "warning" | "info";

/**
 * `message` says what is wrong; where it is lives in file/doc/line/column, and
 * front ends print it (src/cli/report.ts formatDiagnostic, the problems panel).
 */
export interface Diagnostic {
  /** One of DIAGNOSTIC_CODES: a code that is not documented there does not compile. */
  code: DiagnosticCode;
  severity: Severity;
  message: string;
  /** Input file name as given (or "<stdin>", "editor"). */
  file: string;
  /** 0-based index of the YAML doc in the file (`---` separated). */
  doc: number;
  /** 1-based line and column; 0 when unknown. */
  line: number;
  column: number;
  kind?: string;
  namespace?: string;
  name?: string;
  /** API field path, as the apiserver spells it (`spec.ports[0].port`). */
  field?: string;
  /** A suggested fix, in plain words. */
  hint?: string;
}

export const DIAGNOSTIC_CODES = {
  KTL101: "YAML or JSON syntax error: that doc is skipped, the rest of the file still loads",
  KTL102: "A YAML doc is not an object (a scalar or a list at the top level)",
  KTL103: "An object lacks apiVersion, kind or metadata.name",
  KTL104: "A kind the engine does not model: kept and reported as ignored",
  KTL105:
    "A YAML doc whose aliases expand too far (go-yaml's alias ratio) or sit inside the collection they name (a cycle): the doc is skipped",
  KTL106: "Duplicate key in a mapping: the last one wins",
  KTL107: "Input too large",
  KTL108:
    "A plain scalar kubectl reads otherwise (YAML 1.1: yes/no/on/off/y/n booleans, 010 octal, 1_000) than YAML 1.2 tools: quote it",
  KTL109:
    "A policy-like object of an API group and kind that ktl does not evaluate: answers list it in `unmodelled`",
  KTL111:
    "YAML that kubectl reads and YAML 1.2 tools refuse (a tab or a line indented less than its construct inside a flow collection or a quoted scalar): read as kubectl reads it",
  KTL110:
    "A file that is not a Kubernetes manifest (kustomization.yaml, a Helm chart's Chart.yaml, values or templates, a CI workflow): not read, with a note",
  KTL201: "Duplicate object: the later definition replaces the earlier",
  KTL202: "A pod names a node that the input does not define: the node is synthesised",
  KTL203: "No node can run a pod (nodeSelector or affinity): the pod stays unscheduled",
  KTL204: "A field has the wrong type and is ignored",
  KTL205: "A pod IP cannot be allocated: the node's podCIDR is exhausted or invalid",
  KTL206: "A workload whose pods the input lists generates no pods of its own (kubectl get -o yaml dumps)",
  KTL207: "A pod has a status but no podIP: not started, so it is no endpoint (ShouldPodBeInEndpoints)",
  KTL208: "A DaemonSet runs no pod on a node whose taint it does not tolerate (NodeShouldRunDaemonPod)",
  KTL209:
    "A node is not ready: its pods are marked not ready and leave after their NoExecute tolerationSeconds (DefaultTolerationSeconds: 300 s)",
  KTL210:
    "A workload asks for more pods than ktl models (MAX_REPLICAS per workload, MAX_GENERATED_PODS in all): the rest are left out",
  KTL211:
    "Synthesised nodes beyond the 3,071 pod networks of 10.244.1.0/24 to 10.255.255.0/24 get no podCIDR (their pods no IP)",
  KTL301: "An EndpointSlice has no kubernetes.io/service-name label: kube-proxy ignores it",
  KTL302: "An EndpointSlice belongs to a Service the input does not define",
  KTL303: "Retired: a named targetPort missing on selected pods is lint KTL603",
  KTL801:
    "A policy test file (ktl test) cannot be read: not a list of tests, a test without from/to, an unknown expect or protocol",
  KTL701:
    "An Ingress or Route backend reaches no workload (missing Service, Service without selector, non-Service backend)",
  KTL702:
    "An Ingress or Route reaches a workload whose NetworkPolicies block an arbitrary in-cluster source (connlist)",
  KTL703:
    "Pods of one controller differ in a label that a policy selector tests (connlist uses the first pod)",
  KTL450:
    "A Calico selector does not parse: Calico rejects the policy; ktl evaluates it as selecting nothing",
  KTL451: "A Cilium or Calico policy field that ktl does not evaluate (named, with what ktl assumes instead)",
  KTL452:
    "A Cilium, Calico or cluster-tier policy value that is malformed (a port out of 0-65535, a range whose start is above its end, a CIDR, an action, a regex): what the CNI or the apiserver does with it is said, and the entry is ignored",
  KTL453:
    "A Calico selector whose parentheses nest deeper than ktl evaluates (MAX_SELECTOR_DEPTH, 100 levels): Calico accepts it; ktl takes it as selecting nothing and says so",
  KTL454:
    "A user regular expression (HTTPRoute RegularExpression match, Istio regex, Cilium HTTP path/method/host) that RE2 rejects, or whose RE2 program is larger than ktl evaluates: what upstream does with it is said (Cilium rejects the policy, istiod the VirtualService, a Gateway drops the rule)",
  KTL460:
    "An Istio field, an HTTPRoute field (a filter other than RequestRedirect and URLRewrite, timeouts, retry, sessionPersistence), or an ingress-nginx annotation on an Ingress (the canary and ssl-redirect ones apart), that could change where a request goes or what it gets back and that ktl does not evaluate: named with its path in the trace's `unmodelled`, with what the proxy does instead",
  KTL470:
    "An Istio Gateway selects pods the input does not have (Istio's ingress gateway is installed with Istio): requests through it cannot be judged unless it is assumed",
  KTL471:
    "A mesh VirtualService while no pod has an Istio sidecar: requests to its hosts go through kube-proxy, not its routes, unless injection is assumed",
  KTL501:
    "kube-apiserver would reject the object (ktl validate): field path, error type and detail as the apiserver reports them",
  KTL510:
    "Unknown field: kubectl's default strict field validation rejects the object, other clients drop the field",
  KTL601: "Lint: a NetworkPolicy selects no pod",
  KTL602: "Lint: a Service selector matches no pod",
  KTL603: "Lint: a named targetPort that no selected pod (or only some) declares",
  KTL604: "Lint: externalTrafficPolicy Local with backends on few nodes or spread unevenly",
  KTL605: "Lint: internalTrafficPolicy Local with clients on nodes that have no backend",
  KTL606: "Lint: egress isolation without a DNS (UDP/53) allowance",
  KTL607:
    "Lint: an ingress ipBlock for external clients that kube-proxy masquerades (externalTrafficPolicy Cluster)",
  KTL608: "Lint: topology-aware routing or trafficDistribution that cannot apply",
  KTL609: "Lint: a static ClusterIP or nodePort in the allocator's dynamic band",
  KTL610:
    "Lint: a policy rule's podSelector or namespaceSelector that selects nothing in the input, with the nearest label that exists",
  KTL611:
    "Lint: two cluster policies of one tier at one priority that select the same pod (upstream leaves which applies first undefined)",
  KTL612:
    "kube-apiserver accepts a value with a warning that a later release will reject it (an ipBlock CIDR with leading zeros: GetWarningsForCIDR), and stores it as it reads it",
  KTL620:
    "Update: a field left out keeps the stored value (patchAllocatedValues), e.g. a Service stays headless",
  KTL699: "Lint failed on this input (a ktl bug)",
  KTL901:
    "A part of the analysis failed on this input (a ktl bug): named, and the rest of the analysis is shown",
} as const;

export type DiagnosticCode = keyof typeof DIAGNOSTIC_CODES;

/**
 * Codes that leave a document out of the model (it could not be read as an
 * object): every answer misses it, so the contract's `skipped` lists it and a
 * command that answers exits 1 (shared/contract/ktl-cli.md, "Every layer, and
 * no silent answers").
 */
export const SKIPPING_CODES: ReadonlySet<DiagnosticCode> = new Set<DiagnosticCode>([
  "KTL101",
  "KTL102",
  "KTL103",
  "KTL105",
  "KTL107",
]);

/** A document the answer misses: the contract's `skipped` entry (plus the object the text names, when it does). */
export interface SkippedDocument {
  file: string;
  /** 0-based, as in Diagnostic. */
  doc: number;
  line: number;
  code: DiagnosticCode;
  message: string;
  kind?: string;
  namespace?: string;
  name?: string;
}

/** The documents left out of the model, in input order, from the parser's diagnostics. */
export function skippedDocuments(diagnostics: readonly Diagnostic[]): SkippedDocument[] {
  const out: SkippedDocument[] = [];
  for (const d of diagnostics) {
    if (d.severity !== "error" || !SKIPPING_CODES.has(d.code)) continue;
    const s: SkippedDocument = { file: d.file, doc: d.doc, line: d.line, code: d.code, message: d.message };
    if (d.kind !== undefined) s.kind = d.kind;
    if (d.namespace !== undefined) s.namespace = d.namespace;
    if (d.name !== undefined) s.name = d.name;
    out.push(s);
  }
  return out;
}
