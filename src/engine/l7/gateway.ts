/**
 * Gateway API v1 (kubernetes-sigs/gateway-api apis/v1): which HTTPRoute rule
 * of a Gateway's listener answers a request, and where it sends it.
 *
 * Rules (each from the API's own field docs, named in gateway.test.ts):
 * 1. Listeners: a request on PORT is served by the Gateway's HTTP listeners on
 *    that port; the listener whose hostname matches the Host most
 *    specifically wins (exact, then the longest wildcard, then none)
 *    (gateway_types.go Listener.Hostname; conformance
 *    HTTPRouteListenerHostnameMatching).
 * 2. Attachment: a parentRef names the Gateway (namespace defaults to the
 *    route's), optionally a listener (sectionName) or port; the listener must
 *    admit the route's namespace (allowedRoutes.namespaces.from Same (the
 *    default), All, or Selector on the Namespace's labels) and kind
 *    (HTTPRoute for HTTP/HTTPS listeners); route and listener hostnames must
 *    intersect (HTTPRouteSpec.Hostnames).
 * 3. Matching: a rule without matches matches every request (PathPrefix /);
 *    a match is an AND of path (Exact, PathPrefix element-wise, so /v2 does
 *    not match /v2example), headers (names case-insensitive, values exact),
 *    query params (exact) and method; a rule's matches are ORed.
 *    RegularExpression (implementation-specific) is RE2 against the whole
 *    value, as Envoy-based implementations run it (http/regex.ts). A rule
 *    with a pattern RE2 rejects is invalid: the implementation drops it
 *    (RouteConditionPartiallyInvalid, "Dropped Rule"), and a route whose
 *    every rule is invalid is not accepted (shared_types.go).
 * 3b. Size: the CRD's validation (httproute_types.go, v1.2 on) refuses a
 *    route with more than 16 rules, 64 matches in a rule or 128 in all, 16
 *    headers, query params, filters or backendRefs, 16 hostnames or 32
 *    parentRefs: such a route never exists in the cluster.
 * 4. Precedence across every rule of every attached route (HTTPRouteRule
 *    doc): Exact path, then the longest PathPrefix, then a method match, then
 *    the most header matches, then the most query param matches; ties: the
 *    oldest route (creationTimestamp), then "namespace/name" alphabetically,
 *    then rule order. Routes on the most specific matching hostname come
 *    first (Envoy-based implementations pick the virtual host by domain).
 * 5. Backends: weights are proportional (default 1, 0 gets nothing); a
 *    backendRef to another namespace needs a ReferenceGrant there (from
 *    HTTPRoute in the route's namespace to that Service, or to every
 *    Service); an unknown or unpermitted backend's share is answered 500
 *    (HTTPBackendRef doc). A RequestRedirect filter answers itself (302 by
 *    default) with scheme, hostname, port and path.
 */
import type { KObject } from "../parse/manifests.ts";
import type { Namespace } from "../model/types.ts";
import { matchesSelector } from "../model/labels.ts";
import { header, hostOf, type HttpRequest } from "./request.ts";
import { regexMatches } from "../http/regex.ts";
import {
  decidedAt,
  gatewayHostMatches,
  hostSpecificity,
  pct,
  refAt,
  type ChosenBackend,
  type RawHop,
  type Redirect,
  type RouteChoice,
} from "./common.ts";
import {
  GATEWAY_GROUP,
  ROUTE_REGEX_MAX,
  parseGateway,
  parseHTTPRoute,
  parseReferenceGrant,
  ruleDropped,
  type Gateway,
  type Grant,
  type HTTPRoute,
  type Listener,
  type PathMatch,
  type RouteBackendRef,
  type RouteFilter,
  type RouteMatch,
  type RouteRule,
} from "./gatewayObjects.ts";

/** The hostnames a route serves on a listener (rule 2): undefined = any; empty = the two do not intersect. */
export function effectiveHostnames(
  listener: string | undefined,
  route: readonly string[],
): string[] | undefined {
  if (route.length === 0) return listener ? [listener] : undefined;
  if (!listener) return [...route];
  const out: string[] = [];
  for (const h of route) {
    if (!h.startsWith("*.")) {
      if (gatewayHostMatches(listener, h)) out.push(h);
    } else if (listener.startsWith("*.")) {
      if (h.endsWith(listener.slice(1))) out.push(h);
      else if (listener.endsWith(h.slice(1))) out.push(listener);
    } else if (gatewayHostMatches(h, listener)) out.push(listener);
  }
  return out;
}

export interface GatewayInput {
  gateways: Gateway[];
  routes: HTTPRoute[];
  grants: Grant[];
  namespaces: Map<string, Namespace>;
}

export function gatewayInput(objects: readonly KObject[], namespaces: Map<string, Namespace>): GatewayInput {
  const isGw = (o: KObject) => o.apiVersion.startsWith(`${GATEWAY_GROUP}/`);
  return {
    gateways: objects.filter((o) => o.kind === "Gateway" && isGw(o)).map(parseGateway),
    routes: objects.filter((o) => o.kind === "HTTPRoute" && isGw(o)).map(parseHTTPRoute),
    grants: objects.filter((o) => o.kind === "ReferenceGrant" && isGw(o)).map(parseReferenceGrant),
    namespaces,
  };
}

function admits(
  l: Listener,
  gw: Gateway,
  routeNs: string,
  namespaces: Map<string, Namespace>,
): string | undefined {
  if (!l.kinds.includes("HTTPRoute"))
    return `listener ${l.name} does not admit HTTPRoutes (allowedRoutes.kinds: ${l.kinds.join(", ") || "none"})`;
  if (l.from === "All") return undefined;
  if (l.from === "Same")
    return routeNs === gw.namespace
      ? undefined
      : `listener ${l.name} admits routes from its own namespace ${gw.namespace} only (allowedRoutes.namespaces.from Same)`;
  if (l.from === "Selector") {
    const labels = namespaces.get(routeNs)?.labels ?? { "kubernetes.io/metadata.name": routeNs };
    return l.selector && matchesSelector(l.selector, labels)
      ? undefined
      : `namespace ${routeNs} is not selected by listener ${l.name}'s allowedRoutes.namespaces.selector`;
  }
  return `listener ${l.name}: allowedRoutes.namespaces.from ${l.from} is not a known value`;
}

/** Path matching (rule 3). */
export function pathMatches(m: PathMatch, path: string): boolean {
  if (m.type === "Exact") return path === m.value;
  if (m.type === "PathPrefix") {
    const v = m.value.length > 1 && m.value.endsWith("/") ? m.value.slice(0, -1) : m.value;
    if (v === "/") return true;
    return path === v || path.startsWith(`${v}/`);
  }
  if (m.type === "RegularExpression") return regexMatches(m.value, path, ROUTE_REGEX_MAX.path);
  return false;
}

function valueMatches(type: string, want: string, got: string | undefined, max: number): boolean {
  if (got === undefined) return false;
  if (type === "RegularExpression") return regexMatches(want, got, max);
  return got === want;
}

export function matchRequest(m: RouteMatch, req: HttpRequest): boolean {
  if (!pathMatches(m.path, req.path)) return false;
  if (m.method && m.method !== req.method) return false;
  for (const h of m.headers)
    if (!valueMatches(h.type, h.value, header(req, h.name), ROUTE_REGEX_MAX.header)) return false;
  for (const q of m.query)
    if (
      !valueMatches(q.type, q.value, req.params.find((p) => p.name === q.name)?.value, ROUTE_REGEX_MAX.query)
    )
      return false;
  return true;
}

interface Candidate {
  route: HTTPRoute;
  rule: RouteRule;
  match: RouteMatch;
  hostScore: number;
}

/** Rule 4: negative when `a` takes precedence. */
export function comparePrecedence(a: Candidate, b: Candidate): number {
  if (a.hostScore !== b.hostScore) return b.hostScore - a.hostScore;
  const exact = (c: Candidate) => (c.match.path.type === "Exact" ? 1 : 0);
  if (exact(a) !== exact(b)) return exact(b) - exact(a);
  const prefixLen = (c: Candidate) => (c.match.path.type === "PathPrefix" ? c.match.path.value.length : 0);
  if (prefixLen(a) !== prefixLen(b)) return prefixLen(b) - prefixLen(a);
  const method = (c: Candidate) => (c.match.method ? 1 : 0);
  if (method(a) !== method(b)) return method(b) - method(a);
  if (a.match.headers.length !== b.match.headers.length)
    return b.match.headers.length - a.match.headers.length;
  if (a.match.query.length !== b.match.query.length) return b.match.query.length - a.match.query.length;
  if (a.route !== b.route) {
    if (a.route.created !== b.route.created && a.route.created && b.route.created)
      return a.route.created < b.route.created ? -1 : 1;
    const ka = `${a.route.namespace}/${a.route.name}`;
    const kb = `${b.route.namespace}/${b.route.name}`;
    if (ka !== kb) return ka < kb ? -1 : 1;
  }
  if (a.rule.index !== b.rule.index) return a.rule.index - b.rule.index;
  return a.match.index - b.match.index;
}

function describeMatch(m: RouteMatch): string {
  const parts = [`path ${m.path.type} ${m.path.value}`];
  if (m.method) parts.push(`method ${m.method}`);
  for (const h of m.headers)
    parts.push(`header ${h.name}${h.type === "Exact" ? "" : ` (${h.type})`} = ${h.value}`);
  for (const q of m.query) parts.push(`query ${q.name} = ${q.value}`);
  return parts.join(", ");
}

function granted(input: GatewayInput, routeNs: string, b: RouteBackendRef): boolean {
  if (b.namespace === routeNs) return true;
  return input.grants.some(
    (g) =>
      g.namespace === b.namespace &&
      g.from.some((f) => f.group === GATEWAY_GROUP && f.kind === "HTTPRoute" && f.namespace === routeNs) &&
      g.to.some((t) => t.group === b.group && t.kind === b.kind && (!t.name || t.name === b.name)),
  );
}

function redirectOf(
  f: RouteFilter,
  req: HttpRequest,
  host: string,
  listenerPort: number,
  match: RouteMatch,
): { status: number; redirect: Redirect } {
  const r = f.redirect;
  const scheme = r?.scheme ?? "http";
  const explicitScheme = r?.scheme !== undefined;
  const port =
    r?.port ??
    (explicitScheme ? (scheme === "https" ? 443 : scheme === "http" ? 80 : listenerPort) : listenerPort);
  let path = req.path;
  const p = r?.path;
  if (p?.type === "ReplaceFullPath") path = p.replaceFullPath ?? path;
  else if (p?.type === "ReplacePrefixMatch" && match.path.type === "PathPrefix") {
    const prefix = match.path.value.replace(/\/$/, "");
    const rest = req.path.slice(prefix.length);
    const repl = p.replacePrefixMatch ?? "/";
    path = (repl.endsWith("/") && rest.startsWith("/") ? repl.slice(0, -1) : repl) + rest || "/";
  }
  return {
    status: r?.statusCode ?? 302,
    redirect: { scheme, host: r?.hostname ?? host, port, path },
  };
}

/**
 * Rule 2: the rules of the HTTPRoutes attached to `listeners` whose
 * hostnames serve `host`, as candidates for the request; each route that
 * does not attach (or is not accepted) says why in `hops`.
 */
function attachedRules(
  input: GatewayInput,
  gw: Gateway,
  listeners: readonly Listener[],
  host: string,
  hops: RawHop[],
): { candidates: Candidate[]; attachedNames: string[] } {
  const candidates: Candidate[] = [];
  const attachedNames: string[] = [];
  for (const route of input.routes) {
    for (const pr of route.parentRefs) {
      if (
        pr.group !== GATEWAY_GROUP ||
        pr.kind !== "Gateway" ||
        pr.namespace !== gw.namespace ||
        pr.name !== gw.name
      )
        continue;
      for (const l of listeners) {
        if (pr.sectionName && pr.sectionName !== l.name) continue;
        if (pr.port !== undefined && pr.port !== l.port) continue;
        const routeRef = refAt(route.obj, route.specLine, "spec.parentRefs");
        const noted = (detail: string, ref = routeRef) => {
          if (!hops.some((h) => h.detail === detail))
            hops.push({ step: "route", verdict: "info", detail, ref });
        };
        const tooMany = route.tooMany[0];
        if (tooMany) {
          noted(
            `HTTPRoute ${route.namespace}/${route.name} does not exist in the cluster: the apiserver refuses it (${tooMany.field}: ${tooMany.count} items, the CRD allows at most ${tooMany.max})`,
            refAt(route.obj, tooMany.line || route.obj.line, tooMany.field),
          );
          continue;
        }
        const dropped = route.rules.flatMap((r) => {
          const e = ruleDropped(r);
          return e ? [{ rule: r, e }] : [];
        });
        for (const { rule, e } of dropped)
          noted(
            `HTTPRoute ${route.namespace}/${route.name} rule ${rule.index + 1} is dropped: ${e.field} ${JSON.stringify(e.source)} is not an RE2 regular expression (${e.error}); the implementation reports PartiallyInvalid ("Dropped Rule")`,
            refAt(route.obj, e.line || rule.line, e.field),
          );
        if (route.rules.length > 0 && dropped.length === route.rules.length) {
          noted(
            `HTTPRoute ${route.namespace}/${route.name} is not accepted (Accepted False, UnsupportedValue): every rule has an invalid regular expression`,
          );
          continue;
        }
        const refused = admits(l, gw, route.namespace, input.namespaces);
        if (refused) {
          hops.push({
            step: "route",
            verdict: "info",
            detail: `HTTPRoute ${route.namespace}/${route.name} does not attach: ${refused}`,
            ref: routeRef,
          });
          continue;
        }
        const eff = effectiveHostnames(l.hostname, route.hostnames);
        if (eff && eff.length === 0) {
          hops.push({
            step: "route",
            verdict: "info",
            detail: `HTTPRoute ${route.namespace}/${route.name} does not attach to listener ${l.name}: its hostnames (${route.hostnames.join(", ")}) do not intersect ${l.hostname}`,
            ref: routeRef,
          });
          continue;
        }
        let hostScore = 0;
        if (eff) {
          const hit = eff.filter((h) => gatewayHostMatches(h, host));
          if (hit.length === 0) continue;
          hostScore = Math.max(...hit.map(hostSpecificity));
        }
        if (!attachedNames.includes(`${route.namespace}/${route.name}`))
          attachedNames.push(`${route.namespace}/${route.name}`);
        for (const rule of route.rules) {
          if (ruleDropped(rule)) continue;
          for (const match of rule.matches)
            if (!candidates.some((c) => c.route === route && c.rule === rule && c.match === match))
              candidates.push({ route, rule, match, hostScore });
        }
      }
    }
  }
  return { candidates, attachedNames };
}

/** One backendRef of the chosen rule, with its share, or why it is answered 500 (not a Service, no port, not granted). */
function chosenBackend(
  input: GatewayInput,
  route: HTTPRoute,
  ruleIndex: number,
  b: RouteBackendRef,
  total: number,
): ChosenBackend {
  const ref = refAt(route.obj, b.line, `spec.rules[${ruleIndex}].backendRefs`);
  const chosen: ChosenBackend = {
    namespace: b.namespace,
    service: b.name,
    port: b.port ?? 0,
    weight: b.weight / total,
    ref,
    missingStatus: 500,
  };
  if (b.group !== "" || b.kind !== "Service")
    chosen.invalid = {
      status: 500,
      reason: `backendRef ${b.group ? `${b.group}/` : ""}${b.kind} ${b.name} is not a Service: not modelled, answered 500`,
      ref,
    };
  else if (b.port === undefined)
    chosen.invalid = {
      status: 500,
      reason: `backendRef ${b.name} has no port (required for a Service): 500`,
      ref,
    };
  else if (!granted(input, route.namespace, b))
    chosen.invalid = {
      status: 500,
      reason: `backendRef ${b.namespace}/${b.name} is in another namespace and no ReferenceGrant in ${b.namespace} permits HTTPRoutes from ${route.namespace}: 500 (RefNotPermitted)`,
      ref,
    };
  return chosen;
  return chosen;
}

/**
 * Rules 1-5 for one request arriving at `gateway` on `port`. `defaultHost`
 * is the Host when the request has none (the address the client connects to).
 */
export function routeGateway(
  input: GatewayInput,
  gw: Gateway,
  port: number,
  req: HttpRequest,
  defaultHost: string,
): RouteChoice {
  const hops: RawHop[] = [];
  const gwRef = refAt(gw.obj, gw.specLine);
  const host = hostOf(req) ?? defaultHost.toLowerCase();
  const onPort = gw.listeners.filter((l) => l.port === port);
  if (onPort.length === 0) {
    const d = `Gateway ${gw.namespace}/${gw.name} has no listener on port ${port} (listeners: ${gw.listeners.map((l) => `${l.name} ${l.protocol}/${l.port}`).join(", ") || "none"}): the connection is refused`;
    hops.push({ step: "gateway listener", verdict: "drop", detail: d, ref: gwRef });
    return { layer: "Gateway", hops, backends: [], decidedBy: decidedAt("Gateway", gwRef) };
  }
  const http = onPort.filter((l) => l.protocol === "HTTP");
  if (http.length === 0) {
    const l = onPort[0]!;
    const d = `listener ${l.name} on port ${port} speaks ${l.protocol}: ktl models plain-HTTP listeners only (TLS termination and other route kinds are not evaluated)`;
    hops.push({ step: "gateway listener", verdict: "drop", detail: d, ref: l.ref });
    return { layer: "Gateway", hops, backends: [], decidedBy: decidedAt("Gateway", l.ref) };
  }
  const matching = http.filter((l) => !l.hostname || gatewayHostMatches(l.hostname, host));
  if (matching.length === 0) {
    const d = `no listener of Gateway ${gw.namespace}/${gw.name} on port ${port} serves host ${host} (${http.map((l) => `${l.name}: ${l.hostname ?? "any host"}`).join(", ")}): 404`;
    hops.push({ step: "gateway listener", verdict: "drop", detail: d, ref: http[0]!.ref });
    return { layer: "Gateway", hops, status: 404, backends: [], decidedBy: decidedAt("Gateway", gwRef) };
  }
  matching.sort((a, b) => hostSpecificity(b.hostname) - hostSpecificity(a.hostname));
  const listenerScore = hostSpecificity(matching[0]!.hostname);
  const listeners = matching.filter((l) => hostSpecificity(l.hostname) === listenerScore);
  hops.push({
    step: "gateway listener",
    verdict: "pass",
    detail: `Host ${host} on port ${port}: listener ${listeners.map((l) => `${l.name} (${l.hostname ?? "any host"})`).join(", ")}${matching.length > listeners.length ? `, the most specific of ${matching.length} listeners that match` : ""}`,
    ref: listeners[0]!.ref,
  });

  // Rule 2: routes attached to the chosen listeners.
  const { candidates, attachedNames } = attachedRules(input, gw, listeners, host, hops);
  const hits = candidates.filter((c) => matchRequest(c.match, req)).sort(comparePrecedence);
  const best = hits[0];
  if (!best) {
    const d = attachedNames.length
      ? `no rule of ${attachedNames.map((n) => `HTTPRoute ${n}`).join(", ")} matches ${req.method} ${req.path}${req.query ? `?${req.query}` : ""} (Host ${host}): 404`
      : `no HTTPRoute attached to listener ${listeners.map((l) => l.name).join(", ")} serves host ${host}: 404`;
    hops.push({ step: "route", verdict: "drop", detail: d, ref: listeners[0]!.ref });
    return {
      layer: "Gateway",
      hops,
      status: 404,
      backends: [],
      decidedBy: decidedAt("Gateway", listeners[0]!.ref),
    };
  }
  const { route, rule, match } = best;
  const ruleRef = refAt(route.obj, match.line || rule.line, `spec.rules[${rule.index}]`);
  const others = hits.length - 1;
  hops.push({
    step: "route rule",
    verdict: "pass",
    detail: `HTTPRoute ${route.namespace}/${route.name} rule ${rule.index + 1}${rule.name ? ` (${rule.name})` : ""} matches (${describeMatch(match)})${others ? `; it takes precedence over ${others} other matching rule${others === 1 ? "" : "s"} (exact path, then longest prefix, then method, then most headers, then most query params)` : ""}`,
    ref: ruleRef,
  });
  const ruleName = `rules[${rule.index}]`;

  for (const f of rule.filters) {
    const fRef = refAt(route.obj, f.line, `spec.rules[${rule.index}].filters`);
    if (f.type === "RequestRedirect") {
      const { status, redirect } = redirectOf(f, req, host, port, match);
      hops.push({
        step: "filter",
        verdict: "info",
        detail: `RequestRedirect answers ${status} to ${redirect.scheme}://${redirect.host}:${redirect.port}${redirect.path}`,
        ref: fRef,
      });
      return { layer: "Gateway", hops, status, redirect, backends: [] };
    }
    if (f.type === "URLRewrite") {
      const u = f.rewrite;
      hops.push({
        step: "filter",
        verdict: "info",
        detail: `URLRewrite: the backend sees ${u?.hostname ? `Host ${u.hostname}` : "the same Host"} and ${u?.path ? "a rewritten path" : "the same path"}; where the request goes is unchanged`,
        ref: fRef,
      });
    } else
      hops.push({
        step: "filter",
        verdict: "info",
        detail: `${f.type} filter: changes what the backend receives, not where the request goes (not evaluated further)`,
        ref: fRef,
      });
  }

  const refs = rule.backendRefs.filter((b) => b.weight > 0);
  const total = refs.reduce((s, b) => s + b.weight, 0);
  if (refs.length === 0 || total === 0) {
    hops.push({
      step: "backend",
      verdict: "drop",
      detail: `the rule has no backendRef with a weight above 0: every matching request is answered 500`,
      ref: ruleRef,
    });
    return {
      layer: "Gateway",
      hops,
      status: 500,
      backends: [],
      decidedBy: decidedAt("Gateway", ruleRef, ruleName),
    };
  }
  const backends = refs.map((b) => chosenBackend(input, route, rule.index, b, total));
  const crossNs = backends.filter((b) => b.namespace !== route.namespace && !b.invalid);
  for (const b of crossNs) {
    const g = input.grants.find((x) => x.namespace === b.namespace);
    if (g)
      hops.push({
        step: "reference grant",
        verdict: "pass",
        detail: `ReferenceGrant ${g.namespace}/${g.obj.name} lets HTTPRoutes in ${route.namespace} use Service ${b.namespace}/${b.service}`,
        ref: refAt(g.obj),
      });
  }
  hops.push({
    step: "backend",
    verdict: "info",
    detail:
      backends.length === 1
        ? `every matching request goes to Service ${backends[0]!.namespace}/${backends[0]!.service}:${backends[0]!.port}`
        : `weighted split: ${backends.map((b) => `${b.namespace}/${b.service}:${b.port} ${pct(b.weight)}`).join(", ")}`,
    ref: backends[0]!.ref ?? ruleRef,
  });
  return { layer: "Gateway", hops, backends };
}
