/**
 * YAML and JSON documents -> plain values, with the source offset of every
 * collection, mapping key and sequence item.
 *
 * js-yaml's `parseEvents` gives a flat event stream with offsets (about
 * 17 MB/s here); we build the values ourselves from it so that positions cost
 * one small record per collection instead of a second AST. Values are what
 * kubectl's decoder (sigs.k8s.io/yaml over goyaml.v2) makes of the text:
 * YAML 1.1 plain scalars (KTL108 warns where YAML 1.2 tools read otherwise),
 * `<<` merges, keys as its JSON conversion spells them, and go-yaml's bound
 * on what aliases expand to; an alias inside its own anchor (a cycle), a
 * collection as a key or an unknown anchor spoil their doc. Mappings have a
 * prototype without members, so any key is a plain key.
 *
 * A syntax error spoils only its own YAML doc: the text is cut at its `---`
 * lines (a doc marker ends even a block scalar, YAML 1.2 §9.1) and parsed in
 * batches of docs; a batch with an error is parsed doc by doc.
 */
import { parseEvents, getScalarValue, EVENT_ID, SCALAR_STYLE } from "js-yaml";
import type { Event, ScalarEvent } from "js-yaml";
import type { Diagnostic } from "./diagnostics.ts";
import { SourceText } from "./source.ts";
import { readLeniently } from "./lenient.ts";
import { scanBlockEvents } from "./blockScan.ts";

/** Where a collection sits in its source: its own offset, and each key's or item's. */
export interface NodePosition {
  source: SourceText;
  offset: number;
  /** Offsets of a mapping's keys. */
  keys?: Map<string, number>;
  /** Offsets of a sequence's items. */
  items?: number[];
}

/**
 * The stored form of a position, one exact-size array per collection:
 * `[source, offset, ...]` followed, for a mapping, by `key, offset` pairs in
 * order of appearance (a repeated key keeps its first place and its last
 * offset), for a sequence by the offset of each item. It hangs off the
 * collection under a non-enumerable symbol: invisible to Object.keys, JSON,
 * spread, structured clone and deep equality, and cheaper than a WeakMap
 * (whose entries every garbage collection has to trace).
 */
type Pos = (SourceText | string | number)[];

const POS: unique symbol = Symbol("ktl.yaml.position");
type Positioned = { [POS]?: Pos };
/** Reused descriptor: defineProperty copies it. */
const POS_DESCRIPTOR: PropertyDescriptor = {
  value: undefined,
  enumerable: false,
  writable: false,
  configurable: false,
};

function posOf(node: object): Pos | undefined {
  return (node as Positioned)[POS];
}

function attach(node: object, pos: Pos): void {
  POS_DESCRIPTOR.value = pos;
  Object.defineProperty(node, POS, POS_DESCRIPTOR);
  POS_DESCRIPTOR.value = undefined;
}

export function positionOf(node: object): NodePosition | undefined {
  const p = posOf(node);
  if (!p) return undefined;
  const source = p[0] as SourceText;
  const offset = p[1] as number;
  if (Array.isArray(node)) return { source, offset, items: p.slice(2) as number[] };
  const keys = new Map<string, number>();
  for (let i = 2; i < p.length; i += 2) keys.set(p[i] as string, p[i + 1] as number);
  return { source, offset, keys };
}

/** Offset of a key or item of `node` in its position record, or -1. */
function offsetIn(node: object, p: Pos, key: string | number): number {
  if (Array.isArray(node)) {
    if (typeof key !== "number" || !Number.isInteger(key) || key < 0 || key + 2 >= p.length) return -1;
    return p[key + 2] as number;
  }
  if (typeof key !== "string") return -1;
  for (let i = 2; i < p.length; i += 2) if (p[i] === key) return p[i + 1] as number;
  return -1;
}

/** 1-based line of a collection, or of one of its keys or items. */
export function lineOf(node: unknown, key?: string | number): number {
  if (node === null || typeof node !== "object") return 0;
  const p = posOf(node);
  if (!p) return 0;
  let offset = p[1] as number;
  if (key !== undefined) {
    // A key the node lacks has no line: 0, so callers choose their own fallback (`lineOf(o, k) || o.line`).
    offset = offsetIn(node, p, key);
    if (offset < 0) return 0;
  }
  return (p[0] as SourceText).lineAt(offset);
}

/** Line of the deepest existing node along a path such as ["spec", "ports", 0, "port"]. */
export function lineOfPath(root: unknown, path: readonly (string | number)[]): number {
  let node: unknown = root;
  let best = lineOf(root);
  for (const key of path) {
    if (node === null || typeof node !== "object") break;
    const p = posOf(node);
    const o = p ? offsetIn(node, p, key) : -1;
    if (o < 0) break;
    best = (p![0] as SourceText).lineAt(o);
    node = (node as Record<string | number, unknown>)[key];
  }
  return best;
}

export interface YamlDocument {
  /** 0-based index of the YAML doc in its file. */
  index: number;
  /** Line where the doc's content starts. */
  line: number;
  value: unknown;
}

export interface YamlFileResult {
  documents: YamlDocument[];
  diagnostics: Diagnostic[];
}

export const MAX_DEPTH = 100;

/**
 * go-yaml's alias budget (decode.go `allowedAliasRatio`; sigs.k8s.io/yaml
 * decodes with its goyaml.v2 fork): of the nodes a decode visits, counting
 * every node an alias expands to, up to 99% may come from aliases in a doc of
 * up to 400,000 nodes, and only 10% from 4,000,000 on. A doc's expanded size
 * is thereby at most about a hundred times its written size and, past
 * 4,000,000 nodes, 1.1 times: every later walk over its values is bounded.
 */
const ALIAS_RATIO_LOW = 400_000;
const ALIAS_RATIO_HIGH = 4_000_000;
export function allowedAliasRatio(decoded: number): number {
  if (decoded <= ALIAS_RATIO_LOW) return 0.99;
  if (decoded >= ALIAS_RATIO_HIGH) return 0.1;
  return 0.99 - 0.89 * ((decoded - ALIAS_RATIO_LOW) / (ALIAS_RATIO_HIGH - ALIAS_RATIO_LOW));
}

/** At most this many YAML 1.1 reading warnings (KTL108) per file. */
export const MAX_YAML11_WARNINGS = 50;

/** A doc that kubectl's decoder refuses as a whole: it is skipped, the others load. */
class DocError extends Error {
  constructor(
    readonly offset: number,
    readonly code: "KTL101" | "KTL105",
    message: string,
  ) {
    super(message);
  }
}

/** Prototype of parsed mappings: none of Object.prototype's members, so `constructor`, `__proto__` or `toString` are plain keys. */
const MAPPING_PROTO: object = Object.create(null) as object;
function newMapping(): Record<string, unknown> {
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
  const hinted =
    s.length === 0 ||
    (c >= 0x30 && c <= 0x39) ||
    c === 0x2b ||
    c === 0x2d ||
    c === 0x2e ||
    "yYnNtTfFoO~".includes(s[0]!);
  if (!hinted) return s;
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

/** The first characters with which resolvePlain12 or kubectlReads may read a plain scalar as other than text. */
const MAYBE_NOT_TEXT = /^[0-9+\-.~yYnNtTfFoO]/;

/** A plain scalar kubectl reads otherwise than YAML 1.2 tools do: the warning (KTL108), or undefined. */
function yaml11Warning(raw: string, asKey: boolean): { message: string; hint: string } | undefined {
  // Both readings keep a scalar as text unless it starts as a number, a word or `~` does (most do not).
  if (raw.length > 0 && !MAYBE_NOT_TEXT.test(raw)) return undefined;
  const v12 = resolvePlain12(raw);
  const kubectl = kubectlReads(raw);
  if (sameScalar(kubectl, v12)) return undefined;
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

interface Resolved {
  value: unknown;
  /** Set for a plain scalar that YAML 1.2 reads otherwise. */
  plainRaw?: string;
}

function scalarValue(text: string, ev: ScalarEvent): Resolved {
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
function keyString(v: unknown, offset: number): string {
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

/** An anchor: its value, and the size and height its value expands to. */
interface Anchor {
  value: unknown;
  /** Nodes visited when the value is decoded (go-yaml's decodeCount), aliases expanded. */
  size: number;
  /** Collection levels of the expanded value. */
  height: number;
  /** The anchored collection is still open: an alias to it would make a cycle. */
  open: boolean;
}

/** An open collection. Frames are reused by depth; `at` is their scratch position record. */
interface Frame {
  value: Record<string, unknown> | unknown[];
  isSeq: boolean;
  /** `[source, offset, ...]` being filled; copied to exact size when the collection closes. */
  at: Pos;
  /** Used length of `at`. */
  n: number;
  /** For a mapping: the key waiting for its value. */
  pendingKey: string;
  pendingKeyOffset: number;
  /** The waiting key is a plain `<<`. */
  pendingMerge: boolean;
  expectingKey: boolean;
  /** The value of a merge key, applied once complete (before the next key or at the mapping's end). */
  mergeValue: unknown;
  mergeOffset: number;
  hasMerge: boolean;
  /** Expanded size and height of the collection so far. */
  size: number;
  height: number;
  anchor: Anchor | undefined;
}

function isMapping(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** goyaml.v2 decode.go merge(): a mapping, or a list of mappings of which the earlier win. */
function applyMerge(map: Record<string, unknown>, src: unknown, offset: number): void {
  const bad = () =>
    new DocError(
      offset,
      "KTL101",
      "map merge requires map or sequence of maps as the value (the value of `<<`)",
    );
  const copy = (m: Record<string, unknown>) => {
    for (const k of Object.keys(m)) map[k] = m[k];
  };
  if (isMapping(src)) copy(src);
  else if (Array.isArray(src)) {
    for (const s of src) if (!isMapping(s)) throw bad();
    for (let i = src.length - 1; i >= 0; i--) copy(src[i] as Record<string, unknown>);
  } else throw bad();
}

/** Builds the documents of one text from its events. Offsets are shifted by `base`. */
function construct(
  source: SourceText,
  events: Event[],
  text: string,
  base: number,
  firstIndex: number,
  diagnostics: Diagnostic[],
  budget: { yaml11: number },
  remap?: (offset: number) => number,
): YamlDocument[] {
  /** An offset of `text` in the source: `base` plus it, or plus where it was before the lenient reading padded lines (readLeniently). */
  const off = remap ? (o: number) => base + remap(o) : (o: number) => base + o;
  const docs: YamlDocument[] = [];
  const frames: Frame[] = [];
  let depth = 0;
  const anchors = new Map<string, Anchor>();
  let docValue: unknown = undefined;
  let docStart = -1;
  /** go-yaml's counters: nodes decoded, and of them the ones reached through an alias. */
  let decoded = 0;
  let aliased = 0;
  let index = firstIndex - 1;

  const warn11 = (raw: string, offset: number, asKey: boolean) => {
    if (budget.yaml11 <= 0) return;
    const w = yaml11Warning(raw, asKey);
    if (!w) return;
    budget.yaml11--;
    diagnostics.push({
      code: "KTL108",
      severity: "warning",
      file: source.file,
      doc: index,
      ...source.positionAt(offset),
      message: w.message,
      hint: w.hint,
    });
  };

  const flushMerge = (f: Frame) => {
    f.hasMerge = false;
    applyMerge(f.value as Record<string, unknown>, f.mergeValue, f.mergeOffset);
    f.mergeValue = undefined;
  };

  /** Places a value in the open collection; `size`/`height` are its expanded size and height. */
  const place = (
    value: unknown,
    offset: number,
    size: number,
    height: number,
    keyText: string | undefined,
    plainMerge: boolean,
  ) => {
    if (depth === 0) {
      docValue = value;
      if (docStart < 0) docStart = offset;
      return;
    }
    const top = frames[depth - 1]!;
    top.size += size;
    if (height + 1 > top.height) top.height = height + 1;
    if (top.isSeq) {
      top.at[top.n++] = off(offset);
      (top.value as unknown[]).push(value);
      return;
    }
    if (top.expectingKey) {
      if (top.hasMerge) flushMerge(top);
      top.pendingKey = keyText ?? keyString(value, off(offset));
      top.pendingKeyOffset = off(offset);
      top.pendingMerge = plainMerge;
      top.expectingKey = false;
      return;
    }
    top.expectingKey = true;
    if (top.pendingMerge) {
      // Applied when the value is complete: an inline mapping is still empty here.
      top.mergeValue = value;
      top.mergeOffset = top.pendingKeyOffset;
      top.hasMerge = true;
      return;
    }
    const key = top.pendingKey;
    const map = top.value as Record<string, unknown>;
    let seen = -1;
    // A repeated key, or one a merge key set before (goyaml.v2's strict decoding: "already set in map").
    if (Object.hasOwn(map, key)) {
      diagnostics.push({
        code: "KTL106",
        severity: "warning",
        file: source.file,
        doc: index,
        ...source.positionAt(top.pendingKeyOffset),
        message: `duplicate key "${key}": the last value wins (the apiserver rejects this under strict decoding)`,
      });
      for (let i = 2; i < top.n; i += 2) if (top.at[i] === key) seen = i;
    }
    map[key] = value;
    if (seen >= 0) top.at[seen + 1] = top.pendingKeyOffset;
    else {
      top.at[top.n++] = key;
      top.at[top.n++] = top.pendingKeyOffset;
    }
  };

  for (const ev of events) {
    switch (ev.type) {
      case EVENT_ID.DOCUMENT:
        index++;
        docValue = undefined;
        docStart = -1;
        decoded = 0;
        aliased = 0;
        anchors.clear();
        depth = 0;
        // Values placed with an empty stack become the doc's value; its POP closes it.
        docs.push({ index, line: 0, value: undefined });
        break;
      case EVENT_ID.MAPPING:
      case EVENT_ID.SEQUENCE: {
        decoded++;
        const isSeq = ev.type === EVENT_ID.SEQUENCE;
        const value: Record<string, unknown> | unknown[] = isSeq ? [] : newMapping();
        let anchor: Anchor | undefined;
        if (ev.anchorStart >= 0) {
          anchor = { value, size: 1, height: 1, open: true };
          anchors.set(text.slice(ev.anchorStart, ev.anchorEnd), anchor);
        }
        // Size and height are added to the parent when the collection closes.
        place(value, ev.start, 0, 0, undefined, false);
        let f = frames[depth];
        if (!f) {
          frames[depth] = f = {
            value,
            isSeq,
            at: [source, 0],
            n: 2,
            pendingKey: "",
            pendingKeyOffset: 0,
            pendingMerge: false,
            expectingKey: false,
            mergeValue: undefined,
            mergeOffset: 0,
            hasMerge: false,
            size: 1,
            height: 1,
            anchor,
          };
        }
        f.value = value;
        f.isSeq = isSeq;
        f.at[1] = off(ev.start);
        f.n = 2;
        f.expectingKey = !isSeq;
        f.pendingMerge = false;
        f.hasMerge = false;
        f.mergeValue = undefined;
        f.size = 1;
        f.height = 1;
        f.anchor = anchor;
        depth++;
        break;
      }
      case EVENT_ID.SCALAR: {
        decoded++;
        const r = scalarValue(text, ev);
        const v = r.value;
        if (ev.anchorStart >= 0)
          anchors.set(text.slice(ev.anchorStart, ev.anchorEnd), {
            value: v,
            size: 1,
            height: 0,
            open: false,
          });
        const top = depth > 0 ? frames[depth - 1]! : undefined;
        const asKey = top !== undefined && !top.isSeq && top.expectingKey;
        if (r.plainRaw !== undefined) warn11(r.plainRaw, off(ev.valueStart), asKey);
        place(
          v,
          ev.valueStart,
          1,
          0,
          asKey ? keyString(v, off(ev.valueStart)) : undefined,
          asKey && r.plainRaw === "<<",
        );
        break;
      }
      case EVENT_ID.ALIAS: {
        const name = text.slice(ev.anchorStart, ev.anchorEnd);
        const at = off(ev.anchorStart);
        const a = anchors.get(name);
        // goyaml.v2 decode.go: "unknown anchor referenced", "anchor value contains itself".
        if (!a) throw new DocError(at, "KTL101", `unknown anchor '${name}' referenced`);
        if (a.open)
          throw new DocError(
            at,
            "KTL105",
            `anchor '${name}' value contains itself (an alias inside the collection it names)`,
          );
        decoded += a.size;
        aliased += a.size;
        if (aliased > 100 && decoded > 1000 && aliased / decoded > allowedAliasRatio(decoded)) {
          throw new DocError(
            at,
            "KTL105",
            `document contains excessive aliasing (aliases expand to ${aliased} nodes of ${decoded})`,
          );
        }
        if (depth + a.height > MAX_DEPTH)
          throw new DocError(
            at,
            "KTL101",
            `nesting too deep: the alias *${name} nests deeper than ${MAX_DEPTH} levels`,
          );
        place(a.value, ev.anchorStart, a.size, a.height, undefined, false);
        break;
      }
      case EVENT_ID.POP: {
        if (depth > 0) {
          const f = frames[--depth]!;
          if (f.hasMerge) flushMerge(f);
          attach(f.value, f.at.slice(0, f.n));
          if (f.anchor) {
            f.anchor.size = f.size;
            f.anchor.height = f.height;
            f.anchor.open = false;
          }
          if (depth > 0) {
            const parent = frames[depth - 1]!;
            parent.size += f.size;
            if (f.height + 1 > parent.height) parent.height = f.height + 1;
          }
        } else {
          const d = docs[docs.length - 1];
          if (d) {
            d.value = docValue === undefined ? null : docValue;
            d.line = docStart >= 0 ? source.lineAt(off(docStart)) : 0;
          }
        }
        break;
      }
    }
  }
  return docs;
}

/** A doc marker line; a byte order mark may open any doc (YAML 1.2 §9.1.1, l-document-prefix). */
const DOC_MARKER = /^\uFEFF?(---|\.\.\.)(?=[ \t\r\n]|$)/gm;
/** A bare `---` line followed by a line that starts with a byte order mark (files joined with `---` between them). */
const MARKER_THEN_BOM = /^---[ \t]*(#[^\n]*)?\r?\n\uFEFF/;

interface Part {
  text: string;
  base: number;
  /** Its text was trimmed of a byte order mark: parse it alone, never inside a batch. */
  alone?: boolean;
}

/** Splits a text at doc markers, keeping the `---` line with the part it opens. */
function splitDocuments(text: string): Part[] {
  const parts: Part[] = [];
  let start = 0;
  DOC_MARKER.lastIndex = 0;
  for (let m = DOC_MARKER.exec(text); m; m = DOC_MARKER.exec(text)) {
    if (m.index === 0) continue;
    parts.push({ text: text.slice(start, m.index), base: start });
    start = m.index;
    if (m[1] === "...") {
      const nl = text.indexOf("\n", m.index);
      start = nl < 0 ? text.length : nl + 1;
    }
  }
  parts.push({ text: text.slice(start), base: start });
  // kubectl's splitter hands each doc to the decoder alone, which skips its leading byte order mark.
  for (const p of parts) {
    if (p.text.charCodeAt(0) === 0xfeff) {
      p.text = p.text.slice(1);
      p.base++;
      p.alone = true;
    }
    const m = MARKER_THEN_BOM.exec(p.text);
    if (m) {
      p.text = p.text.slice(m[0].length);
      p.base += m[0].length;
      p.alone = true;
    }
  }
  return parts;
}

/**
 * The object a doc that does not parse was meant to be, read off its text
 * line by line (its top-level `kind:`, and `name:` and `namespace:` under
 * `metadata:`), so that the diagnostic names what is missing from the graph.
 * Best effort: undefined when the text does not say.
 */
export function brokenDocObject(
  text: string,
): { kind: string; name: string; namespace?: string } | undefined {
  const kind = /^kind:[ \t]*["']?([A-Za-z][A-Za-z0-9]*)/m.exec(text)?.[1];
  const meta = /^metadata:/m.exec(text);
  if (!kind || !meta) return undefined;
  // The metadata block: its own line (flow style) and the indented lines after it.
  const rest = text.slice(meta.index);
  const end = /\n(?=\S)/.exec(rest.slice(1));
  const block = end ? rest.slice(0, end.index + 1) : rest;
  const field = (key: string) =>
    new RegExp(`(?:^|[\\s{,])${key}:[ \\t]*["']?([a-z0-9]([-a-z0-9.]*[a-z0-9])?)`).exec(block.slice(9))?.[1];
  const name = field("name");
  if (!name) return undefined;
  const namespace = field("namespace");
  return namespace ? { kind, name, namespace } : { kind, name };
}

function skipped(text: string): { message: string; object: Partial<Diagnostic> } {
  const o = brokenDocObject(text);
  if (!o) return { message: "skipped, the rest of the file still loads", object: {} };
  const named = `${o.kind} ${o.namespace ? `${o.namespace}/` : ""}${o.name}`;
  return {
    message: `skipped: ${named} is left out of the model and the graph; the rest of the file still loads`,
    object: o,
  };
}

function syntaxDiagnostic(
  source: SourceText,
  err: unknown,
  base: number,
  doc: number,
  text = "",
): Diagnostic {
  const what = skipped(text);
  if (err instanceof DocError) {
    return {
      code: err.code,
      severity: "error",
      file: source.file,
      doc,
      ...what.object,
      ...source.positionAt(err.offset),
      message: `${err.message}; ${what.message}`,
    };
  }
  const e = err as { reason?: string; message?: string; mark?: { position?: number } };
  const offset = base + (e.mark?.position ?? 0);
  const at = source.positionAt(Math.min(offset, source.text.length));
  const reason = e.reason ?? (err instanceof RangeError ? "nesting too deep" : (e.message ?? String(err)));
  return {
    code: "KTL101",
    severity: "error",
    file: source.file,
    doc,
    ...what.object,
    ...at,
    message: `${reason}; ${what.message}`,
  };
}

/** A directive line (%YAML, %TAG): it belongs to the doc that the next `---` opens. */
const DIRECTIVE = /^%/m;

/** Docs are parsed in batches of about this many characters (see parseYamlFile). */
export const BATCH_CHARS = 1 << 18;

/**
 * Parses some parts of a text: a part the block scanner reads (blockScan.ts: the plain block YAML most
 * manifests are) from its events, the others with js-yaml in batches. Either way `construct` makes the values.
 */
function parseParts(
  source: SourceText,
  text: string,
  parts: readonly Part[],
  firstIndex: number,
  documents: YamlDocument[],
  diagnostics: Diagnostic[],
  budget: { yaml11: number },
): number {
  let index = firstIndex;
  let from = 0;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    const events = part.alone ? undefined : scanBlockEvents(part.text);
    if (!events) continue;
    if (from < i)
      index = parseWithJsYaml(source, text, parts.slice(from, i), index, documents, diagnostics, budget);
    from = i + 1;
    const before = diagnostics.length;
    const warningsLeft = budget.yaml11;
    try {
      const docs = construct(source, events, part.text, part.base, index, diagnostics, budget);
      for (const d of docs) documents.push(d);
      index += docs.length;
    } catch {
      // A doc kubectl's decoder refuses (a null key, say): js-yaml's path says so the one way it always does.
      diagnostics.length = before;
      budget.yaml11 = warningsLeft;
      index = parseWithJsYaml(source, text, [part], index, documents, diagnostics, budget);
    }
  }
  if (from < parts.length)
    index = parseWithJsYaml(source, text, parts.slice(from), index, documents, diagnostics, budget);
  return index;
}

/** Parses some parts of a text with js-yaml; on a syntax error, each part alone so one bad doc spoils only itself. */
function parseWithJsYaml(
  source: SourceText,
  text: string,
  parts: readonly Part[],
  firstIndex: number,
  documents: YamlDocument[],
  diagnostics: Diagnostic[],
  budget: { yaml11: number },
): number {
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  const before = diagnostics.length;
  const warningsLeft = budget.yaml11;
  if (parts.length > 1 && !parts.some((p) => p.alone)) {
    const batch = text.slice(first.base, last.base + last.text.length);
    try {
      const docs = construct(
        source,
        parseEvents(batch, { maxDepth: MAX_DEPTH }),
        batch,
        first.base,
        firstIndex,
        diagnostics,
        budget,
      );
      for (const d of docs) documents.push(d);
      return firstIndex + docs.length;
    } catch {
      diagnostics.length = before;
      budget.yaml11 = warningsLeft;
    }
  }
  let index = firstIndex;
  for (const part of parts) {
    try {
      const docs = construct(
        source,
        parseEvents(part.text, { maxDepth: MAX_DEPTH }),
        part.text,
        part.base,
        index,
        diagnostics,
        budget,
      );
      for (const d of docs) documents.push(d);
      index += docs.length;
    } catch (err) {
      const docs = leniently(source, part, index, err, diagnostics, budget);
      if (docs) {
        for (const d of docs) documents.push(d);
        index += docs.length;
        continue;
      }
      diagnostics.push(syntaxDiagnostic(source, err, part.base, index, part.text));
      index++;
    }
  }
  return index;
}

/**
 * A part that js-yaml refuses for a stricture goyaml.v2 does not have
 * (lenient.ts): its docs as kubectl reads them, with a KTL111 warning that
 * YAML 1.2 tools refuse it; undefined when kubectl refuses it too.
 */
function leniently(
  source: SourceText,
  part: Part,
  index: number,
  err: unknown,
  diagnostics: Diagnostic[],
  budget: { yaml11: number },
): YamlDocument[] | undefined {
  let events: Event[] = [];
  const read = readLeniently(part.text, err, (t) => {
    events = parseEvents(t, { maxDepth: MAX_DEPTH });
  });
  if (!read) return undefined;
  const before = diagnostics.length;
  const warningsLeft = budget.yaml11;
  try {
    const docs = construct(source, events, read.text, part.base, index, diagnostics, budget, read.remap);
    const e = err as { mark?: { position?: number } };
    const at = source.positionAt(Math.min(part.base + (e.mark?.position ?? 0), source.text.length));
    diagnostics.push({
      code: "KTL111",
      severity: "warning",
      file: source.file,
      doc: index,
      ...at,
      message: `${read.what}: kubectl reads this document (goyaml.v2 ignores indentation inside flow collections and quoted scalars, and takes tabs there as spaces), but YAML 1.2 tools refuse it`,
      hint: "Indent the line past the key that holds it and use spaces, not tabs, so that every YAML tool reads it",
    });
    return docs;
  } catch {
    diagnostics.length = before;
    budget.yaml11 = warningsLeft;
    return undefined;
  }
}

// ---------- the JSON fast path ----------

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
 * path's cost: one exact-size record per collection, lines computed only when asked.
 */
export function parseJsonFast(source: SourceText): YamlFileResult | undefined {
  const text = source.text;
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
      const pos: Pos = [source, at];
      i++;
      ws();
      if (text.charCodeAt(i) === 0x7d) {
        i++;
        attach(map, pos);
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
        pos.push(key, keyAt + 1);
        ws();
        if (text.charCodeAt(i++) === 0x7d) break; // } (else ,)
        ws();
      }
      attach(map, pos);
      return map;
    }
    if (c === 0x5b /* [ */) {
      if (depth >= MAX_DEPTH) throw new NotFast();
      const arr = v as unknown[];
      const pos: Pos = [source, at];
      i++;
      ws();
      if (text.charCodeAt(i) === 0x5d) {
        i++;
        attach(arr, pos);
        return arr;
      }
      for (let n = 0; ; n++) {
        // A quoted scalar's offset is its first character inside the quotes, as js-yaml gives it.
        pos.push(text.charCodeAt(i) === 0x22 ? i + 1 : i);
        arr[n] = value(arr[n], depth + 1);
        ws();
        if (text.charCodeAt(i++) === 0x5d) break;
        ws();
      }
      attach(arr, pos);
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
    return {
      documents: [{ index: 0, line: source.lineAt(start), value: root }],
      diagnostics: [],
    };
  } catch (e) {
    if (e instanceof NotFast) return undefined;
    throw e;
  }
}

/**
 * Parses every YAML (or JSON) doc of a file. Never throws.
 *
 * The text is cut at its `---` and `...` lines into batches of a few docs,
 * each parsed alone. A marker at the start of a line ends every construct,
 * block scalars included (YAML 1.2 §9.1, c-forbidden), and anchors do not
 * cross docs (§7.1), so the values are those of a whole-stream parse, while
 * only one batch's events are alive at a time (a whole-stream event list of a
 * 40 MB file is about a gigabyte). A batch with a syntax error is parsed doc
 * by doc. Text with directives is parsed whole first, as a directive
 * belongs to the next marker.
 */
export function parseYamlFile(file: string, text: string, cache?: YamlPartCache): YamlFileResult {
  const source = new SourceText(file, text);
  const json = parseJsonFast(source);
  if (json) return json;
  return parseYamlText(source, cache);
}

/** parseYamlFile without the JSON fast path (for the test that holds the two equal). */
export function parseYamlText(source: SourceText, cache?: YamlPartCache): YamlFileResult {
  const { text } = source;
  if (cache && !DIRECTIVE.test(text)) return parseWithCache(source, cache);
  const diagnostics: Diagnostic[] = [];
  const budget = { yaml11: MAX_YAML11_WARNINGS };
  if (DIRECTIVE.test(text)) {
    try {
      const events = parseEvents(text, { maxDepth: MAX_DEPTH });
      return { documents: construct(source, events, text, 0, 0, diagnostics, budget), diagnostics };
    } catch {
      // Fall through: parse doc by doc so one bad doc spoils only itself.
    }
    diagnostics.length = 0;
    budget.yaml11 = MAX_YAML11_WARNINGS;
  }
  const documents: YamlDocument[] = [];
  const parts = splitDocuments(text);
  let index = 0;
  for (let i = 0; i < parts.length;) {
    let j = i + 1;
    let size = parts[i]!.text.length;
    while (j < parts.length && size + parts[j]!.text.length <= BATCH_CHARS) size += parts[j++]!.text.length;
    index = parseParts(source, text, parts.slice(i, j), index, documents, diagnostics, budget);
    i = j;
  }
  return { documents, diagnostics };
}

/** What one part of a text parsed to, for YamlPartCache. */
interface CachedPart {
  documents: YamlDocument[];
  /** Its syntax errors and YAML 1.1 warnings (the file's warning budget is applied when the parts are joined). */
  diagnostics: Diagnostic[];
  /** The doc index after this part. */
  next: number;
  /** Where it was parsed: its text, offset, first line and first doc index there. */
  source: SourceText;
  base: number;
  line: number;
  index: number;
}

/**
 * The parts (docs between `---` lines) of the texts parsed last, so that an
 * edit re-parses only the docs it changed (the playground's worker keeps one;
 * the CLI parses once and needs none). A part is reused when its text and
 * file are those it had; when an edit above it moved it (a new offset, line
 * or first doc index), its values are copied with their positions moved by
 * as much (`relocate`), which is what a parse of the new text makes, at a
 * fraction of the cost. Parts not used by the newest parse are dropped at
 * `rotate()`.
 */
export class YamlPartCache {
  private entries = new Map<string, CachedPart>();
  private used = new Map<string, CachedPart>();
  /** Parts reused and parsed since the cache was made (for tests and benchmarks). */
  hits = 0;
  misses = 0;
  /** Of the hits, the parts an edit above had moved. */
  relocated = 0;

  /** @internal */
  lookup(key: string): CachedPart | undefined {
    const c = this.entries.get(key) ?? this.used.get(key);
    if (c) {
      this.hits++;
      this.used.set(key, c);
    }
    return c;
  }

  /** @internal */
  store(key: string, part: CachedPart): void {
    this.misses++;
    this.used.set(key, part);
  }

  /** @internal A part found and moved (relocate): kept where the newest parse put it. */
  keep(key: string, part: CachedPart): void {
    this.relocated++;
    this.used.set(key, part);
  }

  /** Keeps only the parts the parses since the last rotate used. */
  rotate(): void {
    this.entries = this.used;
    this.used = new Map();
  }
}

/**
 * parseYamlFile part by part, through the cache. Each part is parsed alone,
 * as parseParts does after a syntax error; the YAML 1.1 warnings keep the
 * file's budget (the first MAX_YAML11_WARNINGS in order, as one pass counts
 * them).
 */
function parseWithCache(source: SourceText, cache: YamlPartCache): YamlFileResult {
  const { text, file } = source;
  const documents: YamlDocument[] = [];
  const diagnostics: Diagnostic[] = [];
  let warnings = MAX_YAML11_WARNINGS;
  let index = 0;
  for (const part of splitDocuments(text)) {
    const key = `${file}\0${part.alone ? 1 : 0}\0${part.text}`;
    const line = source.lineAt(part.base);
    let c = cache.lookup(key);
    if (c && (c.source !== source || c.base !== part.base || c.line !== line || c.index !== index)) {
      c = relocate(c, source, part.base, line, index);
      cache.keep(key, c);
    }
    if (!c) {
      const docs: YamlDocument[] = [];
      const found: Diagnostic[] = [];
      const next = parseParts(source, text, [part], index, docs, found, { yaml11: MAX_YAML11_WARNINGS });
      c = { documents: docs, diagnostics: found, next, source, base: part.base, line, index };
      cache.store(key, c);
    }
    for (const d of c.documents) documents.push(d);
    for (const d of c.diagnostics) {
      if (d.code === "KTL108") {
        if (warnings <= 0) continue;
        warnings--;
      }
      diagnostics.push(d);
    }
    index = c.next;
  }
  return { documents, diagnostics };
}

/**
 * A cached part where an edit above it moved it: in `source` at offset `base`, first line `line`,
 * first doc index `index`. Its values are copied, each collection's position moved by the offset's
 * shift (positions are offsets into the whole text); its docs and diagnostics move by the lines' and
 * indices' shift (a part starts at the start of a line, so columns stay).
 */
function relocate(c: CachedPart, source: SourceText, base: number, line: number, index: number): CachedPart {
  const shift = base - c.base;
  const lines = line - c.line;
  const docs = index - c.index;
  const copied = new Map<object, unknown>();
  const copy = (v: unknown): unknown => {
    if (typeof v !== "object" || v === null) return v;
    const seen = copied.get(v);
    if (seen !== undefined) return seen;
    let out: unknown[] | Record<string, unknown>;
    if (Array.isArray(v)) {
      const list: unknown[] = new Array<unknown>(v.length);
      copied.set(v, list);
      for (let i = 0; i < v.length; i++) list[i] = copy(v[i]);
      out = list;
    } else if (Object.getPrototypeOf(v) === MAPPING_PROTO) {
      const map = newMapping();
      copied.set(v, map);
      for (const k in v) map[k] = copy((v as Record<string, unknown>)[k]);
      out = map;
    } else return v;
    const p = posOf(v);
    if (p) {
      const moved: Pos = new Array<SourceText | string | number>(p.length);
      moved[0] = source;
      for (let i = 1; i < p.length; i++) {
        const x = p[i]!;
        moved[i] = typeof x === "number" ? x + shift : x;
      }
      attach(out, moved);
    }
    return out;
  };
  return {
    documents: c.documents.map((d) => ({
      index: d.index + docs,
      line: d.line ? d.line + lines : 0,
      value: copy(d.value),
    })),
    diagnostics: c.diagnostics.map((d) => ({
      ...d,
      doc: d.doc + docs,
      ...(d.line ? { line: d.line + lines } : {}),
    })),
    next: c.next + docs,
    source,
    base,
    line,
    index,
  };
}
