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
import { lineOf } from "../parse/positions.ts";
import { arr, isObj, num, obj, str, strList, strMap } from "../parse/values.ts";
import { parseYamlFile } from "../parse/yaml.ts";
import type { TraceRef } from "../trace/index.ts";
import { header, type HttpRequest } from "./request.ts";
import { compileUserRegex, isRegexError, regexMatches } from "../http/regex.ts";
import { refAt } from "./common.ts";
import { vsHttp, type StringMatch, type VsHttp, type VsMatch } from "./vsHttp.ts";
import { authzSpec, peerAuthSpec, type AuthzSpec, type PeerAuthSpec } from "./meshSecurityInput.ts";

export const ROOT_NAMESPACE = "istio-system";

export const DOMAIN = "svc.cluster.local";

/** An Istio Gateway as its routing reads it. */
export interface IstioGateway {
  obj: KObject;
  /** spec.selector: the labels of its ingress gateway pods. */
  selector: Record<string, string>;
  /** spec.servers: the port number each listens on and the hosts it serves (HOST or NS/HOST). */
  servers: { port?: number; hosts: string[] }[];
  /** The lines of spec.servers and spec.selector (else of the object). */
  serversLine: number;
  selectorLine: number;
}

/** A DestinationRule's subsets, under its host made a FQDN (rule 2). */
export interface DestinationSubsets {
  obj: KObject;
  host: string;
  subsets: { name?: string; labels: Record<string, string>; line: number }[];
}

/** A Sidecar resource as rule 4 reads it: its workload selector and outbound traffic policy. */
export interface SidecarSpec {
  obj: KObject;
  /** spec.workloadSelector.labels; undefined without a workloadSelector (the namespace's default Sidecar). */
  selector?: Record<string, string>;
  outbound?: { mode: string; line: number };
}

/** Where a VirtualService applies: its hosts and gateways as written (rule 3). */
export interface VirtualServiceTargets {
  hosts: string[];
  gateways: string[];
}

export interface MeshInput {
  model: Model;
  /** Every Istio Gateway, in input order. */
  gateways: IstioGateway[];
  /** The hosts and gateways of every VirtualService, accepted or rejected. */
  targets: Map<KObject, VirtualServiceTargets>;
  /** Every ServiceEntry's hosts, its endpoints' addresses and its addresses, as written. */
  entries: Map<KObject, { hosts: string[]; endpoints: string[]; addresses: string[] }>;
  /** Every DestinationRule's subsets, in input order. */
  subsets: DestinationSubsets[];
  /** Every Sidecar resource, in input order. */
  sidecarSpecs: SidecarSpec[];
  /** The http routes of every VirtualService istiod accepts, read once (rule 3). */
  http: Map<KObject, VsHttp>;
  /** The VirtualServices istiod accepts (rule 3). */
  virtualServices: KObject[];
  /** Those its validation rejects, with the first reason: they do not exist in the cluster. */
  rejectedVirtualServices: { vs: KObject; error: VsRegexError }[];
  destinationRules: KObject[];
  serviceEntries: KObject[];
  /** Every AuthorizationPolicy and PeerAuthentication, read once (rules 5 and 6). */
  authorizationPolicies: AuthzSpec[];
  peerAuthentications: PeerAuthSpec[];
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
  const allVirtualServices = of("VirtualService");
  const virtualServices = allVirtualServices.filter((vs) => {
    const error = virtualServiceRegexErrors(vs).find((e) => !e.tooLarge);
    if (error) rejectedVirtualServices.push({ vs, error });
    return !error;
  });
  const targets = new Map<KObject, VirtualServiceTargets>();
  for (const vs of allVirtualServices) {
    const spec = obj(vs.raw.spec);
    targets.set(vs, { hosts: strList(spec?.hosts), gateways: strList(spec?.gateways) });
  }
  const input: MeshInput = {
    model,
    gateways: of("Gateway").map(istioGateway),
    targets,
    entries: new Map(of("ServiceEntry").map((se) => [se, serviceEntry(se)])),
    subsets: of("DestinationRule").map((dr) => destinationSubsets(dr, model)),
    sidecarSpecs: of("Sidecar").map(sidecarSpec),
    http: new Map(virtualServices.map((vs) => [vs, vsHttp(vs)])),
    virtualServices,
    rejectedVirtualServices,
    destinationRules: of("DestinationRule"),
    serviceEntries: of("ServiceEntry"),
    authorizationPolicies: of("AuthorizationPolicy").map(authzSpec),
    peerAuthentications: of("PeerAuthentication").map(peerAuthSpec),
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
  // An Istio Gateway alone is a way in, not a mesh: a request through it is judged by the gateway.
  const meshObjects = [
    input.virtualServices,
    input.rejectedVirtualServices,
    input.destinationRules,
    input.serviceEntries,
    input.authorizationPolicies,
    input.peerAuthentications,
    input.sidecars,
  ];
  input.present = nsInjected || assumed || !!cm || meshObjects.some((l) => l.length > 0);
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

function stringMatch(m: StringMatch | undefined, value: string | undefined, ignoreCase = false): boolean {
  if (!m) return true;
  if (value === undefined) return false;
  if (m.kind === "any") return true;
  // RE2 against the whole value (Envoy safe_regex); ignoreUriCase does not apply to it (RouteMatch.case_sensitive).
  if (m.kind === "regex") return regexMatches(m.value, value, ISTIO_REGEX_MAX);
  const v = ignoreCase ? value.toLowerCase() : value;
  const w = ignoreCase ? m.value.toLowerCase() : m.value;
  return m.kind === "exact" ? v === w : v.startsWith(w);
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

export function vsMatch(m: VsMatch, req: HttpRequest, port: number, client: Pod | undefined): boolean {
  if (!stringMatch(m.uri, req.path, m.ignoreUriCase)) return false;
  if (!stringMatch(m.method, req.method)) return false;
  for (const h of m.headers) {
    const v = header(req, h.name);
    if (h.match === "present" ? v === undefined : !stringMatch(h.match, v)) return false;
  }
  for (const q of m.queryParams)
    if (!stringMatch(q.match, req.params.find((p) => p.name === q.name)?.value)) return false;
  if (m.port !== undefined && m.port !== port) return false;
  for (const [k, v] of Object.entries(m.sourceLabels)) if (client?.labels[k] !== v) return false;
  if (m.sourceNamespace !== undefined && m.sourceNamespace !== client?.namespace) return false;
  for (const h of m.withoutHeaders) if (stringMatch(h.match, header(req, h.name))) return false;
  return true;
}

export function vsAppliesToSidecars(input: MeshInput, vs: KObject): boolean {
  const gws = input.targets.get(vs)?.gateways ?? [];
  return gws.length === 0 || gws.includes("mesh");
}

/** The VirtualServices bound to an Istio Gateway (`gateways`: NAME in the VirtualService's namespace, or NS/NAME). */
export function boundTo(input: MeshInput, gateway: KObject): KObject[] {
  const gwNs = gateway.namespace ?? "default";
  const out: KObject[] = [];
  for (const [vs, t] of input.targets) {
    const vsNs = vs.namespace ?? "default";
    const bound = t.gateways.some((g) => {
      const [ns, name] = g.includes("/") ? (g.split("/") as [string, string]) : [vsNs, g];
      return ns === gwNs && name === gateway.name;
    });
    if (bound) out.push(vs);
  }
  return out;
}

function istioGateway(o: KObject): IstioGateway {
  const spec = obj(o.raw.spec) ?? {};
  return {
    obj: o,
    selector: strMap(spec.selector),
    servers: arr(spec.servers)
      .filter(isObj)
      .map((x) => {
        const port = num(obj(x.port)?.number);
        return port === undefined ? { hosts: strList(x.hosts) } : { port, hosts: strList(x.hosts) };
      }),
    serversLine: lineOf(spec, "servers") || o.line,
    selectorLine: lineOf(spec, "selector") || o.line,
  };
}

function destinationSubsets(dr: KObject, model: Model): DestinationSubsets {
  const spec = obj(dr.raw.spec) ?? {};
  return {
    obj: dr,
    host: fqdn(str(spec.host) ?? "", dr.namespace ?? "default", model),
    subsets: arr(spec.subsets).map((x) => {
      const name = str(obj(x)?.name);
      const subset = { labels: strMap(obj(x)?.labels), line: lineOf(x) };
      return name === undefined ? subset : { name, ...subset };
    }),
  };
}

function serviceEntry(se: KObject): { hosts: string[]; endpoints: string[]; addresses: string[] } {
  const spec = obj(se.raw.spec);
  return {
    hosts: strList(spec?.hosts),
    endpoints: arr(spec?.endpoints)
      .map((e) => str(obj(e)?.address))
      .filter((a): a is string => !!a),
    addresses: strList(spec?.addresses),
  };
}

function sidecarSpec(sc: KObject): SidecarSpec {
  const spec = obj(sc.raw.spec);
  const out: SidecarSpec = { obj: sc };
  const sel = obj(spec?.workloadSelector);
  if (sel) out.selector = strMap(sel.labels);
  const otp = obj(spec?.outboundTrafficPolicy);
  const mode = str(otp?.mode);
  if (mode) out.outbound = { mode, line: lineOf(otp) || sc.line };
  return out;
}

export function subsetLabels(
  input: MeshInput,
  host: string,
  subset: string,
): { labels: Record<string, string>; ref: TraceRef } | undefined {
  for (const dr of input.subsets) {
    if (!hostMatch(dr.host, host)) continue;
    const s = dr.subsets.find((x) => x.name === subset);
    if (s) return { labels: s.labels, ref: refAt(dr.obj, s.line, "spec.subsets") };
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
  const applies = (sc: SidecarSpec) =>
    !sc.selector || Object.entries(sc.selector).every(([k, v]) => client.labels[k] === v);
  const withSel = (sc: SidecarSpec) => sc.selector !== undefined;
  const inNs = input.sidecarSpecs.filter(
    (s) => (s.obj.namespace ?? "default") === client.namespace && applies(s),
  );
  const chosen =
    inNs.find(withSel) ??
    inNs.find((s) => !withSel(s)) ??
    input.sidecarSpecs.find((s) => s.obj.namespace === ROOT_NAMESPACE && !withSel(s));
  if (chosen?.outbound) {
    const sc = chosen.obj;
    return {
      mode: chosen.outbound.mode,
      ref: refAt(sc, chosen.outbound.line, "spec.outboundTrafficPolicy"),
      from: `Sidecar ${sc.namespace ?? "default"}/${sc.name}`,
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
