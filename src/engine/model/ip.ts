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

/**
 * Four decimal parts, each at most 255. Strict (net/netip, the apiserver
 * since Go 1.17): one to three digits, no leading zero. Sloppy (Go 1.16's
 * net.ParseIP, k8s.io/utils/net ParseIPSloppy): leading zeros read as decimal.
 */
function v4(s: string, sloppy: boolean): bigint | undefined {
  // The strict form is ipv4Number's, without a split and a pattern per part (endpoints parse one per pod); what
  // it reads, the sloppy form reads alike (it differs only on leading zeros, which the strict form refuses).
  const n = ipv4Number(s);
  if (n >= 0) return BigInt(n);
  if (!sloppy) return undefined;
  const parts = s.split(".");
  if (parts.length !== 4) return undefined;
  let v = 0n;
  for (const part of parts) {
    if (!/^[0-9]+$/.test(part)) return undefined;
    if (sloppy ? part.length > 10 : part.length > 3 || (part.length > 1 && part[0] === "0")) return undefined;
    const n = Number(part);
    if (n > 255) return undefined;
    v = (v << 8n) | BigInt(n);
  }
  return v;
}

/** Eight groups of hex, `::` for a run of zeros, an IPv4 tail read as `v4` reads it. */
function v6(s: string, sloppy: boolean): bigint | undefined {
  if (!/^[0-9a-fA-F:.]+$/.test(s) || s.length < 2) return undefined;
  let tail4: bigint | undefined;
  let text = s;
  const lastColon = s.lastIndexOf(":");
  if (s.includes(".")) {
    tail4 = v4(s.slice(lastColon + 1), sloppy);
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

export function parseIPv4(s: string): bigint | undefined {
  return v4(s, false);
}

export function parseIPv6(s: string): bigint | undefined {
  return v6(s, false);
}

/**
 * An IPv4 address as a number, exactly as parseIPv4 reads it (four decimal
 * parts of one to three digits, no leading zero, each at most 255), or -1.
 * Classes need one per pod: this skips the bigint.
 */
export function ipv4Number(s: string): number {
  let value = 0;
  let part = 0;
  let digits = 0;
  let dots = 0;
  let lead = 0;
  for (let i = 0; i <= s.length; i++) {
    const c = i < s.length ? s.charCodeAt(i) : 46;
    if (c >= 48 && c <= 57) {
      if (digits === 0) lead = c;
      else if (lead === 48) return -1;
      if (++digits > 3) return -1;
      part = part * 10 + (c - 48);
    } else if (c === 46) {
      if (digits === 0 || part > 255) return -1;
      value = value * 256 + part;
      part = 0;
      digits = 0;
      if (i < s.length && ++dots > 3) return -1;
    } else return -1;
  }
  return dots === 3 ? value : -1;
}

export function parseIP(s: string): IP | undefined {
  const v4 = parseIPv4(s);
  if (v4 !== undefined) return { family: 4, value: v4 };
  const v6 = parseIPv6(s);
  if (v6 !== undefined) return { family: 6, value: v6 };
  return undefined;
}

/**
 * parseIP for an address matched again and again (a policy's ipBlock or a tier's networks peer against the
 * same pod and node addresses, thousands of pairs an analysis at scale): each parse makes BigInts. Bounded;
 * the IP returned is shared, so it is read, never changed.
 */
const parsedAddresses = new Map<string, IP | undefined>();

export function parseIPKept(s: string): IP | undefined {
  let v = parsedAddresses.get(s);
  if (v === undefined && !parsedAddresses.has(s)) {
    if (parsedAddresses.size >= 65_536) parsedAddresses.clear();
    parsedAddresses.set(s, (v = parseIP(s)));
  }
  return v;
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
  if (!ip || !/^\d{1,3}$/.test(p))
    return { error: "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)" };
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
  if (family === 4) {
    const n = Number(v);
    return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
  }
  const groups: string[] = [];
  for (let i = 7; i >= 0; i--) groups.push(((v >> BigInt(i * 16)) & 0xffffn).toString(16));
  // RFC 5952: compress the longest run of zero groups (length >= 2).
  let best = -1,
    bestLen = 0;
  for (let i = 0; i < 8;) {
    if (groups[i] !== "0") {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === "0") j++;
    if (j - i > bestLen && j - i >= 2) {
      best = i;
      bestLen = j - i;
    }
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

// ---------- as the apiserver's legacy fields read them ----------
// k8s.io/utils/net ParseIPSloppy / ParseCIDRSloppy (Go 1.16's net.ParseIP,
// which reads IPv4 octets with leading zeros as decimal). The strict forms
// (StrictIPCIDRValidation) are alpha and off in 1.35, so only values these
// parsers reject are errors.

export interface GoIP {
  /** The family Go gives it: an IPv4-mapped IPv6 address (::ffff:a.b.c.d) is IPv4 (To4() != nil). */
  family: Family;
  /** The address in its family's space. */
  value: bigint;
  /** The 128-bit form when written as IPv6 (IPv4-mapped included). */
  written6: boolean;
}

const V4_MAPPED_PREFIX = 0xffffn << 32n;

/** netutils.ParseIPSloppy */
export function parseIPSloppy(s: string): GoIP | undefined {
  if (!s.includes(":")) {
    const v = v4(s, true);
    return v === undefined ? undefined : { family: 4, value: v, written6: false };
  }
  const v = v6(s, true);
  if (v === undefined) return undefined;
  if (v >> 32n === V4_MAPPED_PREFIX >> 32n) return { family: 4, value: v & 0xffffffffn, written6: true };
  return { family: 6, value: v, written6: true };
}

export interface GoCidr {
  family: Family;
  /** Network address (host bits cleared), in the family's space. */
  first: bigint;
  last: bigint;
  prefix: number;
}

/**
 * A CIDR as the apiserver stores a legacy field (IsValidCIDRForLegacyField
 * with StrictIPCIDRValidation off, its 1.35 default): the strict form, else
 * netutils.ParseCIDRSloppy, which reads IPv4 octets with leading zeros as
 * decimal (`010.244.001.0/24` is 10.244.1.0/24; the apiserver warns, see
 * validate/networkpolicy.ts). Undefined when the apiserver refuses it.
 */
export function parseLegacyCidr(s: string): Cidr | undefined {
  const strict = parseCidr(s).cidr;
  if (strict) return strict;
  const g = parseCIDRSloppy(s);
  if (!g || (g.family === 6 && g.prefix > 128)) return undefined;
  return { family: g.family, first: g.first, last: g.last, prefix: g.prefix, text: s };
}

/** netutils.ParseCIDRSloppy: the address masked to its prefix. */
export function parseCIDRSloppy(s: string): GoCidr | undefined {
  const slash = s.indexOf("/");
  if (slash < 0) return undefined;
  const addr = s.slice(0, slash);
  const prefixText = s.slice(slash + 1);
  const n = /^[0-9]+$/.test(prefixText) && prefixText.length <= 10 ? Number(prefixText) : undefined;
  const ip = parseIPSloppy(addr);
  if (!ip || n === undefined) return undefined;
  // Go sizes the mask by the written form: an IPv4-mapped address takes a 128-bit mask.
  const width = ip.written6 ? 128 : 32;
  if (n > width) return undefined;
  let prefix = n;
  if (ip.family === 4 && ip.written6) {
    if (n < 96) return { family: 6, first: 0n, last: (1n << 128n) - 1n, prefix: n };
    prefix = n - 96;
  }
  const host = BigInt(bits(ip.family) - prefix);
  const mask = (1n << host) - 1n;
  const first = ip.value & ~mask;
  return { family: ip.family, first, last: first | mask, prefix };
}

export function cidrHas(c: GoCidr, ip: GoIP): boolean {
  return c.family === ip.family && ip.value >= c.first && ip.value <= c.last;
}

/** Go's net.IP.IsUnspecified, IsLoopback, IsLinkLocalUnicast, IsLinkLocalMulticast. */
export function ipClass(ip: GoIP): {
  unspecified: boolean;
  loopback: boolean;
  linkLocalUnicast: boolean;
  linkLocalMulticast: boolean;
} {
  const v = ip.value;
  if (ip.family === 4) {
    return {
      unspecified: v === 0n,
      loopback: v >> 24n === 127n,
      linkLocalUnicast: v >> 16n === 0xa9fen,
      linkLocalMulticast: v >> 8n === 0xe00000n,
    };
  }
  return {
    unspecified: v === 0n,
    loopback: v === 1n,
    linkLocalUnicast: v >> 118n === 0x3fan,
    linkLocalMulticast: v >> 120n === 0xffn && ((v >> 112n) & 0x0fn) === 0x2n,
  };
}
