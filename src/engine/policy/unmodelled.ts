/**
 * No silent answers: the objects of the input that could change a traffic
 * verdict but that no layer evaluates (decided by API group and kind in
 * parse/kinds.ts), for the `unmodelled` list of reach, trace and connlist,
 * the first line of their human output and the playground's banner.
 */
import type { KObject, ReplacedObject } from "../parse/manifests.ts";
import { unmodelledScope } from "../parse/kinds.ts";
import { skippedDocuments, type Diagnostic, type SkippedDocument } from "../parse/diagnostics.ts";
import type { Model, Pod, UnmodelledObject } from "../model/types.ts";
import type { CniPolicies } from "../cni/policies.ts";
import { arr, isObj } from "../parse/values.ts";
import { lineOf } from "../parse/positions.ts";

export function unmodelledObjects(ignored: readonly KObject[]): UnmodelledObject[] {
  const out: UnmodelledObject[] = [];
  for (const o of ignored) {
    const scope = unmodelledScope(o.apiVersion, o.kind);
    if (!scope) continue;
    out.push(unmodelledEntry(o, scope, o.line));
  }
  return out;
}

const CILIUM_KINDS = new Set(["CiliumNetworkPolicy", "CiliumClusterwideNetworkPolicy"]);

/**
 * The fields of evaluated objects that ktl reads but does not evaluate, as
 * unmodelled entries with their `field` path: a CNI policy's fields the
 * dialect's parser names (KTL451 with a field: Cilium's toServices, toGroups,
 * L7 protocols other than HTTP, ...; Calico's rule `http`, `icmp`, source
 * ports, `services`), only for a dialect the cluster enforces (under another
 * CNI the whole dialect is out, with its own KTL451).
 */
export function unevaluatedFields(
  objects: readonly KObject[],
  diagnostics: readonly Diagnostic[],
  cni: CniPolicies,
): UnmodelledObject[] {
  // Built at the first field to name (most clusters have none: XL's 100,000 objects made a key each for nothing).
  let apiVersionAt: Map<string, string> | undefined;
  const apiVersion = (file: string, doc: number, kind: string, name: string) => {
    if (!apiVersionAt) {
      apiVersionAt = new Map();
      for (const o of objects) apiVersionAt.set(`${o.file}\0${o.doc}\0${o.kind}\0${o.name}`, o.apiVersion);
    }
    return apiVersionAt.get(`${file}\0${doc}\0${kind}\0${name}`) ?? "";
  };
  const out: UnmodelledObject[] = [];
  if (cni.cilium) {
    for (const d of diagnostics) {
      if (d.code !== "KTL451" || !d.field || !d.kind || !d.name || !CILIUM_KINDS.has(d.kind)) continue;
      const u: UnmodelledObject = {
        kind: d.kind,
        apiVersion: apiVersion(d.file, d.doc, d.kind, d.name),
        name: d.name,
        file: d.file,
        doc: d.doc,
        line: d.line,
        scope: "pod",
        field: d.field,
        message: d.message,
      };
      if (d.namespace !== undefined) u.namespace = d.namespace;
      out.push(u);
    }
  }
  for (const p of cni.calico?.policies ?? []) {
    for (const rule of [...p.ingress, ...p.egress]) {
      for (const f of [...rule.unmodelled, ...rule.source.unmodelled, ...rule.destination.unmodelled]) {
        const at = f.indexOf(" (");
        const u: UnmodelledObject = {
          kind: p.kind,
          apiVersion: apiVersion(p.source.file, p.source.doc, p.kind, p.name),
          name: p.name,
          file: p.source.file,
          doc: p.source.doc,
          line: rule.line,
          scope: "pod",
          field: at < 0 ? f : f.slice(0, at),
          message: `${f} is not evaluated: ktl assumes it matches`,
        };
        if (p.namespace !== undefined) u.namespace = p.namespace;
        out.push(u);
      }
    }
  }
  return out;
}

const ISTIO_GROUPS = new Set(["networking.istio.io", "security.istio.io"]);
const AUTHZ_WHEN_KEYS = /^(request\.headers\[.+\]|source\.namespace|source\.principal|destination\.port)$/;

/** Reports a field ktl does not evaluate: where it is (the map holding it, and its key), its path and what ktl does instead. */
type AddField = (at: unknown, key: string | number, field: string, message: string) => void;

const has = (m: Record<string, unknown>, k: string) => m[k] !== undefined;

/** A VirtualService's fields left out: exportTo, TCP and TLS routes, delegation, some faults, rewrites and matches. */
function virtualServiceFields(spec: Record<string, unknown>, add: AddField): void {
  if (has(spec, "exportTo"))
    add(spec, "exportTo", "spec.exportTo", "ktl applies the VirtualService to clients of every namespace");
  if (has(spec, "tcp")) add(spec, "tcp", "spec.tcp", "TCP routes are not evaluated");
  if (has(spec, "tls")) add(spec, "tls", "spec.tls", "TLS routes are not evaluated");
  arr(spec.http).forEach((r, i) => {
    if (!isObj(r)) return;
    const at = `spec.http[${i}]`;
    if (has(r, "delegate"))
      add(
        r,
        "delegate",
        `${at}.delegate`,
        "a delegated VirtualService is not followed: the route has no destination for ktl",
      );
    const abort = isObj(r.fault) && isObj(r.fault.abort) ? r.fault.abort : undefined;
    if (abort && abort.httpStatus === undefined)
      add(
        r.fault,
        "abort",
        `${at}.fault.abort`,
        "only an httpStatus abort is evaluated (grpcStatus and http2Error are not)",
      );
    if (isObj(r.rewrite) && has(r.rewrite, "uriRegexRewrite"))
      add(
        r.rewrite,
        "uriRegexRewrite",
        `${at}.rewrite.uriRegexRewrite`,
        "the backends are judged on the path as sent",
      );
    if (has(r, "corsPolicy"))
      add(r, "corsPolicy", `${at}.corsPolicy`, "CORS preflight answers are not evaluated");
    arr(r.match).forEach((m, j) => {
      if (!isObj(m)) return;
      for (const k of ["authority", "scheme", "gateways"])
        if (has(m, k)) add(m, k, `${at}.match[${j}].${k}`, "not evaluated: ktl takes the condition as met");
    });
  });
}

/** A DestinationRule's fields left out: exportTo, workloadSelector, and its traffic policies. */
function destinationRuleFields(spec: Record<string, unknown>, add: AddField): void {
  if (has(spec, "exportTo"))
    add(spec, "exportTo", "spec.exportTo", "ktl applies the DestinationRule to clients of every namespace");
  if (has(spec, "workloadSelector"))
    add(spec, "workloadSelector", "spec.workloadSelector", "ktl applies the DestinationRule to every client");
  const policy = (tp: unknown, at: string) => {
    if (!isObj(tp)) return;
    for (const k of ["tls", "loadBalancer", "outlierDetection", "connectionPool", "portLevelSettings"])
      if (has(tp, k))
        add(
          tp,
          k,
          `${at}.${k}`,
          k === "tls"
            ? "ktl assumes Istio's automatic mTLS between sidecars"
            : "ktl spreads requests evenly over the ready endpoints",
        );
  };
  policy(spec.trafficPolicy, "spec.trafficPolicy");
  arr(spec.subsets).forEach(
    (x, i) => isObj(x) && policy(x.trafficPolicy, `spec.subsets[${i}].trafficPolicy`),
  );
}

/** An AuthorizationPolicy's parts left out: CUSTOM and AUDIT actions, IP and principal sources, conditions it cannot read. */
function authorizationPolicyFields(spec: Record<string, unknown>, add: AddField): void {
  const action = typeof spec.action === "string" ? spec.action : "ALLOW";
  if (action === "CUSTOM" || action === "AUDIT")
    add(
      spec,
      "action",
      "spec.action",
      `${action} policies (external authorization, audit) are not evaluated`,
    );
  arr(spec.rules).forEach((r, i) => {
    if (!isObj(r)) return;
    arr(r.from).forEach((f, j) => {
      const src = isObj(f) && isObj(f.source) ? f.source : undefined;
      if (!src) return;
      for (const k of [
        "ipBlocks",
        "notIpBlocks",
        "remoteIpBlocks",
        "notRemoteIpBlocks",
        "requestPrincipals",
        "notRequestPrincipals",
      ])
        if (has(src, k))
          add(
            src,
            k,
            `spec.rules[${i}].from[${j}].source.${k}`,
            "not evaluated (a rule that needs it does not match)",
          );
    });
    arr(r.when).forEach((w, j) => {
      const key = isObj(w) && typeof w.key === "string" ? w.key : "";
      if (!AUTHZ_WHEN_KEYS.test(key))
        add(
          w,
          "key",
          `spec.rules[${i}].when[${j}]`,
          `the condition ${key || "(no key)"} is not evaluated (the rule does not match)`,
        );
    });
  });
}

/** One router field of `o` that ktl does not evaluate: where it is (the map holding it, and its key), its path and what happens instead. */
export function routeField(
  o: KObject,
  at: unknown,
  key: string | number,
  field: string,
  message: string,
): UnmodelledObject {
  return unmodelledEntry(o, "route", lineOf(at, key) || o.line, { field, message: `${field}: ${message}` });
}

/** The entry naming `o` as not evaluated at `line`, or one field of it (`detail`: its path and what happens instead). */
export function unmodelledEntry(
  o: KObject,
  scope: UnmodelledObject["scope"],
  line: number,
  detail?: { field: string; message: string },
): UnmodelledObject {
  const u: UnmodelledObject = {
    kind: o.kind,
    apiVersion: o.apiVersion,
    name: o.name,
    file: o.file,
    doc: o.doc,
    line,
    scope,
  };
  if (detail) {
    u.field = detail.field;
    u.message = detail.message;
  }
  if (o.namespace !== undefined) u.namespace = o.namespace;
  return u;
}

/**
 * The Istio fields that can change where a request goes or what it gets
 * back and that engine/l7 does not evaluate (it evaluates matches, weights,
 * subsets, redirects, direct responses, fault.abort and fault.delay,
 * rewrite.uri and rewrite.authority, request header operations, timeout,
 * retries, mirrors, outboundTrafficPolicy, PeerAuthentication and
 * AuthorizationPolicy's ALLOW/DENY rules on principals, namespaces,
 * methods, paths, ports, hosts and a few `when` keys): each with its API
 * path, for the trace's `unmodelled` (scope "route": reach and connlist
 * route nothing).
 */
export function unevaluatedRouterFields(objects: readonly KObject[]): UnmodelledObject[] {
  const out: UnmodelledObject[] = [];
  for (const o of objects) {
    const slash = o.apiVersion.indexOf("/");
    if (!ISTIO_GROUPS.has(slash < 0 ? "" : o.apiVersion.slice(0, slash))) continue;
    const spec = o.raw.spec;
    if (!isObj(spec)) continue;
    const add = (at: unknown, key: string | number, field: string, message: string) =>
      out.push(routeField(o, at, key, field, message));
    if (o.kind === "VirtualService") {
      virtualServiceFields(spec, add);
    } else if (o.kind === "DestinationRule") {
      destinationRuleFields(spec, add);
    } else if (o.kind === "Sidecar") {
      for (const k of ["egress", "ingress"])
        if (has(spec, k))
          add(
            spec,
            k,
            `spec.${k}`,
            k === "egress"
              ? "the hosts a sidecar may reach are not restricted by ktl"
              : "the sidecar's inbound listeners are not evaluated",
          );
    } else if (o.kind === "ServiceEntry") {
      for (const k of ["exportTo", "workloadSelector"])
        if (has(spec, k)) add(spec, k, `spec.${k}`, "not evaluated");
    } else if (o.kind === "AuthorizationPolicy") {
      authorizationPolicyFields(spec, add);
    }
  }
  return out;
}

/** The contract's JSON form: `{"kind", "namespace", "name", "line"}` (plus apiVersion and file; `field` for one field of the object). */
export interface UnmodelledEntry {
  kind: string;
  apiVersion: string;
  namespace?: string;
  name: string;
  file: string;
  line: number;
  field?: string;
  message?: string;
}

/** The unmodelled objects that matter for a command: `pod` for pod-to-pod verdicts (reach, connlist), every one for trace. */
export function unmodelledFor(model: Model, scope: "pod" | "all"): UnmodelledEntry[] {
  return model.unmodelled
    .filter((u) => (scope === "all" ? u.scope !== "reach" : u.scope !== "route"))
    .map((u) => {
      // The contract's key order: kind, namespace, name, line.
      const e: UnmodelledEntry =
        u.namespace !== undefined
          ? {
              kind: u.kind,
              namespace: u.namespace,
              name: u.name,
              line: u.line,
              apiVersion: u.apiVersion,
              file: u.file,
            }
          : { kind: u.kind, name: u.name, line: u.line, apiVersion: u.apiVersion, file: u.file };
      if (u.field !== undefined) e.field = u.field;
      if (u.message !== undefined) e.message = u.message;
      return e;
    });
}

/** "CiliumNetworkPolicy shop/deny-all (cilium.io/v2, a.yaml line 12)", "... field spec.http[0].fault.abort (...)" */
export function describeUnmodelled(u: UnmodelledEntry): string {
  return `${u.kind} ${u.namespace ? `${u.namespace}/` : ""}${u.name}${u.field ? ` field ${u.field}` : ""} (${u.apiVersion || "no apiVersion"}, ${u.file} line ${u.line})`;
}

/** The first line of a human output when some object or field is not evaluated; undefined when none. */
export function unmodelledHeadline(list: readonly UnmodelledEntry[]): string | undefined {
  if (list.length === 0) return undefined;
  const shown = list.slice(0, 3).map(describeUnmodelled).join("; ");
  const more = list.length > 3 ? ` and ${list.length - 3} more` : "";
  const fields = list.filter((u) => u.field !== undefined).length;
  const what =
    fields === 0
      ? `${list.length} object(s)`
      : fields === list.length
        ? `${list.length} field(s)`
        : `${list.length - fields} object(s) and ${fields} field(s)`;
  return `WARNING: this answer ignores ${what} that could change it, which ktl does not evaluate: ${shown}${more}`;
}

/** The contract's `replaced` entry: an earlier definition that a later one replaced (KTL201). */
export type ReplacedEntry = ReplacedObject;

/**
 * What an answer leaves out of the input, for the JSON of every command and
 * the playground's banner: documents that could not be read (`skipped`, the
 * answer misses them: exit 1), objects a later definition replaced
 * (`replaced`, as kubectl apply does: a warning only).
 */
export interface InputOmissions {
  skipped: SkippedDocument[];
  replaced: ReplacedEntry[];
}

export function inputOmissions(model: Pick<Model, "diagnostics" | "replaced">): InputOmissions {
  return { skipped: skippedDocuments(model.diagnostics), replaced: model.replaced };
}

/** "a.yaml document 3, line 17: KTL101 deficient indentation" */
export function describeSkipped(s: SkippedDocument): string {
  const named = s.kind && s.name ? ` (${s.kind} ${s.namespace ? `${s.namespace}/` : ""}${s.name})` : "";
  return `${s.file} document ${s.doc + 1}${s.line ? `, line ${s.line}` : ""}${named}: ${s.code}`;
}

/** The first line of a human output when documents could not be read; undefined when none. */
export function skippedHeadline(list: readonly SkippedDocument[]): string | undefined {
  if (list.length === 0) return undefined;
  const shown = list.slice(0, 3).map(describeSkipped).join("; ");
  const more = list.length > 3 ? ` and ${list.length - 3} more` : "";
  return `WARNING: this answer misses ${list.length} document(s) that could not be read: ${shown}${more}`;
}

/**
 * Whether an unmodelled object could select a pod (for the playground's edge
 * mark): a namespaced object can only select pods of its own namespace; a
 * cluster-scoped one any pod. Its selectors are not read: the engine does not
 * know that dialect, so it marks every pod it could reach.
 */
export function couldSelect(u: UnmodelledObject, pod: Pod): boolean {
  return u.scope === "pod" && (u.namespace === undefined || u.namespace === pod.namespace);
}

/** The cluster tiers' policies as unmodelled entries, for a path that does not stack them (the CNI dialects' own evaluation). */
export function unmodelledTiers(model: Model): UnmodelledEntry[] {
  return model.clusterPolicies.map((p) => ({
    kind: p.kind,
    name: p.name,
    line: p.source.line,
    apiVersion: p.apiVersion,
    file: p.source.file,
  }));
}
