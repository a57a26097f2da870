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
    const w = this.words, x = o.words;
    for (let i = 0; i < w.length; i++) w[i]! |= x[i]!;
  }

  /** this |= a & b, without allocating. */
  orAndInPlace(a: Bitset, b: Bitset): void {
    const w = this.words, x = a.words, y = b.words;
    for (let i = 0; i < w.length; i++) w[i]! |= x[i]! & y[i]!;
  }

  and(o: Bitset): Bitset {
    const r = new Bitset(this.size);
    for (let i = 0; i < r.words.length; i++) r.words[i] = this.words[i]! & o.words[i]!;
    return r;
  }

  isEmpty(): boolean {
    for (const w of this.words) if (w !== 0) return false;
    return true;
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
