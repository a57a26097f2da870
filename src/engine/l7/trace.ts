/**
 * A request through an L7 router, composed from the layers below it:
 *
 *   client --(kube-proxy, NetworkPolicy: traceRequest)--> the router's pods
 *          (Gateway data plane, ingress controller, or the client's own sidecar)
 *   router --(its route choice: gateway.ts, ingress.ts, mesh.ts)--> weighted backends
 *   router pod --(NetworkPolicy and every lower layer: traceRequest from that pod)--> each backend pod
 *   backend's sidecar (PeerAuthentication, AuthorizationPolicy: mesh.ts)
 *
 * The proxy sends to the backend pods itself (pod IP and target port, an
 * equal share per ready endpoint), as Envoy-based gateways, ingress-nginx and
 * sidecars do, so an endpoint's probability is the backend's weight times
 * 1/its ready endpoints, and the lower layers are judged from the proxy pod,
 * by the same traceRequest that judges any pod-to-pod request (so every
 * policy layer it knows applies here too).
 *
 * Conventions, where the input does not say:
 * - A Gateway's data plane: pods in its namespace labelled
 *   gateway.networking.k8s.io/gateway-name=NAME and the Service so labelled
 *   (or selecting them) with the listener's port, as Istio's and other
 *   implementations' automated deployments create them.
 * - An ingress controller: for controller k8s.io/ingress-nginx (or an
 *   Ingress without class), pods labelled app.kubernetes.io/name=ingress-nginx
 *   and app.kubernetes.io/component=controller, entered through the Service
 *   selecting them (ingress-nginx's deploy.yaml).
 * - `httpStatus` 200 stands for "reaches a backend pod"; a proxy whose every
 *   upstream connection a lower layer drops answers 503 (the contract).
 */
import type { KObject } from "../parse/manifests.ts";
import type { Model, Pod, PodKey, Protocol } from "../model/types.ts";
import type { Service } from "../model/services.ts";
import { matchesSelector, parseLabelSelector } from "../model/labels.ts";
import { findServicePort, type ProxyIndex } from "../proxy/index.ts";
import { lineOf } from "../parse/yaml.ts";
import { arr, isObj, num, obj, str, strList, strMap } from "../parse/values.ts";
import { parseIP } from "../model/ip.ts";
import {
  parseTraceSource,
  parseTraceDestination,
  traceRequest,
  type TraceDestination,
  type TraceEndpoint,
  type HopCause,
  type TraceHop,
  type TraceRef,
  type TraceResult,
  type TraceSource,
  type TraceVerdict,
} from "../trace/index.ts";
import { emptyResult } from "../trace/result.ts";
import { formatRequest, hostOf, toL7Request, toWire, type HttpRequest, type WireRequest } from "./request.ts";
import { ASSUMED_FILE, boundVirtualServices } from "../load/cluster.ts";
import {
  decidedAt,
  l7Hop,
  plural,
  pct,
  refAt,
  type DecidedBy,
  type RawHop,
  type L7Layer,
  type Redirect,
  type RouteChoice,
} from "./common.ts";
import {
  GATEWAY_NAME_LABEL,
  gatewayInput,
  parseGateway,
  routeGateway,
  type GatewayInput,
} from "./gateway.ts";
import { routeIngress } from "./ingress.ts";
import {
  DOMAIN,
  fqdn,
  hostMatch,
  meshInput,
  routeMesh,
  routeVirtualService,
  serverSidecar,
  serviceOfHost,
  sidecarOf,
  type MeshInput,
} from "./mesh.ts";

export type L7Destination =
  | { kind: "gateway"; gateway: string; port: number }
  | { kind: "ingress"; ingress: string; port: number }
  | { kind: "host"; host: string; port: number };

export interface L7Backend {
  service: string;
  port: number;
  subset?: string;
  weight: number;
  ref?: TraceRef;
}

/** TraceResult plus the contract's L7 fields. */
export interface L7TraceResult extends TraceResult {
  backends?: L7Backend[];
  httpStatus?: number;
  redirect?: Redirect;
  decidedBy?: DecidedBy;
  request?: { method: string; path: string; headers: Record<string, string> };
  /** Copies of the request a mesh route sends elsewhere (Istio mirror): each copy's own verdict; the client never sees its answer. */
  mirrors?: {
    service: string;
    port: number | string;
    subset?: string;
    share: number;
    verdict: TraceVerdict;
    reason: string;
  }[];
  /** What the cluster profile assumed that this answer used (an ingress gateway, a sidecar), in words. */
  assumed?: string[];
  /** The mesh route's retries, and the share of requests still failing after every attempt (connections a lower layer refuses are retried on another endpoint). */
  retries?: { attempts: number; retryOn: string; default: boolean; failShare: number };
  /** The L7 router the request went through, for the views. */
  router?: { layer: L7Layer; kind: string; namespace?: string; name: string; pods: PodKey[]; ref?: TraceRef };
}

/** `gateway:NS/NAME:PORT`, `ingress:NS/NAME:PORT` or `host:NAME:PORT`; undefined for the other kinds. */
export function parseL7Destination(text: string): L7Destination | { error: string } | undefined {
  const m = /^(gateway|ingress|host):(.*)$/.exec(text);
  if (!m) return undefined;
  const kind = m[1]!;
  const rest = m[2]!;
  const last = rest.lastIndexOf(":");
  const head = last > 0 ? rest.slice(0, last) : "";
  const portText = last > 0 ? rest.slice(last + 1) : "";
  const port = /^\d+$/.test(portText) ? Number(portText) : NaN;
  if (!(port >= 1 && port <= 65535))
    return {
      error: `--to ${text}: expected ${kind === "host" ? "host:NAME:PORT" : `${kind}:NAMESPACE/NAME:PORT`} with a port from 1 to 65535`,
    };
  if (kind === "host") {
    if (!/^[A-Za-z0-9*]([-A-Za-z0-9.]*[A-Za-z0-9])?$/.test(head))
      return { error: `--to ${text}: expected host:NAME:PORT (a DNS name)` };
    return { kind, host: head.toLowerCase(), port };
  }
  if (!/^[^/\s:]+\/[^/\s:]+$/.test(head))
    return { error: `--to ${text}: expected ${kind}:NAMESPACE/NAME:PORT` };
  return kind === "gateway" ? { kind, gateway: head, port } : { kind: "ingress", ingress: head, port };
}

/** Every destination of the contract. */
export function parseAnyDestination(text: string): TraceDestination | L7Destination | { error: string } {
  const l7 = parseL7Destination(text);
  if (l7) return l7;
  const d = parseTraceDestination(text);
  if ("error" in d)
    return {
      error: d.error.replace(
        /expected service:NAMESPACE\/NAME:PORT, pod:NAMESPACE\/NAME:PORT or ip:ADDRESS:PORT$/,
        "expected service:, pod:, ip:, gateway:, ingress: or host: (see ktl trace --help)",
      ),
    };
  return d;
}

const LAYER_OF_KIND: Record<string, string> = {
  NetworkPolicy: "NetworkPolicy",
  AdminNetworkPolicy: "AdminNetworkPolicy",
  BaselineAdminNetworkPolicy: "BaselineAdminNetworkPolicy",
  CiliumNetworkPolicy: "CiliumNetworkPolicy",
  CiliumClusterwideNetworkPolicy: "CiliumNetworkPolicy",
  GlobalNetworkPolicy: "CalicoNetworkPolicy",
  Tier: "CalicoNetworkPolicy",
  AuthorizationPolicy: "Istio",
  PeerAuthentication: "Istio",
};

function layerOfRef(ref: TraceRef | undefined): string | undefined {
  if (!ref) return undefined;
  if (ref.kind === "ClusterNetworkPolicy")
    return ref.field?.includes("Baseline") ? "BaselineAdminNetworkPolicy" : "AdminNetworkPolicy";
  return LAYER_OF_KIND[ref.kind];
}

/** The layer that dropped a plain trace (contract `decidedBy`), from the trace's own decisions. */
export function decidedByOf(t: TraceResult & { decidedBy?: DecidedBy }): DecidedBy | undefined {
  if (t.verdict !== "drop") return undefined;
  if (t.decidedBy) return t.decidedBy;
  const ep = t.endpoints.find((e) => e.verdict === "drop");
  if (ep) {
    const check = ep.egress.verdict === "drop" ? ep.egress : ep.ingress;
    const layer = layerOfRef(check.ref) ?? (check.verdict === "drop" ? "NetworkPolicy" : undefined);
    if (layer) return decidedAt(layer, check.ref);
  }
  const drops = t.hops.filter((h) => h.verdict === "drop" && h.step !== "load balancer health check");
  const h = drops[0] ?? t.hops.find((x) => x.verdict === "drop");
  if (h) return decidedAt(layerOfRef(h.ref) ?? "kube-proxy", h.ref);
  return { layer: "kube-proxy" };
}

interface Entry {
  /** The proxy pods the request reaches, with their share. */
  proxies: { pod: Pod; share: number }[];
  hops: TraceHop[];
  /** The way in, when it was traced. */
  trace?: TraceResult;
  ip: string;
}

function labelsOf(s: Service): Record<string, string> {
  return strMap(obj(s.raw.metadata)?.labels);
}

/** The client's way to a router's pods: through `service` (kube-proxy), or straight to the pods. */
function enter(
  layer: L7Layer,
  model: Model,
  index: ProxyIndex,
  from: TraceSource,
  pods: Pod[],
  service: Service | undefined,
  port: number,
  protocol: Protocol,
  what: string,
): Entry | { dropped: TraceResult } {
  if (service) {
    const t = traceRequest(model, index, from, { kind: "service", service: service.key, port }, protocol);
    if (t.error) return { dropped: t };
    const proxies: Entry["proxies"] = [];
    for (const e of t.endpoints) {
      const pod = e.pod ? model.podsByKey.get(e.pod) : undefined;
      if (pod && e.verdict === "allow") proxies.push({ pod, share: e.probability });
    }
    const hops = t.hops.map((h) => ({ ...h }));
    if (proxies.length === 0) return { dropped: t };
    return { proxies, hops, trace: t, ip: t.to.ip };
  }
  const ready = pods.filter((p) => p.ready && p.nodeName);
  const hops: TraceHop[] = [];
  if (ready.length === 0) {
    hops.push(
      l7Hop(layer, {
        step: "destination",
        verdict: "info",
        detail: `${what}: no pod of its data plane is in the input, so the way in and the lower layers on the way out are not evaluated`,
      }),
    );
    return { proxies: [], hops, ip: "" };
  }
  if (from.kind !== "pod") {
    const t = traceRequest(model, index, from, { kind: "pod", pod: ready[0]!.key, port }, protocol);
    return {
      dropped: {
        ...t,
        verdict: "drop",
        reason: `${what} has no Service in the input to enter from outside the cluster`,
      },
    };
  }
  const proxies: Entry["proxies"] = [];
  for (const p of ready) {
    const t = traceRequest(model, index, from, { kind: "pod", pod: p.key, port }, protocol);
    if (t.verdict === "allow") proxies.push({ pod: p, share: 1 / ready.length });
    hops.push(...t.hops.filter((h) => h.step !== "source" || p === ready[0]));
  }
  if (proxies.length === 0) {
    const t = traceRequest(model, index, from, { kind: "pod", pod: ready[0]!.key, port }, protocol);
    return { dropped: t };
  }
  return { proxies, hops, ip: ready[0]!.ips[0] ?? "" };
}

interface Resolved {
  backends: L7Backend[];
  endpoints: TraceEndpoint[];
  hops: TraceHop[];
  /** Share of requests answered by the router itself, by status. */
  lost: Map<number, { share: number; reason: string; ref?: TraceRef }>;
}

/** Ready endpoints of a Service port behind `b` (subset labels applied). */
function backendEndpoints(
  model: Model,
  index: ProxyIndex,
  s: Service,
  port: number,
  subset?: Record<string, string>,
) {
  const sp = findServicePort(s, port, "TCP") ?? findServicePort(s, port);
  if (!sp) return undefined;
  const pe =
    index.services.get(s.key)?.ports.find((p) => p.name === sp.name && p.protocol === sp.protocol) ??
    index.services.get(s.key)?.ports[sp.index];
  const all = pe ? [...pe.v4, ...pe.v6] : [];
  return {
    sp,
    endpoints: all.filter((e) => {
      if (!e.ready) return false;
      if (!subset) return true;
      const pod = e.pod ? model.podsByKey.get(e.pod) : model.podsByIP.get(e.ip);
      return !!pod && Object.entries(subset).every(([k, v]) => pod.labels[k] === v);
    }),
  };
}

/** From the proxies to every chosen backend's ready endpoints, judged by the lower layers and the backend's sidecar. */
function resolveBackends(
  model: Model,
  index: ProxyIndex,
  mesh: MeshInput,
  choice: RouteChoice,
  proxies: { pod: Pod; share: number }[],
  proxyMtls: (p: Pod) => boolean,
  req: HttpRequest | undefined,
  protocol: Protocol,
  clientIsProxy = false,
): Resolved {
  const out: Resolved = { backends: [], endpoints: [], hops: [], lost: new Map() };
  const lose = (status: number, share: number, reason: string, ref?: TraceRef) => {
    const prev = out.lost.get(status);
    out.lost.set(status, {
      share: (prev?.share ?? 0) + share,
      reason: prev?.reason ?? reason,
      ...(prev?.ref ? { ref: prev.ref } : ref ? { ref } : {}),
    });
    const hop: RawHop = {
      step: "backend",
      verdict: "drop",
      detail: `${pct(share)} of requests: ${reason}`,
    };
    if (ref) hop.ref = ref;
    out.hops.push(l7Hop(choice.layer, hop));
  };
  const seenHops = new Set<string>();
  // The lower layers' decisions, one hop per (step, verdict, deciding object), listing the endpoints it covers.
  const grouped = new Map<string, { hop: TraceHop; eps: Set<string>; more: number }>();
  const addHop = (h: TraceHop, ep: string) => {
    const key = `${h.step}|${h.verdict}|${h.ref ? `${h.ref.kind}/${h.ref.namespace ?? ""}/${h.ref.name}/${h.ref.line}` : h.detail}`;
    const g = grouped.get(key);
    if (g) {
      if (!g.eps.has(ep)) g.eps.add(ep);
      else g.more++;
      return;
    }
    const hop: TraceHop = { ...h, endpoints: [ep] };
    out.hops.push(hop);
    grouped.set(key, { hop, eps: new Set([ep]), more: 0 });
  };
  const finishHops = () => {
    for (const g of grouped.values()) {
      g.hop.endpoints = [...g.eps];
      const extra = g.eps.size - 1;
      if (extra > 0 || g.more > 0)
        g.hop.detail = `${g.hop.detail}${extra > 0 ? ` (likewise for ${plural(extra, "more endpoint")})` : ""}${g.more > 0 && proxies.length > 1 ? ` (the same from each of the ${proxies.length} proxy pods)` : ""}`;
    }
  };
  for (const b of choice.backends) {
    if (b.invalid) {
      lose(b.invalid.status, b.weight, b.invalid.reason, b.invalid.ref);
      continue;
    }
    const s = model.services.find((x) => x.namespace === b.namespace && x.name === b.service);
    if (!s) {
      lose(
        b.missingStatus,
        b.weight,
        `Service ${b.namespace}/${b.service} is not in the input: ${b.missingStatus}`,
        b.ref,
      );
      continue;
    }
    const portNum =
      typeof b.port === "number" ? b.port : (s.ports.find((p) => p.name === b.port)?.port ?? -1);
    const be = backendEndpoints(model, index, s, portNum, b.subsetLabels);
    if (!be) {
      lose(b.missingStatus, b.weight, `Service ${s.key} has no port ${b.port}: ${b.missingStatus}`, b.ref);
      continue;
    }
    const backend: L7Backend = { service: s.key, port: be.sp.port, weight: b.weight };
    if (b.subset) backend.subset = b.subset;
    if (b.ref) backend.ref = b.ref;
    out.backends.push(backend);
    if (be.endpoints.length === 0) {
      lose(
        503,
        b.weight,
        `Service ${s.key}${b.subset ? ` subset ${b.subset}` : ""} has no ready endpoint: 503`,
        refAt({
          kind: "Service",
          name: s.name,
          namespace: s.namespace,
          file: s.source.file,
          line: s.source.line,
          apiVersion: "v1",
          raw: {},
          doc: 0,
        } as KObject),
      );
      continue;
    }
    const n = be.endpoints.length;
    out.hops.push(
      l7Hop(choice.layer, {
        step: "proxy to backend",
        verdict: "info",
        detail: `${b.subset ? `subset ${b.subset} of ` : ""}Service ${s.key}:${be.sp.port}: ${plural(n, "ready endpoint")}, each ${pct(b.weight / n)} of requests (weight ${pct(b.weight)} x 1/${n}); the proxy sends to pod IP and target port itself`,
        ...(b.ref ? { ref: b.ref } : {}),
      }),
    );
    for (const ep of be.endpoints) {
      let merged: TraceEndpoint | undefined;
      for (const px of proxies) {
        const breq = req && b.request ? b.request : req;
        const t = traceRequest(
          model,
          index,
          { kind: "pod", pod: px.pod.key },
          { kind: "ip", ip: ep.ip, port: ep.port },
          protocol,
          breq ? { http: toWire(breq) } : {},
        );
        const e = t.endpoints[0];
        for (const h of t.hops) {
          if (h.step === "source" || h.step === "destination" || h.step === "source address") continue;
          addHop(h, `${ep.ip}:${ep.port}`);
        }
        if (!e) {
          merged ??= {
            ip: ep.ip,
            port: ep.port,
            probability: 0,
            verdict: "drop",
            reason: t.reason,
            sourceIP: "",
            sourceIPPreserved: false,
            egress: { verdict: "drop", isolated: false, reason: t.reason, cause: NOT_EVALUATED("egress") },
            ingress: { verdict: "drop", isolated: false, reason: t.reason, cause: NOT_EVALUATED("ingress") },
          };
          continue;
        }
        let cur: TraceEndpoint = {
          ...e,
          reason: proxies.length > 1 ? `from ${px.pod.key}: ${e.reason}` : e.reason,
        };
        if (cur.verdict === "allow" && mesh.present) {
          const pod = ep.pod ? model.podsByKey.get(ep.pod) : model.podsByIP.get(ep.ip);
          if (pod) {
            const sv = serverSidecar(mesh, pod, { pod: px.pod, mtls: proxyMtls(px.pod) }, ep.port, breq);
            if (sv.sidecar) {
              const key = `sidecar|${pod.key}|${sv.reason}`;
              if (!seenHops.has(key)) {
                seenHops.add(key);
                out.hops.push(
                  l7Hop("Istio", {
                    step: "server sidecar",
                    verdict: sv.verdict === "allow" ? "pass" : "drop",
                    detail: sv.reason,
                    ...(sv.ref ? { ref: sv.ref } : {}),
                    endpoints: [`${ep.ip}:${ep.port}`],
                  }),
                );
              }
            }
            if (sv.verdict === "drop") {
              cur = { ...cur, verdict: "drop", reason: sv.reason };
              (cur as TraceEndpoint & { decidedBy?: DecidedBy; httpStatus?: number }).decidedBy =
                sv.decidedBy ?? { layer: "Istio" };
              if (sv.status) (cur as unknown as { httpStatus?: number }).httpStatus = sv.status;
            }
          }
        }
        if (!merged || (merged.verdict === "allow" && cur.verdict === "drop")) merged = cur;
      }
      if (merged) {
        const viaProxy = proxies.length > 0 && !clientIsProxy;
        const pIP = proxies[0]?.pod.ips[0];
        out.endpoints.push({
          ...merged,
          probability: b.weight / n,
          ...(viaProxy
            ? { sourceIPPreserved: false, sourceIP: proxies.length === 1 && pIP ? pIP : merged.sourceIP }
            : {}),
        });
      }
    }
  }
  finishHops();
  return out;
}

function withRequest(r: L7TraceResult, req: HttpRequest | undefined): void {
  if (req)
    r.request = {
      method: req.method,
      path: req.path + (req.query ? `?${req.query}` : ""),
      headers: req.headers,
    };
}

/** The final verdict, status and deciding layer of a routed request. */
function conclude(
  base: L7TraceResult,
  choice: RouteChoice,
  res: Resolved,
  req: HttpRequest | undefined,
  proxyCount = 1,
): L7TraceResult {
  const r = base;
  r.backends = res.backends;
  r.endpoints = res.endpoints;
  const lostShare = [...res.lost.values()].reduce((a, b) => a + b.share, 0);
  const ok = res.endpoints.filter((e) => e.verdict === "allow");
  const n = res.endpoints.length;
  if (n > 0) {
    r.sourceIPPreserved = res.endpoints.every((e) => e.sourceIPPreserved);
    const seen = new Set(res.endpoints.map((e) => e.sourceIP));
    r.sourceIP =
      seen.size === 1 && (proxyCount <= 1 || r.sourceIPPreserved) ? res.endpoints[0]!.sourceIP : null;
  }
  if (ok.length === n && n > 0 && lostShare < 1e-9) {
    r.verdict = "allow";
    r.reason = `${choice.layer === "Istio" ? (r.router?.kind === "Gateway" ? "the Istio gateway" : "the sidecar") : `the ${choice.layer === "Gateway" ? "gateway" : "ingress controller"}`} routes the request to ${plural(res.backends.length, "backend")}; ${ok.length} of ${n} candidate endpoint${n === 1 ? "" : "s"} ${n === 1 ? "accepts" : "accept"} the connection`;
    if (req) r.httpStatus = 200;
    return r;
  }
  if (ok.length === 0) {
    r.verdict = "drop";
    const firstDrop = res.endpoints.find((e) => e.verdict === "drop") as
      (TraceEndpoint & { decidedBy?: DecidedBy; httpStatus?: number }) | undefined;
    if (firstDrop) {
      r.reason = `dropped: ${n === 1 ? "the only candidate endpoint refuses" : `none of the ${n} candidate endpoints accepts`} the request (${firstDrop.reason})`;
      if (firstDrop.decidedBy) r.decidedBy = firstDrop.decidedBy;
      else {
        const check = firstDrop.egress.verdict === "drop" ? firstDrop.egress : firstDrop.ingress;
        r.decidedBy = decidedAt(layerOfRef(check.ref) ?? "NetworkPolicy", check.ref);
      }
      const statuses = new Set(res.endpoints.map((e) => (e as { httpStatus?: number }).httpStatus));
      if (req) {
        if (statuses.size === 1 && firstDrop.httpStatus) r.httpStatus = firstDrop.httpStatus;
        else if (!firstDrop.httpStatus && r.decidedBy.layer !== "Istio") r.httpStatus = 503;
      }
      return r;
    }
    const [status, lost] = [...res.lost.entries()].sort((a, b) => b[1].share - a[1].share)[0] ?? [
      503,
      { share: 1, reason: "no backend" },
    ];
    r.reason = `dropped: ${lost.reason}`;
    if (req) r.httpStatus = status;
    r.decidedBy = decidedAt(choice.layer, lost.ref);
    return r;
  }
  r.verdict = "partial";
  const bad = res.endpoints.find((e) => e.verdict === "drop");
  r.reason = `${ok.length} of ${n} candidate endpoints accept the request${bad ? `; ${bad.ip}:${bad.port} does not (${bad.reason})` : ""}${lostShare > 0 ? `; ${pct(lostShare)} of requests are answered by the ${choice.layer === "Istio" ? "sidecar" : "router"} itself (${[...res.lost.keys()].join(", ")})` : ""}`;
  return r;
}

function baseResult(t: TraceResult | undefined, protocol: Protocol, port: number): L7TraceResult {
  return t ? { ...t, hops: [...t.hops], endpoints: [] } : emptyResult(protocol, port);
}

function answeredByRouter(
  r: L7TraceResult,
  choice: RouteChoice,
  req: HttpRequest | undefined,
): L7TraceResult {
  r.hops.push(...choice.hops.map((h) => l7Hop(choice.layer, h)));
  r.endpoints = [];
  r.backends = [];
  if (req && choice.status !== undefined) r.httpStatus = choice.status;
  if (choice.redirect) r.redirect = choice.redirect;
  const ok = choice.status !== undefined && choice.status < 400;
  r.verdict = ok ? "allow" : "drop";
  const last = choice.hops[choice.hops.length - 1];
  r.reason = ok
    ? `answered by the ${choice.layer === "Istio" ? "sidecar" : choice.layer.toLowerCase()} itself: ${last?.detail ?? choice.status}`
    : `dropped: ${last?.detail ?? choice.status}`;
  if (!ok) r.decidedBy = choice.decidedBy ?? { layer: choice.layer };
  return r;
}

function droppedOnTheWayIn(
  t: TraceResult,
  req: HttpRequest | undefined,
  to: TraceResult["to"],
  router: L7TraceResult["router"],
): L7TraceResult {
  const r: L7TraceResult = { ...t, to, endpoints: t.endpoints };
  r.verdict = "drop";
  const d = decidedByOf({ ...t, verdict: "drop" });
  if (d) r.decidedBy = d;
  r.reason = `dropped on the way to the ${router?.layer === "Ingress" ? "ingress controller" : "gateway"}: ${t.reason.replace(/^dropped: /, "")}`;
  if (router) r.router = router;
  withRequest(r, req);
  return r;
}

function gatewayTrace(
  model: Model,
  index: ProxyIndex,
  objects: readonly KObject[],
  mesh: MeshInput,
  from: TraceSource,
  to: Extract<L7Destination, { kind: "gateway" }>,
  protocol: Protocol,
  req: HttpRequest,
): L7TraceResult {
  const [ns, name] = to.gateway.split("/") as [string, string];
  const gwObj = objects.find(
    (o) =>
      o.kind === "Gateway" &&
      o.apiVersion.startsWith("gateway.networking.k8s.io/") &&
      (o.namespace ?? "default") === ns &&
      o.name === name,
  );
  if (!gwObj) {
    const istioGw = objects.find(
      (o) =>
        o.kind === "Gateway" &&
        o.apiVersion.startsWith("networking.istio.io/") &&
        (o.namespace ?? "default") === ns &&
        o.name === name,
    );
    if (istioGw) return istioGatewayTrace(model, index, objects, mesh, from, to, protocol, req, istioGw);
    return {
      ...baseResult(undefined, protocol, to.port),
      error: `--to gateway:${to.gateway}:${to.port}: no Gateway ${to.gateway} in the input`,
    };
  }
  const input = l7Inputs(model).gateway;
  const gw = parseGateway(gwObj);
  const pods = model.pods.filter((p) => p.namespace === ns && p.labels[GATEWAY_NAME_LABEL] === name);
  const svc = model.services.find(
    (s) =>
      s.namespace === ns &&
      (labelsOf(s)[GATEWAY_NAME_LABEL] === name || s.selector?.[GATEWAY_NAME_LABEL] === name) &&
      s.ports.some((p) => p.port === to.port),
  );
  const router: L7TraceResult["router"] = {
    layer: "Gateway",
    kind: "Gateway",
    namespace: ns,
    name,
    pods: pods.map((p) => p.key),
    ref: refAt(gwObj),
  };
  const toPoint = {
    kind: "gateway",
    name: to.gateway,
    ip: gw.addresses[0] ?? svc?.loadBalancerIPs[0] ?? svc?.clusterIPs[0] ?? "",
    port: to.port,
  };
  const entry = enter("Gateway", model, index, from, pods, svc, to.port, protocol, `Gateway ${to.gateway}`);
  if ("dropped" in entry) {
    if (entry.dropped.error) return { ...entry.dropped, error: entry.dropped.error };
    return droppedOnTheWayIn(entry.dropped, req, toPoint, router);
  }
  const r = baseResult(entry.trace, protocol, to.port);
  r.to = toPoint;
  r.router = router;
  withRequest(r, req);
  if (!entry.trace) r.hops = [...entry.hops];
  r.hops.push(
    l7Hop("Gateway", {
      step: "gateway",
      verdict: "info",
      detail: `Gateway ${to.gateway} (class ${gw.className || "none"})${pods.length ? `: data plane ${plural(pods.length, "pod")} labelled ${GATEWAY_NAME_LABEL}=${name}${svc ? `, Service ${svc.key}` : ""}` : ""}; the request: ${formatRequest(req)}`,
      ref: refAt(gwObj),
    }),
  );
  const host = toPoint.ip;
  const choice = routeGateway(input, gw, to.port, req, host);
  if (choice.backends.length === 0) return answeredByRouter(r, choice, req);
  r.hops.push(...choice.hops.map((h) => l7Hop(choice.layer, h)));
  const res = resolveBackends(
    model,
    index,
    mesh,
    choice,
    entry.proxies,
    (p) => sidecarOf(p, model).on || p.labels["gateway.istio.io/managed"] !== undefined,
    req,
    protocol,
  );
  r.hops.push(...res.hops);
  return conclude(r, choice, res, req, entry.proxies.length);
}

/**
 * An Istio Gateway (networking.istio.io, istio/api gateway.proto; istio.io
 * "Ingress Gateways"): the ingress gateway pods its selector picks, in any
 * namespace; the way in through the Service that selects them; the server
 * listening on PORT, whose hosts must cover the request's Host; the
 * VirtualServices bound to the Gateway (`gateways`: NAME in their own
 * namespace, or NS/NAME) whose hosts match it, their http routes as a
 * sidecar's (routeVirtualService, the gateway pod as the client); then each
 * backend from the gateway pods, which speak mTLS to meshed backends. No
 * server on the port: the connection is refused; no route: 404. Pods the
 * cluster profile assumes (load/cluster.ts) say so.
 */
function istioGatewayTrace(
  model: Model,
  index: ProxyIndex,
  objects: readonly KObject[],
  mesh: MeshInput,
  from: TraceSource,
  to: Extract<L7Destination, { kind: "gateway" }>,
  protocol: Protocol,
  req: HttpRequest,
  gwObj: KObject,
): L7TraceResult {
  const [ns, name] = to.gateway.split("/") as [string, string];
  const spec = obj(gwObj.raw.spec) ?? {};
  const selector = strMap(spec.selector);
  const sel = Object.entries(selector);
  const pods = sel.length ? model.pods.filter((p) => sel.every(([k, v]) => p.labels[k] === v)) : [];
  const svc = model.services.find(
    (s) =>
      !!s.selector &&
      Object.keys(s.selector).length > 0 &&
      pods.some(
        (p) =>
          p.namespace === s.namespace && Object.entries(s.selector!).every(([k, v]) => p.labels[k] === v),
      ) &&
      s.ports.some((p) => p.port === to.port),
  );
  const assumed = pods.some((p) => p.source.file === ASSUMED_FILE);
  const router: L7TraceResult["router"] = {
    layer: "Istio",
    kind: "Gateway",
    namespace: ns,
    name,
    pods: pods.map((p) => p.key),
    ref: refAt(gwObj),
  };
  const toPoint = {
    kind: "gateway",
    name: to.gateway,
    ip: svc?.loadBalancerIPs[0] ?? svc?.clusterIPs[0] ?? "",
    port: to.port,
  };
  const entry = enter(
    "Istio",
    model,
    index,
    from,
    pods,
    svc,
    to.port,
    protocol,
    `Istio Gateway ${to.gateway}`,
  );
  if ("dropped" in entry) {
    if (entry.dropped.error) return { ...entry.dropped, error: entry.dropped.error };
    return droppedOnTheWayIn(entry.dropped, req, toPoint, router);
  }
  const r = baseResult(entry.trace, protocol, to.port);
  r.to = toPoint;
  r.router = router;
  withRequest(r, req);
  if (assumed) r.assumed = ["an Istio ingress gateway (its Deployment and Service are not in the input)"];
  if (!entry.trace) r.hops = [...entry.hops];
  const selText = sel.map(([k, v]) => `${k}=${v}`).join(", ");
  r.hops.push(
    l7Hop("Istio", {
      step: "gateway",
      verdict: "info",
      detail: `Istio Gateway ${to.gateway}: ingress gateway pods labelled ${selText || "(no selector)"}${pods.length ? ` (${plural(pods.length, "pod")}${assumed ? ", assumed by the cluster profile" : ""})` : ""}${svc ? `, Service ${svc.key}` : ""}; the request: ${formatRequest(req)}`,
      ref: refAt(gwObj),
    }),
  );
  const host = hostOf(req) ?? toPoint.ip;
  const hostIn = (patterns: string[], ownNs: string) =>
    patterns.some((h) => {
      const [hns, hname] = h.includes("/") ? (h.split("/") as [string, string]) : ["*", h];
      return (
        (hns === "*" || hns === "." ? true : hns === ownNs || hns === "*") &&
        hostMatch(hname.toLowerCase(), host)
      );
    });
  const servers = arr(spec.servers).filter(isObj);
  const server = servers.find((sv) => num(obj(sv.port)?.number) === to.port);
  const gwRef = refAt(gwObj, lineOf(spec, "servers") || gwObj.line, "spec.servers");
  if (!server) {
    r.hops.push(
      l7Hop("Istio", {
        step: "gateway listener",
        verdict: "drop",
        detail: `no server of Istio Gateway ${to.gateway} listens on port ${to.port}: the gateway refuses the connection`,
        ref: gwRef,
      }),
    );
    r.verdict = "drop";
    r.reason = `dropped: Istio Gateway ${to.gateway} has no server on port ${to.port}`;
    r.decidedBy = decidedAt("Istio", gwRef);
    r.endpoints = [];
    return r;
  }
  const vss = boundVirtualServices(gwObj, objects).filter(
    (v) =>
      hostIn(strList(server.hosts), v.namespace ?? "default") &&
      strList(obj(v.raw.spec)?.hosts).some((h) => hostMatch(h.toLowerCase(), host)),
  );
  const vs = vss[0];
  if (!vs) {
    const choice: RouteChoice = {
      layer: "Istio",
      hops: [
        {
          step: "route",
          verdict: "drop",
          detail: `no VirtualService bound to Istio Gateway ${to.gateway} serves host ${host} on port ${to.port}: the gateway answers 404`,
          ref: gwRef,
        },
      ],
      status: 404,
      backends: [],
      decidedBy: decidedAt("Istio", gwRef),
    };
    return answeredByRouter(r, choice, req);
  }
  const choice = routeVirtualService(mesh, vs, entry.proxies[0]?.pod ?? pods[0], host, to.port, req);
  if (choice.backends.length === 0) return answeredByRouter(r, choice, req);
  r.hops.push(...choice.hops.map((h) => l7Hop(choice.layer, h)));
  if (pods.length === 0) {
    // The route is shown, the rest cannot be judged: no gateway pod to send from (load/cluster.ts KTL470).
    r.backends = choice.backends
      .filter((b) => !b.invalid)
      .map((b) => ({ service: `${b.namespace}/${b.service}`, port: Number(b.port), weight: b.weight }));
    r.endpoints = [];
    r.verdict = "drop";
    r.reason = `Istio Gateway ${to.gateway} selects ingress gateway pods (${selText}) that the input does not have: the route is shown, whether a request gets through is not judged (assume the ingress gateway: --assume-istio-ingress)`;
    r.decidedBy = decidedAt("Istio", refAt(gwObj, lineOf(spec, "selector") || gwObj.line, "spec.selector"));
    return r;
  }
  const res = resolveBackends(model, index, mesh, choice, entry.proxies, () => true, req, protocol);
  r.hops.push(...res.hops);
  const done = conclude(r, choice, res, req, entry.proxies.length);
  withRetries(done, choice, res);
  return done;
}

const NOT_EVALUATED = (direction: "ingress" | "egress"): HopCause => ({
  layer: "NetworkPolicy",
  direction,
  category: "not-applicable",
});

const NGINX_CONTROLLER = "k8s.io/ingress-nginx";

function ingressTrace(
  model: Model,
  index: ProxyIndex,
  objects: readonly KObject[],
  mesh: MeshInput,
  from: TraceSource,
  to: Extract<L7Destination, { kind: "ingress" }>,
  protocol: Protocol,
  req: HttpRequest,
): L7TraceResult {
  const [ns, name] = to.ingress.split("/") as [string, string];
  const ing = objects.find(
    (o) => o.kind === "Ingress" && (o.namespace ?? "default") === ns && o.name === name,
  );
  if (!ing)
    return {
      ...baseResult(undefined, protocol, to.port),
      error: `--to ingress:${to.ingress}:${to.port}: no Ingress ${to.ingress} in the input`,
    };
  const choice = routeIngress(objects, ing, req, "");
  const nginx = !choice.controller || choice.controller === NGINX_CONTROLLER;
  const sel = parseLabelSelector({
    matchLabels: { "app.kubernetes.io/name": "ingress-nginx", "app.kubernetes.io/component": "controller" },
  });
  const pods = nginx ? model.pods.filter((p) => matchesSelector(sel, p.labels)) : [];
  const svc = model.services.find(
    (s) =>
      s.selector &&
      Object.keys(s.selector).length > 0 &&
      pods.some(
        (p) =>
          p.namespace === s.namespace && Object.entries(s.selector!).every(([k, v]) => p.labels[k] === v),
      ) &&
      s.ports.some((p) => p.port === to.port),
  );
  const status = (obj(ing.raw.status)?.loadBalancer as { ingress?: { ip?: string }[] } | undefined)
    ?.ingress?.[0]?.ip;
  const router: L7TraceResult["router"] = {
    layer: "Ingress",
    kind: "Ingress",
    namespace: ns,
    name,
    pods: pods.map((p) => p.key),
    ref: refAt(ing),
  };
  const toPoint = {
    kind: "ingress",
    name: to.ingress,
    ip: status ?? svc?.clusterIPs[0] ?? "",
    port: to.port,
  };
  const entry = enter(
    "Ingress",
    model,
    index,
    from,
    pods,
    svc,
    to.port,
    protocol,
    `the ingress controller for ${to.ingress}`,
  );
  if ("dropped" in entry) {
    if (entry.dropped.error) return { ...entry.dropped, error: entry.dropped.error };
    return droppedOnTheWayIn(entry.dropped, req, toPoint, router);
  }
  const r = baseResult(entry.trace, protocol, to.port);
  r.to = toPoint;
  r.router = router;
  withRequest(r, req);
  if (!entry.trace) r.hops = [...entry.hops];
  r.hops.push(
    l7Hop("Ingress", {
      step: "ingress controller",
      verdict: "info",
      detail: nginx
        ? `ingress-nginx (assumed conventions: pods labelled app.kubernetes.io/name=ingress-nginx, app.kubernetes.io/component=controller${svc ? `, Service ${svc.key}` : ""}): ${plural(pods.length, "controller pod")}; the request: ${formatRequest(req)}`
        : `controller ${choice.controller}: ktl knows ingress-nginx's conventions only, so its pods and Service are not found and the lower layers from it are not evaluated`,
      ref: refAt(ing, lineOf(ing.raw.spec) || ing.line),
    }),
  );
  if (choice.backends.length === 0) return answeredByRouter(r, choice, req);
  r.hops.push(...choice.hops.map((h) => l7Hop(choice.layer, h)));
  const res = resolveBackends(model, index, mesh, choice, entry.proxies, () => false, req, protocol);
  r.hops.push(...res.hops);
  return conclude(r, choice, res, req, entry.proxies.length);
}

function hostTrace(
  model: Model,
  index: ProxyIndex,
  mesh: MeshInput,
  from: TraceSource,
  to: Extract<L7Destination, { kind: "host" }>,
  protocol: Protocol,
  req: HttpRequest | undefined,
): L7TraceResult {
  const clientPod = from.kind === "pod" ? model.podsByKey.get(from.pod) : undefined;
  if (from.kind === "pod" && !clientPod)
    return {
      ...baseResult(undefined, protocol, to.port),
      error: `--from pod:${from.pod}: no pod ${from.pod} in the input`,
    };
  const ns = clientPod?.namespace ?? "default";
  const name = fqdn(to.host, ns, model);
  const service = serviceOfHost(name, model);
  const sidecar = clientPod && mesh.present ? sidecarOf(clientPod, model) : undefined;
  const request = req ?? { method: "GET", path: "/", query: "", params: [], headers: {} };
  const hostHeader =
    req && req.headers.host === undefined ? { ...req, headers: { ...req.headers, host: to.host } } : req;
  const dnsHop: TraceHop = l7Hop(
    "Istio",
    service
      ? {
          step: "dns",
          verdict: "pass",
          detail: `${to.host} resolves to Service ${service.key} (${service.name}.${service.namespace}.${DOMAIN})`,
        }
      : {
          step: "dns",
          verdict: "info",
          detail: `${to.host} is not a Service of the input: ${mesh.present ? "a mesh ServiceEntry host or " : ""}a name outside the cluster`,
        },
  );
  if (clientPod && sidecar?.on) {
    const choice = routeMesh(mesh, clientPod, to.host, to.port, hostHeader ?? request, service);
    const r = baseResult(undefined, protocol, to.port);
    r.from = {
      kind: "pod",
      name: clientPod.key,
      ip: clientPod.ips[0] ?? "",
      node: clientPod.nodeName ?? null,
    };
    r.to = { kind: "host", name: to.host, ip: service?.clusterIPs[0] ?? "", port: to.port };
    r.router = {
      layer: "Istio",
      kind: "Pod",
      namespace: clientPod.namespace,
      name: clientPod.name,
      pods: [clientPod.key],
    };
    withRequest(r, hostHeader);
    r.hops.push({
      step: "source",
      cause: {
        layer: "client",
        category: "pod",
        object: { kind: "Pod", namespace: clientPod.namespace, name: clientPod.name },
      },
      verdict: "info",
      detail: `pod ${clientPod.key} sends from ${clientPod.ips[0] ?? "?"} on node ${clientPod.nodeName}; ${sidecar.why}: its sidecar (istio-proxy) takes the request`,
      ref: refAt(
        { ...clientPod.source, apiVersion: "v1", raw: {} } as unknown as KObject,
        clientPod.source.line,
      ),
    });
    r.hops.push(dnsHop);
    if (choice.external !== undefined && choice.backends.length === 0 && choice.status === undefined) {
      r.hops.push(...choice.hops.map((h) => l7Hop(choice.layer, h)));
      // The sidecar's upstream connection leaves from the pod's own network namespace: the CNI's egress policy still applies.
      const out = outsideEgress(model, index, mesh, clientPod, choice.external, to.port, protocol, "sidecar");
      r.hops.push(...out.hops);
      r.verdict = out.verdict;
      r.reason =
        out.verdict === "allow"
          ? `the sidecar passes the request to ${choice.external}, outside the cluster (its answer is not modelled)`
          : `the sidecar passes the request to ${choice.external}, but ${out.reason}`;
      if (out.decidedBy) r.decidedBy = out.decidedBy;
      // On an HTTP port the sidecar answers a refused upstream connection with 503; otherwise it closes the connection.
      if (out.verdict === "drop" && req && httpPort(model, to.port)) r.httpStatus = 503;
      return r;
    }
    if (choice.backends.length === 0) {
      if (choice.status === undefined) {
        r.hops.push(...choice.hops.map((h) => l7Hop(choice.layer, h)));
        r.verdict = "drop";
        r.reason = `dropped: ${choice.hops[choice.hops.length - 1]?.detail ?? "blocked by the sidecar"}`;
        r.decidedBy = choice.decidedBy ?? { layer: "Istio" };
        if (req && /REGISTRY_ONLY/.test(r.reason) && service === undefined && httpPort(model, to.port))
          r.httpStatus = 502;
        return r;
      }
      return answeredByRouter(r, choice, req);
    }
    r.hops.push(...choice.hops.map((h) => l7Hop(choice.layer, h)));
    const res = resolveBackends(
      model,
      index,
      mesh,
      choice,
      [{ pod: clientPod, share: 1 }],
      () => true,
      hostHeader,
      protocol,
      true,
    );
    r.hops.push(...res.hops);
    const done = conclude(r, choice, res, req);
    withMirrors(done, model, index, mesh, choice, clientPod, hostHeader, protocol);
    withRetries(done, choice, res);
    return done;
  }
  // No sidecar on the client: DNS, then kube-proxy as usual; the server's sidecar still decides.
  if (!service) {
    const r = baseResult(undefined, protocol, to.port);
    r.from = clientPod
      ? { kind: "pod", name: clientPod.key, ip: clientPod.ips[0] ?? "", node: clientPod.nodeName ?? null }
      : {
          kind: from.kind,
          name: from.kind === "node" ? from.node : from.kind === "external" ? from.ip : "",
          ip: "",
        };
    r.to = { kind: "host", name: to.host, ip: "", port: to.port };
    r.hops.push(dnsHop);
    const out = clientPod
      ? outsideEgress(model, index, mesh, clientPod, name, to.port, protocol, "pod")
      : { hops: [], verdict: "allow" as const, reason: "" };
    r.hops.push(...out.hops);
    r.verdict = out.verdict;
    r.reason =
      out.verdict === "allow"
        ? `${to.host} is outside the cluster: the request leaves the model (the host's answer is not modelled)`
        : `${to.host} is outside the cluster, and ${out.reason}`;
    if (out.decidedBy) r.decidedBy = out.decidedBy;
    withRequest(r, req);
    return r;
  }
  const t = traceRequest(
    model,
    index,
    from,
    { kind: "service", service: service.key, port: to.port },
    protocol,
    req ? { http: toWire(req) } : {},
  );
  if (t.error) return t;
  const cname = viaExternalName(model, index, mesh, from, t, protocol, req);
  if (cname) return cname;
  return serverChecked(
    model,
    mesh,
    t,
    clientPod,
    req,
    { kind: "host", name: to.host, ip: t.to.ip, port: to.port },
    dnsHop,
  );
}

/**
 * A documentation address (RFC 5737 TEST-NET-3) standing for a host outside
 * the cluster whose address the input does not give: an address that no
 * policy names on purpose, so a rule admits it only by admitting every
 * outside address (no `to`, 0.0.0.0/0, a world entity).
 */
const OUTSIDE_STAND_IN = "203.0.113.1";

/**
 * A pod's connection to a host outside the cluster, judged by every policy
 * layer on its egress (the decider's, as for an `ip:` destination). A mesh
 * sidecar does not bypass them: Envoy's upstream connection leaves from the
 * pod's network namespace, so the CNI enforces the pod's egress policy on it
 * (istio.io, Egress Gateways, "Additional security considerations": Istio
 * "cannot securely enforce that all egress traffic actually flows through"
 * it, and Kubernetes network policies must block the rest). The host's
 * address: a ServiceEntry's endpoints or addresses when they give one, an
 * IP literal, else OUTSIDE_STAND_IN, said so in the hop.
 */
function outsideEgress(
  model: Model,
  index: ProxyIndex,
  mesh: MeshInput,
  pod: Pod,
  host: string,
  port: number,
  protocol: Protocol,
  via: "sidecar" | "pod",
): { hops: TraceHop[]; verdict: "allow" | "drop"; reason: string; decidedBy?: DecidedBy } {
  const literal = parseIP(host) ? host : undefined;
  const entry = mesh.serviceEntries.find((se) =>
    strList(obj(se.raw.spec)?.hosts).some((h) => h.toLowerCase() === host),
  );
  const seSpec = obj(entry?.raw.spec);
  const given =
    literal ??
    arr(seSpec?.endpoints)
      .map((e) => str(obj(e)?.address))
      .find((a): a is string => !!a && !!parseIP(a)) ??
    strList(seSpec?.addresses).find((a) => !!parseIP(a));
  const ip = given ?? OUTSIDE_STAND_IN;
  // The name goes with the address: Cilium's toFQDNs admits an address by the name looked up for it.
  const t = traceRequest(
    model,
    index,
    { kind: "pod", pod: pod.key },
    { kind: "ip", ip, port },
    protocol,
    literal ? {} : { dnsName: host },
  );
  // The trace's egress decisions (the Admin and Baseline tiers' hops, the egress policy at source); not its way to the address.
  const hops = t.hops.filter(
    (h) =>
      h.step === "admin tier at source" ||
      h.step === "egress policy at source" ||
      h.step === "baseline tier at source",
  );
  const who = via === "sidecar" ? `the sidecar's connection from ${pod.key}` : pod.key;
  const where = given
    ? `${host} (${ip})`
    : `${host}, whose address the input does not give (judged as ${ip}, an outside address no policy names)`;
  if (t.verdict !== "drop")
    return {
      hops: hops.length
        ? hops
        : [
            {
              step: "egress policy at source",
              verdict: "pass",
              detail: `${who} to ${where}: no egress policy refuses it`,
              cause: { layer: "NetworkPolicy", direction: "egress", category: "not-applicable" },
            },
          ],
      verdict: "allow",
      reason: "",
    };
  const d = decidedByOf(t);
  const why = t.endpoints.find((e) => e.verdict === "drop")?.egress.reason ?? t.reason;
  return {
    hops,
    verdict: "drop",
    reason: `egress policy drops ${who} to ${where}: ${why}`,
    ...(d ? { decidedBy: d } : {}),
  };
}

/**
 * Each mirror of the route is a second request, sent by the client's sidecar
 * and judged by every layer as the first is; its answer is discarded, so it
 * changes nothing the client sees: a hop and `mirrors` say where it goes.
 */
function withMirrors(
  r: L7TraceResult,
  model: Model,
  index: ProxyIndex,
  mesh: MeshInput,
  choice: RouteChoice,
  client: Pod,
  req: HttpRequest | undefined,
  protocol: Protocol,
): void {
  for (const m of choice.mirrors ?? []) {
    const copy: RouteChoice = { layer: "Istio", hops: [], backends: [{ ...m.backend, weight: 1 }] };
    const res = resolveBackends(
      model,
      index,
      mesh,
      copy,
      [{ pod: client, share: 1 }],
      () => true,
      req,
      protocol,
      true,
    );
    const ok = res.endpoints.filter((e) => e.verdict === "allow").length;
    const n = res.endpoints.length;
    const verdict: TraceVerdict = n > 0 && ok === n ? "allow" : ok === 0 ? "drop" : "partial";
    const lost = [...res.lost.values()][0]?.reason;
    const reason =
      n === 0
        ? (lost ?? "no endpoint")
        : ok === n
          ? `${plural(n, "endpoint")} accept${n === 1 ? "s" : ""} the copy`
          : `${ok} of ${n} endpoints accept the copy (${res.endpoints.find((e) => e.verdict === "drop")?.reason ?? ""})`;
    const name = `${m.backend.namespace}/${m.backend.service}`;
    r.hops.push(
      l7Hop("Istio", {
        step: "backend",
        verdict: "info",
        detail: `mirror: ${pct(m.share)} of the requests are also copied to ${name}:${m.backend.port}${m.backend.subset ? ` subset ${m.backend.subset}` : ""}, whose answer the sidecar discards: ${verdict === "allow" ? "the copy reaches it" : verdict === "drop" ? "the copy is dropped" : "some copies are dropped"} (${reason})`,
        ...(m.ref ? { ref: m.ref } : {}),
      }),
    );
    (r.mirrors ??= []).push({
      service: name,
      port: m.backend.port,
      ...(m.backend.subset ? { subset: m.backend.subset } : {}),
      share: m.share,
      verdict,
      reason,
    });
  }
}

/**
 * A mesh route's retries: a connection a lower layer refuses fails the
 * attempt (Envoy's connect-failure; also counted by 5xx and gateway-error),
 * and the sidecar retries on another endpoint (Istio sets Envoy's
 * previous_hosts predicate), so a request fails only when every attempt
 * lands on a refusing endpoint: about f^(attempts+1) of them, f the refused
 * share. The verdict stays partial (some connections are refused); the
 * share says how many requests the client sees fail. 403s and other answers
 * of a server's sidecar are not retried.
 */
function withRetries(r: L7TraceResult, choice: RouteChoice, res: Resolved): void {
  const rp = choice.retries;
  if (!rp || r.verdict !== "partial") return;
  const retryable = /connect-failure|5xx|gateway-error|reset/.test(rp.retryOn);
  const refused = res.endpoints
    .filter((e) => e.verdict === "drop" && (e as { httpStatus?: number }).httpStatus === undefined)
    .reduce((a, e) => a + e.probability, 0);
  const reached = res.endpoints.reduce((a, e) => a + e.probability, 0);
  if (!retryable || refused <= 0 || reached <= 0) return;
  const f = refused / reached;
  const failShare = f ** (rp.attempts + 1);
  r.retries = { attempts: rp.attempts, retryOn: rp.retryOn, default: rp.default, failShare };
  const hop: RawHop = {
    step: "backend",
    verdict: "info",
    detail: `retries (${rp.default ? "Istio's default" : "the route's"}: ${rp.attempts} more attempts on ${rp.retryOn}): a refused connection is retried on another endpoint, so about ${pct(failShare * reached)} of requests fail after every attempt, not ${pct(refused)}`,
  };
  if (rp.ref) hop.ref = rp.ref;
  r.hops.push(l7Hop("Istio", hop));
  r.reason += `; with ${rp.attempts} retries about ${pct(failShare * reached)} of requests fail in the end`;
}

function httpPort(model: Model, port: number): boolean {
  return model.services.some((s) =>
    s.ports.some((p) => p.port === port && (/^http/.test(p.name) || /http/.test(p.appProtocol ?? ""))),
  );
}

/** A plain trace (kube-proxy and NetworkPolicy), then the servers' sidecars (mesh) and the contract's L7 fields. */
function serverChecked(
  model: Model,
  mesh: MeshInput,
  t: TraceResult,
  clientPod: Pod | undefined,
  req: HttpRequest | undefined,
  to?: TraceResult["to"],
  dnsHop?: TraceHop,
): L7TraceResult {
  const r: L7TraceResult = { ...t, hops: [...t.hops], endpoints: [...t.endpoints] };
  if (to) r.to = to;
  if (dnsHop) r.hops.splice(1, 0, dnsHop);
  withRequest(r, req);
  if (mesh.present) {
    const clientMtls = !!clientPod && sidecarOf(clientPod, model).on;
    r.endpoints = t.endpoints.map((e) => {
      if (e.verdict !== "allow") return e;
      const pod = e.pod ? model.podsByKey.get(e.pod) : undefined;
      if (!pod) return e;
      const sv = serverSidecar(
        mesh,
        pod,
        clientPod ? { pod: clientPod, mtls: clientMtls } : { mtls: false },
        e.port,
        req,
      );
      if (!sv.sidecar) return e;
      r.hops.push(
        l7Hop("Istio", {
          step: "server sidecar",
          verdict: sv.verdict === "allow" ? "pass" : "drop",
          detail: sv.reason,
          ...(sv.ref ? { ref: sv.ref } : {}),
          endpoints: [`${e.ip}:${e.port}`],
        }),
      );
      if (sv.verdict === "allow") return e;
      return {
        ...e,
        verdict: "drop",
        reason: sv.reason,
        decidedBy: sv.decidedBy ?? { layer: "Istio" },
        ...(sv.status ? { httpStatus: sv.status } : {}),
      } as TraceEndpoint;
    });
    const ok = r.endpoints.filter((e) => e.verdict === "allow").length;
    const n = r.endpoints.length;
    if (n > 0) {
      r.verdict = ok === n ? "allow" : ok === 0 ? "drop" : "partial";
      if (ok < n && t.verdict === "allow") {
        const bad = r.endpoints.find((e) => e.verdict === "drop")!;
        r.reason =
          ok === 0
            ? `dropped: ${bad.reason}`
            : `${ok} of ${n} candidate endpoints accept the request; ${bad.ip}:${bad.port} does not (${bad.reason})`;
      }
    }
  }
  if (r.verdict === "drop") {
    const bad = r.endpoints.find((e) => e.verdict === "drop") as
      (TraceEndpoint & { decidedBy?: DecidedBy; httpStatus?: number }) | undefined;
    const d = bad?.decidedBy ?? decidedByOf(t.verdict === "drop" ? t : { ...t, verdict: "drop" });
    if (d) r.decidedBy = d;
    if (t.verdict !== "drop") delete r.httpStatus;
    if (
      req &&
      bad?.httpStatus &&
      r.endpoints.every(
        (e) => (e as { httpStatus?: number }).httpStatus === bad.httpStatus || e.verdict === "allow",
      )
    )
      r.httpStatus = bad.httpStatus;
  } else if (r.verdict === "allow" && req) r.httpStatus = 200;
  else if (r.verdict === "partial") delete r.httpStatus;
  return r;
}

/**
 * The input has an Istio mesh (an injected namespace, the mesh config, or any
 * Istio object): then `traceL7` can answer a plain question differently from
 * `traceRequest` (the client's sidecar routes it, the server's sidecar
 * admits it), and every surface answers it as `ktl trace` does.
 */
export function meshPresent(model: Model): boolean {
  return l7Inputs(model).mesh.present;
}

/** The routers' objects of a model, read and parsed once per model (not once per trace). */
interface L7Inputs {
  objects: KObject[];
  mesh: MeshInput;
  gateway: GatewayInput;
}
const l7Cache = new WeakMap<Model, L7Inputs>();

function l7Inputs(model: Model): L7Inputs {
  let v = l7Cache.get(model);
  if (!v) {
    const objects = [...model.objects, ...(model.others ?? [])];
    v = { objects, mesh: meshInput(model, objects), gateway: gatewayInput(objects, model.namespaces) };
    l7Cache.set(model, v);
  }
  return v;
}

/**
 * `ktl trace` with every destination of the contract, with or without an
 * HTTP request. Reads the routers' objects from model.objects and
 * model.others (the mesh's ConfigMap and the L7 kinds are not modelled).
 */
export function traceL7(
  model: Model,
  index: ProxyIndex,
  fromIn: TraceSource | string,
  to: TraceDestination | L7Destination,
  protocol: Protocol = "TCP",
  wire?: WireRequest,
): L7TraceResult {
  const r = traceL7Once(model, index, fromIn, to, protocol, wire);
  return model.profile?.assume?.injection?.length ? withAssumedSidecars(r, model) : r;
}

/**
 * The sidecars the answer used that only the profile's assumption puts
 * there (model/sidecar.ts): the client's and each endpoint's, said in
 * `assumed` so that the answer is not read as the input's.
 */
function withAssumedSidecars(r: L7TraceResult, model: Model): L7TraceResult {
  if (r.error) return r;
  const pods = [...(r.from?.kind === "pod" ? [r.from.name] : []), ...r.endpoints.map((e) => e.pod ?? "")]
    .map((k) => model.podsByKey.get(k as PodKey))
    .filter((p): p is Pod => !!p && sidecarOf(p, model).assumed === true);
  const namespaces = [...new Set(pods.map((p) => p.namespace))].sort();
  if (namespaces.length)
    (r.assumed ??= []).push(
      `Istio sidecars in namespace${namespaces.length === 1 ? "" : "s"} ${namespaces.join(", ")} (the input does not label ${namespaces.length === 1 ? "it" : "them"} istio-injection=enabled)`,
    );
  return r;
}

function traceL7Once(
  model: Model,
  index: ProxyIndex,
  fromIn: TraceSource | string,
  to: TraceDestination | L7Destination,
  protocol: Protocol,
  wire?: WireRequest,
): L7TraceResult {
  const req = wire ? toL7Request(wire) : undefined;
  const { objects, mesh } = l7Inputs(model);
  const from = typeof fromIn === "string" ? parseTraceSource(fromIn) : fromIn;
  if ("error" in from) return { ...baseResult(undefined, protocol, 0), error: from.error };
  const request = req ?? { method: "GET", path: "/", query: "", params: [], headers: {} };
  if (to.kind === "gateway") return gatewayTrace(model, index, objects, mesh, from, to, protocol, request);
  if (to.kind === "ingress") return ingressTrace(model, index, objects, mesh, from, to, protocol, request);
  if (to.kind === "host") return hostTrace(model, index, mesh, from, to, protocol, req);
  const clientPod = from.kind === "pod" ? model.podsByKey.get(from.pod) : undefined;
  if (
    to.kind === "service" &&
    clientPod &&
    mesh.present &&
    sidecarOf(clientPod, model).on &&
    typeof to.port === "number"
  ) {
    const [ns, name] = to.service.split("/") as [string, string];
    const s = model.services.find((x) => x.namespace === ns && x.name === name);
    if (s) {
      const r = hostTrace(
        model,
        index,
        mesh,
        from,
        { kind: "host", host: `${name}.${ns}.${DOMAIN}`, port: to.port },
        protocol,
        req,
      );
      r.to = { kind: "service", name: to.service, ip: s.clusterIPs[0] ?? "", port: to.port };
      return r;
    }
  }
  const t = traceRequest(model, index, from, to, protocol, wire ? { http: wire } : {});
  if (t.error) return t;
  return (
    viaExternalName(model, index, mesh, from, t, protocol, req) ??
    serverChecked(model, mesh, t, clientPod, req)
  );
}

/** How many ExternalName CNAMEs the trace is following now (a name that resolves back to its own Service stops). */
let cnames = 0;

/**
 * An ExternalName Service outside the cluster is a CNAME: the client connects to that name itself (kube-dns
 * answers it; kube-proxy programs nothing, ShouldSkipService), so the answer is the outside host's (egress
 * policy at the source, the mesh's outbound policy), not a drop. Undefined for any other trace.
 */
function viaExternalName(
  model: Model,
  index: ProxyIndex,
  mesh: MeshInput,
  from: TraceSource,
  t: TraceResult,
  protocol: Protocol,
  req: HttpRequest | undefined,
): L7TraceResult | undefined {
  const outside = t.hops.find((h) => h.cause.category === "externalName-outside");
  if (!outside || t.service?.frontend !== "externalName" || !t.service.address) return undefined;
  if (typeof t.to?.port !== "number" || cnames >= 4) return undefined;
  cnames++;
  try {
    const r = hostTrace(
      model,
      index,
      mesh,
      from,
      { kind: "host", host: t.service.address, port: t.to.port },
      protocol,
      req,
    );
    if (r.error) return r;
    r.hops.unshift(outside);
    r.service = t.service;
    r.to = t.to;
    return r;
  } finally {
    cnames--;
  }
}
