/** The query syntax of `ktl trace --from/--to` (shared/contract/ktl-cli.md). */
import { asPodKey, parseExternalAtNode } from "../model/ids.ts";
import { parseIP } from "../model/ip.ts";
import type { TraceDestination, TraceSource } from "./types.ts";

// ---------- query syntax (shared/contract/ktl-cli.md) ----------

function portOf(text: string): number | string | undefined {
  if (/^\d+$/.test(text)) {
    const n = Number(text);
    return n >= 1 && n <= 65535 ? n : undefined;
  }
  return /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(text) ? text : undefined;
}

/** `pod:NAMESPACE/NAME`, `node:NAME` or `external:IP@NODE`. */
export function parseTraceSource(text: string): TraceSource | { error: string } {
  const colon = text.indexOf(":");
  const kind = colon > 0 ? text.slice(0, colon) : "";
  const rest = text.slice(colon + 1);
  if (kind === "pod") {
    if (!/^[^/\s]+\/[^/\s]+$/.test(rest)) return { error: `--from ${text}: expected pod:NAMESPACE/NAME` };
    return { kind: "pod", pod: asPodKey(rest) };
  }
  if (kind === "node") {
    if (!rest) return { error: `--from ${text}: expected node:NAME` };
    return { kind: "node", node: rest };
  }
  if (kind === "external") {
    const { ip, node } = parseExternalAtNode(text) ?? { ip: "", node: "" };
    if (!parseIP(ip) || !node)
      return {
        error: `--from ${text}: expected external:IP@NODE (the client's address and the node its packet arrives at)`,
      };
    return { kind: "external", ip, node };
  }
  return { error: `--from ${text}: expected pod:NAMESPACE/NAME, node:NAME or external:IP@NODE` };
}

/** `service:NAMESPACE/NAME:PORT`, `pod:NAMESPACE/NAME:PORT` or `ip:ADDRESS:PORT` (`ip:[v6]:PORT` for IPv6). */
export function parseTraceDestination(text: string): TraceDestination | { error: string } {
  const colon = text.indexOf(":");
  const kind = colon > 0 ? text.slice(0, colon) : "";
  const rest = text.slice(colon + 1);
  const last = rest.lastIndexOf(":");
  const head = last > 0 ? rest.slice(0, last) : "";
  const port = last > 0 ? portOf(rest.slice(last + 1)) : undefined;
  if (kind === "service" || kind === "pod") {
    if (!/^[^/\s:]+\/[^/\s:]+$/.test(head) || port === undefined)
      return { error: `--to ${text}: expected ${kind}:NAMESPACE/NAME:PORT` };
    return kind === "service" ? { kind, service: head, port } : { kind, pod: asPodKey(head), port };
  }
  if (kind === "ip") {
    const ip = head.replace(/^\[(.*)\]$/, "$1");
    if (!parseIP(ip) || typeof port !== "number")
      return { error: `--to ${text}: expected ip:ADDRESS:PORT (ip:[ADDRESS]:PORT for IPv6)` };
    return { kind, ip, port };
  }
  return {
    error: `--to ${text}: expected service:NAMESPACE/NAME:PORT, pod:NAMESPACE/NAME:PORT or ip:ADDRESS:PORT`,
  };
}
