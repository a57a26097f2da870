/**
 * An L7 trace's answer and what every router's trace shares (trace.ts composes them): the
 * destination syntax of the contract (`gateway:`, `ingress:`, `host:`), the result's shape,
 * the verdict concluded from the hops, the request said on the answer, the server's sidecar
 * check, and the routers' objects read once per model.
 */
import type { KObject } from "../parse/manifests.ts";
import type { Model, Pod, PodKey, Protocol } from "../model/types.ts";
import {
  parseTraceDestination,
  type TraceDestination,
  type TraceEndpoint,
  type TraceHop,
  type TraceRef,
  type TraceResult,
  type TraceVerdict,
} from "../trace/index.ts";
import { emptyResult } from "../trace/result.ts";
import { type HttpRequest } from "./request.ts";
import {
  decidedAt,
  l7Hop,
  plural,
  pct,
  type DecidedBy,
  type L7Layer,
  type Redirect,
  type RouteChoice,
} from "./common.ts";
import { gatewayInput, type GatewayInput } from "./gateway.ts";
import { meshInput, sidecarOf, type MeshInput } from "./mesh.ts";
import { ingressInput, type IngressInput } from "./ingress.ts";
import { serverSidecar } from "./meshServer.ts";

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

/** A route's backends resolved to their endpoints (backends.ts), with the share the router answers itself. */
export interface Resolved {
  backends: L7Backend[];
  endpoints: TraceEndpoint[];
  hops: TraceHop[];
  /** Share of requests answered by the router itself, by status. */
  lost: Map<number, { share: number; reason: string; ref?: TraceRef }>;
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

export function withRequest(r: L7TraceResult, req: HttpRequest | undefined): void {
  if (req)
    r.request = {
      method: req.method,
      path: req.path + (req.query ? `?${req.query}` : ""),
      headers: req.headers,
    };
}

/** The final verdict, status and deciding layer of a routed request. */
export function conclude(
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

export function baseResult(t: TraceResult | undefined, protocol: Protocol, port: number): L7TraceResult {
  return t ? { ...t, hops: [...t.hops], endpoints: [] } : emptyResult(protocol, port);
}

export function answeredByRouter(
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

export function droppedOnTheWayIn(
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

export function httpPort(model: Model, port: number): boolean {
  return model.services.some((s) =>
    s.ports.some((p) => p.port === port && (/^http/.test(p.name) || /http/.test(p.appProtocol ?? ""))),
  );
}

/** A plain trace (kube-proxy and NetworkPolicy), then the servers' sidecars (mesh) and the contract's L7 fields. */
export function serverChecked(
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
  ingress: IngressInput;
}

const l7Cache = new WeakMap<Model, L7Inputs>();

export function l7Inputs(model: Model): L7Inputs {
  let v = l7Cache.get(model);
  if (!v) {
    const objects = [...model.objects, ...(model.others ?? [])];
    v = {
      objects,
      mesh: meshInput(model, objects),
      gateway: gatewayInput(objects, model.namespaces),
      ingress: ingressInput(objects),
    };
    l7Cache.set(model, v);
  }
  return v;
}
