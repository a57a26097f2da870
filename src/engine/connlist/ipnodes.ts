/**
 * External addresses as IP-range nodes, as np-guard netpol-analyzer cuts them
 * (its README, "External addresses are IP-range nodes"): the IPv4 space is
 * split at the edges of every ipBlock (cidr minus its except list), ingress
 * `from` blocks for sources and egress `to` blocks for destinations, so that
 * every address of one node matches exactly the same blocks.
 */
import { formatIP } from "../model/ip.ts";
import type { IPBlock, NetworkPolicy } from "../model/networkpolicy.ts";

const V4_END = 2 ** 32;

/** Inclusive [first, last] IPv4 addresses as numbers. */
export type AddressRange = readonly [number, number];

export interface IPRangeNode {
  first: number;
  last: number;
  /** "first-last", as netpol-analyzer prints it (a range even for one address). */
  name: string;
  /** An address inside the range, to ask the policies about. */
  probe: string;
}

/** An IPv4 ipBlock's addresses: cidr minus every except, as maximal ranges (none for IPv6 or a bad cidr). */
export function blockRanges(b: IPBlock): AddressRange[] {
  if (!b.parsed || b.parsed.family !== 4) return [];
  let ranges: [number, number][] = [[Number(b.parsed.first), Number(b.parsed.last)]];
  const holes = b.exceptParsed
    .filter((e) => e.family === 4)
    .map((e) => [Number(e.first), Number(e.last)] as const);
  for (const [hs, he] of holes) {
    const next: [number, number][] = [];
    for (const [s, e] of ranges) {
      if (he < s || hs > e) next.push([s, e]);
      else {
        if (hs > s) next.push([s, hs - 1]);
        if (he < e) next.push([he + 1, e]);
      }
    }
    ranges = next;
  }
  // Two excepts that meet (10.0.0.0/9 and 10.128.0.0/9) leave no range between them, so no cut there.
  ranges.sort((x, y) => x[0] - y[0]);
  const merged: [number, number][] = [];
  for (const r of ranges) {
    const last = merged[merged.length - 1];
    if (last && r[0] <= last[1] + 1) last[1] = Math.max(last[1], r[1]);
    else merged.push(r);
  }
  return merged;
}

/** Splits 0.0.0.0-255.255.255.255 at every range start and every end + 1; neighbours are never merged. */
export function partitionIPv4(ranges: readonly AddressRange[]): IPRangeNode[] {
  const cuts = new Set<number>([0, V4_END]);
  for (const [s, e] of ranges) {
    cuts.add(s);
    cuts.add(e + 1);
  }
  const sorted = [...cuts].sort((a, b) => a - b);
  const nodes: IPRangeNode[] = [];
  for (let i = 0; i + 1 < sorted.length; i++) {
    const first = sorted[i]!,
      last = sorted[i + 1]! - 1;
    const a = formatIP(4, BigInt(first));
    nodes.push({ first, last, name: `${a}-${formatIP(4, BigInt(last))}`, probe: a });
  }
  return nodes;
}

export interface IPRangeNodes {
  /** Cut by the ipBlocks of every policy's ingress `from`. */
  sources: IPRangeNode[];
  /** Cut by the ipBlocks of every policy's egress `to`. */
  destinations: IPRangeNode[];
}

/**
 * Every policy counts, whatever its namespace and whether it selects anything.
 * `extraDestinations`: the cluster tiers' egress `networks` (IPv4), which cut
 * the destinations as well (the peer README's `anp/` section).
 */
export function ipRangeNodes(
  policies: readonly NetworkPolicy[],
  extraDestinations: readonly AddressRange[] = [],
  extraSources: readonly AddressRange[] = [],
): IPRangeNodes {
  const collect = (rules: (p: NetworkPolicy) => NetworkPolicy["ingress"]) =>
    policies.flatMap((p) =>
      rules(p).flatMap((r) =>
        (r.peers ?? []).flatMap((peer) => (peer.ipBlock ? blockRanges(peer.ipBlock) : [])),
      ),
    );
  return {
    sources: partitionIPv4([...collect((p) => p.ingress), ...extraSources]),
    destinations: partitionIPv4([...collect((p) => p.egress), ...extraDestinations]),
  };
}
