/**
 * The server's sidecar: PeerAuthentication's mode for the port (mTLS from a client without a
 * sidecar), then AuthorizationPolicy's CUSTOM, DENY and ALLOW rules against the client's
 * principal, namespace, address and the request.
 */
import type { KObject } from "../parse/manifests.ts";
import type { Pod } from "../model/types.ts";
import { lineOf } from "../parse/positions.ts";
import { arr, obj, str, strList, strMap } from "../parse/values.ts";
import { sidecarOf } from "../model/sidecar.ts";
import type { TraceRef } from "../trace/index.ts";
import { header, type HttpRequest } from "./request.ts";
import { decidedAt, refAt, type DecidedBy } from "./common.ts";
import { ROOT_NAMESPACE, principalOf, type MeshInput } from "./mesh.ts";

function selects(o: KObject, pod: Pod, key = "selector"): boolean | "none" {
  const sel = obj(obj(o.raw.spec)?.[key]);
  if (!sel) return "none";
  return Object.entries(strMap(sel.matchLabels)).every(([k, v]) => pod.labels[k] === v);
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
  const pick = (o: KObject | undefined) => {
    if (!o) return undefined;
    const spec = obj(o.raw.spec) ?? {};
    const portLevel = obj(obj(spec.portLevelMtls)?.[String(targetPort)]);
    const mode = str(portLevel?.mode) ?? str(obj(spec.mtls)?.mode);
    if (!mode || mode === "UNSET") return undefined;
    return {
      mode,
      ref: refAt(o, lineOf(obj(spec.mtls)) || o.line, "spec.mtls"),
      from: `PeerAuthentication ${o.namespace ?? "default"}/${o.name}`,
    };
  };
  return (
    pick(pas.find((p) => (p.namespace ?? "default") === pod.namespace && selects(p, pod) === true)) ??
    pick(pas.find((p) => (p.namespace ?? "default") === pod.namespace && selects(p, pod) === "none")) ??
    pick(pas.find((p) => p.namespace === ROOT_NAMESPACE && selects(p, pod) === "none")) ?? {
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

function fieldOk(o: Json, key: string, value: string | undefined): boolean {
  const pos = strList(o[key]);
  const neg = strList(o[`not${key[0]!.toUpperCase()}${key.slice(1)}`]);
  if (o[key] !== undefined && !strMatches(pos, value)) return false;
  if (neg.length && value !== undefined && strMatches(neg, value)) return false;
  return true;
}

type Json = Record<string, unknown>;

function ruleMatches(rule: Json, client: MeshClient, req: HttpRequest, targetPort: number): boolean {
  const from = arr(rule.from);
  if (from.length) {
    const ok = from.some((f) => {
      const s = obj(obj(f)?.source) ?? {};
      const principal = client.mtls && client.pod ? principalOf(client.pod) : undefined;
      const ns = client.mtls && client.pod ? client.pod.namespace : undefined;
      return (
        fieldOk(s, "principals", principal) &&
        fieldOk(s, "namespaces", ns) &&
        (s.requestPrincipals === undefined || false)
      );
    });
    if (!ok) return false;
  }
  const to = arr(rule.to);
  if (to.length) {
    const ok = to.some((t) => {
      const op = obj(obj(t)?.operation) ?? {};
      return (
        fieldOk(op, "methods", req.method) &&
        fieldOk(op, "paths", req.path) &&
        fieldOk(op, "ports", String(targetPort)) &&
        fieldOk(op, "hosts", header(req, "host"))
      );
    });
    if (!ok) return false;
  }
  for (const w of arr(rule.when)) {
    const c = obj(w) ?? {};
    const key = str(c.key) ?? "";
    let v: string | undefined;
    const hm = /^request\.headers\[(.+)\]$/.exec(key);
    if (hm) v = header(req, hm[1]!);
    else if (key === "source.namespace") v = client.mtls ? client.pod?.namespace : undefined;
    else if (key === "source.principal") v = client.mtls && client.pod ? principalOf(client.pod) : undefined;
    else if (key === "destination.port") v = String(targetPort);
    else return false;
    const values = strList(c.values);
    const nots = strList(c.notValues);
    if (c.values !== undefined && !strMatches(values, v)) return false;
    if (nots.length && v !== undefined && strMatches(nots, v)) return false;
  }
  return true;
}

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
    const ns = p.namespace ?? "default";
    if (ns !== server.namespace && ns !== ROOT_NAMESPACE) return false;
    const s = selects(p, server);
    return s === true || s === "none";
  });
  const action = (p: KObject) => str(obj(p.raw.spec)?.action) ?? "ALLOW";
  const rq = req ?? { method: "", path: "", query: "", params: [], headers: {} };
  const idText = mtls && client.pod ? `principal ${principalOf(client.pod)}` : "no principal (plaintext)";
  for (const p of applicable.filter((x) => action(x) === "DENY")) {
    const idx = arr(obj(p.raw.spec)?.rules).findIndex((r) => ruleMatches(obj(r) ?? {}, who, rq, targetPort));
    if (idx >= 0) {
      const ref = refAt(p, lineOf(arr(obj(p.raw.spec)?.rules)[idx]) || p.line, `spec.rules[${idx}]`);
      return {
        verdict: "drop",
        status: 403,
        reason: `AuthorizationPolicy ${p.namespace ?? "default"}/${p.name} (DENY) rule ${idx + 1} matches ${rq.method} ${rq.path} from ${idText}: 403`,
        ref,
        decidedBy: decidedAt("Istio", ref, `rules[${idx}]`),
        sidecar: true,
        mtls,
      };
    }
  }
  const allows = applicable.filter((x) => action(x) === "ALLOW");
  if (allows.length === 0)
    return {
      verdict: "allow",
      reason: `no ALLOW AuthorizationPolicy applies to ${server.key}${applicable.length ? " and no DENY rule matches" : ""}: allowed${mtls ? " over mTLS" : ""}`,
      sidecar: true,
      mtls,
    };
  for (const p of allows) {
    const idx = arr(obj(p.raw.spec)?.rules).findIndex((r) => ruleMatches(obj(r) ?? {}, who, rq, targetPort));
    if (idx >= 0) {
      const ref = refAt(p, lineOf(arr(obj(p.raw.spec)?.rules)[idx]) || p.line, `spec.rules[${idx}]`);
      return {
        verdict: "allow",
        reason: `AuthorizationPolicy ${p.namespace ?? "default"}/${p.name} (ALLOW) rule ${idx + 1} admits ${rq.method} ${rq.path} from ${idText}`,
        ref,
        sidecar: true,
        mtls,
      };
    }
  }
  const first = allows[0]!;
  const ref = refAt(first, lineOf(obj(first.raw.spec)) || first.line, "spec");
  return {
    verdict: "drop",
    status: 403,
    reason: `ALLOW policies apply to ${server.key} (${allows.map((p) => `${p.namespace ?? "default"}/${p.name}`).join(", ")}) and none admits ${rq.method} ${rq.path} from ${idText}: 403`,
    ref,
    decidedBy: decidedAt("Istio", ref),
    sidecar: true,
    mtls,
  };
}
