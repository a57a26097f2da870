/**
 * The JSON fast path: input from `kubectl get -o json` (a List, or objects)
 * read with JSON.parse for the values and one scan of the text for the
 * positions the YAML path records, so that a large cluster dump skips the
 * YAML parser. json-fast.test.ts holds it equal to the YAML path; where the
 * two readings could differ it declines and the YAML path reads the text.
 */
import type { SourceText } from "./source.ts";
import { isArrayIndex, MAX_DEPTH, newOrigin, PosWriter, type YamlFileResult } from "./positions.ts";
import { newMapping, resolvePlain, yaml11Warning } from "./scalars.ts";

/**
 * Characters that make a text take the YAML path: what js-yaml refuses in a stream (its
 * PATTERN_NON_PRINTABLE; the YAML path then reports the doc), and, conservatively, tabs, NEL and
 * every surrogate. `kubectl get -o json` writes none of them outside rare names.
 */
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const NOT_FAST = /[\x00-\x08\x09\x0B\x0C\x0E-\x1F\x7F-\x9F\uD800-\uDFFF\uFFFE\uFFFF]/;
/** JSON's number grammar, as a token. */
const JSON_NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?/y;
const SMALL_INT = /^(?:0|[1-9][0-9]{0,14})$/;
/** Longest key taken on the fast path (YAML limits implicit keys to 1024 characters). */
const MAX_FAST_KEY = 1000;

/** Thrown inside parseJsonFast when the text is not one the fast path answers exactly as the YAML path. */
class NotFast extends Error {}

/**
 * One JSON document (`kubectl get -o json`, a `.json` manifest): JSON.parse makes the values,
 * and a scan of the text in step with them records the offsets the YAML path records (each
 * collection's opening bracket, each key's and each quoted item's first character inside the quotes). The
 * result equals the YAML path's, values (mappings with the same prototype), positions and
 * diagnostics (none: any input where the two could differ falls back): numbers that YAML 1.1
 * or 1.2 read otherwise than JSON (`1e3`, `-0`), a repeated key (KTL106), nesting deeper than
 * MAX_DEPTH, a key over 1000 characters, the characters in NOT_FAST. Undefined when the text is
 * not such a document; parseYamlFile then takes the YAML path. Positions cost what the YAML
 * path's cost: one record per collection in the origin's table, lines computed only when asked.
 */
export function parseJsonFast(source: SourceText): YamlFileResult | undefined {
  const text = source.text;
  const pos = new PosWriter(newOrigin(source, 0));
  let start = 0;
  while (start < text.length && (text[start] === " " || text[start] === "\n" || text[start] === "\r"))
    start++;
  const first = text[start];
  if (first !== "{" && first !== "[") return undefined;
  // js-yaml wants the lines of a flow collection indented at least as its first line ("deficient
  // indentation" otherwise), which JSON does not: only a document that starts a line is taken.
  if (start > 0 && text[start - 1] !== "\n") return undefined;
  if (NOT_FAST.test(text)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  let i = start;
  const ws = () => {
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x0a || c === 0x0d) i++;
      else return;
    }
  };
  /** Moves i past the string that opens at i; its raw text (quotes excluded) when it has no escape. */
  const skipString = (): number => {
    let j = text.indexOf('"', i + 1);
    for (;;) {
      let k = j - 1;
      while (text.charCodeAt(k) === 0x5c) k--;
      if ((j - k) % 2 === 1) break;
      j = text.indexOf('"', j + 1);
    }
    const end = j;
    i = j + 1;
    return end;
  };
  const value = (v: unknown, depth: number): unknown => {
    const at = i;
    const c = text.charCodeAt(i);
    if (c === 0x7b /* { */) {
      if (depth >= MAX_DEPTH) throw new NotFast();
      const src = v as Record<string, unknown>;
      const map = newMapping();
      // [offset, key, offset, key, offset, ...]
      const rec: (string | number)[] = [at];
      let keyed = false;
      i++;
      ws();
      if (text.charCodeAt(i) === 0x7d) {
        i++;
        pos.record(map, at, rec, 1, 1, 1);
        return map;
      }
      for (;;) {
        const keyAt = i;
        const end = skipString();
        if (end - keyAt > MAX_FAST_KEY) throw new NotFast();
        let key = text.slice(keyAt + 1, end);
        if (key.includes("\\")) key = JSON.parse(text.slice(keyAt, end + 1)) as string;
        // A repeated key: the YAML path warns (KTL106); JSON.parse kept only its last value.
        if (Object.hasOwn(map, key)) throw new NotFast();
        ws();
        i++; // :
        ws();
        map[key] = value(src[key], depth + 1);
        if (!keyed && isArrayIndex(key)) keyed = true;
        rec.push(key, keyAt + 1);
        ws();
        if (text.charCodeAt(i++) === 0x7d) break; // } (else ,)
        ws();
      }
      if (keyed) pos.keyed(map, rec);
      else pos.record(map, at, rec, 2, rec.length, 2);
      return map;
    }
    if (c === 0x5b /* [ */) {
      if (depth >= MAX_DEPTH) throw new NotFast();
      const arr = v as unknown[];
      const items: number[] = [];
      i++;
      ws();
      if (text.charCodeAt(i) === 0x5d) {
        i++;
        pos.record(arr, at, items, 0, 0, 1);
        return arr;
      }
      for (let n = 0; ; n++) {
        // A quoted scalar's offset is its first character inside the quotes, as js-yaml gives it.
        items.push(text.charCodeAt(i) === 0x22 ? i + 1 : i);
        arr[n] = value(arr[n], depth + 1);
        ws();
        if (text.charCodeAt(i++) === 0x5d) break;
        ws();
      }
      pos.record(arr, at, items, 0, items.length, 1);
      return arr;
    }
    if (c === 0x22 /* " */) {
      skipString();
      return v;
    }
    if (c === 0x74 /* t */ || c === 0x66 /* f */ || c === 0x6e /* n */) {
      i += v === false ? 5 : 4;
      return v;
    }
    JSON_NUMBER.lastIndex = i;
    const m = JSON_NUMBER.exec(text);
    if (!m) throw new NotFast();
    i += m[0].length;
    // The YAML path reads a number as a plain scalar: it must come out the same, with no KTL108
    // (a small integer without a leading zero always does).
    if (!SMALL_INT.test(m[0]) && (!Object.is(resolvePlain(m[0]), v) || yaml11Warning(m[0], false)))
      throw new NotFast();
    return v;
  };
  try {
    const root = value(parsed, 0);
    pos.finish();
    return {
      documents: [{ index: 0, line: source.lineAt(start), value: root }],
      diagnostics: [],
    };
  } catch (e) {
    if (e instanceof NotFast) return undefined;
    throw e;
  }
}
