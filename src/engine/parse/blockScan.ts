/**
 * A fast scanner for the YAML that manifests are mostly written in: block
 * mappings and sequences, one-line plain and quoted scalars, one-line flow
 * collections (`{key: tier, operator: In, values: [web, api]}`), comments.
 * It gives the very events js-yaml's `parseEvents` gives for such a text
 * (same offsets, styles and scalar ranges), so `construct` in yaml.ts, the one
 * place that decides what a doc means, builds the values from either; it is
 * several times faster because it knows nothing else.
 *
 * Anything outside that subset (anchors, aliases, tags, block scalars,
 * multi-line scalars or flows, empty values, `? ` keys, tabs, CR, control
 * characters, escapes in double quotes, any text js-yaml would refuse) makes
 * it answer undefined, and the caller parses the part with js-yaml. It never
 * answers for a text js-yaml refuses: `blockScan.test.ts` holds its events
 * equal to js-yaml's, or undefined, over every scenario, the bench tiers and
 * random mutations of them.
 */
import { EVENT_ID, SCALAR_STYLE, COLLECTION_STYLE, CHOMPING_MODE } from "js-yaml";
import type { Event } from "js-yaml";

/** Characters left to js-yaml: C0 controls but the newline (tab and CR included), C1 controls, lone surrogates, a byte order mark, non-characters. */
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const OUTSIDE_CHARS = /[\x00-\x09\x0B-\x1F\x7F-\x9F\uD800-\uDFFF\uFEFF\uFFFE\uFFFF]/;

const NL = 10;
const SPACE = 32;
const DQ = 34;
const HASH = 35;
const SQ = 39;
const COMMA = 44;
const DASH = 45;
const COLON = 58;
const LBRACK = 91;
const BACKSLASH = 92;
const RBRACK = 93;
const LBRACE = 123;
const RBRACE = 125;

/** Deeper than this, js-yaml's own limit (MAX_DEPTH, 100) is near: the part is left to it. */
const MAX_FAST_DEPTH = 90;

/** Longer keys are left to js-yaml (which refuses an implicit key over 1024 characters). */
const MAX_KEY = 1000;

/** Outside the subset: the scan stops and the caller parses with js-yaml. */
class Outside extends Error {}
const OUTSIDE = new Outside();

/** `c` cannot start a plain scalar (YAML 1.2 c-indicator), unless it is `-`, `?` or `:` before a non-space. */
function indicator(c: number): boolean {
  switch (c) {
    case DASH:
    case 63: // ?
    case COLON:
    case COMMA:
    case LBRACK:
    case RBRACK:
    case LBRACE:
    case RBRACE:
    case HASH:
    case 38: // &
    case 42: // *
    case 33: // !
    case 124: // |
    case 62: // >
    case SQ:
    case DQ:
    case 37: // %
    case 64: // @
    case 96: // `
      return true;
  }
  return false;
}

/** Whether a text has none of the characters the scanner leaves to js-yaml (OUTSIDE_CHARS): then none of its parts has. */
export function scannerChars(text: string): boolean {
  return !OUTSIDE_CHARS.test(text);
}

/**
 * The events of one YAML doc (a part of a text cut at its `---` lines), or undefined when it is outside the subset.
 * `charsChecked`: the caller found the whole text free of OUTSIDE_CHARS (scannerChars), once for all its parts.
 */
export function scanBlockEvents(text: string, charsChecked = false): Event[] | undefined {
  if (!charsChecked && OUTSIDE_CHARS.test(text)) return undefined;
  try {
    return scan(text);
  } catch (e) {
    if (e === OUTSIDE) return undefined;
    throw e;
  }
}

/** One doc's scan: a cursor over its lines and the events so far. */
class Scanner {
  readonly events: Event[] = [];
  private readonly n: number;
  // The next content line (blank and comment lines skipped): its start, indent and first character's offset.
  private pos = 0;
  private ls = 0;
  private ind = 0;
  private cs = 0;
  private eof = false;
  private depth = 0;

  constructor(private readonly text: string) {
    this.n = text.length;
  }

  private at(i: number) {
    return i < this.n ? this.text.charCodeAt(i) : NL;
  }
  private out(): never {
    throw OUTSIDE;
  }
  // The next content line (blank and comment lines skipped): its start, indent and first character's offset.
  private peek() {
    for (;;) {
      if (this.pos >= this.n) {
        this.eof = true;
        return;
      }
      let j = this.pos;
      while (j < this.n && this.text.charCodeAt(j) === SPACE) j++;
      const c = this.at(j);
      if (c === NL) {
        this.pos = j + 1;
        continue;
      }
      if (c === HASH) {
        const e = this.text.indexOf("\n", j);
        this.pos = e < 0 ? this.n : e + 1;
        continue;
      }
      this.ls = this.pos;
      this.ind = j - this.pos;
      this.cs = j;
      this.eof = false;
      return;
    }
  }
  /** After a value at `j`: only spaces and a comment to the end of the line; `pos` moves to the next line. */
  private endOfLine(j: number) {
    let k = j;
    while (this.at(k) === SPACE) k++;
    const c = this.at(k);
    if (c === HASH && k > j) {
      const e = this.text.indexOf("\n", k);
      this.pos = e < 0 ? this.n : e + 1;
      return;
    }
    if (c !== NL) this.out();
    this.pos = k + 1;
  }
  private isDash(i: number) {
    return this.text.charCodeAt(i) === DASH && (this.at(i + 1) === SPACE || this.at(i + 1) === NL);
  }
  private open(type: typeof EVENT_ID.MAPPING | typeof EVENT_ID.SEQUENCE, start: number, flow: boolean) {
    if (++this.depth > MAX_FAST_DEPTH) this.out();
    this.events.push({
      type,
      start,
      anchorStart: -1,
      anchorEnd: -1,
      tagStart: -1,
      tagEnd: -1,
      style: flow ? COLLECTION_STYLE.FLOW : COLLECTION_STYLE.BLOCK,
    });
  }
  private close() {
    this.depth--;
    this.events.push({ type: EVENT_ID.POP });
  }
  private scalar(valueStart: number, valueEnd: number, style: number, fast: boolean) {
    this.events.push({
      type: EVENT_ID.SCALAR,
      valueStart,
      valueEnd,
      anchorStart: -1,
      anchorEnd: -1,
      tagStart: -1,
      tagEnd: -1,
      style: style as (typeof SCALAR_STYLE)[keyof typeof SCALAR_STYLE],
      chomping: CHOMPING_MODE.CLIP,
      indent: -1,
      fast,
    });
  }
  /** A quoted scalar opening at `j`, closed on its line: the offset after its closing quote. */
  private quoted(j: number): number {
    const q = this.text.charCodeAt(j);
    let fast = true;
    for (let k = j + 1; k < this.n; k++) {
      const c = this.text.charCodeAt(k);
      if (c === NL) break;
      if (q === DQ) {
        // Escapes are left to js-yaml (its decoder, and its errors for a bad one).
        if (c === BACKSLASH) break;
        if (c === DQ) {
          this.scalar(j + 1, k, SCALAR_STYLE.DOUBLE_QUOTED, true);
          return k + 1;
        }
      } else if (c === SQ) {
        if (this.at(k + 1) === SQ) {
          fast = false;
          k++;
          continue;
        }
        this.scalar(j + 1, k, SCALAR_STYLE.SINGLE_QUOTED, fast);
        return k + 1;
      }
    }
    return this.out();
  }
  /** A plain scalar may start at `j` (not an indicator, or `-`, `?`, `:` before a non-space). */
  private plainStart(j: number) {
    const c = this.text.charCodeAt(j);
    if (!indicator(c)) return;
    if (
      (c === DASH || c === 63 || c === COLON) &&
      this.at(j + 1) !== SPACE &&
      this.at(j + 1) !== NL &&
      !this.flowEnd(this.at(j + 1))
    )
      return;
    this.out();
  }
  private flowEnd(c: number) {
    return c === COMMA || c === LBRACK || c === RBRACK || c === LBRACE || c === RBRACE;
  }
  /** A block-context plain scalar from `j` to the end of its line or a comment: the offset after it. */
  private blockPlain(j: number): number {
    this.plainStart(j);
    let k = j;
    let end = j;
    for (; k < this.n; k++) {
      const c = this.text.charCodeAt(k);
      if (c === NL) break;
      if (c === HASH && this.text.charCodeAt(k - 1) === SPACE) break;
      if (c === COLON && (this.at(k + 1) === SPACE || this.at(k + 1) === NL)) this.out();
      if (c !== SPACE) end = k + 1;
    }
    this.scalar(j, end, SCALAR_STYLE.PLAIN, true);
    return end;
  }
  /** A flow-context plain scalar: up to `,`, a bracket, `: ` or a comment; the offset after it. */
  private flowPlain(j: number, asKey: boolean): number {
    this.plainStart(j);
    let end = j;
    for (let k = j; k < this.n; k++) {
      const c = this.text.charCodeAt(k);
      if (c === NL || this.flowEnd(c)) break;
      if (c === HASH && this.text.charCodeAt(k - 1) === SPACE) this.out();
      if (
        c === COLON &&
        (this.at(k + 1) === SPACE || this.flowEnd(this.at(k + 1)) || this.at(k + 1) === NL)
      ) {
        if (!asKey || this.text.charCodeAt(k - 1) === SPACE) this.out();
        break;
      }
      if (c !== SPACE) end = k + 1;
    }
    if (end === j) this.out();
    this.scalar(j, end, SCALAR_STYLE.PLAIN, true);
    return end;
  }
  private skip(j: number) {
    while (this.at(j) === SPACE) j++;
    return j;
  }
  /** A flow value at `j` (one line): the offset after it. */
  private flowValue(j: number): number {
    const c = this.text.charCodeAt(j);
    if (c === LBRACE) return this.flowMapping(j);
    if (c === LBRACK) return this.flowSequence(j);
    if (c === DQ || c === SQ) return this.quoted(j);
    return this.flowPlain(j, false);
  }
  private flowMapping(j: number): number {
    this.open(EVENT_ID.MAPPING, j, true);
    let k = this.skip(j + 1);
    if (this.at(k) === RBRACE) {
      this.close();
      return k + 1;
    }
    for (;;) {
      const c = this.at(k);
      k = c === DQ || c === SQ ? this.quoted(k) : this.flowPlain(k, true);
      if (this.at(k) !== COLON || this.at(k + 1) !== SPACE) this.out();
      k = this.skip(k + 1);
      if (this.at(k) === COMMA || this.at(k) === RBRACE) this.out();
      k = this.skip(this.flowValue(k));
      if (this.at(k) === RBRACE) {
        this.close();
        return k + 1;
      }
      if (this.at(k) !== COMMA) this.out();
      k = this.skip(k + 1);
      if (this.at(k) === RBRACE || this.at(k) === COMMA) this.out();
    }
  }
  private flowSequence(j: number): number {
    this.open(EVENT_ID.SEQUENCE, j, true);
    let k = this.skip(j + 1);
    if (this.at(k) === RBRACK) {
      this.close();
      return k + 1;
    }
    for (;;) {
      k = this.skip(this.flowValue(k));
      if (this.at(k) === RBRACK) {
        this.close();
        return k + 1;
      }
      // `[a: b]` (a pair in a sequence) and everything else but a comma are left to js-yaml.
      if (this.at(k) !== COMMA) this.out();
      k = this.skip(k + 1);
      if (this.at(k) === RBRACK || this.at(k) === COMMA) this.out();
    }
  }
  /** A value on the rest of a block line at `j` (flow, quoted or plain); `pos` moves to the next line. */
  private inlineValue(j: number) {
    const c = this.text.charCodeAt(j);
    let end: number;
    if (c === LBRACE) end = this.flowMapping(j);
    else if (c === LBRACK) end = this.flowSequence(j);
    else if (c === DQ || c === SQ) end = this.quoted(j);
    else end = this.blockPlain(j);
    this.endOfLine(end);
  }
  /** A block mapping's key at `k` starts a `key: ` or `key:` line (a sequence item's compact mapping). */
  private isKey(k: number): boolean {
    const c = this.text.charCodeAt(k);
    if (c === LBRACE || c === LBRACK) return false;
    if (c === DQ || c === SQ) {
      // The closing quote, then `:`.
      for (let i = k + 1; i < this.n; i++) {
        const d = this.text.charCodeAt(i);
        if (d === NL) return false;
        if (d === BACKSLASH && c === DQ) return false;
        if (d === c) {
          if (c === SQ && this.at(i + 1) === SQ) {
            i++;
            continue;
          }
          return this.at(i + 1) === COLON && (this.at(i + 2) === SPACE || this.at(i + 2) === NL);
        }
      }
      return false;
    }
    for (let i = k; i < this.n; i++) {
      const d = this.text.charCodeAt(i);
      if (d === NL) return false;
      if (d === HASH && this.text.charCodeAt(i - 1) === SPACE) return false;
      if (d === COLON && (this.at(i + 1) === SPACE || this.at(i + 1) === NL)) return true;
    }
    return false;
  }
  /** A key and its value; the mapping's indent is `indent`. `pos` ends at the line after the entry. */
  private entry(indent: number, k: number) {
    const c = this.text.charCodeAt(k);
    let j: number;
    if (c === DQ || c === SQ) {
      j = this.quoted(k);
      if (this.at(j) !== COLON || (this.at(j + 1) !== SPACE && this.at(j + 1) !== NL)) this.out();
    } else {
      this.plainStart(k);
      j = -1;
      for (let i = k; i < this.n; i++) {
        const d = this.text.charCodeAt(i);
        if (d === NL) break;
        if (d === HASH && this.text.charCodeAt(i - 1) === SPACE) break;
        if (d === COLON && (this.at(i + 1) === SPACE || this.at(i + 1) === NL)) {
          j = i;
          break;
        }
      }
      if (j < 0 || this.text.charCodeAt(j - 1) === SPACE) this.out();
      this.scalar(k, j, SCALAR_STYLE.PLAIN, true);
    }
    // js-yaml refuses an implicit key over 1024 characters.
    if (j - k > MAX_KEY) this.out();
    const v = this.skip(j + 1);
    const d = this.at(v);
    if (d === NL || (d === HASH && v > j + 1)) {
      // The value is a block on the following lines: more indented, or a sequence at the key's own indent.
      const e = this.text.indexOf("\n", v);
      this.pos = e < 0 ? this.n : e + 1;
      this.peek();
      if (!this.eof && this.ind > indent) {
        if (this.isDash(this.cs)) this.sequence(this.ind);
        else this.mapping(this.ind, this.cs);
      } else if (!this.eof && this.ind === indent && this.isDash(this.cs)) this.sequence(this.ind);
      else this.out(); // an empty value
      return;
    }
    this.inlineValue(v);
    // A more indented line after it would continue the scalar (or be an error): left to js-yaml.
    this.peek();
    if (!this.eof && this.ind > indent) this.out();
  }
  /** A block mapping whose first key is at `first` (mid-line in a sequence item) and whose keys are at `indent`. */
  private mapping(indent: number, first: number) {
    this.open(EVENT_ID.MAPPING, first, false);
    let k = first;
    for (;;) {
      this.entry(indent, k);
      this.peek();
      if (this.eof || this.ind < indent) break;
      if (this.ind > indent || this.isDash(this.cs)) this.out();
      k = this.cs;
    }
    this.close();
  }
  /** A block sequence whose dashes are at `indent`; the current line is its first item. */
  private sequence(indent: number) {
    this.open(EVENT_ID.SEQUENCE, this.cs, false);
    for (;;) {
      const j = this.skip(this.cs + 1);
      const c = this.at(j);
      // An item on the lines below its dash, and a sequence in a sequence, are left to js-yaml.
      if (c === NL || c === HASH || this.isDash(j)) this.out();
      if (this.isKey(j)) this.mapping(j - this.ls, j);
      else {
        this.inlineValue(j);
        this.peek();
        if (!this.eof && this.ind > indent) this.out();
      }
      this.peek();
      if (this.eof || this.ind !== indent || !this.isDash(this.cs)) break;
    }
    this.close();
  }

  run(): Event[] {
    this.peek();
    // A `---` line opens the part (splitDocuments keeps it with the doc it opens).
    if (!this.eof && this.ind === 0 && this.text.startsWith("---", this.cs)) {
      this.endOfLine(this.cs + 3);
      this.peek();
    }
    // A root other than a block mapping at column 0 (a list, a scalar, an empty doc) is left to js-yaml.
    if (this.eof || this.ind !== 0 || this.isDash(this.cs) || !this.isKey(this.cs)) this.out();
    this.events.push({ type: EVENT_ID.DOCUMENT, explicitStart: false, explicitEnd: false, directives: [] });
    this.mapping(0, this.cs);
    this.peek();
    if (!this.eof) this.out();
    this.events.push({ type: EVENT_ID.POP });
    return this.events;
  }
}

function scan(text: string): Event[] {
  return new Scanner(text).run();
}
