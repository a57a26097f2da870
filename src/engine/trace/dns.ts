/**
 * DNS is part of the path: a pod that asks for a Service by name first looks
 * the name up through the cluster DNS Service (the pod's resolv.conf points
 * at its ClusterIP, dnsPolicy ClusterFirst), over UDP port 53. That lookup
 * is itself a request through kube-proxy to the DNS pods, with NetworkPolicy
 * at both ends, so it is traced the same way; when it fails, the request
 * never leaves with the Service's address and the DNS failure is the verdict.
 *
 * Only pods on the pod network use the cluster DNS by default (hostNetwork
 * pods, nodes and external clients use the node's resolver). An input
 * without a DNS Service gets no lookup hop: the destination hop says that
 * the cluster DNS is assumed to answer, not evaluated.
 */
import type { Model } from "../model/types.ts";
import type { Service } from "../model/services.ts";
import { CLUSTER_DOMAIN, serviceObject, serviceRef } from "./format.ts";
import { emptyResult, type Ctx } from "./result.ts";
import type { TraceHop } from "./types.ts";

/** The cluster DNS Service of the input: kube-system's kube-dns, or a kube-system Service selecting k8s-app kube-dns or coredns. */
export function clusterDNS(model: Model): Service | undefined {
  const sys = model.services.filter(
    (s) => s.namespace === "kube-system" && s.type !== "ExternalName" && !s.headless,
  );
  return (
    sys.find((s) => s.name === "kube-dns") ??
    sys.find((s) => s.selector?.["k8s-app"] === "kube-dns" || s.selector?.["k8s-app"] === "coredns")
  );
}

export type Lookup =
  | { kind: "none" }
  | { kind: "assumed" }
  | { kind: "ok"; hop: TraceHop }
  | { kind: "failed"; hop: TraceHop; reason: string };

/** The lookup of `s`'s name from the trace's client, traced through the DNS Service over UDP/53. */
export function lookUp(
  ctx: Ctx,
  s: Service,
  trace: (sub: Ctx, dns: Service) => ReturnType<typeof emptyResult>,
): Lookup {
  const { client, model } = ctx;
  if (ctx.noDNS || client.kind !== "pod" || !client.pod || client.pod.hostNetwork) return { kind: "none" };
  const dns = clusterDNS(model);
  if (!dns) return { kind: "assumed" };
  if (dns.key === s.key) return { kind: "none" };
  const fqdn = `${s.name}.${s.namespace}.svc.${CLUSTER_DOMAIN}`;
  const sub: Ctx = {
    ...ctx,
    noDNS: true,
    protocol: "UDP",
    http: undefined,
    hops: ctx.hops.slice(0, 1),
    result: emptyResult("UDP", 53),
  };
  const r = trace(sub, dns);
  const where = `${dns.key} (${dns.clusterIPs[0] ?? "no ClusterIP"}:53/UDP)`;
  const dnsPort = dns.ports.find((p) => p.port === 53 && p.protocol === "UDP");
  const ref = serviceRef(
    dns,
    dnsPort ? `spec.ports[${dnsPort.index}]` : "spec.ports",
    dnsPort?.line ?? dns.lines.ports,
  );
  if (r.error || r.verdict === "drop") {
    const failing = r.hops.find((h) => h.verdict === "drop");
    const why = r.error ?? failing?.detail ?? r.reason;
    const hop: TraceHop = {
      step: "dns",
      verdict: "drop",
      detail: `the client looks up ${fqdn} through ${where} first, and the lookup fails: ${why}`,
      cause: failing?.cause ?? { layer: "DNS", category: "lookup", object: serviceObject(dns) },
      ref: failing?.ref ?? ref,
    };
    return {
      kind: "failed",
      hop,
      reason: `dropped at DNS: the lookup of ${fqdn} through ${dns.key} fails (${why})`,
    };
  }
  const hop: TraceHop = {
    step: "dns",
    verdict: "pass",
    detail: `the client looks up ${fqdn} through ${where}: ${r.reason}${r.verdict === "partial" ? " (a lookup that lands on a refusing DNS pod times out and is retried)" : ""}`,
    cause: { layer: "DNS", category: "lookup", object: serviceObject(dns) },
    ref,
  };
  return { kind: "ok", hop };
}
