/**
 * The L7 routers as the playground draws them (engine/l7): each Gateway,
 * Ingress and Istio VirtualService is an element between its clients and
 * the Services it routes to, with one `route` flow per (rule, backend)
 * carrying the backend's share of its rule (a 90/10 canary is two flows of
 * 0.9 and 0.1).
 *
 * What decides what:
 * - the router's data plane (its pods and Service) is what `traceL7` finds
 *   for it (Gateway API's gateway-name label, ingress-nginx's conventions);
 * - the share is the rule's backendRef weight over the rule's total
 *   (gateway-api BackendRef.Weight; Ingress sends a path to one backend;
 *   Istio HTTPRouteDestination.weight, 100 for a lone destination);
 * - the verdict of a route flow is the lower layers' (NetworkPolicy, tiers,
 *   CNI policies) from the router's pods to each ready endpoint of the
 *   backend, by `traceRequest`, as the L7 trace judges its proxy-to-backend
 *   hop. A mesh route runs in each client's sidecar, and a router without
 *   pods in the input has no proxy to judge from: those flows say that the
 *   lower layers were not judged, and a question (which names the client)
 *   answers for one request.
 * Which rule a request takes (precedence, hosts, listeners) is the
 * question's answer, not the picture's.
 */
import type { KObject } from "../parse/manifests.ts";
import type { Model, PodKey } from "../model/types.ts";
import type { Service } from "../model/services.ts";
import { hasReadyEndpoint, type ProxyIndex } from "../proxy/index.ts";
import { traceRequest } from "../trace/index.ts";
import { traceL7 } from "../l7/index.ts";
import type { HTTPRoute } from "../l7/gatewayObjects.ts";
import {
  canaryFor,
  canaryShare,
  servedWith,
  type IngressInput,
  type IngressPath,
  type IngressSpec,
} from "../l7/ingress.ts";
import { l7Inputs } from "../l7/result.ts";
import { boundTo, fqdn, serviceOfHost, vsAppliesToSidecars, type MeshInput } from "../l7/mesh.ts";
import { EXTERNAL_CLIENT_IP, refOfTrace } from "./flows.ts";
import { anySidecar } from "../model/sidecar.ts";
import { podId, serviceId } from "./refs.ts";
import type { Flow, RefView, RouterView, Verdict } from "./types.ts";

/** More routers than this are listed, not judged (each costs a trace). */
const MAX_ROUTERS = 40;

export const routerId = (kind: RouterView["kind"], ns: string, name: string): string =>
  `${kind.toLowerCase()}:${ns}/${name}`;

function refOf(o: KObject, line?: number): RefView {
  return { kind: o.kind, namespace: o.namespace ?? "", name: o.name, line: line || o.line };
}

interface RouteTarget {
  service: Service | undefined;
  /** "NS/NAME" as written, for a Service missing from the input. */
  key: string;
  port: number | undefined;
  weight: number;
  match: string;
  ref: RefView;
  subset?: string;
}

function pct(w: number): string {
  const p = Math.round(w * 1000) / 10;
  return `${p}%`;
}

/** The lower layers from the router's pods to every ready endpoint of the Service port. */
function judge(
  model: Model,
  proxy: ProxyIndex,
  proxies: readonly PodKey[],
  s: Service,
  port: number,
): { verdict: Verdict; reason: string; decidedBy: RefView[] } {
  const sp = s.ports.find((p) => p.port === port);
  const pe = sp
    ? proxy.services.get(s.key)?.ports.find((p) => p.name === sp.name && p.protocol === sp.protocol)
    : undefined;
  const eps = pe ? [...pe.v4, ...pe.v6].filter((e) => e.ready) : [];
  if (!sp || eps.length === 0)
    return {
      verdict: "drop",
      reason: sp
        ? `Service ${s.key} has no ready endpoint: the router answers 503`
        : `Service ${s.key} has no port ${port}`,
      decidedBy: [],
    };
  let allow = 0;
  let drop = 0;
  let reason = "";
  const decidedBy: RefView[] = [];
  for (const px of proxies)
    for (const ep of eps) {
      const t = traceRequest(
        model,
        proxy,
        { kind: "pod", pod: px },
        { kind: "ip", ip: ep.ip, port: ep.port },
        sp.protocol,
      );
      const e = t.endpoints[0];
      if (e?.verdict === "allow") allow++;
      else {
        drop++;
        reason ||= `from ${px} to ${ep.ip}:${ep.port}: ${e?.reason ?? t.reason}`;
        const r = e?.ingress.verdict === "drop" ? e.ingress.ref : e?.egress.ref;
        if (r && !decidedBy.some((d) => d.name === r.name && d.kind === r.kind))
          decidedBy.push(refOfTrace(r));
      }
    }
  if (drop === 0)
    return {
      verdict: "allow",
      reason: `the lower layers admit the router's ${proxies.length === 1 ? "pod" : `${proxies.length} pods`} to all ${eps.length} ready endpoints`,
      decidedBy: [],
    };
  return { verdict: allow === 0 ? "drop" : "partial", reason, decidedBy };
}

function gatewayTargets(model: Model, gw: KObject, routes: readonly HTTPRoute[]): RouteTarget[] {
  const out: RouteTarget[] = [];
  for (const r of routes) {
    const o = r.obj;
    const attached = r.parentRefs.some(
      (p) => p.kind === "Gateway" && p.name === gw.name && p.namespace === gw.namespace,
    );
    if (!attached) continue;
    for (const rule of r.rules) {
      const refs = rule.backendRefs.filter(
        (b) => b.kind === "Service" && (b.group === "" || b.group === "core"),
      );
      const total = refs.reduce((n, b) => n + b.weight, 0);
      const m = rule.matches[0];
      const match = m
        ? `${m.method ? `${m.method} ` : ""}${m.path.value}${m.path.type === "PathPrefix" ? "*" : ""}${m.headers.length ? ` [${m.headers.map((h) => `${h.name}: ${h.value}`).join(", ")}]` : ""}`
        : "/*";
      for (const b of refs) {
        const s = model.services.find((x) => x.namespace === b.namespace && x.name === b.name);
        out.push({
          service: s,
          key: `${b.namespace}/${b.name}`,
          port: b.port,
          weight: total > 0 ? b.weight / total : 0,
          match: `${r.name} rule ${rule.index + 1}: ${match}`,
          ref: refOf(o, b.line || rule.line),
        });
      }
    }
  }
  return out;
}

/** An Ingress's paths, each split with its canary (l7/ingress.ts rule 5) as a request with no canary header or cookie is. */
function ingressTargets(
  model: Model,
  proxy: ProxyIndex,
  input: IngressInput,
  spec: IngressSpec,
): RouteTarget[] {
  const served = servedWith(input, spec);
  const target = (ing: KObject, p: IngressPath, weight: number, match: string): RouteTarget[] => {
    if (!("service" in p.backend)) return [];
    const { service, port } = p.backend;
    const s = model.services.find((x) => x.namespace === ing.namespace && x.name === service);
    const portNum = typeof port === "number" ? port : s?.ports.find((sp) => sp.name === port)?.port;
    return [
      {
        service: s,
        key: `${ing.namespace}/${service}`,
        port: portNum,
        weight,
        match,
        ref: refOf(ing, p.line),
      },
    ];
  };
  return spec.paths.flatMap((p) => {
    const match = `${p.host ?? "*"}${p.path}${p.pathType === "Exact" ? "" : "*"}`;
    const alt = canaryFor(served, p);
    if (!alt || !("service" in alt.path.backend)) return target(spec.obj, p, 1, match);
    const altNs = alt.spec.obj.namespace ?? "default";
    const ready = hasReadyEndpoint(proxy, `${altNs}/${alt.path.backend.service}`);
    const { share, why } = ready
      ? canaryShare(alt.spec.canary, undefined)
      : { share: 0, why: "no ready endpoint" };
    return [
      ...target(spec.obj, p, 1 - share, match),
      ...target(alt.spec.obj, alt.path, share, `${match} (canary ${altNs}/${alt.spec.obj.name}: ${why})`),
    ];
  });
}

/** A VirtualService's route targets, split as the sidecar splits them (l7/vsHttp.ts); a rejected one has none. */
function meshTargets(mesh: MeshInput, vs: KObject): RouteTarget[] {
  const model = mesh.model;
  const ns = vs.namespace ?? "default";
  const out: RouteTarget[] = [];
  (mesh.http.get(vs)?.routes ?? []).forEach((h, hi) => {
    const m = h.matches[0];
    const uri = m?.uri;
    const headers = (m?.headers ?? []).map(
      ({ name, match }) => `${name}: ${match !== "present" && match.kind !== "any" ? match.value : "*"}`,
    );
    // Istio's fault.abort: that share of the route's requests never reaches a backend (engine/l7/meshRoutes.ts answers it).
    const abort = h.fault?.abort;
    const aborted = abort?.status !== undefined ? abort.share : 0;
    const path = uri?.kind === "exact" ? uri.value : uri?.kind === "prefix" ? `${uri.value}*` : "/*";
    const match = `${h.name ?? `http[${hi}]`}: ${path}${headers.length ? ` [${headers.join(", ")}]` : ""}${aborted > 0 ? ` (fault.abort: ${pct(aborted)} answered ${abort!.status} by the sidecar)` : ""}`;
    h.destinations.forEach((d) => {
      if (!d.host) return;
      const s = serviceOfHost(fqdn(d.host, ns, model), model);
      const t: RouteTarget = {
        service: s,
        key: s ? s.key : d.host,
        port: d.port ?? s?.ports[0]?.port,
        weight: d.share * (1 - aborted),
        match,
        ref: refOf(vs, d.line),
      };
      if (d.subset) t.subset = d.subset;
      out.push(t);
    });
  });
  return out;
}

/** A router's flow to one of its route targets: judged below L7 from the router's own pods (a mesh route per client). */
function routeFlow(
  model: Model,
  proxy: ProxyIndex,
  router: {
    kind: RouterView["kind"];
    ns: string;
    name: string;
    id: string;
    traceTo: string | undefined;
    proxies: PodKey[];
    client: string | undefined;
  },
  tg: RouteTarget & { port: number },
  i: number,
): Flow {
  const { kind, ns, name, id, traceTo, proxies, client } = router;
  const to = serviceId(tg.service!.key);
  const judged =
    kind === "VirtualService"
      ? {
          verdict: "allow" as Verdict,
          reason:
            "a mesh route runs in each client's sidecar: the lower layers are judged per client (ask a question from a client pod)",
          decidedBy: [] as RefView[],
        }
      : proxies.length === 0
        ? {
            verdict: "allow" as Verdict,
            reason: `not judged below L7: the input has no pods of ${kind} ${ns}/${name}'s data plane, so the proxy-to-backend hop has no source`,
            decidedBy: [] as RefView[],
          }
        : judge(model, proxy, proxies, tg.service!, tg.port);
  const flow: Flow = {
    id: `route:${id}#${i}`,
    kind: "route",
    from: [id],
    to,
    port: tg.port,
    protocol: "TCP",
    verdict: judged.verdict,
    reason: `${pct(tg.weight)} of ${tg.match}${tg.subset ? ` (subset ${tg.subset})` : ""}: ${judged.reason}`,
    decidedBy: [tg.ref, ...judged.decidedBy],
    traceTo: traceTo ?? `service:${tg.service!.key}:${tg.port}`,
    weight: tg.weight,
    match: tg.match,
  };
  if (client) flow.client = client;
  if (judged.verdict !== "allow") flow.dropCause = "policy";
  return flow;
}

/** The routers of the input and their entry and route flows. */
export function routerFlows(
  model: Model,
  proxy: ProxyIndex,
): { routers: RouterView[]; flows: Flow[]; l7Targets: Record<string, string> } {
  const { objects, ingress, gateway, mesh } = l7Inputs(model);
  const ingresses = objects.filter(
    (o) => o.kind === "Ingress" && o.apiVersion.startsWith("networking.k8s.io/"),
  );
  const services = objects.filter(
    (o) => o.kind === "VirtualService" && o.apiVersion.startsWith("networking.istio.io/"),
  );
  const routers: RouterView[] = [];
  const flows: Flow[] = [];
  const l7Targets: Record<string, string> = {};
  const firstNode = model.nodes[0]?.name;
  const entryFrom = firstNode ? `external:${EXTERNAL_CLIENT_IP}@${firstNode}` : undefined;
  // A mesh route's question needs a client pod (its sidecar routes): the first pod with an address.
  const meshPod = model.pods.find((p) => p.ips.length > 0 && !p.hostNetwork);
  const meshClient = meshPod ? podId(meshPod.key) : undefined;
  const add = (
    kind: RouterView["kind"],
    o: KObject,
    ports: number[],
    hosts: string[],
    targets: RouteTarget[],
    istio = false,
  ) => {
    if (routers.length >= MAX_ROUTERS) return;
    const ns = o.namespace ?? "default";
    const id = routerId(kind, ns, o.name);
    const layer = istio ? "Istio" : kind === "Gateway" ? "Gateway" : kind === "Ingress" ? "Ingress" : "Istio";
    const r: RouterView = {
      id,
      kind,
      layer,
      namespace: ns,
      name: o.name,
      ports,
      hosts,
      pods: [],
      ref: refOf(o),
    };
    let proxies: PodKey[] = [];
    const port = ports[0];
    if (kind !== "VirtualService" && port !== undefined && entryFrom) {
      r.traceTo = `${kind.toLowerCase()}:${ns}/${o.name}:${port}`;
      const to =
        kind === "Gateway"
          ? { kind: "gateway" as const, gateway: `${ns}/${o.name}`, port }
          : { kind: "ingress" as const, ingress: `${ns}/${o.name}`, port };
      const t = traceL7(model, proxy, entryFrom, to, "TCP");
      proxies = t.router?.pods ?? [];
      r.pods = proxies.map(podId);
      // The way in: an external client to the router's own Service (the packet layers; the route is the question's).
      if (t.service) {
        const svc = `${t.service.namespace}/${t.service.name}`;
        r.service = serviceId(svc);
        for (const n of model.nodes) {
          const from = `external:${EXTERNAL_CLIENT_IP}@${n.name}`;
          const e = traceRequest(model, proxy, from, `service:${svc}:${t.service.port}`, "TCP");
          flows.push({
            id: `entry:${id}@${n.name}`,
            // A router's own flow (not one of the Service flows that analysis and diff share, engine/flows).
            kind: "route",
            from: [from],
            to: id,
            port: t.service.port,
            protocol: "TCP",
            verdict: e.verdict,
            reason: `to ${kind} ${ns}/${o.name} through Service ${svc}: ${e.reason}`,
            decidedBy: e.verdict === "allow" ? [r.ref] : [],
            traceTo: r.traceTo,
            ...(e.verdict !== "allow" ? { dropCause: "policy" as const } : {}),
          });
        }
      }
    }
    routers.push(r);
    targets.forEach((tg, i) => {
      const to = tg.service ? serviceId(tg.service.key) : undefined;
      if (!to || tg.port === undefined) return;
      l7Targets[to] ??= `${kind} ${ns}/${o.name} routes to it`;
      const client = entryFrom && r.traceTo ? entryFrom : meshClient;
      flows.push(
        routeFlow(
          model,
          proxy,
          { kind, ns, name: o.name, id, traceTo: r.traceTo, proxies, client },
          { ...tg, port: tg.port },
          i,
        ),
      );
    });
  };
  for (const g of gateway.gateways) {
    add(
      "Gateway",
      g.obj,
      [...new Set(g.listeners.map((l) => l.port).filter((p) => p > 0))],
      g.listeners.map((l) => l.hostname).filter((h): h is string => !!h),
      gatewayTargets(model, g.obj, gateway.routes),
    );
  }
  for (const ing of ingresses) {
    const spec = ingress.specs.get(ing)!;
    // A canary Ingress routes nothing of its own: its share is drawn on the main Ingress's path.
    if (spec.canary) continue;
    add("Ingress", ing, [80], spec.hosts, ingressTargets(model, proxy, ingress, spec));
  }
  // Istio's Gateways: the routes of the VirtualServices bound to them, entered through the ingress gateway's
  // pods (none when the input lacks them: its flows say so, and load/cluster.ts raises KTL470).
  for (const g of mesh.gateways) {
    add(
      "Gateway",
      g.obj,
      [...new Set(g.servers.map((x) => x.port).filter((p): p is number => p !== undefined))],
      g.servers.flatMap((x) => x.hosts),
      boundTo(mesh, g.obj).flatMap((vs) => meshTargets(mesh, vs)),
      true,
    );
  }
  // A mesh route runs in clients' sidecars: with no sidecar in the input (KTL471) kube-proxy spreads the requests, so none is drawn.
  const meshClients = anySidecar(model);
  for (const vs of services) {
    if (!vsAppliesToSidecars(mesh, vs) || !meshClients) continue;
    add("VirtualService", vs, [], mesh.targets.get(vs)?.hosts ?? [], meshTargets(mesh, vs));
  }
  return { routers, flows, l7Targets };
}
