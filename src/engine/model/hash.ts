/** Deterministic names for generated pods, in the shape Kubernetes gives them. */

/** FNV-1a, 32 bits. */
export function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

// k8s.io/apimachinery/pkg/util/rand SafeEncodeString: no vowels, no ambiguous characters.
const ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789";

/** `length` characters of the safe alphabet derived from `seed`. */
export function safeSuffix(seed: string, length: number): string {
  let out = "";
  let h = fnv1a(seed);
  for (let i = 0; i < length; i++) {
    if (i > 0 && i % 6 === 0) h = fnv1a(`${seed}#${i}`);
    out += ALPHANUMS[h % ALPHANUMS.length];
    h = Math.floor(h / ALPHANUMS.length);
  }
  return out;
}
