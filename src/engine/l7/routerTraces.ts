/**
 * A request through a Gateway (Gateway API, or Istio's own Gateway with its VirtualServices)
 * or an Ingress: entered at the router's pods, routed by its rules (gateway.ts, ingress.ts,
 * mesh.ts), then on to the backends (backends.ts).
 */
import type { KObject } from "../parse/manifests.ts";
import type { Model, Protocol } from "../model/types.ts";
import { matchesSelector, parseLabelSelector } from "../model/labels.ts";
import { hasReadyEndpoint, type ProxyIndex } from "../proxy/index.ts";
import { type TraceSource } from "../trace/index.ts";
import { formatRequest, hostOf, type HttpRequest } from "./request.ts";
import { ASSUMED_FILE } from "../load/cluster.ts";
import { decidedAt, l7Hop, plural, refAt, type RouteChoice } from "./common.ts";
import { GATEWAY_NAME_LABEL, parseGateway } from "./gatewayObjects.ts";
import { routeGateway } from "./gateway.ts";
import { routeIngress } from "./ingress.ts";
import { boundTo, hostMatch, sidecarOf, type MeshInput } from "./mesh.ts";
import { routeVirtualService } from "./meshRoutes.ts";
import {
  answeredByRouter,
  baseResult,
  conclude,
  droppedOnTheWayIn,
  l7Inputs,
  withRequest,
  type L7Destination,
  type L7TraceResult,
} from "./result.ts";
import { enter, resolveBackends, withRetries } from "./backends.ts";

export function gatewayTrace(
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
      (s.labels[GATEWAY_NAME_LABEL] === name || s.selector?.[GATEWAY_NAME_LABEL] === name) &&
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
  const gw = mesh.gateways.find((g) => g.obj === gwObj)!;
  const sel = Object.entries(gw.selector);
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
  const server = gw.servers.find((sv) => sv.port === to.port);
  const gwRef = refAt(gwObj, gw.serversLine, "spec.servers");
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
  const vss = boundTo(mesh, gwObj).filter(
    (v) =>
      hostIn(server.hosts, v.namespace ?? "default") &&
      (mesh.targets.get(v)?.hosts ?? []).some((h) => hostMatch(h.toLowerCase(), host)),
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
    r.decidedBy = decidedAt("Istio", refAt(gwObj, gw.selectorLine, "spec.selector"));
    return r;
  }
  const res = resolveBackends(model, index, mesh, choice, entry.proxies, () => true, req, protocol);
  r.hops.push(...res.hops);
  const done = conclude(r, choice, res, req, entry.proxies.length);
  withRetries(done, choice, res);
  return done;
}

const NGINX_CONTROLLER = "k8s.io/ingress-nginx";

export function ingressTrace(
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
  const ingress = l7Inputs(model).ingress;
  const spec = ingress.specs.get(ing)!;
  // Port 443 is the controller's HTTPS port: a request there is not redirected (rule 6).
  const scheme = to.port === 443 ? "https" : "http";
  const choice = routeIngress(
    ingress,
    spec,
    req,
    "",
    (ns, svc) => hasReadyEndpoint(index, `${ns}/${svc}`),
    scheme,
  );
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
    ip: spec.statusIP ?? svc?.clusterIPs[0] ?? "",
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
      ref: refAt(ing, spec.specLine),
    }),
  );
  if (choice.backends.length === 0) return answeredByRouter(r, choice, req);
  r.hops.push(...choice.hops.map((h) => l7Hop(choice.layer, h)));
  const res = resolveBackends(model, index, mesh, choice, entry.proxies, () => false, req, protocol);
  r.hops.push(...res.hops);
  return conclude(r, choice, res, req, entry.proxies.length);
}
