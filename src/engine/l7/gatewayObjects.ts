/**
 * Gateway API's objects as the router reads them: Gateways and their listeners, HTTPRoutes
 * (matches, filters, backendRefs) with the limits and regular expressions the API server's
 * validation refuses, and ReferenceGrants. gateway.ts routes a request through them.
 */
import type { KObject } from "../parse/manifests.ts";
import { lineOf } from "../parse/positions.ts";
import { arr, isObj, num, obj, str, strList } from "../parse/values.ts";
import { parseLabelSelector } from "../model/labels.ts";
import type { TraceRef } from "../trace/index.ts";
import { compileUserRegex, isRegexError } from "../http/regex.ts";
import { refAt } from "./common.ts";

export const GATEWAY_GROUP = "gateway.networking.k8s.io";

export const GATEWAY_NAME_LABEL = "gateway.networking.k8s.io/gateway-name";

export interface Listener {
  name: string;
  port: number;
  protocol: string;
  hostname?: string;
  from: string;
  selector?: ReturnType<typeof parseLabelSelector>;
  kinds: string[];
  ref: TraceRef;
}

export interface Gateway {
  namespace: string;
  name: string;
  className: string;
  listeners: Listener[];
  addresses: string[];
  obj: KObject;
  /** The line of spec (else of the object). */
  specLine: number;
}

export interface PathMatch {
  type: string;
  value: string;
}

export interface RouteMatch {
  index: number;
  path: PathMatch;
  headers: { type: string; name: string; value: string }[];
  query: { type: string; name: string; value: string }[];
  method?: string;
  line: number;
}

export interface RouteBackendRef {
  group: string;
  kind: string;
  name: string;
  namespace: string;
  port?: number;
  weight: number;
  line: number;
}

export interface RouteRule {
  index: number;
  name?: string;
  matches: RouteMatch[];
  backendRefs: RouteBackendRef[];
  filters: RouteFilter[];
  line: number;
  /** Regular expressions of the rule that RE2 rejects (the rule is dropped) or that ktl does not evaluate (they match nothing). */
  regexErrors: RouteRegexError[];
}

/** A rule's filter: its type, and the fields of the two that decide what the client sees. */
export interface RouteFilter {
  type: string;
  line: number;
  /** RequestRedirect as written (a field left out is undefined). */
  redirect?: {
    scheme: string | undefined;
    hostname: string | undefined;
    port: number | undefined;
    statusCode: number | undefined;
    path?: {
      type: string | undefined;
      replaceFullPath: string | undefined;
      replacePrefixMatch: string | undefined;
    };
  };
  /** URLRewrite: the Host it sets, and whether it rewrites the path. */
  rewrite?: { hostname?: string; path: boolean };
}

export interface RouteRegexError {
  /** API field path, `spec.rules[0].matches[1].path.value`. */
  field: string;
  line: number;
  source: string;
  error: string;
  /** RE2 accepts it; its program is larger than ktl evaluates: the match never matches, the rule stays. */
  tooLarge: boolean;
}

/** The CRD's MaxLength of each RegularExpression value (httproute_types.go). */
export const ROUTE_REGEX_MAX = { path: 1024, header: 4096, query: 1024 } as const;

interface ParentRef {
  group: string;
  kind: string;
  namespace: string;
  name: string;
  sectionName?: string;
  port?: number;
}

export interface HTTPRoute {
  namespace: string;
  name: string;
  hostnames: string[];
  parentRefs: ParentRef[];
  rules: RouteRule[];
  created: string;
  obj: KObject;
  /** The line of spec (else of the object). */
  specLine: number;
  /** The CRD's size limits the route breaks (rule 3b): the apiserver refuses it. */
  tooMany: RouteLimitError[];
}

export interface RouteLimitError {
  field: string;
  line: number;
  count: number;
  max: number;
  /** The CRD's own message, when the limit is a CEL rule rather than MaxItems. */
  message?: string;
}

/** MaxItems of the HTTPRoute CRD (gateway-api apis/v1 httproute_types.go, shared_types.go; v1.2 on). */
export const ROUTE_LIMITS = {
  hostnames: 16,
  parentRefs: 32,
  rules: 16,
  matches: 64,
  matchesInAll: 128,
  headers: 16,
  queryParams: 16,
  filters: 16,
  backendRefs: 16,
} as const;

/** Rule 3b over the raw spec: each list longer than the CRD allows. */
function routeLimits(spec: Record<string, unknown>): RouteLimitError[] {
  const out: RouteLimitError[] = [];
  const check = (parent: unknown, key: string, field: string, max: number) => {
    const list = obj(parent)?.[key];
    if (Array.isArray(list) && list.length > max)
      out.push({ field, line: lineOf(parent, key), count: list.length, max });
  };
  check(spec, "hostnames", "spec.hostnames", ROUTE_LIMITS.hostnames);
  check(spec, "parentRefs", "spec.parentRefs", ROUTE_LIMITS.parentRefs);
  check(spec, "rules", "spec.rules", ROUTE_LIMITS.rules);
  const rules = arr(spec.rules);
  let matches = 0;
  rules.forEach((r, i) => {
    const f = `spec.rules[${i}]`;
    check(r, "matches", `${f}.matches`, ROUTE_LIMITS.matches);
    check(r, "filters", `${f}.filters`, ROUTE_LIMITS.filters);
    check(r, "backendRefs", `${f}.backendRefs`, ROUTE_LIMITS.backendRefs);
    const ms = arr(obj(r)?.matches);
    if (i < ROUTE_LIMITS.rules) matches += ms.length;
    ms.forEach((m, j) => {
      check(m, "headers", `${f}.matches[${j}].headers`, ROUTE_LIMITS.headers);
      check(m, "queryParams", `${f}.matches[${j}].queryParams`, ROUTE_LIMITS.queryParams);
    });
  });
  if (matches > ROUTE_LIMITS.matchesInAll)
    out.push({
      field: "spec.rules",
      line: lineOf(spec, "rules"),
      count: matches,
      max: ROUTE_LIMITS.matchesInAll,
      message:
        "While 16 rules and 64 matches per rule are allowed, the total number of matches across all rules in a route must be less than 128",
    });
  return out;
}

/** Rule 3: every RegularExpression value of a rule that RE2 rejects or ktl does not evaluate. */
function ruleRegexErrors(r: unknown, index: number): RouteRegexError[] {
  const out: RouteRegexError[] = [];
  const check = (m: Record<string, unknown>, field: string, max: number) => {
    if (str(m.type) !== "RegularExpression") return;
    const source = str(m.value) ?? "";
    const c = compileUserRegex(source, max);
    if (isRegexError(c))
      out.push({
        field: `${field}.value`,
        line: lineOf(m, "value") || lineOf(m),
        source,
        error: c.error,
        tooLarge: c.tooLarge === true,
      });
  };
  arr(obj(r)?.matches).forEach((m, j) => {
    const f = `spec.rules[${index}].matches[${j}]`;
    const mo = obj(m);
    if (!mo) return;
    const path = obj(mo.path);
    if (path) check(path, `${f}.path`, ROUTE_REGEX_MAX.path);
    arr(mo.headers).forEach((h, k) => {
      if (isObj(h)) check(h, `${f}.headers[${k}]`, ROUTE_REGEX_MAX.header);
    });
    arr(mo.queryParams).forEach((q, k) => {
      if (isObj(q)) check(q, `${f}.queryParams[${k}]`, ROUTE_REGEX_MAX.query);
    });
  });
  return out;
}

/** A rule RE2 rejects a pattern of: the implementation drops it (rule 3). */
export function ruleDropped(rule: RouteRule): RouteRegexError | undefined {
  return rule.regexErrors.find((e) => !e.tooLarge);
}

export function parseGateway(o: KObject): Gateway {
  const ns = o.namespace ?? "default";
  const spec = obj(o.raw.spec) ?? {};
  const listeners: Listener[] = [];
  arr(spec.listeners).forEach((l, i) => {
    if (!isObj(l)) return;
    const nsSpec = obj(obj(l.allowedRoutes)?.namespaces);
    const from = str(nsSpec?.from) ?? "Same";
    const protocol = str(l.protocol) ?? "HTTP";
    const kinds = arr(obj(l.allowedRoutes)?.kinds)
      .map((k) => str(obj(k)?.kind))
      .filter((k): k is string => !!k);
    const listener: Listener = {
      name: str(l.name) ?? `listener-${i}`,
      port: num(l.port) ?? 0,
      protocol,
      from,
      kinds: kinds.length
        ? kinds
        : protocol === "HTTP" || protocol === "HTTPS"
          ? ["HTTPRoute", "GRPCRoute"]
          : [],
      ref: refAt(o, lineOf(l), `spec.listeners[${i}]`),
    };
    const h = str(l.hostname);
    if (h) listener.hostname = h.toLowerCase();
    if (from === "Selector") listener.selector = parseLabelSelector(nsSpec?.selector);
    listeners.push(listener);
  });
  const addresses = arr(obj(o.raw.status)?.addresses)
    .map((a) => str(obj(a)?.value))
    .filter((a): a is string => !!a);
  return {
    namespace: ns,
    name: o.name,
    className: str(spec.gatewayClassName) ?? "",
    listeners,
    addresses,
    obj: o,
    specLine: lineOf(o.raw.spec) || o.line,
  };
}

function parseMatch(m: unknown, index: number): RouteMatch {
  const mo = obj(m) ?? {};
  const path = obj(mo.path);
  const out: RouteMatch = {
    index,
    path: { type: str(path?.type) ?? "PathPrefix", value: str(path?.value) ?? "/" },
    headers: arr(mo.headers)
      .filter(isObj)
      .map((h) => ({
        type: str(h.type) ?? "Exact",
        name: (str(h.name) ?? "").toLowerCase(),
        value: str(h.value) ?? "",
      })),
    query: arr(mo.queryParams)
      .filter(isObj)
      .map((q) => ({ type: str(q.type) ?? "Exact", name: str(q.name) ?? "", value: str(q.value) ?? "" })),
    line: lineOf(m),
  };
  const method = str(mo.method);
  if (method) out.method = method;
  return out;
}

function parseFilter(f: Record<string, unknown>): RouteFilter {
  const out: RouteFilter = { type: str(f.type) ?? "", line: lineOf(f) };
  const r = obj(f.requestRedirect);
  if (r) {
    const p = obj(r.path);
    out.redirect = {
      scheme: str(r.scheme),
      hostname: str(r.hostname),
      port: num(r.port),
      statusCode: num(r.statusCode),
    };
    if (p)
      out.redirect.path = {
        type: str(p.type),
        replaceFullPath: str(p.replaceFullPath),
        replacePrefixMatch: str(p.replacePrefixMatch),
      };
  }
  const u = obj(f.urlRewrite);
  if (u) {
    out.rewrite = { path: obj(u.path) !== undefined };
    const hostname = str(u.hostname);
    if (hostname) out.rewrite.hostname = hostname;
  }
  return out;
}

export function parseHTTPRoute(o: KObject): HTTPRoute {
  const ns = o.namespace ?? "default";
  const spec = obj(o.raw.spec) ?? {};
  const parentRefs: ParentRef[] = arr(spec.parentRefs)
    .filter(isObj)
    .map((p) => {
      const r: ParentRef = {
        group: str(p.group) ?? GATEWAY_GROUP,
        kind: str(p.kind) ?? "Gateway",
        namespace: str(p.namespace) ?? ns,
        name: str(p.name) ?? "",
      };
      const s = str(p.sectionName);
      if (s) r.sectionName = s;
      const port = num(p.port);
      if (port !== undefined) r.port = port;
      return r;
    });
  const rules: RouteRule[] = arr(spec.rules).map((r, index) => {
    const ro = obj(r) ?? {};
    const ms = arr(ro.matches);
    const rule: RouteRule = {
      index,
      matches: ms.length
        ? ms.map(parseMatch)
        : [{ index: 0, path: { type: "PathPrefix", value: "/" }, headers: [], query: [], line: lineOf(r) }],
      backendRefs: arr(ro.backendRefs)
        .filter(isObj)
        .map((b) => {
          const ref: RouteBackendRef = {
            group: str(b.group) ?? "",
            kind: str(b.kind) ?? "Service",
            name: str(b.name) ?? "",
            namespace: str(b.namespace) ?? ns,
            weight: num(b.weight) ?? 1,
            line: lineOf(b),
          };
          const port = num(b.port);
          if (port !== undefined) ref.port = port;
          return ref;
        }),
      filters: arr(ro.filters).filter(isObj).map(parseFilter),
      line: lineOf(r),
      regexErrors: ruleRegexErrors(r, index),
    };
    const name = str(ro.name);
    if (name) rule.name = name;
    return rule;
  });
  const created = str(obj(o.raw.metadata)?.creationTimestamp) ?? "";
  return {
    namespace: ns,
    name: o.name,
    hostnames: strList(spec.hostnames).map((h) => h.toLowerCase()),
    parentRefs,
    rules,
    created,
    obj: o,
    specLine: lineOf(o.raw.spec) || o.line,
    tooMany: routeLimits(spec),
  };
}

export interface Grant {
  namespace: string;
  from: { group: string; kind: string; namespace: string }[];
  to: { group: string; kind: string; name?: string }[];
  obj: KObject;
}

export function parseReferenceGrant(o: KObject): Grant {
  const spec = obj(o.raw.spec) ?? {};
  return {
    namespace: o.namespace ?? "default",
    from: arr(spec.from)
      .filter(isObj)
      .map((f) => ({
        group: str(f.group) ?? "",
        kind: str(f.kind) ?? "",
        namespace: str(f.namespace) ?? "",
      })),
    to: arr(spec.to)
      .filter(isObj)
      .map((t) => {
        const x: { group: string; kind: string; name?: string } = {
          group: str(t.group) ?? "",
          kind: str(t.kind) ?? "",
        };
        const n = str(t.name);
        if (n) x.name = n;
        return x;
      }),
    obj: o,
  };
}
