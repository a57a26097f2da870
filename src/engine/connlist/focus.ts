/**
 * netpol-analyzer's focus options over the connectivity list (its
 * `--focusworkload`, `--focusworkload-peer`, `--focus-direction`,
 * `--focus-conn`): they narrow the decider's answer to what the reader asks
 * about, and never judge a connection themselves.
 *
 * - A workload is named `name`, `namespace/name` or `Kind/namespace/name`;
 *   several are separated by commas. It matches a line's end
 *   `namespace/name[Kind]` (IP ranges and the ingress controller match none).
 * - `--focusworkload-peer` keeps, of the focus workloads' lines, those whose
 *   other end is a peer; `--focus-direction ingress` keeps the lines into a
 *   focus workload, `egress` those out of it.
 * - `--focus-conn PROTOCOL-PORT` (`tcp-8080`) keeps the lines that permit that
 *   connection, each shown with that connection alone.
 */
import type { Protocol } from "../model/types.ts";
import type { ConnLine, ConnList } from "./index.ts";
import { addRange, emptyPortSet, formatPortSet } from "./ports.ts";

export interface ConnlistFocus {
  workloads?: string[];
  peers?: string[];
  direction?: "ingress" | "egress";
  conn?: { protocol: Protocol; port: number };
}

/** A focus option's words, or the message for what is wrong with them. */
export function parseFocus(o: {
  workload?: string | undefined;
  peer?: string | undefined;
  direction?: string | undefined;
  conn?: string | undefined;
}): ConnlistFocus | { error: string } {
  const list = (s: string | undefined) =>
    s === undefined
      ? undefined
      : s
          .split(",")
          .map((x) => x.trim())
          .filter(Boolean);
  const f: ConnlistFocus = {};
  const workloads = list(o.workload);
  const peers = list(o.peer);
  if (workloads?.length) f.workloads = workloads;
  if (peers?.length) {
    if (!f.workloads)
      return { error: "--focusworkload-peer needs --focusworkload (the peer of which workload?)" };
    f.peers = peers;
  }
  if (o.direction !== undefined) {
    const d = o.direction.toLowerCase();
    if (d !== "ingress" && d !== "egress")
      return { error: `--focus-direction must be ingress or egress, not "${o.direction}"` };
    if (!f.workloads)
      return { error: "--focus-direction needs --focusworkload (into or out of which workload?)" };
    f.direction = d;
  }
  if (o.conn !== undefined) {
    const m = /^(tcp|udp|sctp)-(\d+)$/i.exec(o.conn.trim());
    const port = m ? Number(m[2]) : NaN;
    if (!m || port < 1 || port > 65535)
      return {
        error: `--focus-conn is PROTOCOL-PORT, such as tcp-8080 (PROTOCOL tcp, udp or sctp), not "${o.conn}"`,
      };
    f.conn = { protocol: m[1]!.toUpperCase() as Protocol, port };
  }
  return f;
}

/** Whether a line's end `namespace/name[Kind]` is the workload named `name`, `ns/name` or `Kind/ns/name`. */
export function endMatches(end: string, name: string): boolean {
  const m = /^([^/]+)\/(.+)\[([^\]]+)\]$/.exec(end);
  if (!m) return false;
  const [, ns, wl, kind] = m;
  const parts = name.split("/");
  if (parts.length === 1) return parts[0] === wl;
  if (parts.length === 2) return parts[0] === ns && parts[1] === wl;
  return (
    parts.length === 3 &&
    parts[0]!.toLowerCase() === kind!.toLowerCase() &&
    parts[1] === ns &&
    parts[2] === wl
  );
}

const permits = (l: ConnLine, c: NonNullable<ConnlistFocus["conn"]>) =>
  l.conns[c.protocol].some(([a, b]) => a <= c.port && c.port <= b);

export function focusConnlist(list: ConnList, f: ConnlistFocus): ConnList {
  const any = (end: string, names: readonly string[] | undefined) =>
    !names || names.some((n) => endMatches(end, n));
  const lines: ConnLine[] = [];
  for (const l of list.lines) {
    if (f.workloads) {
      const out = any(l.src, f.workloads) && f.direction !== "ingress" && any(l.dst, f.peers);
      const into = any(l.dst, f.workloads) && f.direction !== "egress" && any(l.src, f.peers);
      if (!out && !into) continue;
    }
    if (f.conn) {
      if (!permits(l, f.conn)) continue;
      const conns = emptyPortSet();
      addRange(conns, f.conn.protocol, f.conn.port, f.conn.port);
      lines.push({ ...l, conns, conn: formatPortSet(conns) });
    } else lines.push(l);
  }
  return { ...list, lines };
}
