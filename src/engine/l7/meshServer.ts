/**
 * The server's sidecar: PeerAuthentication's mode for the port (mTLS from a client without a
 * sidecar), then AuthorizationPolicy's CUSTOM, DENY and ALLOW rules against the client's
 * principal, namespace, address and the request.
 */
import type { KObject } from "../parse/manifests.ts";
import type { Pod } from "../model/types.ts";
import { sidecarOf } from "../model/sidecar.ts";
import type { TraceRef } from "../trace/index.ts";
import { header, type HttpRequest } from "./request.ts";
import { decidedAt, refAt, type DecidedBy } from "./common.ts";
import { ROOT_NAMESPACE, principalOf, type MeshInput } from "./mesh.ts";
import type { AuthzField, AuthzRule, PeerAuthSpec } from "./meshSecurityInput.ts";

function selects(p: { selector?: Record<string, string> }, pod: Pod): boolean | "none" {
  if (!p.selector) return "none";
  return Object.entries(p.selector).every(([k, v]) => pod.labels[k] === v);
}

export interface ServerVerdict {
  verdict: "allow" | "drop";
  status?: number;
  reason: string;
  ref?: TraceRef;
  decidedBy?: DecidedBy;
}

/** The client as the server's sidecar sees it: its identity only over mTLS. */
export interface MeshClient {
  pod?: Pod;
  mtls: boolean;
}

function peerMode(
  input: MeshInput,
  pod: Pod,
  targetPort: number,
): { mode: string; ref?: TraceRef; from: string } {
  const pas = input.peerAuthentications;
  const pick = (p: PeerAuthSpec | undefined) => {
    if (!p) return undefined;
    const mode = p.portModes.get(String(targetPort)) ?? p.mode;
    if (!mode || mode === "UNSET") return undefined;
    const o = p.obj;
    return {
      mode,
      ref: refAt(o, p.mtlsLine, "spec.mtls"),
      from: `PeerAuthentication ${o.namespace ?? "default"}/${o.name}`,
    };
  };
  return (
    pick(pas.find((p) => nsOf(p) === pod.namespace && selects(p, pod) === true)) ??
    pick(pas.find((p) => nsOf(p) === pod.namespace && selects(p, pod) === "none")) ??
    pick(pas.find((p) => p.obj.namespace === ROOT_NAMESPACE && selects(p, pod) === "none")) ?? {
      mode: "PERMISSIVE",
      from: "the default (no PeerAuthentication)",
    }
  );
}

function strMatches(patterns: string[], value: string | undefined): boolean {
  if (value === undefined) return false;
  return patterns.some(
    (p) =>
      p === "*" ||
      p === value ||
      (p.endsWith("*") && value.startsWith(p.slice(0, -1))) ||
      (p.startsWith("*") && value.endsWith(p.slice(1))),
  );
}

function fieldOk(f: AuthzField, value: string | undefined): boolean {
  if (f.values !== undefined && !strMatches(f.values, value)) return false;
  if (f.not.length && value !== undefined && strMatches(f.not, value)) return false;
  return true;
}

function ruleMatches(rule: AuthzRule, client: MeshClient, req: HttpRequest, targetPort: number): boolean {
  if (rule.from.length) {
    const principal = client.mtls && client.pod ? principalOf(client.pod) : undefined;
    const ns = client.mtls && client.pod ? client.pod.namespace : undefined;
    const ok = rule.from.some(
      (s) => fieldOk(s.principals, principal) && fieldOk(s.namespaces, ns) && !s.requestPrincipals,
    );
    if (!ok) return false;
  }
  if (rule.to.length) {
    const ok = rule.to.some(
      (op) =>
        fieldOk(op.methods, req.method) &&
        fieldOk(op.paths, req.path) &&
        fieldOk(op.ports, String(targetPort)) &&
        fieldOk(op.hosts, header(req, "host")),
    );
    if (!ok) return false;
  }
  for (const c of rule.when) {
    let v: string | undefined;
    const hm = /^request\.headers\[(.+)\]$/.exec(c.key);
    if (hm) v = header(req, hm[1]!);
    else if (c.key === "source.namespace") v = client.mtls ? client.pod?.namespace : undefined;
    else if (c.key === "source.principal")
      v = client.mtls && client.pod ? principalOf(client.pod) : undefined;
    else if (c.key === "destination.port") v = String(targetPort);
    else return false;
    if (c.values !== undefined && !strMatches(c.values, v)) return false;
    if (c.notValues.length && v !== undefined && strMatches(c.notValues, v)) return false;
  }
  return true;
}

const nsOf = (p: { obj: KObject }) => p.obj.namespace ?? "default";
const nameOf = (p: { obj: KObject }) => `${nsOf(p)}/${p.obj.name}`;

/** Rules 5 and 6 for one server pod. `hops` receives the decisions worth showing. */
export function serverSidecar(
  input: MeshInput,
  server: Pod,
  client: MeshClient,
  targetPort: number,
  req: HttpRequest | undefined,
): ServerVerdict & { sidecar: boolean; mtls: boolean } {
  const sc = sidecarOf(server, input.model);
  if (!sc.on) return { verdict: "allow", reason: sc.why, sidecar: false, mtls: false };
  const pm = peerMode(input, server, targetPort);
  const mtls = client.mtls && pm.mode !== "DISABLE";
  if (pm.mode === "STRICT" && !client.mtls) {
    const v: ServerVerdict & { sidecar: boolean; mtls: boolean } = {
      verdict: "drop",
      reason: `mTLS STRICT on ${server.key} (${pm.from}) and the client has no sidecar, so it speaks plaintext: the server's sidecar resets the connection`,
      sidecar: true,
      mtls: false,
      decidedBy: pm.ref ? decidedAt("Istio", pm.ref) : { layer: "Istio" },
    };
    if (pm.ref) v.ref = pm.ref;
    return v;
  }
  const who = { ...client, mtls };
  const applicable = input.authorizationPolicies.filter((p) => {
    const ns = nsOf(p);
    if (ns !== server.namespace && ns !== ROOT_NAMESPACE) return false;
    const s = selects(p, server);
    return s === true || s === "none";
  });
  const rq = req ?? { method: "", path: "", query: "", params: [], headers: {} };
  const idText = mtls && client.pod ? `principal ${principalOf(client.pod)}` : "no principal (plaintext)";
  for (const p of applicable.filter((x) => x.action === "DENY")) {
    const idx = p.rules.findIndex((r) => ruleMatches(r, who, rq, targetPort));
    if (idx >= 0) {
      const ref = refAt(p.obj, p.rules[idx]!.line, `spec.rules[${idx}]`);
      return {
        verdict: "drop",
        status: 403,
        reason: `AuthorizationPolicy ${nameOf(p)} (DENY) rule ${idx + 1} matches ${rq.method} ${rq.path} from ${idText}: 403`,
        ref,
        decidedBy: decidedAt("Istio", ref, `rules[${idx}]`),
        sidecar: true,
        mtls,
      };
    }
  }
  const allows = applicable.filter((x) => x.action === "ALLOW");
  if (allows.length === 0)
    return {
      verdict: "allow",
      reason: `no ALLOW AuthorizationPolicy applies to ${server.key}${applicable.length ? " and no DENY rule matches" : ""}: allowed${mtls ? " over mTLS" : ""}`,
      sidecar: true,
      mtls,
    };
  for (const p of allows) {
    const idx = p.rules.findIndex((r) => ruleMatches(r, who, rq, targetPort));
    if (idx >= 0) {
      const ref = refAt(p.obj, p.rules[idx]!.line, `spec.rules[${idx}]`);
      return {
        verdict: "allow",
        reason: `AuthorizationPolicy ${nameOf(p)} (ALLOW) rule ${idx + 1} admits ${rq.method} ${rq.path} from ${idText}`,
        ref,
        sidecar: true,
        mtls,
      };
    }
  }
  const first = allows[0]!;
  const ref = refAt(first.obj, first.specLine, "spec");
  return {
    verdict: "drop",
    status: 403,
    reason: `ALLOW policies apply to ${server.key} (${allows.map(nameOf).join(", ")}) and none admits ${rq.method} ${rq.path} from ${idText}: 403`,
    ref,
    decidedBy: decidedAt("Istio", ref),
    sidecar: true,
    mtls,
  };
}
