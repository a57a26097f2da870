/**
 * IPv4 and IPv6 addresses as bigints, CIDRs as [first, last] ranges. IPv4 and
 * IPv6 live in separate spaces: an IPv4 address never matches an IPv6 CIDR.
 */
export type Family = 4 | 6;

export interface IP {
  family: Family;
  value: bigint;
}

export interface Cidr {
  family: Family;
  first: bigint;
  last: bigint;
  prefix: number;
  text: string;
}

const V4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

export function parseIPv4(s: string): bigint | undefined {
  const m = V4.exec(s);
  if (!m) return undefined;
  let v = 0n;
  for (let i = 1; i <= 4; i++) {
    const part = m[i]!;
    // Leading zeros are rejected by the apiserver (net/netip, since Go 1.17).
    if (part.length > 1 && part[0] === "0") return undefined;
    const n = Number(part);
    if (n > 255) return undefined;
    v = (v << 8n) | BigInt(n);
  }
  return v;
}

export function parseIPv6(s: string): bigint | undefined {
  if (!/^[0-9a-fA-F:.]+$/.test(s) || s.length < 2) return undefined;
  let tail4: bigint | undefined;
  let text = s;
  const lastColon = s.lastIndexOf(":");
  if (s.includes(".")) {
    tail4 = parseIPv4(s.slice(lastColon + 1));
    if (tail4 === undefined) return undefined;
    text = s.slice(0, lastColon + 1) + "0:0";
  }
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const parse = (h: string) => (h === "" ? [] : h.split(":"));
  const head = parse(halves[0]!);
  const tail = halves.length === 2 ? parse(halves[1]!) : [];
  const missing = 8 - head.length - tail.length;
  if ((halves.length === 1 && missing !== 0) || (halves.length === 2 && missing < 1)) return undefined;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...tail];
  let v = 0n;
  for (const g of groups) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
    v = (v << 16n) | BigInt(parseInt(g, 16));
  }
  if (tail4 !== undefined) v = (v & ~0xffffffffn) | tail4;
  return v;
}

export function parseIP(s: string): IP | undefined {
  const v4 = parseIPv4(s);
  if (v4 !== undefined) return { family: 4, value: v4 };
  const v6 = parseIPv6(s);
  if (v6 !== undefined) return { family: 6, value: v6 };
  return undefined;
}

export function bits(f: Family): number {
  return f === 4 ? 32 : 128;
}

export interface CidrParse {
  cidr?: Cidr;
  error?: string;
  /** The address has bits set beyond the prefix (the apiserver rejects this for ipBlock since 1.30 strict mode; Go's ParseCIDR masks them). */
  hostBitsSet?: boolean;
}

export function parseCidr(s: string): CidrParse {
  const slash = s.indexOf("/");
  if (slash < 0) return { error: "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)" };
  const ip = parseIP(s.slice(0, slash));
  const p = s.slice(slash + 1);
  if (!ip || !/^\d{1,3}$/.test(p)) return { error: "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)" };
  const prefix = Number(p);
  const width = bits(ip.family);
  if (prefix > width) return { error: "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)" };
  const hostBits = BigInt(width - prefix);
  const mask = (1n << hostBits) - 1n;
  const first = ip.value & ~mask;
  return {
    cidr: { family: ip.family, first, last: first | mask, prefix, text: s },
    hostBitsSet: (ip.value & mask) !== 0n,
  };
}

export function cidrContains(c: Cidr, ip: IP): boolean {
  return c.family === ip.family && ip.value >= c.first && ip.value <= c.last;
}

export function formatIP(family: Family, v: bigint): string {
  if (family === 4) return [24n, 16n, 8n, 0n].map((s) => String((v >> s) & 255n)).join(".");
  const groups: string[] = [];
  for (let i = 7; i >= 0; i--) groups.push(((v >> BigInt(i * 16)) & 0xffffn).toString(16));
  // RFC 5952: compress the longest run of zero groups (length >= 2).
  let best = -1, bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== "0") { i++; continue; }
    let j = i;
    while (j < 8 && groups[j] === "0") j++;
    if (j - i > bestLen && j - i >= 2) { best = i; bestLen = j - i; }
    i = j;
  }
  if (best < 0) return groups.join(":");
  return `${groups.slice(0, best).join(":")}::${groups.slice(best + bestLen).join(":")}`;
}

/** The n-th address of a CIDR (0 = network address). */
export function nthAddress(c: Cidr, n: number): string | undefined {
  const v = c.first + BigInt(n);
  return v > c.last ? undefined : formatIP(c.family, v);
}
