/**
 * Sets of (protocol, port) over TCP, UDP and SCTP, ports 1-65535, as sorted
 * disjoint ranges, and their text in np-guard netpol-analyzer's connlist
 * grammar (`TCP 8081-8082,UDP 53`, `All Connections`).
 */
import type { Protocol } from "../model/types.ts";

export const MIN_PORT = 1;
export const MAX_PORT = 65535;

/** Inclusive [first, last]. */
export type PortRange = readonly [number, number];

/** Per protocol: sorted ranges that neither overlap nor touch. */
export type PortSet = Record<Protocol, PortRange[]>;

/** In the order the text form prints them: groups sorted as strings. */
export const CONNLIST_PROTOCOLS: readonly Protocol[] = ["SCTP", "TCP", "UDP"];

export function emptyPortSet(): PortSet {
  return { TCP: [], UDP: [], SCTP: [] };
}

export function fullPortSet(): PortSet {
  return { TCP: [[MIN_PORT, MAX_PORT]], UDP: [[MIN_PORT, MAX_PORT]], SCTP: [[MIN_PORT, MAX_PORT]] };
}

/** Sorts and merges ranges that overlap or touch (8081 and 8082 become 8081-8082). */
export function normalizeRanges(ranges: readonly PortRange[]): PortRange[] {
  const sorted = ranges
    .filter(([a, b]) => a <= b)
    .map(([a, b]): [number, number] => [a, b])
    .sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  const out: [number, number][] = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last && r[0] <= last[1] + 1) last[1] = Math.max(last[1], r[1]);
    else out.push(r);
  }
  return out;
}

/** Adds [first, last] to one protocol, keeping the set normal. */
export function addRange(set: PortSet, protocol: Protocol, first: number, last: number): void {
  const list = set[protocol];
  const tail = list[list.length - 1];
  // Ranges usually arrive in increasing order (one probe interval after another).
  if (!tail || first > tail[1] + 1) list.push([first, last]);
  else if (first >= tail[0]) list[list.length - 1] = [tail[0], Math.max(tail[1], last)];
  else set[protocol] = normalizeRanges([...list, [first, last]]);
}

function intersectRanges(a: readonly PortRange[], b: readonly PortRange[]): PortRange[] {
  const out: PortRange[] = [];
  let i = 0,
    j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!,
      y = b[j]!;
    const lo = Math.max(x[0], y[0]),
      hi = Math.min(x[1], y[1]);
    if (lo <= hi) out.push([lo, hi]);
    if (x[1] < y[1]) i++;
    else j++;
  }
  return out;
}

export function intersectPortSets(a: PortSet, b: PortSet): PortSet {
  return {
    TCP: intersectRanges(a.TCP, b.TCP),
    UDP: intersectRanges(a.UDP, b.UDP),
    SCTP: intersectRanges(a.SCTP, b.SCTP),
  };
}

/** a minus b. */
export function subtractPortSets(a: PortSet, b: PortSet): PortSet {
  const out = emptyPortSet();
  for (const proto of CONNLIST_PROTOCOLS) {
    let rest: [number, number][] = a[proto].map(([x, y]) => [x, y]);
    for (const [hs, he] of b[proto]) {
      const next: [number, number][] = [];
      for (const [s, e] of rest) {
        if (he < s || hs > e) next.push([s, e]);
        else {
          if (hs > s) next.push([s, hs - 1]);
          if (he < e) next.push([he + 1, e]);
        }
      }
      rest = next;
    }
    out[proto] = normalizeRanges(rest);
  }
  return out;
}

export function isEmptyPortSet(s: PortSet): boolean {
  return s.TCP.length === 0 && s.UDP.length === 0 && s.SCTP.length === 0;
}

function isWhole(ranges: readonly PortRange[]): boolean {
  return ranges.length === 1 && ranges[0]![0] <= MIN_PORT && ranges[0]![1] >= MAX_PORT;
}

export function isFullPortSet(s: PortSet): boolean {
  return isWhole(s.TCP) && isWhole(s.UDP) && isWhole(s.SCTP);
}

const formatRange = ([a, b]: PortRange) => (a === b ? String(a) : `${a}-${b}`);

/**
 * netpol-analyzer's `conns`: `All Connections` when every port of all three
 * protocols is in the set, else one `PROTO r,r` group per protocol, groups in
 * string order, ranges ascending; a single port bare; "" for the empty set.
 */
export function formatPortSet(s: PortSet): string {
  if (isFullPortSet(s)) return "All Connections";
  return CONNLIST_PROTOCOLS.filter((p) => s[p].length > 0)
    .map((p) => `${p} ${s[p].map(formatRange).join(",")}`)
    .join(",");
}

/** The inverse of formatPortSet; undefined when the text does not follow the grammar. */
export function parsePortSet(text: string): PortSet | undefined {
  if (text === "All Connections") return fullPortSet();
  const set = emptyPortSet();
  let current: Protocol | undefined;
  for (const piece of text.split(",")) {
    const m = /^(?:(SCTP|TCP|UDP) )?(\d+)(?:-(\d+))?$/.exec(piece);
    if (!m) return undefined;
    if (m[1]) current = m[1] as Protocol;
    if (!current) return undefined;
    const a = Number(m[2]),
      b = m[3] === undefined ? a : Number(m[3]);
    if (a < MIN_PORT || b > MAX_PORT || b < a) return undefined;
    set[current].push([a, b]);
  }
  for (const p of CONNLIST_PROTOCOLS) set[p] = normalizeRanges(set[p]);
  return set;
}
