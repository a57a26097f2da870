import { describe, expect, it } from "vitest";
import { GroupSegments } from "./segments.ts";

/** A small deterministic generator (mulberry32), so a failure prints the seed that made it. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("GroupSegments: runs summed a stretch at a time", () => {
  it.each([1, 2, 3, 4, 5, 6, 7, 8])("equals the group-by-group sums (seed %i)", (seed) => {
    const rnd = random(seed);
    const n = 1 + Math.floor(rnd() * 300);
    // Keys in stretches, as groups in workload order are, with strays and -1s between them.
    const keys: number[] = [];
    let key = 0;
    for (let k = 0; k < n; k++) {
      if (rnd() < 0.1) key = Math.floor(rnd() * 6) - 1;
      keys.push(rnd() < 0.05 ? Math.floor(rnd() * 6) - 1 : key);
    }
    const weights = keys.map(() => 1 + Math.floor(rnd() * 9));
    const runs: number[] = [];
    for (let k = 0; k < n;) {
      const start = k + Math.floor(rnd() * 5);
      const end = Math.min(n, start + 1 + Math.floor(rnd() * 40));
      if (start >= n) break;
      runs.push(start, end);
      k = end + 1;
    }
    const want = new Map<number, { groups: number; weight: number; first: number }>();
    for (let r = 0; r < runs.length; r += 2)
      for (let k = runs[r]!; k < runs[r + 1]!; k++) {
        const w = want.get(keys[k]!) ?? { groups: 0, weight: 0, first: k };
        w.groups++;
        w.weight += weights[k]!;
        want.set(keys[k]!, w);
      }
    const got = new Map<number, { groups: number; weight: number; first: number }>();
    const segments = new GroupSegments(keys, weights);
    segments.forEach(runs, (key, first, count, weight) => {
      for (let k = first; k < first + count; k++) expect(keys[k]).toBe(key);
      const g = got.get(key) ?? { groups: 0, weight: 0, first };
      g.groups += count;
      g.weight += weight;
      got.set(key, g);
    });
    expect(got).toEqual(want);
    expect(segments.size).toBeLessThanOrEqual(n);
  });
});
