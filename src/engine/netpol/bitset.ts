/** A fixed-size set of small integers (pod class indices), 32 per word. */
export class Bitset {
  readonly words: Uint32Array;

  constructor(readonly size: number) {
    this.words = new Uint32Array((size + 31) >>> 5);
  }

  static full(size: number): Bitset {
    const b = new Bitset(size);
    b.words.fill(0xffffffff);
    const extra = b.words.length * 32 - size;
    if (extra > 0) b.words[b.words.length - 1] = 0xffffffff >>> extra;
    return b;
  }

  add(i: number): void {
    this.words[i >>> 5]! |= 1 << (i & 31);
  }

  has(i: number): boolean {
    return (this.words[i >>> 5]! & (1 << (i & 31))) !== 0;
  }

  orInPlace(o: Bitset): void {
    const w = this.words,
      x = o.words;
    for (let i = 0; i < w.length; i++) w[i]! |= x[i]!;
  }

  /** this |= a & b, without allocating. */
  orAndInPlace(a: Bitset, b: Bitset): void {
    const w = this.words,
      x = a.words,
      y = b.words;
    for (let i = 0; i < w.length; i++) w[i]! |= x[i]! & y[i]!;
  }

  and(o: Bitset): Bitset {
    const r = new Bitset(this.size);
    for (let i = 0; i < r.words.length; i++) r.words[i] = this.words[i]! & o.words[i]!;
    return r;
  }

  isEmpty(): boolean {
    return wordsEmpty(this.words);
  }

  /** Calls fn for every member, in increasing order. */
  forEach(fn: (i: number) => void): void {
    const w = this.words;
    for (let wi = 0; wi < w.length; wi++) {
      let word = w[wi]!;
      while (word !== 0) {
        const t = word & -word;
        fn((wi << 5) + 31 - Math.clz32(t));
        word ^= t;
      }
    }
  }
}

/** A set of small integers as its sorted members: the form for sets much smaller than their universe. */
export class SparseSet {
  constructor(
    /** Size of the universe, as Bitset.size. */
    readonly size: number,
    /** Members, ascending, no repeats. */
    readonly members: Int32Array,
  ) {}

  has(i: number): boolean {
    const m = this.members;
    let lo = 0;
    let hi = m.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = m[mid]!;
      if (v === i) return true;
      if (v < i) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  }

  isEmpty(): boolean {
    return this.members.length === 0;
  }

  /** Calls fn for every member, in increasing order. */
  forEach(fn: (i: number) => void): void {
    for (const i of this.members) fn(i);
  }
}

/** A set of class indices in whichever form is smaller. Treat as read-only: sets are shared. */
export type ClassSet = Bitset | SparseSet;

/**
 * When a built set is stored sparse: when members x sparseFactor <= universe,
 * i.e. when the member list is smaller than the bit words. Tests set 0 (every
 * set sparse) and Infinity (every set dense) to run both forms.
 */
export const setForm = { sparseFactor: 32 };

/**
 * Builds unions of ClassSets. Members go to a scratch bitmap and a list until
 * a dense operand (or the end) decides the form; the scratch is cleared by
 * its list, so one builder serves many sets without touching n bits each time.
 */
export class SetBuilder {
  private readonly scratch: Uint32Array;
  private readonly touched: number[] = [];
  private dense: Bitset | null = null;

  constructor(readonly n: number) {
    this.scratch = new Uint32Array((n + 31) >>> 5);
  }

  add(i: number): void {
    if (this.dense) {
      this.dense.add(i);
      return;
    }
    const w = i >>> 5;
    const bit = 1 << (i & 31);
    if ((this.scratch[w]! & bit) !== 0) return;
    this.scratch[w]! |= bit;
    this.touched.push(i);
  }

  private toDense(): Bitset {
    if (this.dense) return this.dense;
    const d = new Bitset(this.n);
    for (const i of this.touched) d.add(i);
    this.clearScratch();
    this.dense = d;
    return d;
  }

  private clearScratch(): void {
    for (const i of this.touched) this.scratch[i >>> 5] = 0;
    this.touched.length = 0;
  }

  /** this ∪= s */
  addSet(s: ClassSet): void {
    if (s instanceof SparseSet) {
      for (const i of s.members) this.add(i);
      return;
    }
    this.toDense().orInPlace(s);
  }

  /** this ∪= a ∩ b */
  addAnd(a: ClassSet, b: ClassSet): void {
    if (a instanceof Bitset && b instanceof Bitset) {
      this.toDense().orAndInPlace(a, b);
      return;
    }
    const [small, other] =
      a instanceof SparseSet && (!(b instanceof SparseSet) || a.members.length <= b.members.length)
        ? [a, b]
        : [b as SparseSet, a];
    for (const i of small.members) if (other.has(i)) this.add(i);
  }

  /** The set built so far, in its smaller form; the builder is empty again. */
  take(): ClassSet {
    if (this.dense) {
      const d = this.dense;
      this.dense = null;
      let count = 0;
      for (const w of d.words) count += popcount(w);
      if (count * setForm.sparseFactor > this.n) return d;
      const members = new Int32Array(count);
      let k = 0;
      d.forEach((i) => (members[k++] = i));
      return new SparseSet(this.n, members);
    }
    const count = this.touched.length;
    if (count * setForm.sparseFactor > this.n) {
      const d = this.toDense();
      this.dense = null;
      return d;
    }
    const members = Int32Array.from(this.touched).sort();
    this.clearScratch();
    return new SparseSet(this.n, members);
  }
}

/** Whether no bit of `words` is set. */
export function wordsEmpty(words: Uint32Array): boolean {
  for (let i = 0; i < words.length; i++) if (words[i] !== 0) return false;
  return true;
}

export function popcount(w: number): number {
  w -= (w >>> 1) & 0x55555555;
  w = (w & 0x33333333) + ((w >>> 2) & 0x33333333);
  return (((w + (w >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** Σ weight[i] over i in a ∩ b. */
export function weightOfIntersection(a: ClassSet, b: ClassSet, weight: ArrayLike<number>): number {
  let sum = 0;
  if (a instanceof Bitset && b instanceof Bitset) {
    const x = a.words,
      y = b.words;
    for (let wi = 0; wi < x.length; wi++) {
      let word = x[wi]! & y[wi]!;
      while (word !== 0) {
        const t = word & -word;
        sum += weight[(wi << 5) + 31 - Math.clz32(t)]!;
        word ^= t;
      }
    }
    return sum;
  }
  const [small, other] =
    a instanceof SparseSet && (!(b instanceof SparseSet) || a.members.length <= b.members.length)
      ? [a, b]
      : [b as SparseSet, a];
  for (const i of small.members) if (other.has(i)) sum += weight[i]!;
  return sum;
}
