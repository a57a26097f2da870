/** Shared helpers of the trace: references into the input, addresses, numbers. */
import type { SourceRef } from "../parse/manifests.ts";
import type { Service, ServicePort } from "../model/services.ts";
import { parseIP, type Family } from "../model/ip.ts";
import type { ProxyRef } from "../proxy/index.ts";
import type { HopCause, ObjectRef, TraceRef, TraceService } from "./types.ts";

export const CLUSTER_DOMAIN = "cluster.local";

export function traceRef(r: SourceRef | ProxyRef | undefined, field?: string): TraceRef | undefined {
  if (!r) return undefined;
  const out: TraceRef = { kind: r.kind, name: r.name, line: r.line, file: r.file };
  if (r.namespace !== undefined) out.namespace = r.namespace;
  const f = field ?? (r as ProxyRef).field;
  if (f) out.field = f;
  return out;
}

/** The field's line, or the `spec:` line when the field is absent (a defaulted value). */
export function serviceRef(s: Service, field: string, line: number): TraceRef {
  return traceRef({ ...s.source, line: line || s.lines.spec || s.source.line }, field)!;
}

export function familyOf(ip: string): Family | undefined {
  return parseIP(ip)?.family;
}

export function hostPort(ip: string, port: number, family: Family): string {
  return family === 6 ? `[${ip}]:${port}` : `${ip}:${port}`;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * An integer with its thousands grouped by commas (12,345), as `toLocaleString("en")` writes it, without
 * ICU: a worker's first Intl call loads its locale data (60 to 100 ms in Chromium, on the first answer's path).
 */
export function thousands(n: number): string {
  if (!Number.isSafeInteger(n)) return String(n);
  const digits = String(Math.abs(n));
  let out = digits.slice(0, ((digits.length - 1) % 3) + 1);
  for (let i = out.length; i < digits.length; i += 3) out += `,${digits.slice(i, i + 3)}`;
  return n < 0 ? `-${out}` : out;
}

/** A share as people read it: a fraction with a denominator up to 100 when it is one (1/3, 9/10), else four decimals. */
export function formatProbability(p: number): string {
  if (p === 1) return "1";
  if (p > 0 && p < 1)
    for (let n = 2; n <= 100; n++) {
      const k = p * n;
      if (Math.abs(k - Math.round(k)) < 1e-9) return `${Math.round(k)}/${n}`;
    }
  return p.toFixed(4);
}

export function serviceInfo(
  s: Service,
  port: ServicePort | undefined,
  frontend: TraceService["frontend"],
  address: string,
  requested: number,
): TraceService {
  return {
    namespace: s.namespace,
    name: s.name,
    type: s.type,
    port: port?.port ?? requested,
    portName: port?.name ?? "",
    targetPort: port?.targetPort ?? requested,
    frontend,
    address,
  };
}

export function serviceObject(s: { namespace: string; name: string }): ObjectRef {
  return { kind: "Service", namespace: s.namespace, name: s.name };
}

export function podObject(p: { namespace: string; name: string }): ObjectRef {
  return { kind: "Pod", namespace: p.namespace, name: p.name };
}

export function nodeObject(name: string): ObjectRef {
  return { kind: "Node", name };
}

type DestinationCause = Extract<HopCause, { layer: "destination" }>;

/** How the destination resolved, on which object and (for a Service) which port. */
export function destinationCause(
  category: DestinationCause["category"],
  object?: ObjectRef,
  portIndex?: number,
): DestinationCause {
  const c: DestinationCause = { layer: "destination", category };
  if (object) c.object = object;
  if (portIndex !== undefined) c.rule = { index: portIndex };
  return c;
}
