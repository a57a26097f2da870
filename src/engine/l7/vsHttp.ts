/**
 * A VirtualService's http routes read once per model (rule 3 of mesh.ts): each route's
 * match conditions, its destinations with the share of requests each receives, its fault
 * injection and timeout, with their lines. The sidecar's routing (meshRoutes.ts) and the
 * graph's router edges (analysis/routers.ts) both read these, so they split a route alike.
 * What a taken route does to the request on its way (rewrite, header operations, retries,
 * mirrors, redirect, directResponse) is read from `action`, the route's own object, when a
 * request takes that route.
 */
import type { KObject } from "../parse/manifests.ts";
import { lineOf } from "../parse/positions.ts";
import { arr, isObj, num, obj, str, strMap } from "../parse/values.ts";

/** Istio's StringMatch: `any` is an object with none of exact, prefix or regex (the value must be present). */
export type StringMatch = { kind: "exact" | "prefix" | "regex"; value: string } | { kind: "any" };

export interface VsMatch {
  uri?: StringMatch;
  ignoreUriCase: boolean;
  method?: StringMatch;
  /** `present`: `{}`, the header must be sent, whatever its value. */
  headers: { name: string; match: StringMatch | "present" }[];
  queryParams: { name: string; match: StringMatch }[];
  /** A non-object withoutHeaders value rejects every request (stringMatch of nothing written matches). */
  withoutHeaders: { name: string; match: StringMatch | undefined }[];
  port?: number;
  sourceLabels: Record<string, string>;
  sourceNamespace?: string;
  line: number;
}

export interface VsDestination {
  /** destination.host as written (relative to the VirtualService's namespace). */
  host?: string;
  port?: number;
  subset?: string;
  /** The share of the route's requests it receives (rule 3): weight / sum, one destination alone 1, no weights at all an even split. */
  share: number;
  /** headers.request: what this destination's requests carry besides the route's own operations. */
  headers?: Record<string, unknown>;
  line: number;
}

/** Lines here are 0 when the position is unknown (the route's match line stands in). */
export interface VsFault {
  /** fault.abort: the sidecar answers `status` itself to `share` of matching requests (0 without httpStatus). */
  abort?: { status?: number; share: number; line: number };
  delay?: { share: number; text?: string; line: number };
}

export interface VsHttpRoute {
  name?: string;
  line: number;
  matches: VsMatch[];
  destinations: VsDestination[];
  fault?: VsFault;
  timeout?: { text: string; line: number };
  /** The route's own object: rewrite, headers, retries, mirror(s), redirect, directResponse. */
  action: Record<string, unknown>;
}

export interface VsHttp {
  routes: VsHttpRoute[];
  /** The line of spec.http (else of the object). */
  line: number;
}

/** HTTPFaultInjection's share of requests: `percentage.value` (0-100), the deprecated `percent`, else every request. */
export function faultShare(f: Record<string, unknown>): number {
  const p = num(obj(f.percentage)?.value) ?? num(f.percent);
  if (p === undefined) return 1;
  return Math.min(1, Math.max(0, p / 100));
}

function stringMatchOf(x: unknown): StringMatch | undefined {
  const o = obj(x);
  if (!o) return undefined;
  for (const kind of ["exact", "prefix", "regex"] as const) {
    const value = str(o[kind]);
    if (value !== undefined) return { kind, value };
  }
  return { kind: "any" };
}

function matchOf(m: Record<string, unknown>): VsMatch {
  const out: VsMatch = {
    ignoreUriCase: m.ignoreUriCase === true,
    headers: [],
    queryParams: [],
    withoutHeaders: [],
    sourceLabels: strMap(m.sourceLabels),
    line: lineOf(m),
  };
  const uri = stringMatchOf(m.uri);
  if (uri) out.uri = uri;
  const method = stringMatchOf(m.method);
  if (method) out.method = method;
  for (const [name, sm] of Object.entries(obj(m.headers) ?? {})) {
    if (isObj(sm) && Object.keys(sm).length === 0) out.headers.push({ name, match: "present" });
    else {
      const match = stringMatchOf(sm);
      if (match) out.headers.push({ name, match });
    }
  }
  for (const [name, sm] of Object.entries(obj(m.queryParams) ?? {})) {
    const match = stringMatchOf(sm);
    if (match) out.queryParams.push({ name, match });
  }
  for (const [name, sm] of Object.entries(obj(m.withoutHeaders) ?? {}))
    out.withoutHeaders.push({ name, match: stringMatchOf(sm) });
  const port = num(m.port);
  if (port !== undefined) out.port = port;
  const sn = str(m.sourceNamespace);
  if (sn !== undefined) out.sourceNamespace = sn;
  return out;
}

function destinationsOf(r: Record<string, unknown>): VsDestination[] {
  const dests = arr(r.route).filter(isObj);
  const weights = dests.map((d) => num(d.weight));
  const anyWeight = weights.some((w) => w !== undefined);
  const raw = dests.map((_, k) => (dests.length === 1 ? 1 : anyWeight ? (weights[k] ?? 0) : 1));
  const total = raw.reduce((a, b) => a + b, 0) || 1;
  return dests.map((d, k) => {
    const dest = obj(d.destination) ?? {};
    const out: VsDestination = { share: raw[k]! / total, line: lineOf(d) };
    const host = str(dest.host);
    if (host !== undefined) out.host = host;
    const port = num(obj(dest.port)?.number);
    if (port !== undefined) out.port = port;
    const subset = str(dest.subset);
    if (subset !== undefined) out.subset = subset;
    const headers = obj(obj(d.headers)?.request);
    if (headers) out.headers = headers;
    return out;
  });
}

function faultOf(r: Record<string, unknown>): VsFault | undefined {
  const fault = obj(r.fault);
  if (!fault) return undefined;
  const out: VsFault = {};
  const abort = obj(fault.abort);
  if (abort) {
    const status = num(abort.httpStatus);
    const line = lineOf(fault, "abort");
    out.abort = status === undefined ? { share: 0, line } : { status, share: faultShare(abort), line };
  }
  const delay = obj(fault.delay);
  if (delay) {
    const text = str(delay.fixedDelay) ?? str(delay.exponentialDelay);
    const d = { share: faultShare(delay), line: lineOf(fault, "delay") };
    out.delay = text === undefined ? d : { ...d, text };
  }
  return out;
}

export function vsHttp(vs: KObject): VsHttp {
  const spec = obj(vs.raw.spec);
  const routes = arr(spec?.http).map((x): VsHttpRoute => {
    const r = obj(x) ?? {};
    const line = lineOf(x);
    const route: VsHttpRoute = {
      line,
      matches: arr(r.match).map((m) => matchOf(obj(m) ?? {})),
      destinations: destinationsOf(r),
      action: r,
    };
    const name = str(r.name);
    if (name !== undefined) route.name = name;
    const fault = faultOf(r);
    if (fault) route.fault = fault;
    const timeout = str(r.timeout);
    if (timeout !== undefined) route.timeout = { text: timeout, line: lineOf(r, "timeout") };
    return route;
  });
  return { routes, line: lineOf(spec, "http") || vs.line };
}
