/**
 * From a route's choice to the backend pods: each backend Service's ready endpoints with
 * their share (weight x 1/endpoints), judged from the router's pod by every lower layer
 * (traceRequest), and the mirrors and retries the route adds.
 */
import type { KObject } from "../parse/manifests.ts";
import type { Model, Pod, PodKey, Protocol } from "../model/types.ts";
import type { Service } from "../model/services.ts";
import { findServicePort, type ProxyIndex } from "../proxy/index.ts";
import {
  traceRequest,
  type TraceEndpoint,
  type HopCause,
  type TraceHop,
  type TraceRef,
  type TraceResult,
  type TraceSource,
  type TraceVerdict,
} from "../trace/index.ts";
import { toWire, type HttpRequest } from "./request.ts";
import {
  l7Hop,
  plural,
  pct,
  refAt,
  type DecidedBy,
  type RawHop,
  type L7Layer,
  type RouteChoice,
} from "./common.ts";
import { serverSidecar, type MeshClient } from "./meshServer.ts";
import { type MeshInput } from "./mesh.ts";
import type { L7Backend, L7TraceResult, Resolved } from "./result.ts";

interface Entry {
  /** The proxy pods the request reaches, with their share. */
  proxies: { pod: Pod; share: number }[];
  hops: TraceHop[];
  /** The way in, when it was traced. */
  trace?: TraceResult;
  ip: string;
}

/** The client's way to a router's pods: through `service` (kube-proxy), or straight to the pods. */
export function enter(
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

/** The lower layers' decisions, one hop per (step, verdict, deciding object), listing the endpoints it covers. */
function hopGroups(hops: TraceHop[], proxyCount: number) {
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
    hops.push(hop);
    grouped.set(key, { hop, eps: new Set([ep]), more: 0 });
  };
  const finishHops = () => {
    for (const g of grouped.values()) {
      g.hop.endpoints = [...g.eps];
      const extra = g.eps.size - 1;
      if (extra > 0 || g.more > 0)
        g.hop.detail = `${g.hop.detail}${extra > 0 ? ` (likewise for ${plural(extra, "more endpoint")})` : ""}${g.more > 0 && proxyCount > 1 ? ` (the same from each of the ${proxyCount} proxy pods)` : ""}`;
    }
  };
  return { addHop, finishHops };
}

/** An endpoint the proxy's packet never reached: dropped below L7, for the trace's reason. */
function unreached(ep: { ip: string; port: number }, reason: string): TraceEndpoint {
  return {
    ip: ep.ip,
    port: ep.port,
    probability: 0,
    verdict: "drop",
    reason,
    sourceIP: "",
    sourceIPPreserved: false,
    egress: { verdict: "drop", isolated: false, reason, cause: NOT_EVALUATED("egress") },
    ingress: { verdict: "drop", isolated: false, reason, cause: NOT_EVALUATED("ingress") },
  };
}

/**
 * An endpoint the proxy reached, through its pod's server sidecar (Istio's PeerAuthentication and
 * AuthorizationPolicy): the sidecar's hop (once per pod and reason), and the endpoint dropped if it refuses.
 */
function serverSidecarOf(
  model: Model,
  mesh: MeshInput,
  ep: { ip: string; port: number; pod?: PodKey | undefined },
  client: MeshClient,
  breq: HttpRequest | undefined,
  endpoint: TraceEndpoint,
  addHop: (hop: TraceHop, key: string) => void,
): TraceEndpoint {
  let cur = endpoint;
  const pod = ep.pod ? model.podsByKey.get(ep.pod) : model.podsByIP.get(ep.ip);
  if (!pod) return cur;
  const sv = serverSidecar(mesh, pod, client, ep.port, breq);
  if (sv.sidecar)
    addHop(
      l7Hop("Istio", {
        step: "server sidecar",
        verdict: sv.verdict === "allow" ? "pass" : "drop",
        detail: sv.reason,
        ...(sv.ref ? { ref: sv.ref } : {}),
        endpoints: [`${ep.ip}:${ep.port}`],
      }),
      `sidecar|${pod.key}|${sv.reason}`,
    );
  if (sv.verdict === "drop") {
    cur = { ...cur, verdict: "drop", reason: sv.reason };
    (cur as TraceEndpoint & { decidedBy?: DecidedBy; httpStatus?: number }).decidedBy = sv.decidedBy ?? {
      layer: "Istio",
    };
    if (sv.status) (cur as unknown as { httpStatus?: number }).httpStatus = sv.status;
  }
  return cur;
}

/** From the proxies to every chosen backend's ready endpoints, judged by the lower layers and the backend's sidecar. */
export function resolveBackends(
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
  const { addHop, finishHops } = hopGroups(out.hops, proxies.length);
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
          merged ??= unreached(ep, t.reason);
          continue;
        }
        let cur: TraceEndpoint = {
          ...e,
          reason: proxies.length > 1 ? `from ${px.pod.key}: ${e.reason}` : e.reason,
        };
        if (cur.verdict === "allow" && mesh.present)
          cur = serverSidecarOf(
            model,
            mesh,
            ep,
            { pod: px.pod, mtls: proxyMtls(px.pod) },
            breq,
            cur,
            (hop, key) => {
              if (seenHops.has(key)) return;
              seenHops.add(key);
              out.hops.push(hop);
            },
          );
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

const NOT_EVALUATED = (direction: "ingress" | "egress"): HopCause => ({
  layer: "NetworkPolicy",
  direction,
  category: "not-applicable",
});

/**
 * Each mirror of the route is a second request, sent by the client's sidecar
 * and judged by every layer as the first is; its answer is discarded, so it
 * changes nothing the client sees: a hop and `mirrors` say where it goes.
 */
export function withMirrors(
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
export function withRetries(r: L7TraceResult, choice: RouteChoice, res: Resolved): void {
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
