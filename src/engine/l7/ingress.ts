/**
 * Ingress networking.k8s.io/v1 through its controller: which path of which
 * rule answers a request, with the conventions of ingress-nginx (the assumed
 * controller, as its cloud deploy.yaml installs it) where the API leaves the
 * choice to the controller.
 *
 * Rules (kubernetes.io Ingress page, named in ingress.test.ts):
 * 1. The controller serves every Ingress of its class (spec.ingressClassName,
 *    else the kubernetes.io/ingress.class annotation, else the IngressClass
 *    annotated ingressclass.kubernetes.io/is-default-class), merged by host
 *    as ingress-nginx does.
 * 2. Host: an exact host beats a wildcard; `*.foo.com` covers exactly one
 *    label ("Hostname wildcards"); a rule without host serves every host.
 *    Hosts compare case-insensitively.
 * 3. Paths: Exact matches the path exactly, case-sensitively; Prefix matches
 *    element by element split by `/`, a trailing slash ignored (/foo matches
 *    /foo and /foo/bar, not /foobar). The longest matching path wins; on a
 *    tie Exact beats Prefix ("Multiple matches"). ImplementationSpecific is
 *    treated as Prefix (ingress-nginx without the regex annotation).
 * 4. No rule matches: the Ingress's spec.defaultBackend, else the controller's
 *    own default backend answers 404. A backend Service that is missing or
 *    has no ready endpoint: 503 (ingress-nginx).
 * 5. Canary (ingress-nginx's annotations, nginx.ingress.kubernetes.io/canary
 *    "true"): a canary Ingress serves no request of its own; each of its paths
 *    whose host, path and pathType equal a main Ingress's path is that path's
 *    alternative backend (controller.go mergeAlternativeBackends; the first
 *    canary only), unless it names the same Service. A request goes to it
 *    (balancer.lua route_to_alternative_balancer): when the canary-by-header
 *    header is sent and equals canary-by-header-value, or matches
 *    canary-by-header-pattern, or (neither set) is "always"; "never" keeps it
 *    on the main backend; any other value falls through; then the
 *    canary-by-cookie cookie "always" / "never"; else canary-weight out of
 *    canary-weight-total (100, or the total when above 100) of requests. A
 *    canary Service without a ready endpoint has no balancer: the main
 *    backend serves every request.
 * 6. HTTPS redirect (ingress-nginx's nginx.tmpl, `ssl-redirect` default true,
 *    `http-redirect-code` default 308): a plain-HTTP request matched on a
 *    host that a served Ingress's spec.tls covers is answered 308 to
 *    https://HOST/URI, unless the matched path's Ingress sets ssl-redirect
 *    "false"; force-ssl-redirect "true" redirects without TLS too.
 */
import type { KObject } from "../parse/manifests.ts";
import type { TraceRef } from "../trace/index.ts";
import { lineOf } from "../parse/positions.ts";
import { arr, isObj, num, obj, str, strList, strMap } from "../parse/values.ts";
import { header, hostOf, type HttpRequest } from "./request.ts";
import { regexMatches } from "../http/regex.ts";
import { NGINX_ANNOTATION_PREFIX } from "../parse/nginxAnnotations.ts";
import {
  decidedAt,
  ingressHostMatches,
  pct,
  refAt,
  type ChosenBackend,
  type RawHop,
  type RouteChoice,
} from "./common.ts";

export const INGRESS_CLASS_ANNOTATION = "kubernetes.io/ingress.class";
export const DEFAULT_CLASS_ANNOTATION = "ingressclass.kubernetes.io/is-default-class";

export interface IngressPath {
  host?: string;
  path: string;
  pathType: string;
  backend: IngressBackendRef;
  line: number;
  ingress: KObject;
  field: string;
}

type IngressBackendRef = { service: string; port: number | string } | { resource: string };

export interface IngressClass {
  name: string;
  controller: string;
  isDefault: boolean;
  obj: KObject;
}

/** ingress-nginx's canary annotations of a canary Ingress (rule 5). */
export interface IngressCanary {
  header?: string;
  headerValue?: string;
  headerPattern?: string;
  cookie?: string;
  weight: number;
  weightTotal: number;
  /** The line of the canary annotation. */
  line: number;
}

/** One Ingress as the routing reads it, from its manifest once per model (l7Inputs). */
export interface IngressSpec {
  obj: KObject;
  /** spec.ingressClassName, else the kubernetes.io/ingress.class annotation (rule 1). */
  className?: string;
  /** Its rules' paths with a backend, in order (hosts lower-cased). */
  paths: IngressPath[];
  /** Its rules' hosts as written. */
  hosts: string[];
  /** spec.defaultBackend, with its line (its backend undefined when it names neither a Service nor a resource). */
  defaultBackend?: { backend: IngressBackendRef | undefined; line: number };
  /** The first status.loadBalancer.ingress[].ip. */
  statusIP?: string;
  /** The line of spec (else of the object). */
  specLine: number;
  /** ingress-nginx's canary annotation is "true": an alternative backend for main Ingresses' paths (rule 5). */
  canary?: IngressCanary;
  /** spec.tls[].hosts, lower-cased (rule 6). */
  tlsHosts: string[];
  /** ingress-nginx's ssl-redirect ("false" turns it off) and force-ssl-redirect ("true", with its line) (rule 6). */
  sslRedirect: boolean;
  forceSslRedirect: boolean;
  redirectLine: number;
  /** The line of spec.tls (else of spec). */
  tlsLine: number;
}

/** The input's IngressClasses and Ingresses, read once per model (l7/result.ts l7Inputs). */
export interface IngressInput {
  classes: IngressClass[];
  specs: Map<KObject, IngressSpec>;
}

export function ingressInput(objects: readonly KObject[]): IngressInput {
  const specs = new Map<KObject, IngressSpec>();
  for (const o of objects) if (o.kind === "Ingress") specs.set(o, ingressSpec(o));
  return { classes: parseIngressClasses(objects), specs };
}

function parseIngressClasses(objects: readonly KObject[]): IngressClass[] {
  return objects
    .filter((o) => o.kind === "IngressClass")
    .map((o) => ({
      name: o.name,
      controller: str(obj(o.raw.spec)?.controller) ?? "",
      isDefault: strMap(obj(o.raw.metadata)?.annotations)[DEFAULT_CLASS_ANNOTATION] === "true",
      obj: o,
    }));
}

function ingressSpec(ing: KObject): IngressSpec {
  const spec = obj(ing.raw.spec);
  const out: IngressSpec = {
    obj: ing,
    paths: ingressPaths(ing),
    hosts: arr(spec?.rules)
      .map((r) => str(obj(r)?.host))
      .filter((h): h is string => !!h),
    specLine: lineOf(ing.raw.spec) || ing.line,
    tlsHosts: arr(spec?.tls).flatMap((t) => strList(obj(t)?.hosts).map((h) => h.toLowerCase())),
    sslRedirect: true,
    forceSslRedirect: false,
    redirectLine: 0,
    tlsLine: lineOf(spec, "tls") || lineOf(ing.raw.spec) || ing.line,
  };
  const className =
    str(spec?.ingressClassName) ?? strMap(obj(ing.raw.metadata)?.annotations)[INGRESS_CLASS_ANNOTATION];
  if (className) out.className = className;
  const d = obj(spec?.defaultBackend);
  if (d) out.defaultBackend = { backend: backendOf(d), line: lineOf(spec, "defaultBackend") || ing.line };
  const canary = canaryOf(ing);
  if (canary) out.canary = canary;
  const annotations = obj(obj(ing.raw.metadata)?.annotations);
  const nginx = strMap(annotations);
  out.sslRedirect = nginx[`${NGINX_ANNOTATION_PREFIX}ssl-redirect`] !== "false";
  out.forceSslRedirect = nginx[`${NGINX_ANNOTATION_PREFIX}force-ssl-redirect`] === "true";
  out.redirectLine = lineOf(annotations, `${NGINX_ANNOTATION_PREFIX}force-ssl-redirect`) || out.specLine;
  const ip = (obj(ing.raw.status)?.loadBalancer as { ingress?: { ip?: string }[] } | undefined)?.ingress?.[0]
    ?.ip;
  if (ip) out.statusIP = ip;
  return out;
}

function canaryOf(ing: KObject): IngressCanary | undefined {
  const annotations = obj(obj(ing.raw.metadata)?.annotations);
  const a = strMap(annotations);
  const at = (name: string) => a[NGINX_ANNOTATION_PREFIX + name];
  if (at("canary") !== "true") return undefined;
  const int = (v: string | undefined, fallback: number) => {
    const n = v === undefined ? NaN : Number.parseInt(v, 10);
    return Number.isFinite(n) ? n : fallback;
  };
  const out: IngressCanary = {
    weight: int(at("canary-weight"), 0),
    weightTotal: int(at("canary-weight-total"), 100),
    line: lineOf(annotations, `${NGINX_ANNOTATION_PREFIX}canary`) || ing.line,
  };
  for (const [key, name] of [
    ["header", "canary-by-header"],
    ["headerValue", "canary-by-header-value"],
    ["headerPattern", "canary-by-header-pattern"],
    ["cookie", "canary-by-cookie"],
  ] as const) {
    const v = at(name);
    if (v) out[key] = v;
  }
  return out;
}

/** The class an Ingress belongs to (rule 1), or undefined. */
export function classOf(ing: IngressSpec, classes: readonly IngressClass[]): string | undefined {
  return ing.className ?? classes.find((k) => k.isDefault)?.name;
}

function backendOf(b: unknown): IngressBackendRef | undefined {
  const svc = obj(obj(b)?.service);
  if (svc) {
    const port = obj(svc.port);
    return { service: str(svc.name) ?? "", port: num(port?.number) ?? str(port?.name) ?? 0 };
  }
  const res = obj(obj(b)?.resource);
  if (res) return { resource: `${str(res.kind) ?? "?"} ${str(res.name) ?? "?"}` };
  return undefined;
}

function ingressPaths(ing: KObject): IngressPath[] {
  const out: IngressPath[] = [];
  arr(obj(ing.raw.spec)?.rules).forEach((r, ri) => {
    if (!isObj(r)) return;
    const host = str(r.host)?.toLowerCase();
    arr(obj(r.http)?.paths).forEach((p, pi) => {
      if (!isObj(p)) return;
      const backend = backendOf(p.backend);
      if (!backend) return;
      const ip: IngressPath = {
        path: str(p.path) ?? "/",
        pathType: str(p.pathType) ?? "ImplementationSpecific",
        backend,
        line: lineOf(p),
        ingress: ing,
        field: `spec.rules[${ri}].http.paths[${pi}]`,
      };
      if (host) ip.host = host;
      out.push(ip);
    });
  });
  return out;
}

/** Rule 3. */
export function ingressPathMatches(pathType: string, rule: string, path: string): boolean {
  if (pathType === "Exact") return path === rule;
  const elems = (p: string) => p.split("/").filter((e) => e !== "");
  const want = elems(rule);
  const got = elems(path);
  if (want.length > got.length) return false;
  return want.every((e, i) => got[i] === e);
}

function hostScore(host: string | undefined): number {
  if (!host) return 0;
  return host.startsWith("*.") ? 1 : 2;
}

/** The Ingresses the controller serving `ingress` serves (rule 1): those of its class, `ingress` first when not of it. */
export function servedWith(input: IngressInput, ingress: IngressSpec): IngressSpec[] {
  const className = classOf(ingress, input.classes);
  const served = [...input.specs.values()].filter(
    (o) => o.obj.apiVersion.startsWith("networking.k8s.io/") && classOf(o, input.classes) === className,
  );
  if (!served.includes(ingress)) served.unshift(ingress);
  return served;
}

/** Rule 5: the canary path merged into a main Ingress's path, when one is. */
export function canaryFor(
  served: readonly IngressSpec[],
  main: IngressPath,
): { spec: IngressSpec & { canary: IngressCanary }; path: IngressPath } | undefined {
  const mainBackend = main.backend;
  if (!("service" in mainBackend)) return undefined;
  const mainNs = main.ingress.namespace ?? "default";
  for (const spec of served) {
    if (!spec.canary) continue;
    for (const p of spec.paths) {
      if ((p.host ?? "") !== (main.host ?? "") || p.path !== main.path || p.pathType !== main.pathType)
        continue;
      if (!("service" in p.backend)) continue;
      const same =
        (spec.obj.namespace ?? "default") === mainNs &&
        p.backend.service === mainBackend.service &&
        String(p.backend.port) === String(mainBackend.port);
      if (same) continue;
      return { spec: spec as IngressSpec & { canary: IngressCanary }, path: p };
    }
  }
  return undefined;
}

/** nginx's $cookie_NAME: the first cookie of that name in the Cookie header. */
function cookieOf(req: HttpRequest, name: string): string | undefined {
  for (const part of (header(req, "cookie") ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq >= 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** Rule 5's choice for one request (none: a request that sends no header or cookie): the canary's share and why. */
export function canaryShare(c: IngressCanary, req: HttpRequest | undefined): { share: number; why: string } {
  if (req && c.header) {
    const v = header(req, c.header);
    if (v !== undefined) {
      if (c.headerValue) {
        if (v === c.headerValue)
          return { share: 1, why: `header ${c.header}: ${v} equals canary-by-header-value` };
      } else if (c.headerPattern) {
        // ngx.re.match: the pattern anywhere in the value (PCRE; read here as RE2, which refuses lookaround).
        if (regexMatches(`(?s).*(?:${c.headerPattern}).*`, v))
          return {
            share: 1,
            why: `header ${c.header}: ${v} matches canary-by-header-pattern ${c.headerPattern}`,
          };
      } else if (v === "always") return { share: 1, why: `header ${c.header}: always` };
      else if (v === "never") return { share: 0, why: `header ${c.header}: never` };
    }
  }
  if (req && c.cookie) {
    const v = cookieOf(req, c.cookie);
    if (v === "always") return { share: 1, why: `cookie ${c.cookie}=always` };
    if (v === "never") return { share: 0, why: `cookie ${c.cookie}=never` };
  }
  const total = c.weightTotal > 100 ? c.weightTotal : 100;
  return { share: Math.min(1, Math.max(0, c.weight / total)), why: `canary-weight ${c.weight} of ${total}` };
}

/** Rule 6: why a plain-HTTP request on `path` is redirected to HTTPS, or undefined. */
function httpsRedirect(
  input: IngressInput,
  primaries: readonly IngressSpec[],
  path: IngressPath,
): { why: string; ref: TraceRef } | undefined {
  const own = input.specs.get(path.ingress);
  if (!own) return undefined;
  const name = `${path.ingress.namespace ?? "default"}/${path.ingress.name}`;
  if (own.forceSslRedirect)
    return { why: `Ingress ${name} sets force-ssl-redirect`, ref: refAt(path.ingress, own.redirectLine) };
  const host = path.host;
  if (!host || !own.sslRedirect) return undefined;
  const tls = primaries.find((o) => o.tlsHosts.some((h) => h === host || ingressHostMatches(h, host)));
  if (!tls) return undefined;
  return {
    why: `Ingress ${tls.obj.namespace ?? "default"}/${tls.obj.name} has TLS for host ${host} (spec.tls) and ssl-redirect is on`,
    ref: refAt(tls.obj, tls.tlsLine, "spec.tls"),
  };
}

/** Rules 1-6 for a request entering the controller that serves `ingress` (`scheme`: over HTTP or HTTPS); `hasEndpoints` tells whether a Service has a ready endpoint (rule 5). */
export function routeIngress(
  input: IngressInput,
  ingress: IngressSpec,
  req: HttpRequest,
  defaultHost: string,
  hasEndpoints: (namespace: string, service: string) => boolean = () => true,
  scheme: "http" | "https" = "http",
): RouteChoice & { className?: string; controller?: string } {
  const hops: RawHop[] = [];
  const { classes } = input;
  const className = classOf(ingress, classes);
  const klass = classes.find((c) => c.name === className);
  const ingRef = refAt(ingress.obj, ingress.specLine);
  const served = servedWith(input, ingress);
  // A canary Ingress serves no request of its own (rule 5).
  const primaries = served.filter((o) => !o.canary);
  hops.push({
    step: "ingress class",
    verdict: "info",
    detail: className
      ? `Ingress ${ingress.obj.namespace ?? "default"}/${ingress.obj.name} has class ${className}${klass ? ` (controller ${klass.controller})` : " (no IngressClass object of that name in the input)"}; the controller serves ${served.length === 1 ? "this Ingress" : `${served.length} Ingresses of that class, merged by host`}`
      : `Ingress ${ingress.obj.namespace ?? "default"}/${ingress.obj.name} has no class and no IngressClass is the default: assumed served by the ingress controller in the input`,
    ref: klass ? refAt(klass.obj) : ingRef,
  });
  const host = hostOf(req) ?? defaultHost.toLowerCase();
  // A request with no Host header (and no address to stand for it) matches only the rules without a host.
  const hostWords = host ? `host ${host}` : "a request without a Host header";
  const paths = primaries.flatMap((o) => o.paths);
  const hostHits = paths.filter((p) => !p.host || ingressHostMatches(p.host, host));
  const bestHost = Math.max(-1, ...hostHits.map((p) => hostScore(p.host)));
  const sameHost = hostHits.filter((p) => hostScore(p.host) === bestHost);
  const hits = sameHost.filter((p) => ingressPathMatches(p.pathType, p.path, req.path));
  hits.sort((a, b) => {
    const la = a.path.replace(/\/$/, "").length;
    const lb = b.path.replace(/\/$/, "").length;
    if (la !== lb) return lb - la;
    return (b.pathType === "Exact" ? 1 : 0) - (a.pathType === "Exact" ? 1 : 0);
  });
  const best = hits[0];
  const out: RouteChoice & { className?: string; controller?: string } = {
    layer: "Ingress",
    hops,
    backends: [],
  };
  if (className) out.className = className;
  if (klass) out.controller = klass.controller;
  let backend: IngressBackendRef | undefined;
  let bRef = ingRef;
  if (best) {
    bRef = refAt(best.ingress, best.line, best.field);
    hops.push({
      step: "ingress rule",
      verdict: "pass",
      detail: `Ingress ${best.ingress.namespace ?? "default"}/${best.ingress.name}: host ${best.host ?? "(any)"} path ${best.pathType} ${best.path} matches ${req.path}${hits.length > 1 ? ` (the longest of ${hits.length} matching paths; Exact wins a tie)` : ""}`,
      ref: bRef,
    });
    backend = best.backend;
    const redirect = scheme === "http" ? httpsRedirect(input, primaries, best) : undefined;
    if (redirect) {
      const to = {
        scheme: "https",
        host: hostOf(req) ?? best.host ?? "",
        port: 443,
        path: req.path + (req.query ? `?${req.query}` : ""),
      };
      hops.push({
        step: "redirect",
        verdict: "info",
        detail: `${redirect.why}: ingress-nginx answers a plain-HTTP request 308 to https://${to.host}${to.path}`,
        ref: redirect.ref,
      });
      return { ...out, status: 308, redirect: to };
    }
  } else {
    const withDefault = primaries.find(
      (o) => o.defaultBackend && (o === ingress || sameHost.some((p) => p.ingress === o.obj)),
    );
    if (withDefault?.defaultBackend) {
      backend = withDefault.defaultBackend.backend;
      bRef = refAt(withDefault.obj, withDefault.defaultBackend.line, "spec.defaultBackend");
      hops.push({
        step: "ingress rule",
        verdict: "pass",
        detail: `no rule matches ${hostWords} path ${req.path}: Ingress ${withDefault.obj.namespace ?? "default"}/${withDefault.obj.name}'s defaultBackend serves it`,
        ref: bRef,
      });
    } else {
      hops.push({
        step: "ingress rule",
        verdict: "drop",
        detail: sameHost.length
          ? `no path of host ${sameHost[0]!.host ?? "(any)"} matches ${req.path} and no defaultBackend: the controller's default backend answers 404`
          : `no rule serves ${hostWords} and no defaultBackend: the controller's default backend answers 404`,
        ref: ingRef,
      });
      return { ...out, status: 404, decidedBy: decidedAt("Ingress", ingRef) };
    }
  }
  if (!backend || "resource" in backend) {
    hops.push({
      step: "backend",
      verdict: "drop",
      detail: `the backend is a resource (${backend && "resource" in backend ? backend.resource : "?"}), which ingress-nginx does not serve: 503`,
      ref: bRef,
    });
    return { ...out, status: 503, decidedBy: decidedAt("Ingress", bRef) };
  }
  const ns = (best ? best.ingress.namespace : ingress.obj.namespace) ?? "default";
  const chosen: ChosenBackend = {
    namespace: ns,
    service: backend.service,
    port: backend.port,
    weight: 1,
    ref: bRef,
    missingStatus: 503,
  };
  out.backends = [chosen];
  const alt = best ? canaryFor(served, best) : undefined;
  if (alt && "service" in alt.path.backend) {
    const c = alt.spec.canary;
    const altNs = alt.spec.obj.namespace ?? "default";
    const { service, port } = alt.path.backend;
    const ready = hasEndpoints(altNs, service);
    const { share, why } = ready
      ? canaryShare(c, req)
      : {
          share: 0,
          why: `Service ${altNs}/${service} has no ready endpoint, so the controller keeps no balancer for it`,
        };
    const cRef = refAt(alt.spec.obj, c.line, `metadata.annotations["${NGINX_ANNOTATION_PREFIX}canary"]`);
    hops.push({
      step: "ingress rule",
      verdict: "info",
      detail: `canary Ingress ${altNs}/${alt.spec.obj.name} is this path's alternative backend (ingress-nginx): ${why}, so ${share >= 1 ? "the request goes" : share <= 0 ? "no request goes" : `${pct(share)} of matching requests go`} to Service ${altNs}/${service}:${port}`,
      ref: cRef,
    });
    const canaryBackend: ChosenBackend = {
      namespace: altNs,
      service,
      port,
      weight: share,
      ref: refAt(alt.spec.obj, alt.path.line, alt.path.field),
      missingStatus: 503,
    };
    if (share >= 1) out.backends = [canaryBackend];
    else if (share > 0) {
      chosen.weight = 1 - share;
      out.backends = [chosen, canaryBackend];
    }
  }
  const only = out.backends.length === 1 ? out.backends[0]! : undefined;
  hops.push({
    step: "backend",
    verdict: "info",
    detail: only
      ? `every matching request goes to Service ${only.namespace}/${only.service}:${only.port}`
      : `weighted split: ${out.backends.map((b) => `Service ${b.namespace}/${b.service}:${b.port} ${pct(b.weight)}`).join(", ")}`,
    ref: bRef,
  });
  return out;
}
