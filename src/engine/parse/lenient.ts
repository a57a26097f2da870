/**
 * What kubectl's YAML decoder accepts and js-yaml refuses, read as kubectl
 * reads it. kubectl decodes with goyaml.v2 (sigs.k8s.io/yaml), a port of
 * libyaml, whose scanner ignores indentation inside flow collections and
 * quoted scalars (scannerc.go: yaml_parser_unroll_indent returns at once
 * when flow_level > 0, and yaml_parser_scan_flow_scalar checks no
 * indentation) and takes tabs as separation inside flow collections
 * (yaml_parser_scan_to_next_token: "Tabs are allowed ... in the flow
 * context"). js-yaml follows YAML 1.2's indentation rules there and stops
 * with "deficient indentation". Two forms meet it in real manifests
 * (netpol-analyzer's test data has both):
 *
 *   args:                            config: '{
 *     [                                "cniVersion": "0.3.1",
 *       "-jar",                        ...
 *   <TAB>  "-Dlisten=8080",          }'        <- indented like its key
 *     ]
 *
 * When js-yaml stops with "deficient indentation", the line it stopped on
 * is rewritten so that js-yaml reads the values kubectl reads, and parsed
 * again: tabs in the line's leading whitespace, or between tokens of a flow
 * collection, become spaces (separation either way: the values are the
 * same), and a line inside a flow collection or a quoted scalar that is
 * still less indented than the construct that holds it is padded with
 * spaces (a continuation line's leading white space is not content, YAML
 * 1.2 §7.3 and goyaml.v2 alike). Offsets of the padded text map back to the
 * source, so every line and column stays the source's. Anything else stays
 * an error, as do tabs that indent block structure (goyaml.v2 refuses those
 * too: "found character that cannot start any token").
 */

/** At most this many rewrites per document (each is a parse of the document). */
export const MAX_LENIENT_REPAIRS = 200;

/** js-yaml's reason for what goyaml.v2 reads (see above). */
const LENIENT_REASON = "deficient indentation";

interface YamlError {
  reason?: string;
  mark?: { position?: number };
}

/**
 * Where the lexer stands at an offset: inside a quoted scalar (opened at
 * `quote`), inside flow collections (`flow`: the offsets of the open
 * brackets, outermost first), or neither.
 */
interface LexState {
  quote: number;
  flow: number[];
}

const isBlank = (c: string | undefined) => c === " " || c === "\t";

/** A line that ends in a block scalar's header: `|` or `>` as a token, with its indicators. */
const BLOCK_HEADER = /(^|[ \t])[|>][-+0-9]*[ \t\r]*$/;

/**
 * A small YAML lexer, enough to tell, at `end`, whether a quoted scalar or a
 * flow collection is open and where it opened: quotes and brackets count only
 * where a token starts (not inside a plain scalar such as `don't` or `a[0]`),
 * comments and block scalars' content are skipped.
 */
export function lexState(text: string, end: number): LexState {
  const flow: number[] = [];
  let quote = -1;
  let dq = false;
  let blockIndent = -1;
  let i = 0;
  while (i < end) {
    const nl = text.indexOf("\n", i);
    const lineEnd = nl < 0 || nl > end ? end : nl;
    let indent = 0;
    while (text[i + indent] === " ") indent++;
    const blank = /^[ \t\r]*$/.test(text.slice(i, lineEnd));
    if (blockIndent >= 0 && quote < 0 && flow.length === 0) {
      if (blank || indent > blockIndent) {
        i = lineEnd + 1;
        continue;
      }
      blockIndent = -1;
    }
    let tokenStart = true;
    let contentEnd = lineEnd;
    for (let j = i; j < lineEnd; j++) {
      const c = text[j]!;
      if (quote >= 0) {
        if (dq && c === "\\") j++;
        else if (dq && c === '"') quote = -1;
        else if (!dq && c === "'") {
          if (text[j + 1] === "'") j++;
          else quote = -1;
        }
        tokenStart = false;
        continue;
      }
      if (isBlank(c) || c === "\r") {
        tokenStart = true;
        continue;
      }
      if (c === "#" && tokenStart) {
        contentEnd = j;
        break;
      }
      if (tokenStart && (c === '"' || c === "'")) {
        quote = j;
        dq = c === '"';
      } else if (c === "[" || c === "{") {
        if (tokenStart || flow.length > 0) flow.push(j);
      } else if ((c === "]" || c === "}") && flow.length > 0) flow.pop();
      // Separators after which a new token starts.
      tokenStart =
        c === "[" ||
        c === "{" ||
        c === "," ||
        ((c === ":" || c === "-" || c === "?") && (isBlank(text[j + 1]) || j + 1 >= lineEnd));
    }
    // A block scalar header (`key: |`, `- >-`) ends the line: its content lines follow, more indented.
    if (quote < 0 && flow.length === 0 && BLOCK_HEADER.test(text.slice(i, contentEnd))) blockIndent = indent;
    i = lineEnd + 1;
  }
  return { quote, flow };
}

/** Tabs of a line (from `lineStart` to `end`) that are separation, not content: the leading ones, and, outside quotes, those beside a flow indicator. */
function separationTabs(text: string, lineStart: number, end: number): number[] {
  const out: number[] = [];
  let j = lineStart;
  while (j < end && isBlank(text[j])) {
    if (text[j] === "\t") out.push(j);
    j++;
  }
  for (; j < end; j++) {
    if (text[j] !== "\t") continue;
    let a = j - 1;
    while (a > lineStart && isBlank(text[a])) a--;
    let b = j + 1;
    while (b < text.length && isBlank(text[b])) b++;
    const before = text[a] ?? "";
    const after = text[b] ?? "";
    const beside = "[]{},:".includes(before) || "[]{},#".includes(after) || after === "\n" || after === "\r";
    if (beside && lexState(text, j).quote < 0) out.push(j);
  }
  return out;
}

export interface LenientText {
  /** The text js-yaml then reads. */
  text: string;
  /** Offsets of `text` -> offsets of the original. */
  remap: (offset: number) => number;
  /** What was read leniently, for the warning. */
  what: string;
}

/**
 * The text rewritten until `parse` accepts it, when js-yaml's `err` is one of
 * the strictures goyaml.v2 does not have; undefined when it is not, or when
 * the rewrites do not end in a text that parses.
 */
export function readLeniently(
  original: string,
  err: unknown,
  parse: (text: string) => void,
): LenientText | undefined {
  let e = err as YamlError;
  let text = original;
  /** Padding inserted: [offset in the current text, count], in order. */
  const pads: [number, number][] = [];
  let tabs = false;
  let padded = false;
  for (let n = 0; n < MAX_LENIENT_REPAIRS; n++) {
    const pos = e.mark?.position;
    if (e.reason !== LENIENT_REASON || pos === undefined) return undefined;
    const lineStart = text.lastIndexOf("\n", pos - 1) + 1;
    const lineEnd = text.indexOf("\n", pos) < 0 ? text.length : text.indexOf("\n", pos);
    const fix = separationTabs(text, lineStart, Math.min(lineEnd, Math.max(pos, lineStart)));
    if (fix.length) {
      const chars = text.split("");
      for (const t of fix) chars[t] = " ";
      text = chars.join("");
      tabs = true;
    } else {
      const open = lexState(text, lineStart);
      const opener = open.flow.length ? open.flow[0]! : open.quote;
      if (opener < 0) return undefined;
      const want = opener - (text.lastIndexOf("\n", opener - 1) + 1) + 1;
      let indent = 0;
      while (text[lineStart + indent] === " ") indent++;
      if (indent >= want) return undefined;
      const count = want - indent;
      text = `${text.slice(0, lineStart)}${" ".repeat(count)}${text.slice(lineStart)}`;
      for (const p of pads) if (p[0] >= lineStart) p[0] += count;
      pads.push([lineStart, count]);
      pads.sort((a, b) => a[0] - b[0]);
      padded = true;
    }
    try {
      parse(text);
    } catch (next) {
      e = next as YamlError;
      continue;
    }
    const what = [
      ...(tabs ? ["a tab between tokens of a flow collection"] : []),
      ...(padded ? ["a line inside a flow collection or a quoted scalar indented less than it"] : []),
    ].join(" and ");
    const frozen = pads.map(([at, count]) => [at, count] as const);
    const remap = (o: number) => {
      let shift = 0;
      for (const [at, count] of frozen) {
        if (at + count > o) break;
        shift += count;
      }
      return o - shift;
    };
    return { text, remap: frozen.length ? remap : (o) => o, what };
  }
  return undefined;
}
