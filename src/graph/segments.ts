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
