/**
 * Istio in sidecar mode: which pods have a sidecar, how the client's sidecar
 * routes a request (VirtualService, DestinationRule subsets, ServiceEntry,
 * outboundTrafficPolicy), and what the server's sidecar admits
 * (PeerAuthentication, AuthorizationPolicy).
 *
 * Rules (istio/api field docs and istio/istio, named in mesh.test.ts):
 * 1. Sidecar: a pod has one when its namespace is labelled
 *    istio-injection=enabled (or istio.io/rev), or the pod is labelled
 *    sidecar.istio.io/inject=true, or it already lists an istio-proxy
 *    container; the label or annotation sidecar.istio.io/inject=false and
 *    hostNetwork turn it off; istio-injection=disabled wins over the pod
 *    label (the webhook's namespaceSelector).
 * 2. Hosts: a short name in a VirtualService, DestinationRule or a client's
 *    request is relative to the object's (client's) namespace:
 *    NAME -> NAME.NS.svc.cluster.local, NAME.NS -> NAME.NS.svc.cluster.local.
 * 3. VirtualService http routes are tried in order; the first whose match
 *    list (ORed; each match an AND of uri, method, headers, queryParams,
 *    port, sourceLabels, sourceNamespace) fits wins; no route: 404. Route
 *    weights are shares of 100 (one destination alone: 100). A subset is the
 *    DestinationRule's labels over the Service's pods; an unknown subset or
 *    one without ready pods: 503.
 * 4. A host that is neither a Service nor a ServiceEntry host passes through
 *    under ALLOW_ANY (the default, pkg/config/mesh/mesh.go) and is blocked
 *    under REGISTRY_ONLY; a Sidecar resource's outboundTrafficPolicy (the
 *    workload's, then the namespace's, then the root namespace's) overrides
 *    MeshConfig (ConfigMap istio in istio-system, key mesh).
 * 5. PeerAuthentication: the workload's policy, then the namespace's, then
 *    the root namespace's; PERMISSIVE by default. STRICT refuses a client
 *    without a sidecar (plaintext): the connection is reset, no HTTP status.
 * 6. AuthorizationPolicy on the server: any matching DENY -> 403; else if
 *    ALLOW policies apply, one must match, else 403; else allowed. Policies
 *    in the root namespace apply mesh-wide. `spec: {}` is an ALLOW policy
 *    matching nothing (allow-nothing). The client's principal
 *    (cluster.local/ns/NS/sa/SA) and namespace are known only over mTLS.
 */
import type { KObject } from "../parse/manifests.ts";
import type { Model, Pod } from "../model/types.ts";
import type { Service } from "../model/services.ts";
import { lineOf } from "../parse/yaml.ts";
import { arr, isObj, num, obj, str, strList, strMap } from "../parse/values.ts";
import { parseYamlFile } from "../parse/yaml.ts";
import { sidecarOf } from "../model/sidecar.ts";
import type { TraceRef } from "../trace/index.ts";
import { header, type HttpRequest } from "./request.ts";
import { compileUserRegex, isRegexError, regexMatches } from "../http/regex.ts";
import {
  decidedAt,
  pct,
  refAt,
  type ChosenBackend,
  type MirrorChoice,
  type RetryChoice,
  type RawHop,
  type DecidedBy,
  type RouteChoice,
} from "./common.ts";

export const ROOT_NAMESPACE = "istio-system";
export const DOMAIN = "svc.cluster.local";

export interface MeshInput {
  model: Model;
  /** The VirtualServices istiod accepts (rule 3). */
  virtualServices: KObject[];
  /** Those its validation rejects, with the first reason: they do not exist in the cluster. */
  rejectedVirtualServices: { vs: KObject; error: VsRegexError }[];
  destinationRules: KObject[];
  serviceEntries: KObject[];
  authorizationPolicies: KObject[];
  peerAuthentications: KObject[];
  sidecars: KObject[];
  meshConfig?: { outbound?: string; ref: TraceRef };
  /** Any Istio object is in the input (else a request is not a mesh request). */
  present: boolean;
}

const ISTIO = (o: KObject) =>
  o.apiVersion.startsWith("networking.istio.io/") || o.apiVersion.startsWith("security.istio.io/");

export function meshInput(model: Model, objects: readonly KObject[]): MeshInput {
  const of = (k: string) => objects.filter((o) => o.kind === k && ISTIO(o));
  const rejectedVirtualServices: MeshInput["rejectedVirtualServices"] = [];
  const virtualServices = of("VirtualService").filter((vs) => {
    const error = virtualServiceRegexErrors(vs).find((e) => !e.tooLarge);
    if (error) rejectedVirtualServices.push({ vs, error });
    return !error;
  });
  const input: MeshInput = {
    model,
    virtualServices,
    rejectedVirtualServices,
    destinationRules: of("DestinationRule"),
    serviceEntries: of("ServiceEntry"),
    authorizationPolicies: of("AuthorizationPolicy"),
    peerAuthentications: of("PeerAuthentication"),
    sidecars: of("Sidecar"),
    present: false,
  };
  const cm = objects.find(
    (o) => o.kind === "ConfigMap" && o.name === "istio" && o.namespace === ROOT_NAMESPACE,
  );
  const meshText = cm ? str(obj(cm.raw.data)?.mesh) : undefined;
  if (cm && meshText !== undefined) {
    const parsed = parseYamlFile(`${cm.file} (ConfigMap istio-system/istio, mesh)`, meshText);
    const v = parsed.documents[0]?.value;
    const mode = str(obj(obj(v)?.outboundTrafficPolicy)?.mode);
    input.meshConfig = { ref: refAt(cm, lineOf(obj(cm.raw.data), "mesh") || cm.line, "data.mesh") };
    if (mode) input.meshConfig.outbound = mode;
  }
  const nsInjected = [...model.namespaces.values()].some(
    (n) => n.labels["istio-injection"] === "enabled" || n.labels["istio.io/rev"] !== undefined,
  );
  const assumed = (model.profile?.assume?.injection?.length ?? 0) > 0;
  input.present =
    nsInjected || assumed || !!cm || Object.values(input).some((v) => Array.isArray(v) && v.length > 0);
  return input;
}

// ---------- rule 1: sidecars ----------

export { sidecarOf } from "../model/sidecar.ts";

export function principalOf(pod: Pod): string {
  return `cluster.local/ns/${pod.namespace}/sa/${pod.serviceAccount}`;
}

// ---------- rule 2: hosts ----------

/** NAME, NAME.NS, NAME.NS.svc, NAME.NS.svc.cluster.local -> FQDN relative to `ns`; other names as written. */
export function fqdn(name: string, ns: string, model: Model): string {
  const n = name.toLowerCase().replace(/\.$/, "");
  if (n.endsWith(`.${DOMAIN}`) || n.startsWith("*")) return n;
  const parts = n.split(".");
  if (parts.length === 1) return `${n}.${ns}.${DOMAIN}`;
  if (parts.length === 2 && model.namespaces.has(parts[1]!)) return `${n}.${DOMAIN}`;
  if (parts.length === 3 && parts[2] === "svc") return `${n}.cluster.local`;
  return n;
}

export function serviceOfHost(host: string, model: Model): Service | undefined {
  const m = /^([^.]+)\.([^.]+)\.svc\.cluster\.local$/.exec(host);
  if (!m) return undefined;
  return model.services.find((s) => s.namespace === m[2] && s.name === m[1]);
}

export function hostMatch(pattern: string, host: string): boolean {
  if (pattern === "*") return true;
  if (pattern.startsWith("*.")) return host.endsWith(pattern.slice(1));
  return pattern === host;
}

// ---------- rule 3: VirtualService ----------

/** istiod's bound on a regex (validateStringRegexp: "regex is too large, max length allowed is 1024"). */
export const ISTIO_REGEX_MAX = 1024;

function stringMatch(m: unknown, value: string | undefined, ignoreCase = false): boolean {
  const mo = obj(m);
  if (!mo || value === undefined) return !mo ? true : false;
  const v = ignoreCase ? value.toLowerCase() : value;
  const lc = (s: string) => (ignoreCase ? s.toLowerCase() : s);
  const exact = str(mo.exact);
  if (exact !== undefined) return v === lc(exact);
  const prefix = str(mo.prefix);
  if (prefix !== undefined) return v.startsWith(lc(prefix));
  // RE2 against the whole value (Envoy safe_regex); ignoreUriCase does not apply to it (RouteMatch.case_sensitive).
  const regex = str(mo.regex);
  if (regex !== undefined) return regexMatches(regex, value, ISTIO_REGEX_MAX);
  return true;
}

export interface VsRegexError {
  /** API field path, `spec.http[0].match[1].uri.regex`. */
  field: string;
  line: number;
  source: string;
  /** istiod's wording (validateStringMatchRegexp), or ktl's bound when tooLarge. */
  error: string;
  /** RE2 and istiod accept it; its program is larger than ktl evaluates: it matches nothing here. */
  tooLarge: boolean;
}

/**
 * Rule 3's regexes as istiod's validating webhook checks them
 * (pkg/config/validation validateStringMatchRegexp, validateStringRegexp):
 * not empty, at most 1024 characters, and compiled by Go's regexp (RE2
 * syntax). A VirtualService with one that fails is rejected on create: it
 * does not exist in the cluster.
 */
export function virtualServiceRegexErrors(vs: KObject): VsRegexError[] {
  const out: VsRegexError[] = [];
  const check = (sm: unknown, field: string) => {
    const mo = obj(sm);
    if (!mo || !Object.hasOwn(mo, "regex")) return;
    const source = str(mo.regex) ?? "";
    const line = lineOf(mo, "regex") || lineOf(mo);
    const f = `${field}.regex`;
    if (source === "") {
      out.push({
        field: f,
        line,
        source,
        error: `"${f}": regex string match should not be empty`,
        tooLarge: false,
      });
      return;
    }
    if (source.length > ISTIO_REGEX_MAX) {
      out.push({
        field: f,
        line,
        source,
        error: `"${f}": regex is too large, max length allowed is ${ISTIO_REGEX_MAX}`,
        tooLarge: false,
      });
      return;
    }
    const c = compileUserRegex(source, ISTIO_REGEX_MAX);
    if (!isRegexError(c)) return;
    out.push({
      field: f,
      line,
      source,
      error: c.tooLarge
        ? c.error
        : `"${f}": ${c.error}; Istio uses RE2 style regex-based match (https://github.com/google/re2/wiki/Syntax)`,
      tooLarge: c.tooLarge === true,
    });
  };
  arr(obj(vs.raw.spec)?.http).forEach((r, i) => {
    arr(obj(r)?.match).forEach((m, j) => {
      const mo = obj(m);
      if (!mo) return;
      const f = `spec.http[${i}].match[${j}]`;
      for (const k of ["uri", "scheme", "method", "authority"])
        if (Object.hasOwn(mo, k)) check(mo[k], `${f}.${k}`);
      for (const k of ["headers", "queryParams", "withoutHeaders"])
        for (const [name, sm] of Object.entries(obj(mo[k]) ?? {})) check(sm, `${f}.${k}.${name}`);
    });
  });
  return out;
}

function vsMatch(m: unknown, req: HttpRequest, port: number, client: Pod | undefined): boolean {
  const mo = obj(m) ?? {};
  if (mo.uri !== undefined && !stringMatch(mo.uri, req.path, mo.ignoreUriCase === true)) return false;
  if (mo.method !== undefined && !stringMatch(mo.method, req.method)) return false;
  for (const [name, sm] of Object.entries(obj(mo.headers) ?? {})) {
    const v = header(req, name);
    if (isObj(sm) && Object.keys(sm).length === 0) {
      if (v === undefined) return false;
    } else if (!stringMatch(sm, v)) return false;
  }
  for (const [name, sm] of Object.entries(obj(mo.queryParams) ?? {}))
    if (!stringMatch(sm, req.params.find((p) => p.name === name)?.value)) return false;
  const p = num(mo.port);
  if (p !== undefined && p !== port) return false;
  const sl = strMap(mo.sourceLabels);
  for (const [k, v] of Object.entries(sl)) if (client?.labels[k] !== v) return false;
  const sn = str(mo.sourceNamespace);
  if (sn !== undefined && sn !== client?.namespace) return false;
  for (const [name, sm] of Object.entries(obj(mo.withoutHeaders) ?? {}))
    if (stringMatch(sm, header(req, name))) return false;
  return true;
}

function vsAppliesToSidecars(vs: KObject): boolean {
  const gws = strList(obj(vs.raw.spec)?.gateways);
  return gws.length === 0 || gws.includes("mesh");
}

export function subsetLabels(
  input: MeshInput,
  host: string,
  subset: string,
): { labels: Record<string, string>; ref: TraceRef } | undefined {
  for (const dr of input.destinationRules) {
    const spec = obj(dr.raw.spec) ?? {};
    const h = fqdn(str(spec.host) ?? "", dr.namespace ?? "default", input.model);
    if (!hostMatch(h, host)) continue;
    const s = arr(spec.subsets).find((x) => str(obj(x)?.name) === subset);
    if (s) return { labels: strMap(obj(s)?.labels), ref: refAt(dr, lineOf(s), "spec.subsets") };
  }
  return undefined;
}

export interface OutboundPolicy {
  mode: string;
  ref?: TraceRef;
  from: string;
}

/** Rule 4. */
export function outboundPolicy(input: MeshInput, client: Pod): OutboundPolicy {
  const applies = (sc: KObject) => {
    const sel = obj(obj(sc.raw.spec)?.workloadSelector);
    return !sel || Object.entries(strMap(sel.labels)).every(([k, v]) => client.labels[k] === v);
  };
  const withSel = (sc: KObject) => !!obj(obj(sc.raw.spec)?.workloadSelector);
  const inNs = input.sidecars.filter((s) => (s.namespace ?? "default") === client.namespace && applies(s));
  const chosen =
    inNs.find(withSel) ??
    inNs.find((s) => !withSel(s)) ??
    input.sidecars.find((s) => s.namespace === ROOT_NAMESPACE && !withSel(s));
  if (chosen) {
    const otp = obj(obj(chosen.raw.spec)?.outboundTrafficPolicy);
    const mode = str(otp?.mode);
    if (mode)
      return {
        mode,
        ref: refAt(chosen, lineOf(otp) || chosen.line, "spec.outboundTrafficPolicy"),
        from: `Sidecar ${chosen.namespace ?? "default"}/${chosen.name}`,
      };
  }
  if (input.meshConfig?.outbound)
    return {
      mode: input.meshConfig.outbound,
      ref: input.meshConfig.ref,
      from: "MeshConfig (ConfigMap istio-system/istio)",
    };
  return { mode: "ALLOW_ANY", from: "the default MeshConfig" };
}

export interface MeshRoute extends RouteChoice {
  /** The request leaves the cluster to a host the model does not know (passthrough or a ServiceEntry). */
  external?: string;
}

// ---------- rule 3b: what a matched route does besides choosing backends ----------

/** HTTPFaultInjection's share of requests: `percentage.value` (0-100), the deprecated `percent`, else every request. */
export function faultShare(f: Record<string, unknown>): number {
  const p = num(obj(f.percentage)?.value) ?? num(f.percent);
  if (p === undefined) return 1;
  return Math.min(1, Math.max(0, p / 100));
}

/** Headers.HeaderOperations on a request: `set` replaces, `add` appends (", "), `remove` deletes. */
function withHeaderOps(req: HttpRequest, ops: Record<string, unknown> | undefined): HttpRequest {
  if (!ops) return req;
  const headers = { ...req.headers };
  for (const [k, v] of Object.entries(strMap(ops.set))) headers[k.toLowerCase()] = v;
  for (const [k, v] of Object.entries(strMap(ops.add))) {
    const key = k.toLowerCase();
    headers[key] = headers[key] === undefined ? v : `${headers[key]}, ${v}`;
  }
  const removed = new Set(strList(ops.remove).map((k) => k.toLowerCase()));
  return { ...req, headers: Object.fromEntries(Object.entries(headers).filter(([k]) => !removed.has(k))) };
}

/**
 * HTTPRewrite as Istio hands it to Envoy (`uri` as the route's prefix_rewrite,
 * `authority` as its host rewrite): a prefix match has its matched prefix
 * replaced; an exact or regex match, the whole path; a route without a uri
 * match (Istio's prefix "/"), the leading "/". The query string is kept.
 * `uriRegexRewrite` is not evaluated (listed in unmodelled).
 */
function rewritten(
  req: HttpRequest,
  rewrite: Record<string, unknown> | undefined,
  match: Record<string, unknown> | undefined,
): HttpRequest {
  if (!rewrite) return req;
  let out = req;
  const uri = str(rewrite.uri);
  if (uri !== undefined) {
    const m = obj(match?.uri);
    const prefix = str(m?.prefix);
    const cut =
      prefix !== undefined
        ? prefix.length
        : m && (m.exact !== undefined || m.regex !== undefined)
          ? req.path.length
          : 1;
    out = { ...out, path: uri + req.path.slice(cut) };
  }
  const authority = str(rewrite.authority);
  if (authority !== undefined) out = { ...out, headers: { ...out.headers, host: authority } };
  return out;
}

/** What a route changed in a request, in words ("GET /v2/x, host: b, x-user: 1"), or "" when nothing. */
function requestChanges(before: HttpRequest, after: HttpRequest): string {
  if (before === after) return "";
  const parts: string[] = [];
  if (after.path !== before.path) parts.push(`path ${after.path} (was ${before.path})`);
  const names = new Set([...Object.keys(before.headers), ...Object.keys(after.headers)]);
  for (const n of [...names].sort()) {
    if (before.headers[n] === after.headers[n]) continue;
    parts.push(after.headers[n] === undefined ? `no ${n} header` : `${n}: ${after.headers[n]}`);
  }
  return parts.join(", ");
}

/**
 * The route's retries (HTTPRetry), else Istio's default: two more attempts
 * on connect-failure, refused-stream, unavailable, cancelled and
 * retriable-status-codes (istio.io, Traffic Management, Retries: "the
 * default retry behavior for HTTP requests is to retry twice"). `attempts: 0`
 * turns them off.
 */
function retryPolicy(
  vs: KObject,
  r: Record<string, unknown>,
  i: number,
  rRef: TraceRef,
): RetryChoice | undefined {
  const retries = obj(r.retries);
  if (!retries)
    return {
      attempts: 2,
      retryOn: "connect-failure,refused-stream,unavailable,cancelled,retriable-status-codes",
      default: true,
    };
  const attempts = num(retries.attempts) ?? 0;
  if (attempts <= 0) return undefined;
  return {
    attempts,
    retryOn:
      str(retries.retryOn) ?? "connect-failure,refused-stream,unavailable,cancelled,retriable-status-codes",
    default: false,
    ref: refAt(vs, lineOf(r, "retries") || rRef.line, `spec.http[${i}].retries`),
  };
}

/** `mirror` with `mirrorPercentage` (every request by default), and each of `mirrors`: copies whose answers are discarded. */
function mirrorsOf(
  input: MeshInput,
  vs: KObject,
  r: Record<string, unknown>,
  i: number,
  vsNs: string,
  port: number,
  hops: RawHop[],
): MirrorChoice[] {
  const out: MirrorChoice[] = [];
  const add = (dest: Record<string, unknown>, share: number, ref: TraceRef) => {
    if (share <= 0) return;
    const b = destinationBackend(input, dest, vsNs, port, share, ref, hops);
    out.push({ backend: b, share, ref });
  };
  const mirror = obj(r.mirror);
  if (mirror) {
    const pctObj = obj(r.mirrorPercentage);
    const share = pctObj
      ? Math.min(1, Math.max(0, (num(pctObj.value) ?? 0) / 100))
      : r.mirrorPercent !== undefined
        ? (num(r.mirrorPercent) ?? 0) / 100
        : 1;
    add(mirror, share, refAt(vs, lineOf(r, "mirror") || lineOf(r), `spec.http[${i}].mirror`));
  }
  arr(r.mirrors).forEach((m, k) => {
    const mo = obj(m);
    const dest = obj(mo?.destination);
    if (!dest) return;
    const p = obj(mo?.percentage);
    add(
      dest,
      p ? Math.min(1, Math.max(0, (num(p.value) ?? 0) / 100)) : 1,
      refAt(vs, lineOf(m) || lineOf(r), `spec.http[${i}].mirrors[${k}]`),
    );
  });
  return out;
}

/** A route destination (host, port, subset) as the backend the sidecar sends to. */
function destinationBackend(
  input: MeshInput,
  dest: Record<string, unknown>,
  vsNs: string,
  port: number,
  weight: number,
  dRef: TraceRef,
  hops: RawHop[],
): ChosenBackend {
  const dHost = fqdn(str(dest.host) ?? "", vsNs, input.model);
  const dPort = num(obj(dest.port)?.number) ?? port;
  const subset = str(dest.subset);
  const svc = serviceOfHost(dHost, input.model);
  const [svcName, svcNs] = svc
    ? [svc.name, svc.namespace]
    : [dHost.split(".")[0]!, dHost.split(".")[1] ?? vsNs];
  const b: ChosenBackend = {
    namespace: svcNs,
    service: svcName,
    port: dPort,
    weight,
    ref: dRef,
    missingStatus: 503,
  };
  if (subset) {
    b.subset = subset;
    const s = subsetLabels(input, dHost, subset);
    if (!s)
      b.invalid = {
        status: 503,
        reason: `no DestinationRule defines subset ${subset} for ${dHost}: 503 (no cluster)`,
        ref: dRef,
      };
    else {
      b.subsetLabels = s.labels;
      hops.push({
        step: "destination rule",
        verdict: "info",
        detail: `subset ${subset} of ${dHost}: pods labelled ${
          Object.entries(s.labels)
            .map(([a, v]) => `${a}=${v}`)
            .join(", ") || "(any)"
        }`,
        ref: s.ref,
      });
    }
  }
  if (!svc && !b.invalid)
    b.invalid = { status: 503, reason: `destination ${dHost} is not a Service in the input: 503`, ref: dRef };
  return b;
}

/**
 * The client sidecar's choice for `host:PORT` (rules 2-4). `service` is the
 * Service the name resolves to, when it does.
 */
export function routeMesh(
  input: MeshInput,
  client: Pod,
  hostName: string,
  port: number,
  req: HttpRequest,
  service: Service | undefined,
): MeshRoute {
  const hops: RawHop[] = [];
  const host = service
    ? `${service.name}.${service.namespace}.${DOMAIN}`
    : fqdn(hostName, client.namespace, input.model);
  const vs = input.virtualServices.find(
    (v) =>
      vsAppliesToSidecars(v) &&
      strList(obj(v.raw.spec)?.hosts).some((h) =>
        hostMatch(fqdn(h, v.namespace ?? "default", input.model), host),
      ),
  );
  const rejected = !vs
    ? input.rejectedVirtualServices.find(
        ({ vs: v }) =>
          vsAppliesToSidecars(v) &&
          strList(obj(v.raw.spec)?.hosts).some((h) =>
            hostMatch(fqdn(h, v.namespace ?? "default", input.model), host),
          ),
      )
    : undefined;
  if (rejected)
    hops.push({
      step: "mesh route",
      verdict: "info",
      detail: `VirtualService ${rejected.vs.namespace ?? "default"}/${rejected.vs.name} for ${host} does not exist in the cluster: istiod's validation rejects it (admission webhook "validation.istio.io" denied the request: ${rejected.error.error})`,
      ref: refAt(rejected.vs, rejected.error.line || rejected.vs.line, rejected.error.field),
    });
  const se = !service
    ? input.serviceEntries.find((s) =>
        strList(obj(s.raw.spec)?.hosts).some((h) => hostMatch(h.toLowerCase(), host)),
      )
    : undefined;
  if (!service && !se && !vs) {
    const pol = outboundPolicy(input, client);
    if (pol.mode === "REGISTRY_ONLY") {
      const hop: RawHop = {
        step: "outbound traffic policy",
        verdict: "drop",
        detail: `${host} is neither a Service nor a ServiceEntry host, and the outbound traffic policy is REGISTRY_ONLY (from ${pol.from}): the sidecar sends it to the BlackHoleCluster (a 502 on an HTTP port, a closed connection otherwise)`,
      };
      if (pol.ref) hop.ref = pol.ref;
      hops.push(hop);
      const d: DecidedBy = pol.ref ? decidedAt("Istio", pol.ref) : { layer: "Istio" };
      return { layer: "Istio", hops, backends: [], decidedBy: d };
    }
    const hop: RawHop = {
      step: "outbound traffic policy",
      verdict: "pass",
      detail: `${host} is not in the mesh registry; outbound traffic policy ${pol.mode} (from ${pol.from}) passes it through to the address DNS gives, outside the model`,
    };
    if (pol.ref) hop.ref = pol.ref;
    hops.push(hop);
    return { layer: "Istio", hops, backends: [], external: host };
  }
  if (se && !vs) {
    hops.push({
      step: "service entry",
      verdict: "pass",
      detail: `ServiceEntry ${se.namespace ?? "default"}/${se.name} registers ${host}: the sidecar sends the request out to it (outside the model)`,
      ref: refAt(se),
    });
    return { layer: "Istio", hops, backends: [], external: host };
  }
  if (!vs) {
    hops.push({
      step: "mesh route",
      verdict: "info",
      detail: `no VirtualService for ${host}: the sidecar sends to Service ${service!.key}'s ready endpoints directly (round robin)`,
    });
    return {
      layer: "Istio",
      hops,
      backends: [
        { namespace: service!.namespace, service: service!.name, port, weight: 1, missingStatus: 503 },
      ],
    };
  }
  return routeVirtualService(input, vs, client, hostName, port, req, hops);
}

/**
 * A VirtualService's http routes for one request (rule 3), in a client's
 * sidecar or at an Istio ingress gateway (`client`: the pod whose proxy
 * routes, for sourceLabels and sourceNamespace).
 */
export function routeVirtualService(
  input: MeshInput,
  vs: KObject,
  client: Pod | undefined,
  hostName: string,
  port: number,
  req: HttpRequest,
  hops: RawHop[] = [],
): MeshRoute {
  const vsNs = vs.namespace ?? "default";
  const routes = arr(obj(vs.raw.spec)?.http);
  for (let i = 0; i < routes.length; i++) {
    const r = obj(routes[i]) ?? {};
    const matches = arr(r.match);
    const mi = matches.length === 0 ? 0 : matches.findIndex((m) => vsMatch(m, req, port, client));
    if (mi < 0) continue;
    const rRef = refAt(vs, lineOf(matches[mi] ?? routes[i]) || lineOf(routes[i]), `spec.http[${i}]`);
    const name = str(r.name);
    hops.push({
      step: "mesh route",
      verdict: "pass",
      detail: `VirtualService ${vsNs}/${vs.name} http route ${i + 1}${name ? ` (${name})` : ""} ${matches.length ? `matches (match ${mi + 1})` : "has no match: it takes every request that reaches it"}${i > 0 ? `, after ${i} earlier route${i === 1 ? "" : "s"} did not match` : ""}`,
      ref: rRef,
    });
    // Fault injection (HTTPFaultInjection): Envoy's fault filter acts before the route's action.
    const fault = obj(r.fault);
    const abort = obj(fault?.abort);
    const abortStatus = num(abort?.httpStatus);
    const abortShare = abort && abortStatus !== undefined ? faultShare(abort) : 0;
    const abortRef = refAt(vs, lineOf(fault, "abort") || rRef.line, `spec.http[${i}].fault.abort`);
    if (abortShare > 0)
      hops.push({
        step: "filter",
        verdict: abortShare >= 1 ? "drop" : "info",
        detail: `fault.abort: the sidecar answers ${abortStatus} itself to ${abortShare >= 1 ? "every matching request" : `${pct(abortShare)} of matching requests`} (fault injection)`,
        ref: abortRef,
      });
    if (abortShare >= 1 && abortStatus !== undefined)
      return {
        layer: "Istio",
        hops,
        status: abortStatus,
        backends: [],
        decidedBy: decidedAt("Istio", abortRef, `http[${i}].fault.abort`),
      };
    const delay = obj(fault?.delay);
    if (delay)
      hops.push({
        step: "filter",
        verdict: "info",
        detail: `fault.delay: ${pct(faultShare(delay))} of matching requests wait ${str(delay.fixedDelay) ?? str(delay.exponentialDelay) ?? "a delay"} before the sidecar routes them: the same answer, later`,
        ref: refAt(vs, lineOf(fault, "delay") || rRef.line, `spec.http[${i}].fault.delay`),
      });
    const redirect = obj(r.redirect);
    if (redirect) {
      const status = num(redirect.redirectCode) ?? 301;
      const rd = {
        scheme: str(redirect.scheme) ?? "http",
        host: str(redirect.authority) ?? hostName,
        port: num(redirect.port) ?? port,
        path: str(redirect.uri) ?? req.path,
      };
      hops.push({
        step: "mesh route",
        verdict: "info",
        detail: `the route redirects with ${status}`,
        ref: rRef,
      });
      return { layer: "Istio", hops, status, redirect: rd, backends: [] };
    }
    const dr = obj(r.directResponse);
    if (dr) {
      const status = num(dr.status) ?? 200;
      hops.push({
        step: "mesh route",
        verdict: status < 400 ? "info" : "drop",
        detail: `the route answers ${status} itself (directResponse)`,
        ref: rRef,
      });
      return {
        layer: "Istio",
        hops,
        status,
        backends: [],
        ...(status >= 400 ? { decidedBy: decidedAt("Istio", rRef, `http[${i}]`) } : {}),
      };
    }
    const dests = arr(r.route).filter(isObj);
    const weights = dests.map((d) => num(d.weight));
    const anyWeight = weights.some((w) => w !== undefined);
    const raw = dests.map((_, k) => (dests.length === 1 ? 1 : anyWeight ? (weights[k] ?? 0) : 1));
    const total = raw.reduce((a, b) => a + b, 0) || 1;
    const backends: ChosenBackend[] = [];
    // What the route does to the request on its way (rewrite, header operations): the backends' server sidecars judge that request.
    const routeReq = withHeaderOps(
      rewritten(req, obj(r.rewrite), matches.length ? obj(matches[mi]) : undefined),
      obj(obj(r.headers)?.request),
    );
    const changes = requestChanges(req, routeReq);
    if (changes)
      hops.push({
        step: "filter",
        verdict: "info",
        detail: `the route rewrites the request: the backends receive ${changes}`,
        ref: refAt(
          vs,
          lineOf(r, r.rewrite !== undefined ? "rewrite" : "headers") || rRef.line,
          `spec.http[${i}].${r.rewrite !== undefined ? "rewrite" : "headers"}`,
        ),
      });
    dests.forEach((d, k) => {
      const w = raw[k]! / total;
      if (w <= 0) return;
      const dRef = refAt(vs, lineOf(d), `spec.http[${i}].route[${k}]`);
      const b = destinationBackend(input, obj(d.destination) ?? {}, vsNs, port, w, dRef, hops);
      const own = withHeaderOps(routeReq, obj(obj(d.headers)?.request));
      if (requestChanges(req, own)) b.request = own;
      backends.push(b);
    });
    if (abortShare > 0 && abortStatus !== undefined) {
      // The aborted share never reaches a backend: the sidecar answers it (Envoy's fault filter runs before the router).
      for (const b of backends) b.weight *= 1 - abortShare;
      backends.push({
        namespace: vsNs,
        service: vs.name,
        port,
        weight: abortShare,
        ref: abortRef,
        invalid: {
          status: abortStatus,
          reason: `fault.abort: the sidecar answers ${abortStatus} itself`,
          ref: abortRef,
        },
        missingStatus: abortStatus,
      });
    }
    if (backends.length === 0) {
      hops.push({
        step: "mesh route",
        verdict: "drop",
        detail: `the route has no destination with a weight: 503`,
        ref: rRef,
      });
      return {
        layer: "Istio",
        hops,
        status: 503,
        backends: [],
        decidedBy: decidedAt("Istio", rRef, `http[${i}]`),
      };
    }
    hops.push({
      step: "backend",
      verdict: "info",
      detail:
        backends.length === 1
          ? `every matching request goes to ${backends[0]!.service}${backends[0]!.subset ? ` subset ${backends[0]!.subset}` : ""}`
          : `weighted split: ${backends.map((b) => `${b.invalid && b.ref === abortRef ? `fault.abort ${abortStatus}` : `${b.service}${b.subset ? `/${b.subset}` : ""}`} ${pct(b.weight)}`).join(", ")}`,
      ref: rRef,
    });
    const timeout = str(r.timeout);
    if (timeout !== undefined)
      hops.push({
        step: "filter",
        verdict: "info",
        detail: `timeout ${timeout}: a backend that answers later gets the client a 504 from the sidecar (backend latency is not modelled)`,
        ref: refAt(vs, lineOf(r, "timeout") || rRef.line, `spec.http[${i}].timeout`),
      });
    const out: MeshRoute = { layer: "Istio", hops, backends };
    const retries = retryPolicy(vs, r, i, rRef);
    if (retries) out.retries = retries;
    const mirrors = mirrorsOf(input, vs, r, i, vsNs, port, hops);
    if (mirrors.length) out.mirrors = mirrors;
    return out;
  }
  const vRef = refAt(vs, lineOf(obj(vs.raw.spec), "http") || vs.line, "spec.http");
  hops.push({
    step: "mesh route",
    verdict: "drop",
    detail: `no http route of VirtualService ${vsNs}/${vs.name} matches ${req.method} ${req.path}: the sidecar answers 404`,
    ref: vRef,
  });
  return { layer: "Istio", hops, status: 404, backends: [], decidedBy: decidedAt("Istio", vRef) };
}

// ---------- rules 5 and 6: the server's sidecar ----------

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
