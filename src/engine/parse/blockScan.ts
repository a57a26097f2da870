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

/** Characters left to js-yaml: C0 and C1 controls (tab included), lone surrogates, a byte order mark, non-characters. */
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
export const NOT_FAST = /[\x00-\x08\x09\x0B\x0C\x0E-\x1F\x7F-\x9F\uD800-\uDFFF\uFEFF\uFFFE\uFFFF]/;

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

/** The events of one YAML doc (a part of a text cut at its `---` lines), or undefined when it is outside the subset. */
export function scanBlockEvents(text: string): Event[] | undefined {
  if (NOT_FAST.test(text) || text.includes("\r")) return undefined;
  try {
    return scan(text);
  } catch (e) {
    if (e === OUTSIDE) return undefined;
    throw e;
  }
}

function scan(text: string): Event[] {
  const n = text.length;
  const events: Event[] = [];
  const at = (i: number) => (i < n ? text.charCodeAt(i) : NL);
  const out = (): never => {
    throw OUTSIDE;
  };
  // The next content line (blank and comment lines skipped): its start, indent and first character's offset.
  let pos = 0;
  let ls = 0;
  let ind = 0;
  let cs = 0;
  let eof = false;
  let depth = 0;
  const peek = () => {
    for (;;) {
      if (pos >= n) {
        eof = true;
        return;
      }
      let j = pos;
      while (j < n && text.charCodeAt(j) === SPACE) j++;
      const c = at(j);
      if (c === NL) {
        pos = j + 1;
        continue;
      }
      if (c === HASH) {
        const e = text.indexOf("\n", j);
        pos = e < 0 ? n : e + 1;
        continue;
      }
      ls = pos;
      ind = j - pos;
      cs = j;
      eof = false;
      return;
    }
  };
  /** After a value at `j`: only spaces and a comment to the end of the line; `pos` moves to the next line. */
  const endOfLine = (j: number) => {
    let k = j;
    while (at(k) === SPACE) k++;
    const c = at(k);
    if (c === HASH && k > j) {
      const e = text.indexOf("\n", k);
      pos = e < 0 ? n : e + 1;
      return;
    }
    if (c !== NL) out();
    pos = k + 1;
  };
  const isDash = (i: number) => text.charCodeAt(i) === DASH && (at(i + 1) === SPACE || at(i + 1) === NL);
  const open = (type: typeof EVENT_ID.MAPPING | typeof EVENT_ID.SEQUENCE, start: number, flow: boolean) => {
    if (++depth > MAX_FAST_DEPTH) out();
    events.push({
      type,
      start,
      anchorStart: -1,
      anchorEnd: -1,
      tagStart: -1,
      tagEnd: -1,
      style: flow ? COLLECTION_STYLE.FLOW : COLLECTION_STYLE.BLOCK,
    });
  };
  const close = () => {
    depth--;
    events.push({ type: EVENT_ID.POP });
  };
  const scalar = (valueStart: number, valueEnd: number, style: number, fast: boolean) => {
    events.push({
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
  };
  /** A quoted scalar opening at `j`, closed on its line: the offset after its closing quote. */
  const quoted = (j: number): number => {
    const q = text.charCodeAt(j);
    let fast = true;
    for (let k = j + 1; k < n; k++) {
      const c = text.charCodeAt(k);
      if (c === NL) break;
      if (q === DQ) {
        // Escapes are left to js-yaml (its decoder, and its errors for a bad one).
        if (c === BACKSLASH) break;
        if (c === DQ) {
          scalar(j + 1, k, SCALAR_STYLE.DOUBLE_QUOTED, true);
          return k + 1;
        }
      } else if (c === SQ) {
        if (at(k + 1) === SQ) {
          fast = false;
          k++;
          continue;
        }
        scalar(j + 1, k, SCALAR_STYLE.SINGLE_QUOTED, fast);
        return k + 1;
      }
    }
    return out();
  };
  /** A plain scalar may start at `j` (not an indicator, or `-`, `?`, `:` before a non-space). */
  const plainStart = (j: number) => {
    const c = text.charCodeAt(j);
    if (!indicator(c)) return;
    if (
      (c === DASH || c === 63 || c === COLON) &&
      at(j + 1) !== SPACE &&
      at(j + 1) !== NL &&
      !flowEnd(at(j + 1))
    )
      return;
    out();
  };
  const flowEnd = (c: number) => c === COMMA || c === LBRACK || c === RBRACK || c === LBRACE || c === RBRACE;
  /** A block-context plain scalar from `j` to the end of its line or a comment: the offset after it. */
  const blockPlain = (j: number): number => {
    plainStart(j);
    let k = j;
    let end = j;
    for (; k < n; k++) {
      const c = text.charCodeAt(k);
      if (c === NL) break;
      if (c === HASH && text.charCodeAt(k - 1) === SPACE) break;
      if (c === COLON && (at(k + 1) === SPACE || at(k + 1) === NL)) out();
      if (c !== SPACE) end = k + 1;
    }
    scalar(j, end, SCALAR_STYLE.PLAIN, true);
    return end;
  };
  /** A flow-context plain scalar: up to `,`, a bracket, `: ` or a comment; the offset after it. */
  const flowPlain = (j: number, asKey: boolean): number => {
    plainStart(j);
    let end = j;
    for (let k = j; k < n; k++) {
      const c = text.charCodeAt(k);
      if (c === NL || flowEnd(c)) break;
      if (c === HASH && text.charCodeAt(k - 1) === SPACE) out();
      if (c === COLON && (at(k + 1) === SPACE || flowEnd(at(k + 1)) || at(k + 1) === NL)) {
        if (!asKey || text.charCodeAt(k - 1) === SPACE) out();
        break;
      }
      if (c !== SPACE) end = k + 1;
    }
    if (end === j) out();
    scalar(j, end, SCALAR_STYLE.PLAIN, true);
    return end;
  };
  const skip = (j: number) => {
    while (at(j) === SPACE) j++;
    return j;
  };
  /** A flow value at `j` (one line): the offset after it. */
  const flowValue = (j: number): number => {
    const c = text.charCodeAt(j);
    if (c === LBRACE) return flowMapping(j);
    if (c === LBRACK) return flowSequence(j);
    if (c === DQ || c === SQ) return quoted(j);
    return flowPlain(j, false);
  };
  const flowMapping = (j: number): number => {
    open(EVENT_ID.MAPPING, j, true);
    let k = skip(j + 1);
    if (at(k) === RBRACE) {
      close();
      return k + 1;
    }
    for (;;) {
      const c = at(k);
      k = c === DQ || c === SQ ? quoted(k) : flowPlain(k, true);
      if (at(k) !== COLON || at(k + 1) !== SPACE) out();
      k = skip(k + 1);
      if (at(k) === COMMA || at(k) === RBRACE) out();
      k = skip(flowValue(k));
      if (at(k) === RBRACE) {
        close();
        return k + 1;
      }
      if (at(k) !== COMMA) out();
      k = skip(k + 1);
      if (at(k) === RBRACE || at(k) === COMMA) out();
    }
  };
  const flowSequence = (j: number): number => {
    open(EVENT_ID.SEQUENCE, j, true);
    let k = skip(j + 1);
    if (at(k) === RBRACK) {
      close();
      return k + 1;
    }
    for (;;) {
      k = skip(flowValue(k));
      if (at(k) === RBRACK) {
        close();
        return k + 1;
      }
      // `[a: b]` (a pair in a sequence) and everything else but a comma are left to js-yaml.
      if (at(k) !== COMMA) out();
      k = skip(k + 1);
      if (at(k) === RBRACK || at(k) === COMMA) out();
    }
  };
  /** A value on the rest of a block line at `j` (flow, quoted or plain); `pos` moves to the next line. */
  const inlineValue = (j: number) => {
    const c = text.charCodeAt(j);
    let end: number;
    if (c === LBRACE) end = flowMapping(j);
    else if (c === LBRACK) end = flowSequence(j);
    else if (c === DQ || c === SQ) end = quoted(j);
    else end = blockPlain(j);
    endOfLine(end);
  };
  /** A block mapping's key at `k` starts a `key: ` or `key:` line (a sequence item's compact mapping). */
  const isKey = (k: number): boolean => {
    const c = text.charCodeAt(k);
    if (c === LBRACE || c === LBRACK) return false;
    if (c === DQ || c === SQ) {
      // The closing quote, then `:`.
      for (let i = k + 1; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d === NL) return false;
        if (d === BACKSLASH && c === DQ) return false;
        if (d === c) {
          if (c === SQ && at(i + 1) === SQ) {
            i++;
            continue;
          }
          return at(i + 1) === COLON && (at(i + 2) === SPACE || at(i + 2) === NL);
        }
      }
      return false;
    }
    for (let i = k; i < n; i++) {
      const d = text.charCodeAt(i);
      if (d === NL) return false;
      if (d === HASH && text.charCodeAt(i - 1) === SPACE) return false;
      if (d === COLON && (at(i + 1) === SPACE || at(i + 1) === NL)) return true;
    }
    return false;
  };
  /** A key and its value; the mapping's indent is `indent`. `pos` ends at the line after the entry. */
  const entry = (indent: number, k: number) => {
    const c = text.charCodeAt(k);
    let j: number;
    if (c === DQ || c === SQ) {
      j = quoted(k);
      if (at(j) !== COLON || (at(j + 1) !== SPACE && at(j + 1) !== NL)) out();
    } else {
      plainStart(k);
      j = -1;
      for (let i = k; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d === NL) break;
        if (d === HASH && text.charCodeAt(i - 1) === SPACE) break;
        if (d === COLON && (at(i + 1) === SPACE || at(i + 1) === NL)) {
          j = i;
          break;
        }
      }
      if (j < 0 || text.charCodeAt(j - 1) === SPACE) out();
      scalar(k, j, SCALAR_STYLE.PLAIN, true);
    }
    // js-yaml refuses an implicit key over 1024 characters.
    if (j - k > MAX_KEY) out();
    const v = skip(j + 1);
    const d = at(v);
    if (d === NL || (d === HASH && v > j + 1)) {
      // The value is a block on the following lines: more indented, or a sequence at the key's own indent.
      const e = text.indexOf("\n", v);
      pos = e < 0 ? n : e + 1;
      peek();
      if (!eof && ind > indent) {
        if (isDash(cs)) sequence(ind);
        else mapping(ind, cs);
      } else if (!eof && ind === indent && isDash(cs)) sequence(ind);
      else out(); // an empty value
      return;
    }
    inlineValue(v);
    // A more indented line after it would continue the scalar (or be an error): left to js-yaml.
    peek();
    if (!eof && ind > indent) out();
  };
  /** A block mapping whose first key is at `first` (mid-line in a sequence item) and whose keys are at `indent`. */
  const mapping = (indent: number, first: number) => {
    open(EVENT_ID.MAPPING, first, false);
    let k = first;
    for (;;) {
      entry(indent, k);
      peek();
      if (eof || ind < indent) break;
      if (ind > indent || isDash(cs)) out();
      k = cs;
    }
    close();
  };
  /** A block sequence whose dashes are at `indent`; the current line is its first item. */
  const sequence = (indent: number) => {
    open(EVENT_ID.SEQUENCE, cs, false);
    for (;;) {
      const j = skip(cs + 1);
      const c = at(j);
      // An item on the lines below its dash, and a sequence in a sequence, are left to js-yaml.
      if (c === NL || c === HASH || isDash(j)) out();
      if (isKey(j)) mapping(j - ls, j);
      else {
        inlineValue(j);
        peek();
        if (!eof && ind > indent) out();
      }
      peek();
      if (eof || ind !== indent || !isDash(cs)) break;
    }
    close();
  };

  peek();
  // A `---` line opens the part (splitDocuments keeps it with the doc it opens).
  if (!eof && ind === 0 && text.startsWith("---", cs)) {
    endOfLine(cs + 3);
    peek();
  }
  // A root other than a block mapping at column 0 (a list, a scalar, an empty doc) is left to js-yaml.
  if (eof || ind !== 0 || isDash(cs) || !isKey(cs)) out();
  events.push({ type: EVENT_ID.DOCUMENT, explicitStart: false, explicitEnd: false, directives: [] });
  mapping(0, cs);
  peek();
  if (!eof) out();
  events.push({ type: EVENT_ID.POP });
  return events;
}
