/**
 * What the L7 routers share: references to the YAML, hostname matching, the
 * choice a router makes (weighted backends or an answer of its own) and the
 * layer that decided a refused request (shared/contract/ktl-cli.md
 * `decidedBy`).
 */
import type { KObject } from "../parse/manifests.ts";
import type { HopCause, HopStep, TraceHop, TraceRef } from "../trace/index.ts";
import type { HttpRequest } from "./request.ts";

export type L7Layer = "Gateway" | "Ingress" | "Istio";

/** shared/contract/ktl-cli.md `decidedBy`. */
export interface DecidedBy {
  layer: string;
  kind?: string;
  namespace?: string;
  name?: string;
  rule?: string;
  line?: number;
}

export interface Redirect {
  scheme: string;
  host: string;
  port: number;
  path: string;
}

/** One backend a router sends a share of the requests to. */
export interface ChosenBackend {
  namespace: string;
  /** The Service's name. */
  service: string;
  /** The Service port, by number or name (Ingress allows a name). */
  port: number | string;
  /** Mesh subset name (DestinationRule). */
  subset?: string;
  /** Pod labels the subset selects (DestinationRule subsets[].labels). */
  subsetLabels?: Record<string, string>;
  /** Share of all requests (0..1). */
  weight: number;
  ref?: TraceRef;
  /** The backend is invalid (not found, not permitted): its share is answered by the router with this status. */
  invalid?: { status: number; reason: string; ref?: TraceRef };
  /** What the router answers when the Service is missing or has no ready endpoint. */
  missingStatus: number;
  /** The request as this backend receives it, when the route rewrote it (Istio rewrite, header operations). */
  request?: HttpRequest;
}

/** A copy of some requests sent to another backend, whose answer the router discards (Istio mirror). */
export interface MirrorChoice {
  backend: ChosenBackend;
  /** Share of the route's requests copied (0..1). */
  share: number;
  ref?: TraceRef;
}

/** How the router retries a failed attempt (Istio HTTPRetry; the mesh default when the route sets none). */
export interface RetryChoice {
  attempts: number;
  retryOn: string;
  /** The mesh's default policy, not the route's. */
  default: boolean;
  ref?: TraceRef;
}

/** A hop as a router writes it: what it is about ("gateway listener", "mesh route"...), before it becomes a TraceHop. */
export interface RawHop {
  step: string;
  verdict: TraceHop["verdict"];
  detail: string;
  ref?: TraceRef;
  endpoints?: string[];
}

type L7Category = Extract<HopCause, { layer: L7Layer }>["category"];

/** A router's words for its hops -> the trace's step and the cause's category. */
const STEPS: Record<string, [HopStep, L7Category, L7Category?]> = {
  gateway: ["router", "router"],
  "ingress controller": ["router", "router"],
  "ingress class": ["router", "router"],
  sidecar: ["router", "router"],
  dns: ["dns", "router"],
  "gateway listener": ["listener", "listener", "no-route"],
  route: ["route", "route", "no-route"],
  "route rule": ["route", "route", "no-route"],
  "ingress rule": ["route", "route", "no-route"],
  "mesh route": ["route", "route", "no-route"],
  "service entry": ["route", "route"],
  filter: ["filter", "filter"],
  redirect: ["filter", "redirect"],
  backend: ["backend", "backend", "invalid-backend"],
  "reference grant": ["backend", "backend"],
  "destination rule": ["backend", "backend"],
  "proxy to backend": ["proxy to backend", "backend", "invalid-backend"],
  "outbound traffic policy": ["outbound traffic policy", "outbound", "outbound"],
  "peer authentication": ["server sidecar", "mtls", "mtls"],
  "server sidecar": ["server sidecar", "authorization", "authorization"],
};

/** A router's hop as a TraceHop: its step, and its cause (the layer, the category, the object named by its ref). */
export function l7Hop(layer: L7Layer, h: RawHop): TraceHop {
  const [step, category, dropCategory] = STEPS[h.step] ?? ["route", "route"];
  const cause: HopCause = { layer, category: h.verdict === "drop" && dropCategory ? dropCategory : category };
  if (h.ref)
    cause.object = {
      kind: h.ref.kind,
      name: h.ref.name,
      ...(h.ref.namespace !== undefined ? { namespace: h.ref.namespace } : {}),
    };
  const out: TraceHop = { step, verdict: h.verdict, detail: h.detail, cause };
  if (h.ref) out.ref = h.ref;
  if (h.endpoints) out.endpoints = h.endpoints;
  return out;
}

/** A router's decision for one request. */
export interface RouteChoice {
  layer: L7Layer;
  hops: RawHop[];
  /** The router answers itself (404, 403, a redirect...): no backend. */
  status?: number;
  redirect?: Redirect;
  backends: ChosenBackend[];
  /** Set with `status`: the object that decided. */
  decidedBy?: DecidedBy;
  /** Copies of the requests to other backends (their answers are discarded). */
  mirrors?: MirrorChoice[];
  /** Retries of a failed attempt on another endpoint. */
  retries?: RetryChoice;
}

export function refAt(o: KObject, line?: number, field?: string): TraceRef {
  const r: TraceRef = { kind: o.kind, name: o.name, line: line || o.line, file: o.file };
  if (o.namespace !== undefined) r.namespace = o.namespace;
  if (field) r.field = field;
  return r;
}

export function decidedAt(layer: string, ref: TraceRef | undefined, rule?: string): DecidedBy {
  const d: DecidedBy = { layer };
  if (ref) {
    d.kind = ref.kind;
    if (ref.namespace !== undefined) d.namespace = ref.namespace;
    d.name = ref.name;
    d.line = ref.line;
  }
  if (rule) d.rule = rule;
  return d;
}

/**
 * Gateway API hostname matching (apis/v1/shared_types.go Hostname): a
 * wildcard `*.example.com` matches any name with that suffix and at least one
 * more label, however many (`a.b.example.com` too), never `example.com`.
 */
export function gatewayHostMatches(pattern: string, host: string): boolean {
  const p = pattern.toLowerCase();
  if (!p.startsWith("*.")) return p === host;
  return host.endsWith(p.slice(1)) && host.length > p.length - 1;
}

/**
 * Ingress hostname matching (networking.k8s.io/v1 IngressRule.host): a
 * wildcard `*.foo.com` covers exactly one DNS label (bar.foo.com, not
 * baz.bar.foo.com nor foo.com).
 */
export function ingressHostMatches(pattern: string, host: string): boolean {
  const p = pattern.toLowerCase();
  if (!p.startsWith("*.")) return p === host;
  if (!host.endsWith(p.slice(1))) return false;
  const label = host.slice(0, host.length - p.length + 1);
  return label.length > 0 && !label.includes(".");
}

/** How specific a hostname match is: exact beats any wildcard, a longer wildcard beats a shorter one, any host comes last. */
export function hostSpecificity(pattern: string | undefined): number {
  if (pattern === undefined || pattern === "" || pattern === "*") return 0;
  return pattern.startsWith("*.") ? 1000 + pattern.length : 100000 + pattern.length;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

export function pct(w: number): string {
  return `${Math.round(w * 10000) / 100}%`;
}
