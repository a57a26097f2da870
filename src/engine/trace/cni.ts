/**
 * A trace's policy checks when the input has a CNI's own policies
 * (engine/cni): egress at the source pod and ingress at each backend, by
 * the CNI's rules with NetworkPolicy inside them, and for an HTTP request
 * the L7 verdict (a Cilium HTTP rule that no rule matches: 403). Same
 * addressing rules as the NetworkPolicy checks (trace/index.ts rules 1, 2).
 */
import type { Model, Pod, Protocol } from "../model/types.ts";
import type { HttpRequest } from "../http/request.ts";
import { explainCniDirection, peerOf, type CniPolicies, type CniRef, type CniVerdict } from "../cni/index.ts";

export interface CniTraceRef {
  kind: string;
  namespace?: string;
  name: string;
  line: number;
  file: string;
  field?: string;
}

export interface CniCheck {
  verdict: "allow" | "drop";
  isolated: boolean;
  reason: string;
  ref?: CniTraceRef;
  layer: CniVerdict["layer"];
  /** The L7 verdict on the request, when the destination's rules are HTTP rules and the query is an HTTP request. */
  httpStatus?: 200 | 403;
  /** The HTTP rules that restrict the connection ("GET /path1$"). */
  l7?: string[];
  steps: string[];
}

export interface CniBackendInput {
  ip: string;
  port: number;
  pod?: Pod | undefined;
  sourceIP: string;
  preserved: boolean;
  egressTo?: { ip: string; port: number; pod?: Pod | undefined } | undefined;
}

export interface CniClientInput {
  kind: "pod" | "node" | "external";
  pod?: Pod | undefined;
  host: boolean;
  node: string;
}

export function toTraceRef(r: CniRef | undefined): CniTraceRef | undefined {
  if (!r) return undefined;
  const out: CniTraceRef = { kind: r.kind, name: r.name, line: r.line, file: r.file };
  if (r.namespace) out.namespace = r.namespace;
  if (r.rule) out.field = r.rule;
  return out;
}

function toCheck(v: CniVerdict, http: HttpRequest | undefined): CniCheck {
  const c: CniCheck = {
    verdict: v.allowed ? "allow" : "drop",
    isolated: v.isolated,
    reason: v.reason,
    layer: v.layer,
    steps: v.steps,
  };
  const ref = toTraceRef(v.l7?.ref ?? v.ref);
  if (ref) c.ref = ref;
  if (v.l7) {
    c.l7 = v.l7.rules;
    if (http && v.l7.request) {
      c.httpStatus = v.l7.request.status;
      c.reason = `${v.reason}; ${v.l7.request.reason}`;
      if (!v.l7.request.allowed) c.verdict = "drop";
    }
  }
  return c;
}

const notApplicable = (reason: string): CniCheck => ({
  verdict: "allow",
  isolated: false,
  reason,
  layer: "NetworkPolicy",
  steps: [],
});

/** Egress at the client (a CNI endpoint only when it is a pod off the host network), against the backend after DNAT. */
export function cniEgress(
  model: Model,
  cni: CniPolicies,
  client: CniClientInput,
  b: CniBackendInput,
  protocol: Protocol,
  http: HttpRequest | undefined,
  dnsName?: string,
): CniCheck {
  if (client.kind !== "pod" || !client.pod || client.host) {
    return notApplicable(
      client.kind === "external"
        ? "the client is outside the cluster: no pod policy applies to it"
        : "the sender uses the host network: pod policies do not apply to it",
    );
  }
  const to = b.egressTo ?? { ip: b.ip, port: b.port, pod: b.pod };
  return toCheck(
    explainCniDirection(
      model,
      cni,
      "egress",
      client.pod,
      dnsName && !to.pod ? { ...peerOf(model, to.ip), name: dnsName } : peerOf(model, to.ip, to.pod),
      to.port,
      protocol,
      http,
    ),
    http,
  );
}

/** Ingress at the backend pod, from the address it really sees. */
export function cniIngress(
  model: Model,
  cni: CniPolicies,
  client: CniClientInput,
  b: CniBackendInput,
  protocol: Protocol,
  http: HttpRequest | undefined,
): CniCheck {
  if (!b.pod || b.pod.hostNetwork)
    return notApplicable(
      b.pod
        ? `${b.pod.key} uses the host network: pod policies do not apply to it`
        : `no pod in the input has IP ${b.ip}: no pod policy can select it`,
    );
  const seenPod = b.preserved && client.pod && !client.host ? client.pod : undefined;
  let peer = peerOf(model, b.sourceIP, seenPod);
  // A node's own traffic, or a packet masqueraded to a node address, comes from that node.
  if (!seenPod && !peer.node && client.host) peer = { ...peer, node: client.node };
  return toCheck(explainCniDirection(model, cni, "ingress", b.pod, peer, b.port, protocol, http), http);
}
