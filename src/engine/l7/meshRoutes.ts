/**
 * Istio's routing of a request by a sidecar or an Istio Gateway: the VirtualService that
 * binds the host, its first matching route (faults, rewrites, header operations, retries,
 * mirrors) and the DestinationRule subsets of its weighted destinations.
 */
import type { KObject } from "../parse/manifests.ts";
import type { Pod } from "../model/types.ts";
import type { Service } from "../model/services.ts";
import { lineOf } from "../parse/positions.ts";
import { arr, num, obj, str, strList, strMap } from "../parse/values.ts";
import type { TraceRef } from "../trace/index.ts";
import type { HttpRequest } from "./request.ts";
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
import {
  DOMAIN,
  fqdn,
  hostMatch,
  outboundPolicy,
  serviceOfHost,
  subsetLabels,
  vsAppliesToSidecars,
  vsMatch,
  type MeshInput,
} from "./mesh.ts";
import { vsHttp, type VsMatch } from "./vsHttp.ts";

export interface MeshRoute extends RouteChoice {
  /** The request leaves the cluster to a host the model does not know (passthrough or a ServiceEntry). */
  external?: string;
}

// ---------- rule 3b: what a matched route does besides choosing backends ----------

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
  match: VsMatch | undefined,
): HttpRequest {
  if (!rewrite) return req;
  let out = req;
  const uri = str(rewrite.uri);
  if (uri !== undefined) {
    const m = match?.uri;
    const cut =
      m?.kind === "prefix"
        ? m.value.length
        : m?.kind === "exact" || m?.kind === "regex"
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
    const to = { host: str(dest.host), port: num(obj(dest.port)?.number), subset: str(dest.subset) };
    const b = destinationBackend(input, to, vsNs, port, share, ref, hops);
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
  dest: { host?: string | undefined; port?: number | undefined; subset?: string | undefined },
  vsNs: string,
  port: number,
  weight: number,
  dRef: TraceRef,
  hops: RawHop[],
): ChosenBackend {
  const dHost = fqdn(dest.host ?? "", vsNs, input.model);
  const dPort = dest.port ?? port;
  const subset = dest.subset;
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
  const servesHost = (v: KObject) =>
    vsAppliesToSidecars(input, v) &&
    (input.targets.get(v)?.hosts ?? []).some((h) =>
      hostMatch(fqdn(h, v.namespace ?? "default", input.model), host),
    );
  const vs = input.virtualServices.find(servesHost);
  const rejected = !vs ? input.rejectedVirtualServices.find(({ vs: v }) => servesHost(v)) : undefined;
  if (rejected)
    hops.push({
      step: "mesh route",
      verdict: "info",
      detail: `VirtualService ${rejected.vs.namespace ?? "default"}/${rejected.vs.name} for ${host} does not exist in the cluster: istiod's validation rejects it (admission webhook "validation.istio.io" denied the request: ${rejected.error.error})`,
      ref: refAt(rejected.vs, rejected.error.line || rejected.vs.line, rejected.error.field),
    });
  const se = !service
    ? input.serviceEntries.find((s) =>
        (input.entries.get(s)?.hosts ?? []).some((h) => hostMatch(h.toLowerCase(), host)),
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

/** A route that answers by itself: a redirect, or a direct response (an error status decides the request). */
function answeredByRoute(
  r: Record<string, unknown>,
  i: number,
  rRef: TraceRef,
  at: { hostName: string; port: number; path: string },
  hops: RawHop[],
): MeshRoute | undefined {
  const redirect = obj(r.redirect);
  if (redirect) {
    const status = num(redirect.redirectCode) ?? 301;
    const rd = {
      scheme: str(redirect.scheme) ?? "http",
      host: str(redirect.authority) ?? at.hostName,
      port: num(redirect.port) ?? at.port,
      path: str(redirect.uri) ?? at.path,
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
  return undefined;
}

/** The share of requests fault.abort answers: a backend that never receives them (the sidecar answers first). */
function abortedShare(
  namespace: string,
  name: string,
  port: number,
  share: number,
  status: number,
  ref: TraceRef,
): ChosenBackend {
  return {
    namespace,
    service: name,
    port,
    weight: share,
    ref,
    invalid: { status, reason: `fault.abort: the sidecar answers ${status} itself`, ref },
    missingStatus: status,
  };
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
  const http = input.http.get(vs) ?? vsHttp(vs);
  for (let i = 0; i < http.routes.length; i++) {
    const r = http.routes[i]!;
    const mi = r.matches.length === 0 ? 0 : r.matches.findIndex((m) => vsMatch(m, req, port, client));
    if (mi < 0) continue;
    const match = r.matches[mi];
    const rRef = refAt(vs, match?.line || r.line, `spec.http[${i}]`);
    hops.push({
      step: "mesh route",
      verdict: "pass",
      detail: `VirtualService ${vsNs}/${vs.name} http route ${i + 1}${r.name ? ` (${r.name})` : ""} ${r.matches.length ? `matches (match ${mi + 1})` : "has no match: it takes every request that reaches it"}${i > 0 ? `, after ${i} earlier route${i === 1 ? "" : "s"} did not match` : ""}`,
      ref: rRef,
    });
    // Fault injection (HTTPFaultInjection): Envoy's fault filter acts before the route's action.
    const abort = r.fault?.abort;
    const abortStatus = abort?.status;
    const abortShare = abort?.share ?? 0;
    const abortRef = refAt(vs, abort?.line || rRef.line, `spec.http[${i}].fault.abort`);
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
    const delay = r.fault?.delay;
    if (delay)
      hops.push({
        step: "filter",
        verdict: "info",
        detail: `fault.delay: ${pct(delay.share)} of matching requests wait ${delay.text ?? "a delay"} before the sidecar routes them: the same answer, later`,
        ref: refAt(vs, delay.line || rRef.line, `spec.http[${i}].fault.delay`),
      });
    const a = r.action;
    const answered = answeredByRoute(a, i, rRef, { hostName, port, path: req.path }, hops);
    if (answered) return answered;
    const backends: ChosenBackend[] = [];
    // What the route does to the request on its way (rewrite, header operations): the backends' server sidecars judge that request.
    const routeReq = withHeaderOps(rewritten(req, obj(a.rewrite), match), obj(obj(a.headers)?.request));
    const changes = requestChanges(req, routeReq);
    if (changes)
      hops.push({
        step: "filter",
        verdict: "info",
        detail: `the route rewrites the request: the backends receive ${changes}`,
        ref: refAt(
          vs,
          lineOf(a, a.rewrite !== undefined ? "rewrite" : "headers") || rRef.line,
          `spec.http[${i}].${a.rewrite !== undefined ? "rewrite" : "headers"}`,
        ),
      });
    r.destinations.forEach((d, k) => {
      if (d.share <= 0) return;
      const dRef = refAt(vs, d.line, `spec.http[${i}].route[${k}]`);
      const b = destinationBackend(input, d, vsNs, port, d.share, dRef, hops);
      const own = withHeaderOps(routeReq, d.headers);
      if (requestChanges(req, own)) b.request = own;
      backends.push(b);
    });
    if (abortShare > 0 && abortStatus !== undefined) {
      // The aborted share never reaches a backend: the sidecar answers it (Envoy's fault filter runs before the router).
      for (const b of backends) b.weight *= 1 - abortShare;
      backends.push(abortedShare(vsNs, vs.name, port, abortShare, abortStatus, abortRef));
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
    if (r.timeout)
      hops.push({
        step: "filter",
        verdict: "info",
        detail: `timeout ${r.timeout.text}: a backend that answers later gets the client a 504 from the sidecar (backend latency is not modelled)`,
        ref: refAt(vs, r.timeout.line || rRef.line, `spec.http[${i}].timeout`),
      });
    const out: MeshRoute = { layer: "Istio", hops, backends };
    const retries = retryPolicy(vs, a, i, rRef);
    if (retries) out.retries = retries;
    const mirrors = mirrorsOf(input, vs, a, i, vsNs, port, hops);
    if (mirrors.length) out.mirrors = mirrors;
    return out;
  }
  const vRef = refAt(vs, http.line, "spec.http");
  hops.push({
    step: "mesh route",
    verdict: "drop",
    detail: `no http route of VirtualService ${vsNs}/${vs.name} matches ${req.method} ${req.path}: the sidecar answers 404`,
    ref: vRef,
  });
  return { layer: "Istio", hops, status: 404, backends: [], decidedBy: decidedAt("Istio", vRef) };
}

// ---------- rules 5 and 6: the server's sidecar ----------
