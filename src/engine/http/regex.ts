/**
 * Regular expressions a user writes into a router or a policy (Gateway API
 * HTTPRoute `RegularExpression` matches, Istio `regex` StringMatches, Cilium
 * HTTP rules' path, method and host), read as the proxies that run them read
 * them: Envoy's `safe_regex` is Google RE2 (Cilium's agent and istiod
 * validate with Go's regexp, the same syntax), matched against the whole
 * value. RE2's syntax (github.com/google/re2/wiki/Syntax) has flags such as
 * `(?i)` and no lookaround or backreferences; its matching is linear in the
 * pattern and the value, so no pattern can make a trace hang.
 *
 * re2js is a JavaScript port of RE2 (via RE2/J). Its parse errors read as
 * Go's (`error parsing regexp: missing closing ): ...`), the text istiod and
 * Cilium put in their own messages.
 */
import { RE2JS } from "re2js";

export interface UserRegex {
  source: string;
  /** True when the whole value matches (RE2 FullMatch, Envoy safe_regex): RegExp.test of an anchored pattern. */
  test(value: string): boolean;
}

export interface RegexError {
  source: string;
  /** RE2's reason, as Go's regexp words it, or ktl's bound. */
  error: string;
  /** RE2 accepts it; its program is larger than ktl evaluates (MAX_PROGRAM_SIZE). */
  tooLarge?: true;
}

/**
 * The longest pattern ktl compiles when the API sets no bound of its own:
 * Gateway API's longest (HTTPHeaderMatch.Value, MaxLength 4096).
 */
export const MAX_REGEX_LENGTH = 4096;

/**
 * The largest RE2 program ktl runs, in instructions (re2js programSize(), as
 * RE2's ProgramSize counts them). Matching is linear but costs up to the
 * program size per character of the value, and counted repetition makes a
 * short pattern a large program (`[^/]{1000}` is a thousand instructions):
 * this bound keeps one match of a request within a few million steps.
 * Real routes and policies use a few hundred at most; Envoy itself refuses
 * programs over its re2.max_program_size.error_level (100 unless the
 * control plane raises it, as Istio and Contour do).
 */
export const MAX_PROGRAM_SIZE = 5000;

/** Compiled patterns by bound and source; emptied when full, so memory stays bounded. */
const cache = new Map<string, UserRegex | RegexError>();
const CACHE_SIZE = 1024;

export function isRegexError(r: UserRegex | RegexError): r is RegexError {
  return "error" in r;
}

/**
 * `source` compiled as RE2 compiles it, or the reason it does not. A pattern
 * longer than `maxLength` is an error too: the caller names whose bound it
 * is (an API's MaxLength, istiod's 1024, or ktl's MAX_REGEX_LENGTH).
 */
export function compileUserRegex(source: string, maxLength = MAX_REGEX_LENGTH): UserRegex | RegexError {
  const key = `${maxLength}\u0000${source}`;
  const hit = cache.get(key);
  if (hit) return hit;
  let out: UserRegex | RegexError;
  const estimate = source.length > maxLength ? { size: 0, nestedRepeat: false } : estimateProgram(source);
  if (source.length > maxLength)
    out = { source, error: `regex is too large: ${source.length} characters, at most ${maxLength} allowed` };
  else if (estimate.size > MAX_PROGRAM_SIZE && !estimate.nestedRepeat) out = tooLarge(source, estimate.size);
  else {
    try {
      const re = RE2JS.compile(source);
      const size = re.programSize();
      out =
        size > MAX_PROGRAM_SIZE ? tooLarge(source, size) : { source, test: (value) => re.testExact(value) };
    } catch (e) {
      out = { source, error: e instanceof Error ? e.message : String(e) };
    }
  }
  if (cache.size >= CACHE_SIZE) cache.clear();
  cache.set(key, out);
  return out;
}

function tooLarge(source: string, size: number): RegexError {
  return {
    source,
    error: `its RE2 program has about ${size} instructions, more than the ${MAX_PROGRAM_SIZE} ktl evaluates`,
    tooLarge: true,
  };
}

/**
 * An upper estimate of the RE2 program a pattern compiles to, in one pass
 * over its text and without compiling: every literal, class, escape and
 * operator counts one instruction, and a counted repetition `{n,m}`
 * repeats the atom before it (RE2 expands it into n copies and m-n
 * optional ones). It lets compileUserRegex refuse a pattern whose
 * program would be too large before paying for its compilation.
 */
export function estimateProgramSize(source: string): number {
  return estimateProgram(source).size;
}

/**
 * The estimate, and whether counted repetitions nest past RE2's 1000 (a
 * syntax error, "invalid repeat count", which compiling reports at once).
 */
function estimateProgram(source: string): { size: number; nestedRepeat: boolean } {
  // Sizes of the open groups and the largest repetition product inside each; `last` and
  // `lastRep` are those of the atom a quantifier applies to.
  const groups: number[] = [0];
  const reps: number[] = [1];
  let last = 0;
  let lastRep = 1;
  let nestedRepeat = false;
  let i = 0;
  const add = (n: number, rep = 1) => {
    groups[groups.length - 1]! += n;
    reps[reps.length - 1] = Math.max(reps[reps.length - 1]!, rep);
    last = n;
    lastRep = rep;
  };
  while (i < source.length) {
    const c = source[i]!;
    if (c === "\\") {
      if (source[i + 1] === "Q") {
        const end = source.indexOf("\\E", i + 2);
        const stop = end < 0 ? source.length : end;
        add(Math.max(1, stop - (i + 2)));
        i = end < 0 ? source.length : end + 2;
        continue;
      }
      // \p{Greek}, \x{10FFFF}: the braces belong to the escape.
      const braced = /^[pPx]\{[^}]*\}/.exec(source.slice(i + 1, i + 64));
      i += braced ? 1 + braced[0].length : 2;
      add(1);
      continue;
    }
    if (c === "[") {
      let j = i + 1;
      if (source[j] === "^") j++;
      if (source[j] === "]") j++;
      while (j < source.length && source[j] !== "]") {
        if (source[j] === "\\") j++;
        else if (source[j] === "[" && source[j + 1] === ":") {
          const end = source.indexOf(":]", j + 2);
          if (end > 0) j = end + 1;
        }
        j++;
      }
      i = j + 1;
      add(1);
      continue;
    }
    if (c === "(") {
      if (source[i + 1] === "?") {
        const flags = /^\(\?[a-zA-Z-]*\)/.exec(source.slice(i, i + 16));
        if (flags) {
          i += flags[0].length;
          continue;
        }
        const named = /^\(\?P?<[^>]*>/.exec(source.slice(i, i + 256));
        const open = /^\(\?[a-zA-Z-]*:/.exec(source.slice(i, i + 16));
        i += named ? named[0].length : open ? open[0].length : 1;
      } else i++;
      groups.push(0);
      reps.push(1);
      continue;
    }
    if (c === ")") {
      const size = (groups.length > 1 ? groups.pop()! : 0) + 1;
      const rep = reps.length > 1 ? reps.pop()! : 1;
      add(size, rep);
      i++;
      continue;
    }
    if (c === "{") {
      const rep = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(i, i + 24));
      if (rep) {
        // x{n} is n copies; x{n,m} adds m-n optional ones (a copy and a split each); x{n,} a loop.
        const n = Number(rep[1]);
        const m = rep[2] === undefined ? n : rep[3] ? Math.max(Number(rep[3]), n) : n;
        const grown = last * n + (last + 2) * (m - n) + (rep[2] !== undefined && !rep[3] ? last + 1 : 0);
        groups[groups.length - 1]! += grown - last + 1;
        last = grown;
        lastRep *= Math.max(m, 1);
        if (lastRep > 1000) nestedRepeat = true;
        reps[reps.length - 1] = Math.max(reps[reps.length - 1]!, lastRep);
        i += rep[0].length;
        continue;
      }
    }
    add(1);
    i++;
  }
  return { size: groups.reduce((a, b) => a + b, 0), nestedRepeat };
}

/** Whole-value match; a pattern that does not compile matches nothing (its caller reports why). */
export function regexMatches(source: string, value: string, maxLength = MAX_REGEX_LENGTH): boolean {
  const r = compileUserRegex(source, maxLength);
  return !isRegexError(r) && r.test(value);
}
