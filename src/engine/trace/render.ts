/**
 * The one place that words a trace's structure for people: step titles,
 * causes, verdict marks. The CLI, the playground (inspector, presenter,
 * node rules) and the exports call these; nothing outside decides on the
 * wording, and nothing decides on `detail`: consumers switch on `step` and
 * `cause`. A new layer adds a case here; the switches are exhaustive, so
 * one that nobody renders fails the build.
 */
import type {
  CauseLayer,
  HopCause,
  HopStep,
  HopVerdict,
  NearMiss,
  ObjectRef,
  ProxyNearMiss,
  TraceHop,
  TraceRef,
} from "./types.ts";
import type { LabelEdit } from "../netpol/nearmiss.ts";
import type { FieldEdit } from "../proxy/nearmiss.ts";

/** The title of a hop, as every front end prints it (the contract's `step` string). */
export function stepTitle(step: HopStep): string {
  switch (step) {
    case "source":
      return "source";
    case "destination":
      return "destination";
    case "dns":
      return "dns";
    case "load balancer":
      return "load balancer";
    case "load balancer health check":
      return "load balancer health check";
    case "loadBalancerSourceRanges":
      return "loadBalancerSourceRanges";
    case "kube-proxy":
      return "kube-proxy";
    case "session affinity":
      return "session affinity";
    case "source address":
      return "source address";
    case "admin tier at source":
      return "admin tier at source";
    case "egress policy at source":
      return "egress policy at source";
    case "baseline tier at source":
      return "baseline tier at source";
    case "admin tier at backend":
      return "admin tier at backend";
    case "ingress policy at backend":
      return "ingress policy at backend";
    case "baseline tier at backend":
      return "baseline tier at backend";
    case "router":
      return "router";
    case "listener":
      return "listener";
    case "route":
      return "route";
    case "filter":
      return "filter";
    case "backend":
      return "backend";
    case "proxy to backend":
      return "proxy to backend";
    case "outbound traffic policy":
      return "outbound traffic policy";
    case "server sidecar":
      return "server sidecar";
  }
}

/** A hop's verdict as a short mark for text output. */
export function verdictMark(verdict: HopVerdict): string {
  switch (verdict) {
    case "pass":
      return "ok";
    case "drop":
      return "DROP";
    case "info":
      return "--";
  }
}

/**
 * The policy layers: a drop there is a policy decision (the playground's
 * "policy" drop cause), anywhere else a traffic decision (kube-proxy, load
 * balancer, DNS, routing).
 */
export function isPolicyLayer(layer: CauseLayer): boolean {
  switch (layer) {
    case "NetworkPolicy":
    case "AdminNetworkPolicy":
    case "BaselineAdminNetworkPolicy":
    case "CiliumNetworkPolicy":
    case "CalicoNetworkPolicy":
      return true;
    case "client":
    case "destination":
    case "DNS":
    case "LoadBalancer":
    case "kube-proxy":
    case "Gateway":
    case "Ingress":
    case "Istio":
      return false;
  }
}

function objectName(o: ObjectRef | undefined): string {
  if (!o) return "";
  return `${o.kind} ${o.namespace !== undefined ? `${o.namespace}/` : ""}${o.name}`;
}

function ruleOf(c: { rule?: { index: number; name?: string } }, list: string): string {
  if (!c.rule) return "";
  return `${list ? ` ${list}` : ""} rule ${c.rule.index + 1}${c.rule.name ? ` (${c.rule.name})` : ""}`;
}

function networkPolicyText(c: Extract<HopCause, { layer: "NetworkPolicy" }>): string {
  switch (c.category) {
    case "allowed":
      return `NetworkPolicy ${c.object?.namespace ?? ""}/${c.object?.name ?? ""}${ruleOf(c, c.direction)} allows`;
    case "denied":
      return `${c.direction} isolated by ${(c.policies ?? []).join(", ")}: no rule allows`;
    case "own-node":
      return `${c.direction} isolated by ${(c.policies ?? []).join(", ")}, admitted: from the pod's own node`;
    case "not-isolated":
      return `no NetworkPolicy selects the pod for ${c.direction}`;
    case "not-applicable":
      return `NetworkPolicy does not apply (${c.direction})`;
  }
}

type TierCause = Extract<HopCause, { layer: "AdminNetworkPolicy" | "BaselineAdminNetworkPolicy" }>;

/** "Admin" or "Baseline", the tier's name in network-policy-api. */
export function tierName(c: TierCause): string {
  return c.layer === "AdminNetworkPolicy" ? "Admin" : "Baseline";
}

/** The tier's policy and rule: `ClusterNetworkPolicy deny-all (priority 10) ingress rule 1 (deny-slytherin)`. */
function tierRuleText(c: TierCause): string {
  const prio = c.priority !== undefined ? ` (priority ${c.priority})` : "";
  return `${objectName(c.object)}${prio}${ruleOf(c, c.direction)}`;
}

/**
 * A tier's step in words, as the trace's stack reads per direction: "Admin tier: Pass by
 * ClusterNetworkPolicy ns-isolation (priority 5) ingress rule 2 (pass-to-ns), handed down to NetworkPolicy".
 */
export function tierText(c: TierCause): string {
  const tier = `${tierName(c)} tier`;
  switch (c.category) {
    case "Accept":
      return `${tier}: Accept by ${tierRuleText(c)}`;
    case "Deny":
      return `${tier}: Deny by ${tierRuleText(c)}`;
    case "Pass":
      return `${tier}: Pass by ${tierRuleText(c)}, handed down to ${c.layer === "AdminNetworkPolicy" ? "NetworkPolicy" : "the default (allow)"}`;
    case "no-match":
      return `${tier}: no rule matches (${c.direction}), no decision`;
    case "not-selected":
      return `${tier}: no policy of the tier selects the pod for ${c.direction}, no decision`;
    case "hairpin":
      return `${tier}: a pod's traffic to its own IP is not subject to the tier`;
    case "not-enforced":
      return `${tier}: the cluster's CNI does not implement the tier, whose policies change nothing`;
  }
}

/** One line naming what decided a hop: the layer, the object and rule, the category. */
export function causeText(c: HopCause): string {
  switch (c.layer) {
    case "client":
      return `sender: ${c.category}${c.object ? ` ${objectName(c.object)}` : ""}`;
    case "destination":
      return `destination ${c.category}${c.object ? `: ${objectName(c.object)}` : ""}${c.rule ? ` port ${c.rule.index + 1}` : ""}`;
    case "DNS":
      return `DNS ${c.category}: ${objectName(c.object)}${c.target ? ` -> ${c.target}` : ""}${c.answers !== undefined ? ` (${c.answers} answers)` : ""}`;
    case "LoadBalancer":
      return `load balancer ${c.category} of ${objectName(c.object)}: ${c.allowed ? "passes" : "stops"}`;
    case "kube-proxy":
      return `kube-proxy on ${c.node} ${c.category}${c.endpoints ? ` (${c.endpoints} endpoints)` : ""}${c.action ? `: ${c.action}` : ""} for ${objectName(c.object)}`;
    case "NetworkPolicy":
      return networkPolicyText(c);
    case "AdminNetworkPolicy":
    case "BaselineAdminNetworkPolicy":
      return tierText(c);
    case "CiliumNetworkPolicy":
    case "CalicoNetworkPolicy":
      return `${c.object ? objectName(c.object) : c.layer}${ruleOf(c, c.direction)}: ${c.category}`;
    case "Gateway":
    case "Ingress":
    case "Istio":
      return `${c.layer} ${c.category}${c.object ? `: ${objectName(c.object)}` : ""}${ruleOf(c, "")}`;
  }
}

/**
 * A reason as shown after a verdict word ("Dropped", "DROP"): without the
 * engine's own leading "dropped: " or "rejected: ", so no surface prints the
 * verdict twice ("Dropped dropped:").
 */
export function reasonAfterVerdict(reason: string): string {
  return reason.replace(/^(dropped|rejected): /, "");
}

interface AddressedEndpoint {
  ip: string;
  port: number;
  sourceIP: string;
  sourceIPPreserved: boolean;
}

/**
 * The source address the backends see, in one sentence: the client's own, the
 * masqueraded one, or (hairpin, mixed policies) which backends see which.
 * Undefined when there is no backend.
 */
export function sourceAddressText(t: { endpoints: readonly AddressedEndpoint[] }): string | undefined {
  const eps = t.endpoints;
  if (!eps.length) return undefined;
  const ips = (l: readonly AddressedEndpoint[]) => [...new Set(l.map((e) => e.sourceIP))].join(", ");
  const at = (e: AddressedEndpoint) => (e.ip.includes(":") ? `[${e.ip}]:${e.port}` : `${e.ip}:${e.port}`);
  const masq = eps.filter((e) => !e.sourceIPPreserved);
  const kept = eps.filter((e) => e.sourceIPPreserved);
  if (!masq.length) return `${ips(kept)} (the client's own address)`;
  if (!kept.length) return `${ips(masq)} (masqueraded: not the client's address)`;
  return `${masq.length} of ${eps.length} backends (${masq.map(at).join(", ")}) ${masq.length === 1 ? "sees" : "see"} ${ips(masq)}, masqueraded; ${kept.length === 1 ? "the other sees" : "the others see"} the client's own address ${ips(kept)}`;
}

/**
 * The near misses of a trace's drops, once each, in hop order: what every
 * surface lists as "would allow if" (the details panel, `ktl trace`).
 */
export function nearMissesOf(
  hops: readonly Pick<TraceHop, "verdict" | "cause">[],
): (NearMiss | ProxyNearMiss)[] {
  const seen = new Set<string>();
  return hops
    .flatMap((h): (NearMiss | ProxyNearMiss)[] =>
      h.verdict === "drop" && (h.cause.layer === "NetworkPolicy" || h.cause.layer === "kube-proxy")
        ? (h.cause.nearMisses ?? [])
        : [],
    )
    .filter((m) => {
      const k = `${m.text}|${m.ruleRef.file}:${m.ruleRef.line}`;
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
}

/** A near miss's edit as an action: "set label team: web on Namespace web". */
export function nearMissEditText(e: LabelEdit | FieldEdit): string {
  switch (e.kind) {
    case "label":
      return `set label ${e.key}: ${e.value} on ${e.target.kind} ${e.target.namespace !== undefined ? `${e.target.namespace}/` : ""}${e.target.name}`;
    case "field":
      return `set ${e.field}: ${e.value} in Service ${e.target.namespace}/${e.target.name}`;
  }
}

function refText(r: TraceRef): string {
  return `${r.kind} ${r.namespace !== undefined ? `${r.namespace}/` : ""}${r.name}${r.field ? ` ${r.field}` : ""}, ${r.file}:${r.line}`;
}

/**
 * The "would allow if" block of a text answer: each near miss, the line of
 * the rule (or Service field) and of the object it misses, and the edit.
 * Empty when there is none.
 */
export function nearMissLines(misses: readonly (NearMiss | ProxyNearMiss)[]): string[] {
  if (!misses.length) return [];
  const out = [
    `Would allow if (${misses.length === 1 ? "the closest fix" : `the ${misses.length} closest fixes`}):`,
  ];
  for (const m of misses) {
    out.push(`  - ${m.text}`);
    out.push(`      ${"policy" in m ? "rule" : "asks"}:   ${refText(m.ruleRef)}`);
    if (m.objectRef) out.push(`      object: ${refText(m.objectRef)}`);
    if (m.edit) out.push(`      edit:   ${nearMissEditText(m.edit)} (${m.edit.at.file}:${m.edit.at.line})`);
  }
  return out;
}
