/**
 * How kubectl's decoder reads what the YAML parser hands it: a plain scalar
 * (YAML 1.1 words and numbers, goyaml.v2's resolve), a tagged one, a mapping
 * key as its JSON conversion spells it, and the KTL108 warning where a YAML
 * 1.2 tool would read a scalar otherwise. Used by yaml.ts's construct and by
 * the JSON fast path.
 */
import { getScalarValue, SCALAR_STYLE } from "js-yaml";
import type { ScalarEvent } from "js-yaml";

/** A doc that kubectl's decoder refuses as a whole: it is skipped, the others load. */
export class DocError extends Error {
  constructor(
    readonly offset: number,
    readonly code: "KTL101" | "KTL105",
    message: string,
  ) {
    super(message);
  }
}

/** Prototype of parsed mappings: none of Object.prototype's members, so `constructor`, `__proto__` or `toString` are plain keys. */
export const MAPPING_PROTO: object = Object.create(null) as object;
export function newMapping(): Record<string, unknown> {
  // Object.create(non-null) keeps V8's fast properties (Object.create(null) starts in dictionary mode).
  return Object.create(MAPPING_PROTO) as Record<string, unknown>;
}

const INT_DEC = /^[-+]?[0-9]+$/;
const INT_OCT = /^0o[0-7]+$/;
const INT_HEX = /^0x[0-9a-fA-F]+$/;
const FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;

/** YAML 1.2 core schema resolution of a plain scalar (what js-yaml, most editors and linters read). */
export function resolvePlain12(s: string): unknown {
  if (s.length === 0) return null;
  switch (s) {
    case "null":
    case "Null":
    case "NULL":
    case "~":
      return null;
    case "true":
    case "True":
    case "TRUE":
      return true;
    case "false":
    case "False":
    case "FALSE":
      return false;
    case ".inf":
    case ".Inf":
    case ".INF":
    case "+.inf":
    case "+.Inf":
    case "+.INF":
      return Infinity;
    case "-.inf":
    case "-.Inf":
    case "-.INF":
      return -Infinity;
    case ".nan":
    case ".NaN":
    case ".NAN":
      return NaN;
  }
  if (INT_DEC.test(s)) return Number(s);
  if (INT_OCT.test(s)) return parseInt(s.slice(2), 8);
  if (INT_HEX.test(s)) return parseInt(s.slice(2), 16);
  if (FLOAT.test(s)) return Number(s);
  return s;
}

/** goyaml.v2 resolve.go resolveMapList: the YAML 1.1 words. */
const WORDS_11 = new Map<string, unknown>([
  ...["y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"].map((w) => [w, true] as const),
  ...["n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"].map(
    (w) => [w, false] as const,
  ),
  ...["", "~", "null", "Null", "NULL"].map((w) => [w, null] as const),
  ...[".nan", ".NaN", ".NAN"].map((w) => [w, NaN] as const),
  ...[".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"].map((w) => [w, Infinity] as const),
  ...["-.inf", "-.Inf", "-.INF"].map((w) => [w, -Infinity] as const),
]);
/** strconv.ParseInt/ParseUint(s, 0, 64) syntax: 0x, 0o, 0b prefixes; a leading 0 is octal. */
const GO_INT = /^[-+]?(0[xX][0-9a-fA-F]+|0[oO]?[0-7]+|0[bB][01]+|[1-9][0-9]*|0)$/;
const GO_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;

function goInt(s: string): number {
  const neg = s[0] === "-";
  const body = s[0] === "-" || s[0] === "+" ? s.slice(1) : s;
  let n: number;
  const p = body.slice(0, 2).toLowerCase();
  if (p === "0x") n = parseInt(body.slice(2), 16);
  else if (p === "0o") n = parseInt(body.slice(2), 8);
  else if (p === "0b") n = parseInt(body.slice(2), 2);
  else if (body.length > 1 && body[0] === "0") n = parseInt(body.slice(1), 8);
  else n = Number(body);
  return neg ? -n : n;
}

/**
 * How kubectl reads a plain scalar: sigs.k8s.io/yaml decodes with goyaml.v2,
 * whose resolve() follows YAML 1.1: `yes`/`no`/`on`/`off`/`y`/`n` are booleans,
 * `010` is octal 8, `1_000` is 1000, `0b101` is 5, `080` is the float 80.
 * Timestamps stay text (goyaml.v2 keeps them strings for interface{} targets).
 */
export function kubectlReads(s: string): unknown {
  const c = s.charCodeAt(0);
  // goyaml.v2's resolveTable: only these first characters can start a non-string.
  const word = isWordStart(c);
  const hinted = s.length === 0 || (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e || word;
  if (!hinted) return s;
  // A word of more than five letters is none of the YAML 1.1 words (`false` is the longest): most keys and names.
  if (word && s.length > 5) return s;
  if (WORDS_11.has(s)) return WORDS_11.get(s);
  if (c === 0x2e) return GO_FLOAT.test(s) ? Number(s) : s;
  if ((c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d) {
    const plain = s.includes("_") ? s.replace(/_/g, "") : s;
    if (GO_INT.test(plain)) return goInt(plain);
    if (GO_FLOAT.test(plain)) return Number(plain);
    if (/^-0[bB][01]+$/.test(plain)) return -parseInt(plain.slice(3), 2);
  }
  return s;
}

/**
 * How ktl reads a plain scalar: as kubectl does (kubectlReads), except the
 * one-letter `y`, `Y`, `n`, `N`, which stay text as YAML 1.2 and the
 * upstream examples written from the API (namespaces x, y, z) mean them;
 * a KTL108 warning says that kubectl reads them as booleans.
 */
export function resolvePlain(s: string): unknown {
  if (s.length === 1 && (s === "y" || s === "Y" || s === "n" || s === "N")) return s;
  return kubectlReads(s);
}

function sameScalar(a: unknown, b: unknown): boolean {
  return Object.is(a, b) || (typeof a === "number" && typeof b === "number" && a === b);
}

function describeScalar(v: unknown): string {
  if (typeof v === "boolean") return `the boolean ${v}`;
  if (v === null) return "null";
  if (typeof v === "number") return `the number ${v}`;
  return `the text ${JSON.stringify(v)}`;
}

/** Scalars of up to SHORT characters that YAML 1.1 and 1.2 read alike, as yaml11Warning found them (at most SHORT_KEPT). */
const SHORT = 12;
const SHORT_KEPT = 10_000;
const readAlike = new Set<string>();

/** The first characters with which resolvePlain12 or kubectlReads may read a plain scalar as other than text. */
const MAYBE_NOT_TEXT = /^[0-9+\-.~yYnNtTfFoO]/;

/** The first letters of the YAML 1.1 and 1.2 words (yes, no, true, false, on, off, null and their cases). */
function isWordStart(c: number): boolean {
  switch (c) {
    case 0x79: // y
    case 0x59: // Y
    case 0x6e: // n
    case 0x4e: // N
    case 0x74: // t
    case 0x54: // T
    case 0x66: // f
    case 0x46: // F
    case 0x6f: // o
    case 0x4f: // O
    case 0x7e: // ~
      return true;
  }
  return false;
}

/** A plain scalar kubectl reads otherwise than YAML 1.2 tools do: the warning (KTL108), or undefined. */
export function yaml11Warning(raw: string, asKey: boolean): { message: string; hint: string } | undefined {
  // Both readings keep a scalar as text unless it starts as a number, a word or `~` does (most do not).
  if (raw.length > 0 && !MAYBE_NOT_TEXT.test(raw)) return undefined;
  // A word of more than five letters is text in both readings (`false` is the longest word either has).
  if (raw.length > 5 && isWordStart(raw.charCodeAt(0))) return undefined;
  // Short scalars that both read alike repeat (`name`, `tier`, `80`, `TCP`): each is read twice once.
  const short = raw.length <= SHORT;
  if (short && readAlike.has(raw)) return undefined;
  const v12 = resolvePlain12(raw);
  const kubectl = kubectlReads(raw);
  if (sameScalar(kubectl, v12)) {
    if (short) {
      if (readAlike.size >= SHORT_KEPT) readAlike.clear();
      readAlike.add(raw);
    }
    return undefined;
  }
  const ours = resolvePlain(raw);
  const note = sameScalar(ours, kubectl) ? "" : `; ktl keeps ${describeScalar(ours)}`;
  if (asKey) {
    return {
      message: `kubectl reads the key \`${raw}\` as ${JSON.stringify(keyString(kubectl, 0))} (YAML 1.1 ${describeScalar(kubectl)}, sigs.k8s.io/yaml), not as ${JSON.stringify(raw)}${note}`,
      hint: `quote the key ("${raw}")`,
    };
  }
  return {
    message: `kubectl reads \`${raw}\` as ${describeScalar(kubectl)} (YAML 1.1, sigs.k8s.io/yaml), not as ${describeScalar(v12)} (YAML 1.2)${note}`,
    hint: `quote the value ("${raw}") if you mean the text`,
  };
}

export interface Resolved {
  value: unknown;
  /** Set for a plain scalar that YAML 1.2 reads otherwise. */
  plainRaw?: string;
}

export function scalarValue(text: string, ev: ScalarEvent): Resolved {
  const raw = getScalarValue(text, ev);
  if (ev.tagStart >= 0) {
    const tag = text.slice(ev.tagStart, ev.tagEnd);
    if (tag === "!!str" || tag === "!") return { value: raw };
    if (tag === "!!int" || tag === "!!float") return { value: Number(raw) };
    if (tag === "!!bool") return { value: raw === "true" };
    if (tag === "!!null") return { value: null };
  }
  if (ev.style !== SCALAR_STYLE.PLAIN) return { value: raw };
  return { value: resolvePlain(raw), plainRaw: raw };
}

/** A mapping key as sigs.k8s.io/yaml's JSON conversion spells it (yaml.go convertToJSONableObject). */
export function keyString(v: unknown, offset: number): string {
  if (typeof v === "string") return v;
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "number") {
    if (Number.isNaN(v)) return ".nan";
    if (v === Infinity) return ".inf";
    if (v === -Infinity) return "-.inf";
    return String(v);
  }
  if (v === null)
    throw new DocError(
      offset,
      "KTL101",
      "a null key (empty, `~` or `null`) is not valid: kubectl rejects the doc (sigs.k8s.io/yaml: Unsupported map key of type <nil>)",
    );
  throw new DocError(
    offset,
    "KTL101",
    "invalid map key: a list or mapping used as a key (goyaml.v2 decode.go); quote the key",
  );
}
