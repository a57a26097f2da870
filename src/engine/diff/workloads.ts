/**
 * Connectivity between workloads, before and after, over every port and
 * protocol, as np-guard netpol-analyzer's `diff` compares it (its
 * docs/diff_output.md): both inputs' connectivity lists (connlist/, every
 * verdict from the one decider, so every layer and the profile count), IP
 * ranges cut at the edges both inputs name so that the same range has one
 * name on both sides, and per ordered pair of nodes one change:
 *
 * - added: no connection before, some after;
 * - removed: some before, none after;
 * - changed: both some, not the same set;
 *
 * with `workloads-diff-info` when a workload of the pair exists on one side
 * only ("workload X added", "workload X and Y removed").
 */
import type { Model } from "../model/types.ts";
import {
  computeConnlist,
  connlistRanges,
  formatPortSet,
  isEmptyPortSet,
  subtractPortSets,
  type ConnLine,
  type ConnList,
} from "../connlist/index.ts";

export interface WorkloadChange {
  change: "added" | "removed" | "changed";
  /** As connlist names them: `ns/name[Kind]`, `a.b.c.d-e.f.g.h[External]`, `{ingress-controller}`. */
  src: string;
  dst: string;
  /** The connections before and after, in connlist's grammar ("No Connections" when none). */
  before: string;
  after: string;
  /** What the after side allows that the before side did not, and the reverse ("" when nothing). */
  gained: string;
  lost: string;
  /** netpol-analyzer's workloads-diff-info: a workload of the pair that exists on one side only. */
  info?: string;
}

const NONE = "No Connections";

/** Both inputs' connectivity lists, their IP nodes cut at the same edges. */
export function connlistsOf(before: Model, after: Model): [ConnList, ConnList] {
  const ra = connlistRanges(before);
  const rb = connlistRanges(after);
  return [computeConnlist(before, { ranges: rb }), computeConnlist(after, { ranges: ra })];
}

export function diffWorkloads(before: Model, after: Model): WorkloadChange[] {
  const [a, b] = connlistsOf(before, after);
  const key = (l: ConnLine) => `${l.src}\0${l.dst}`;
  const la = new Map(a.lines.map((l) => [key(l), l]));
  const lb = new Map(b.lines.map((l) => [key(l), l]));
  const workloads = (c: ConnList) => new Set(c.nodes.filter((n) => n.kind === "workload").map((n) => n.name));
  const wa = workloads(a);
  const wb = workloads(b);
  const out: WorkloadChange[] = [];
  for (const { x, y } of mergeRanges(la, lb)) {
    if (x && y && x.conn === y.conn) continue;
    const { src, dst } = (y ?? x)!;
    const gained = y ? (x ? subtractPortSets(y.conns, x.conns) : y.conns) : undefined;
    const lost = x ? (y ? subtractPortSets(x.conns, y.conns) : x.conns) : undefined;
    const c: WorkloadChange = {
      change: !x ? "added" : !y ? "removed" : "changed",
      src,
      dst,
      before: x?.conn ?? NONE,
      after: y?.conn ?? NONE,
      gained: gained && !isEmptyPortSet(gained) ? formatPortSet(gained) : "",
      lost: lost && !isEmptyPortSet(lost) ? formatPortSet(lost) : "",
    };
    const info = onlyOnOneSide([src, dst], wa, wb);
    if (info) c.info = info;
    out.push(c);
  }
  const order = (c: WorkloadChange) => `${c.src}\0${c.dst}`;
  return out.sort((p, q) => (order(p) < order(q) ? -1 : order(p) > order(q) ? 1 : 0));
}

interface Pair {
  x: ConnLine | undefined;
  y: ConnLine | undefined;
}

const EXTERNAL = "[External]";

/** "10.0.0.0-10.9.255.255[External]" -> [first, last] as numbers; undefined for other nodes. */
function rangeOf(name: string): [number, number] | undefined {
  if (!name.endsWith(EXTERNAL)) return undefined;
  const ends = name.slice(0, -EXTERNAL.length).split("-");
  const num = (ip: string) => ip.split(".").reduce((n, part) => n * 256 + Number(part), 0);
  return ends.length === 2 ? [num(ends[0]!), num(ends[1]!)] : undefined;
}

function rangeName([first, last]: [number, number]): string {
  const dotted = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join(".");
  return `${dotted(first)}-${dotted(last)}${EXTERNAL}`;
}

/**
 * Every pair of both sides, with IP ranges that were cut only to compare
 * joined back where they touch and the other end and both sides'
 * connections are the same (netpol-analyzer's diff.go mergeIPblocks).
 */
function mergeRanges(la: Map<string, ConnLine>, lb: Map<string, ConnLine>): Pair[] {
  const out: Pair[] = [];
  const groups = new Map<string, { pair: Pair; range: [number, number]; dstIsIP: boolean }[]>();
  for (const k of new Set([...la.keys(), ...lb.keys()])) {
    const pair = { x: la.get(k), y: lb.get(k) };
    const { src, dst } = (pair.y ?? pair.x)!;
    const dstRange = rangeOf(dst);
    const range = dstRange ?? rangeOf(src);
    if (!range) {
      out.push(pair);
      continue;
    }
    const other = dstRange ? `dst-ip|${src}` : `src-ip|${dst}`;
    const key = `${other}\0${pair.x?.conn ?? ""}\0${pair.y?.conn ?? ""}`;
    (groups.get(key) ?? groups.set(key, []).get(key)!).push({ pair, range, dstIsIP: !!dstRange });
  }
  for (const list of groups.values()) {
    list.sort((a, b) => a.range[0] - b.range[0]);
    let i = 0;
    while (i < list.length) {
      const first = list[i]!;
      let last = first.range[1];
      let j = i + 1;
      while (j < list.length && list[j]!.range[0] <= last + 1) last = Math.max(last, list[j++]!.range[1]);
      const name = rangeName([first.range[0], last]);
      const rename = (l: ConnLine | undefined): ConnLine | undefined =>
        l && (first.dstIsIP ? { ...l, dst: name } : { ...l, src: name });
      out.push({ x: rename(first.pair.x), y: rename(first.pair.y) });
      i = j;
    }
  }
  return out;
}

/** "workload X added", "workload X and Y removed": the pair's workloads that one side lacks. */
function onlyOnOneSide(names: string[], before: Set<string>, after: Set<string>): string | undefined {
  const added = names.filter((n) => after.has(n) && !before.has(n));
  const removed = names.filter((n) => before.has(n) && !after.has(n));
  const words = (list: string[], verb: string) => `workload ${list.join(" and ")} ${verb}`;
  if (added.length) return words(added, "added");
  if (removed.length) return words(removed, "removed");
  return undefined;
}

/** netpol-analyzer's txt output of `diff`. */
export function formatWorkloadDiffTxt(changes: readonly WorkloadChange[]): string {
  const lines = changes.map(
    (c) =>
      `diff-type: ${c.change}, source: ${c.src}, destination: ${c.dst}, ref1: ${c.before}, ref2: ${c.after}${c.info ? `, workloads-diff-info: ${c.info}` : ""}`,
  );
  // Nothing changed: nothing printed, not even the heading (netpol-analyzer's diff.go).
  return lines.length ? ["Connectivity diff:", ...lines].join("\n") : "";
}
