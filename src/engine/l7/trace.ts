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
import type { Model, Pod, PodKey, Protocol } from "../model/types.ts";
import { type ProxyIndex } from "../proxy/index.ts";
import { parseTraceSource, traceRequest, type TraceDestination, type TraceSource } from "../trace/index.ts";
import { toL7Request, type WireRequest } from "./request.ts";
import { DOMAIN, sidecarOf } from "./mesh.ts";
import { baseResult, l7Inputs, serverChecked, type L7Destination, type L7TraceResult } from "./result.ts";
import { gatewayTrace, ingressTrace } from "./routerTraces.ts";
import { hostTrace, viaExternalName } from "./hostTrace.ts";

export { decidedByOf, meshPresent, parseAnyDestination, parseL7Destination } from "./result.ts";
export type { L7Backend, L7Destination, L7TraceResult } from "./result.ts";

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
