/** A text file with a lazily built line index: offsets -> 1-based line and column. */
export class SourceText {
  private starts: Uint32Array | undefined;

  constructor(
    readonly file: string,
    readonly text: string,
  ) {}

  private lineStarts(): Uint32Array {
    if (this.starts) return this.starts;
    let count = 1;
    const t = this.text;
    for (let i = t.indexOf("\n"); i !== -1; i = t.indexOf("\n", i + 1)) count++;
    const starts = new Uint32Array(count);
    let n = 1;
    for (let i = t.indexOf("\n"); i !== -1; i = t.indexOf("\n", i + 1)) starts[n++] = i + 1;
    this.starts = starts;
    return starts;
  }

  /** 1-based line of an offset. */
  lineAt(offset: number): number {
    const s = this.lineStarts();
    let lo = 0;
    let hi = s.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (s[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }

  /** 1-based line and column of an offset. */
  positionAt(offset: number): { line: number; column: number } {
    const line = this.lineAt(offset);
    return { line, column: offset - this.lineStarts()[line - 1]! + 1 };
  }
}
