/** The trace's running state and its closing verdict. */
import type { Model, Protocol } from "../model/types.ts";
import type { ProxyIndex } from "../proxy/index.ts";
import type { HttpRequest } from "../http/request.ts";
import type { TraceEndpoint, TraceHop, TraceResult, TraceVerdict } from "./types.ts";
import type { Client } from "./client.ts";

function summarize(endpoints: TraceEndpoint[]): { verdict: TraceVerdict; reason: string } {
  const n = endpoints.length;
  const ok = endpoints.filter((e) => e.verdict === "allow").length;
  if (n === 0) return { verdict: "drop", reason: "dropped: no endpoint can serve the request" };
  if (ok === n)
    return {
      verdict: "allow",
      reason: `${ok} of ${n} candidate endpoint${n === 1 ? "" : "s"} ${n === 1 ? "accepts" : "accept"} the connection`,
    };
  const first = endpoints.find((e) => e.verdict === "drop")!;
  if (ok === 0)
    return {
      verdict: "drop",
      reason: `dropped: ${n === 1 ? "the only candidate endpoint refuses" : `none of the ${n} candidate endpoints accepts`} the connection (${first.reason})`,
    };
  return {
    verdict: "partial",
    reason: `${ok} of ${n} candidate endpoints accept the connection; ${first.ip}:${first.port} does not (${first.reason})`,
  };
}

export interface Ctx {
  model: Model;
  index: ProxyIndex;
  client: Client;
  protocol: Protocol;
  /** The request is an HTTP request (`--http`). */
  http?: HttpRequest | undefined;
  /** The name the client looked up to find the destination address (a `host:` destination outside the cluster): Cilium's toFQDNs reads it. */
  dnsName?: string | undefined;
  hops: TraceHop[];
  result: TraceResult;
  /** The trace is itself a DNS lookup: no lookup of its own (dns.ts). */
  noDNS?: boolean;
}

export function emptyResult(protocol: Protocol, port: number): TraceResult {
  return {
    verdict: "drop",
    reason: "",
    sourceIPPreserved: true,
    protocol,
    port,
    from: { kind: "", name: "", ip: "" },
    to: { kind: "", name: "", ip: "" },
    service: null,
    handledBy: null,
    kubeProxy: null,
    sourceIP: null,
    endpoints: [],
    hops: [],
  };
}

export function finish(
  ctx: Ctx,
  endpoints: TraceEndpoint[],
  extraHops: TraceHop[],
  dropReason?: string,
): TraceResult {
  const r = ctx.result;
  r.endpoints = endpoints;
  r.hops = [...ctx.hops, ...extraHops];
  if (dropReason !== undefined) {
    r.verdict = "drop";
    r.reason = dropReason;
  } else {
    const s = summarize(endpoints);
    r.verdict = s.verdict;
    r.reason = s.reason;
    if (
      ctx.http &&
      endpoints.length &&
      endpoints.every((e) => e.verdict === "drop") &&
      endpoints.some((e) => e.httpStatus === 403)
    ) {
      // The connection opened but the L7 proxy refused the request (shared/contract/ktl-cli.md httpStatus 403).
      r.httpStatus = 403;
      r.reason = `refused at L7 (403): ${endpoints.find((e) => e.httpStatus === 403)!.reason}`;
    } else if (ctx.http && r.verdict !== "drop") r.httpStatus = 200;
    const dropped = endpoints.find((e) => e.verdict === "drop" && e.decidedBy);
    if (r.verdict === "drop" && dropped) r.decidedBy = dropped.decidedBy!;
  }
  if (endpoints.length) {
    r.sourceIPPreserved = endpoints.every((e) => e.sourceIPPreserved);
    const seen = new Set(endpoints.map((e) => e.sourceIP));
    r.sourceIP = seen.size === 1 ? endpoints[0]!.sourceIP : null;
  }
  return r;
}
