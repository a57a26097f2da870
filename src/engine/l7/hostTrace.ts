/**
 * A request to a host name (`host:`): from a pod with a sidecar, routed by the mesh's
 * VirtualServices and ServiceEntries; otherwise DNS to a Service, or the outside world
 * through egress policy. An ExternalName Service outside the cluster follows its CNAME here.
 */
import type { KObject } from "../parse/manifests.ts";
import type { Model, Pod, Protocol } from "../model/types.ts";
import { type ProxyIndex } from "../proxy/index.ts";
import { parseIP } from "../model/ip.ts";
import { traceRequest, type TraceHop, type TraceResult, type TraceSource } from "../trace/index.ts";
import { toWire, type HttpRequest } from "./request.ts";
import { l7Hop, refAt, type DecidedBy } from "./common.ts";
import { DOMAIN, fqdn, serviceOfHost, sidecarOf, type MeshInput } from "./mesh.ts";
import { routeMesh } from "./meshRoutes.ts";
import {
  answeredByRouter,
  baseResult,
  conclude,
  decidedByOf,
  httpPort,
  serverChecked,
  withRequest,
  type L7Destination,
  type L7TraceResult,
} from "./result.ts";
import { resolveBackends, withMirrors, withRetries } from "./backends.ts";

export function hostTrace(
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
  if (clientPod && sidecar?.on)
    return sidecarHostTrace(
      model,
      index,
      mesh,
      clientPod,
      sidecar,
      to,
      protocol,
      req,
      request,
      hostHeader,
      service,
      dnsHop,
    );
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
    (mesh.entries.get(se)?.hosts ?? []).some((h) => h.toLowerCase() === host),
  );
  const spec = entry ? mesh.entries.get(entry) : undefined;
  const given =
    literal ?? spec?.endpoints.find((a) => !!parseIP(a)) ?? spec?.addresses.find((a) => !!parseIP(a));
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

/** How many ExternalName CNAMEs the trace is following now (a name that resolves back to its own Service stops). */
let cnames = 0;

/**
 * An ExternalName Service outside the cluster is a CNAME: the client connects to that name itself (kube-dns
 * answers it; kube-proxy programs nothing, ShouldSkipService), so the answer is the outside host's (egress
 * policy at the source, the mesh's outbound policy), not a drop. Undefined for any other trace.
 */
export function viaExternalName(
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

/** hostTrace's first case: the client's sidecar routes the request (rules 2-4), then each backend from the client pod. */
function sidecarHostTrace(
  model: Model,
  index: ProxyIndex,
  mesh: MeshInput,
  clientPod: Pod,
  sidecar: NonNullable<ReturnType<typeof sidecarOf>>,
  to: Extract<L7Destination, { kind: "host" }>,
  protocol: Protocol,
  req: HttpRequest | undefined,
  request: HttpRequest,
  hostHeader: HttpRequest | undefined,
  service: ReturnType<typeof serviceOfHost>,
  dnsHop: TraceHop,
): L7TraceResult {
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
