/**
 * IP and CIDR parsing as the apiserver's legacy fields see it in 1.35:
 * k8s.io/utils/net ParseIPSloppy / ParseCIDRSloppy (Go 1.16's net.ParseIP,
 * which reads IPv4 octets with leading zeros as decimal). The strict forms
 * (StrictIPCIDRValidation) are alpha and off in 1.35, so only values these
 * parsers reject are errors.
 */
import { bits, type Family } from "../model/ip.ts";

export interface GoIP {
  /** The family Go gives it: an IPv4-mapped IPv6 address (::ffff:a.b.c.d) is IPv4 (To4() != nil). */
  family: Family;
  /** The address in its family's space. */
  value: bigint;
  /** The 128-bit form when written as IPv6 (IPv4-mapped included). */
  written6: boolean;
}

function dtoi(s: string): number | undefined {
  if (!/^[0-9]+$/.test(s) || s.length > 10) return undefined;
  return Number(s);
}

function parseV4(s: string): bigint | undefined {
  const parts = s.split(".");
  if (parts.length !== 4) return undefined;
  let v = 0n;
  for (const p of parts) {
    const n = dtoi(p);
    if (n === undefined || n > 255) return undefined;
    v = (v << 8n) | BigInt(n);
  }
  return v;
}

function parseV6(s: string): bigint | undefined {
  if (s.length < 2 || !/^[0-9a-fA-F:.]+$/.test(s)) return undefined;
  let text = s;
  let tail: bigint | undefined;
  if (s.includes(".")) {
    const last = s.lastIndexOf(":");
    tail = parseV4(s.slice(last + 1));
    if (tail === undefined) return undefined;
    text = `${s.slice(0, last + 1)}0:0`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const split = (h: string) => (h === "" ? [] : h.split(":"));
  const head = split(halves[0]!);
  const rest = halves.length === 2 ? split(halves[1]!) : [];
  const missing = 8 - head.length - rest.length;
  if ((halves.length === 1 && missing !== 0) || (halves.length === 2 && missing < 1)) return undefined;
  let v = 0n;
  for (const g of [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...rest]) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
    v = (v << 16n) | BigInt(parseInt(g, 16));
  }
  if (tail !== undefined) v = (v & ~0xffffffffn) | tail;
  return v;
}

const V4_MAPPED_PREFIX = 0xffffn << 32n;

/** netutils.ParseIPSloppy */
export function parseIPSloppy(s: string): GoIP | undefined {
  if (!s.includes(":")) {
    const v = parseV4(s);
    return v === undefined ? undefined : { family: 4, value: v, written6: false };
  }
  const v = parseV6(s);
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

/** netutils.ParseCIDRSloppy: the address masked to its prefix. */
export function parseCIDRSloppy(s: string): GoCidr | undefined {
  const slash = s.indexOf("/");
  if (slash < 0) return undefined;
  const addr = s.slice(0, slash);
  const n = dtoi(s.slice(slash + 1));
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
export function ipClass(ip: GoIP): { unspecified: boolean; loopback: boolean; linkLocalUnicast: boolean; linkLocalMulticast: boolean } {
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
