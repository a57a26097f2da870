/** Deterministic names for generated pods, in the shape Kubernetes gives them. */

const FNV_OFFSET = 0x811c9dc5;

/** FNV-1a, 32 bits; `from` continues the hash of a prefix (fnv1a(a + b) === fnv1a(b, fnv1a(a))). */
export function fnv1a(s: string, from = FNV_OFFSET): number {
  let h = from;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

// k8s.io/apimachinery/pkg/util/rand SafeEncodeString: no vowels, no ambiguous characters.
const ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789";
const CODES = Array.from(ALPHANUMS, (c) => c.charCodeAt(0));

/** `length` characters of the safe alphabet derived from `seed`. */
export function safeSuffix(seed: string, length: number): string {
  if (length <= 6) return encoded(fnv1a(seed), length);
  let out = "";
  let h = fnv1a(seed);
  for (let i = 0; i < length; i++) {
    if (i > 0 && i % 6 === 0) h = fnv1a(`${seed}#${i}`);
    out += ALPHANUMS[h % ALPHANUMS.length];
    h = Math.floor(h / ALPHANUMS.length);
  }
  return out;
}

/** Up to six characters of the alphabet from one hash, as one flat string. */
function encoded(h: number, length: number): string {
  const codes: number[] = [];
  for (let i = 0; i < length; i++) {
    codes.push(CODES[h % CODES.length]!);
    h = Math.floor(h / CODES.length);
  }
  return String.fromCharCode(...codes);
}

/**
 * The names `${base}-${safeSuffix(`${base}#${i}`, 5)}` for i = 0 .. n-1, the replicas of one workload: the
 * hash of `${base}#` is taken once and continued per replica number.
 */
export function replicaNames(base: string, n: number): string[] {
  const from = fnv1a(`${base}#`);
  const out = new Array<string>(n);
  for (let i = 0; i < n; i++) out[i] = `${base}-${encoded(fnv1a(String(i), from), 5)}`;
  return out;
}
