/**
 * The NetworkPolicy checks of one backend (policy.ts's evaluate): egress at
 * the source pod (rule 1, 1a) and ingress at the backend pod from the address
 * it really sees (rule 2, 2a, 2b, the masquerade trap), each with its near
 * misses, grouped into hops by the caller.
 */
import type { Model, Pod, Protocol } from "../model/types.ts";
import { explainEgress, explainIngress } from "../netpol/index.ts";
import { nearMisses } from "../netpol/nearmiss.ts";
import { describeProfile } from "../cni/profile.ts";
import type { HopCause, PolicyCheck, TraceRef } from "./types.ts";
import type { Ctx } from "./result.ts";
import { traceRef } from "./format.ts";
import { check, hostNetworkWords, policyCause, policyRef, withNearMisses } from "./policyWords.ts";
import type { Backend } from "./backend.ts";

/** What one backend's ingress NetworkPolicy check needs (evaluate's loop). */
export interface IngressInputs {
  model: Model;
  client: Ctx["client"];
  protocol: Protocol;
  profile: NonNullable<Model["profile"]>;
  clientIP: string;
  b: Backend;
  pod: Pod;
  epKey: string;
}

export type Group = (
  key: string,
  verdict: "pass" | "drop" | "info",
  detail: string,
  cause: HopCause,
  ref: TraceRef | undefined,
  ep: string,
) => void;

/** Egress at the source pod by NetworkPolicy (rule 1: the backend after DNAT, unless the DNAT happens on another node, rule 1a). */
export function netpolEgress(
  {
    model,
    protocol,
    b,
    pod,
    target,
    epKey,
  }: { model: Model; protocol: Protocol; b: Backend; pod: Pod; target: string; epKey: string },
  group: Group,
): PolicyCheck {
  // Rule 1: the backend after DNAT, unless the DNAT happens on another node (rule 1a).
  const to = b.egressTo ?? { ip: b.ip, port: b.port, pod: b.pod };
  const toName = b.egressTo ? `${b.egressTo.ip} (${b.egressTo.note})` : "{who}";
  const v = explainEgress(model, pod, { ip: to.ip, pod: to.pod }, to.port, protocol);
  const egress = check(v, pod.key, b.egressTo ? b.egressTo.ip : target, to.port, protocol);
  const misses = v.allowed
    ? []
    : nearMisses(model, "egress", pod, { ip: to.ip, pod: to.pod }, to.port, protocol, v.selecting);
  const nearest = withNearMisses(egress, misses);
  const m = v.allowedBy[0];
  const key = v.allowed
    ? m
      ? `a|${m.policy.key}|${m.rule.index}|${to.port}`
      : "a|open"
    : `d|${v.selecting.map((p) => p.key).join(",")}|${to.port}|${b.egressTo?.ip ?? ""}|${nearest}`;
  const detail = v.allowed
    ? m
      ? `${pod.key} may send ${protocol}/${to.port} to ${toName}: ${egress.reason}`
      : `${pod.key} is not isolated for egress (no NetworkPolicy selects it for egress)`
    : `${pod.key} is isolated for egress by ${v.selecting.map((p) => p.key).join(", ")} and no egress rule allows ${protocol}/${to.port} to ${toName}${b.egressTo ? "" : " (the backend after DNAT, on its target port)"}${nearest}`;
  group(key, v.allowed ? "pass" : "drop", detail, egress.cause, egress.ref, `${epKey}|${target}`);
  return egress;
}

/**
 * Ingress at a backend pod under NetworkPolicy, from the address it really
 * sees (rule 2): the profile's answer to policy before or after the
 * masquerade (2b), the pod's own node (2a), the masquerade trap, near misses.
 */
export function netpolIngress(
  { model, client, protocol, profile, clientIP, b, pod, epKey }: IngressInputs,
  group: Group,
): { ingress: PolicyCheck; hostNote: string | undefined } {
  let ingress: PolicyCheck;
  let hostNote: string | undefined;
  const seenPod = b.preserved && client.pod && !client.host ? client.pod : undefined;
  const seenName = seenPod ? `${seenPod.key} (${b.sourceIP})` : b.sourceIP;
  const v = explainIngress(model, pod, { ip: b.sourceIP, pod: seenPod }, b.port, protocol);
  ingress = check(v, pod.key, seenName, b.port, protocol);
  const names = v.selecting.map((p) => p.key).join(", ");
  const masqueraded = v.ownNode && !b.preserved && !client.host && clientIP !== "";
  const direct = masqueraded
    ? explainIngress(model, pod, { ip: clientIP, pod: client.pod }, b.port, protocol)
    : undefined;
  if (direct && !direct.allowed && (profile.cni === "calico" || profile.cni === "cilium-kpr")) {
    // Rule 2b: the profile decides whether policy sees the client or the masqueraded address (cni/profile.ts).
    const why =
      profile.cni === "calico"
        ? `with ${describeProfile(profile)}, Felix filters before kube-proxy's MASQUERADE, so policy sees the client's own address ${clientIP}, not ${b.sourceIP}: ${direct.reason}`
        : `with ${describeProfile(profile)}, the BPF service translation does not masquerade toward a local backend, so policy sees the client's own address ${clientIP}: ${direct.reason}`;
    ingress = { verdict: "drop", isolated: true, reason: why, cause: policyCause(direct) };
    const r = policyRef(direct);
    if (r) ingress.ref = r;
    group(
      `p|${profile.cni}|${b.sourceIP}|${names}`,
      "drop",
      `{who}: ${why}`,
      ingress.cause,
      ingress.ref,
      `${epKey}|${pod.key}`,
    );
  } else if (v.ownNode) {
    // Rule 2a, decided by netpol (explainIngress rule 8): the pod's own node is always admitted.
    const ownNode = model.nodesByName.get(v.ownNode) ?? { name: v.ownNode, source: undefined };
    ingress = { verdict: "allow", isolated: true, reason: v.reason, cause: policyCause(v) };
    const nodeRef = traceRef(ownNode.source, "status.addresses") ?? policyRef(v);
    if (nodeRef) ingress.ref = nodeRef;
    let detail = `{who} ${"{is}"} isolated for ingress by ${names}, but the packet comes from ${b.sourceIP}, the address of ${ownNode.name}, which hosts ${"{it}"}: a pod's own node is always admitted (NetworkPolicySpec.ingress: "OR if the traffic source is the pod's local node")`;
    if (direct && !direct.allowed) {
      // The answer depends on the CNI: say so instead of asserting it (cni/profile.ts).
      const words =
        profile.cni === "generic"
          ? `; this depends on the CNI: with Calico, denied (policy sees the client's own address ${clientIP} before the masquerade); with Cilium and kube-proxy, allowed (the masqueraded packet comes from the host); with Cilium's kube-proxy replacement, denied (no masquerade toward a local backend); Kubernetes leaves policy before or after SNAT undefined (choose a CNI with --cni)`
          : `; with ${describeProfile(profile)}, policy sees the masqueraded address and allow-localhost admits the local host`;
      detail += words;
      ingress.reason += words;
    }
    group(`a|node|${b.sourceIP}|${names}`, "pass", detail, ingress.cause, ingress.ref, `${epKey}|${pod.key}`);
  } else {
    let trap = "";
    if (!b.preserved && clientIP && !v.allowed) {
      // The masquerade trap: would the client's own address have been admitted?
      const direct = explainIngress(
        model,
        pod,
        { ip: clientIP, pod: client.pod && !client.host ? client.pod : undefined },
        b.port,
        protocol,
      );
      if (direct.allowed && direct.allowedBy[0]) {
        const m = direct.allowedBy[0];
        trap = `; ${m.policy.key} ingress rule ${m.rule.index + 1} would admit the client's own address ${clientIP}, but the packet arrives from ${b.sourceIP} (${b.snatNote ?? "masqueraded"})`;
      }
    }
    const misses = v.allowed
      ? []
      : nearMisses(model, "ingress", pod, { ip: b.sourceIP, pod: seenPod }, b.port, protocol, v.selecting);
    const nearest = withNearMisses(ingress, misses);
    const m = v.allowedBy[0];
    const key = v.allowed
      ? m
        ? `a|${m.policy.key}|${m.rule.index}|${b.sourceIP}`
        : "a|open"
      : `d|${names}|${b.sourceIP}|${b.port}|${trap}|${nearest}`;
    if (pod.hostNetwork && v.allowed && !m)
      ingress.reason = hostNote = hostNetworkWords(model, pod, "ingress");
    const detail = v.allowed
      ? m
        ? `{who} admit${"{s}"} ${seenName}: ${ingress.reason}`
        : pod.hostNetwork
          ? ingress.reason
          : `{who} ${"{is}"} not isolated for ingress (no NetworkPolicy selects ${"{it}"} for ingress)`
      : `{who} ${"{is}"} isolated for ingress by ${names} and no rule allows ${protocol}/${b.port} from ${seenName}${trap}${nearest}`;
    ingress.reason += trap + nearest;
    group(key, v.allowed ? "pass" : "drop", detail, ingress.cause, ingress.ref, `${epKey}|${pod.key}`);
  }
  return { ingress, hostNote };
}
