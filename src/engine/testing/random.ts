/**
 * A seeded random generator for the random clusters of property tests
 * (netpol/scale.test.ts, the policy stack's): the same seed, the same cluster.
 */
/** mulberry32: `next` in [0, 1), `int(n)` in [0, n), `pick` one of a list. */
export function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(l: readonly T[]): T => l[int(l.length)]!;
  return { next, int, pick };
}
