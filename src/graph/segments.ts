/**
 * Source groups in segments: the compact drops (`ReachView.drops`) name their
 * dropped groups as runs of indices, hundreds of groups a record and
 * thousands of records at M. The groups come in workload order, so the
 * element a group is drawn in (its namespace, its folded box) stays the same
 * over long stretches: a run is summed a stretch at a time, from prefix sums,
 * instead of a group at a time. Pure.
 */

export class GroupSegments {
  /** Per segment: its first group, its key (-1: no single key, the caller looks at each group). */
  private readonly starts: Int32Array;
  private readonly keys: Int32Array;
  /** Per group: its segment. */
  private readonly segmentOf: Int32Array;
  /** Prefix sums of the groups' weights: `sums[k]` is the weight of groups [0, k). */
  private readonly sums: Float64Array;

  /** `keyOf[k]`: group k's key, -1 for none; `weightOf[k]`: what it counts (its pods). */
  constructor(keyOf: ArrayLike<number>, weightOf: ArrayLike<number>) {
    const n = keyOf.length;
    const starts: number[] = [];
    const keys: number[] = [];
    this.segmentOf = new Int32Array(n);
    this.sums = new Float64Array(n + 1);
    for (let k = 0; k < n; k++) {
      const key = keyOf[k]!;
      if (!starts.length || keys[keys.length - 1] !== key) {
        starts.push(k);
        keys.push(key);
      }
      this.segmentOf[k] = starts.length - 1;
      this.sums[k + 1] = this.sums[k]! + weightOf[k]!;
    }
    this.starts = Int32Array.from(starts);
    this.keys = Int32Array.from(keys);
  }

  /** Segments in use: a measure of how well the groups' order follows the keys. */
  get size(): number {
    return this.starts.length;
  }

  /**
   * Calls `each(key, first, count, weight)` for every stretch of one key within the runs
   * (`runs`: [start, end) pairs, ascending), `first` its first group and `count` its groups.
   * A key may come back in a later stretch; stretches of key -1 come too.
   */
  forEach(
    runs: readonly number[],
    each: (key: number, first: number, count: number, weight: number) => void,
  ) {
    const n = this.segmentOf.length;
    for (let r = 0; r + 1 < runs.length; r += 2) {
      let k = runs[r]!;
      const end = Math.min(runs[r + 1]!, n);
      while (k < end) {
        const s = this.segmentOf[k]!;
        const next = s + 1 < this.starts.length ? Math.min(this.starts[s + 1]!, end) : end;
        each(this.keys[s]!, k, next - k, this.sums[next]! - this.sums[k]!);
        k = next;
      }
    }
  }
}

/** Two lists with the same items at the same places (by identity): whether kept per-group parts still hold. */
export function sameList<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Sums a compact drop record's groups by key (a namespace, a drawn element): returns a reader of the record's
 * runs ([start, end) pairs of group indices) giving quads (key, groups, first group, weight) in the order the keys
 * come. `groupKeys[k]` is group k's [key, weight] pairs, flat: one pair for a group under one key (summed a stretch
 * of groups at a time), several for a group split over keys, none for a group under none.
 */
export function groupSummer(
  groupKeys: readonly number[][],
  keys: number,
): (runs: readonly number[]) => number[] {
  const segments = new GroupSegments(
    Int32Array.from(groupKeys, (gk) => (gk.length === 2 ? gk[0]! : -1)),
    Float64Array.from(groupKeys, (gk) => (gk.length === 2 ? gk[1]! : 0)),
  );
  const weight = new Float64Array(keys);
  const groups = new Int32Array(keys);
  const first = new Int32Array(keys);
  const touched: number[] = [];
  const count = (key: number, k: number, n: number, w: number) => {
    if (groups[key] === 0) {
      touched.push(key);
      first[key] = k;
    }
    groups[key]! += n;
    weight[key]! += w;
  };
  const add = (one: number, k: number, n: number, w: number) => {
    if (one >= 0) return count(one, k, n, w);
    // Groups split over keys (or under none), one at a time.
    for (let g = k; g < k + n; g++) {
      const gk = groupKeys[g]!;
      for (let j = 0; j < gk.length; j += 2) count(gk[j]!, g, 1, gk[j + 1]!);
    }
  };
  return (runs) => {
    segments.forEach(runs, add);
    const out: number[] = [];
    for (const key of touched) {
      out.push(key, groups[key]!, first[key]!, weight[key]!);
      weight[key] = 0;
      groups[key] = 0;
    }
    touched.length = 0;
    return out;
  };
}
