/**
 * YAML and JSON documents -> plain values, with the source offset of every
 * collection, mapping key and sequence item.
 *
 * js-yaml's `parseEvents` gives a flat event stream with offsets (about
 * 17 MB/s here); we build the values ourselves from it so that positions cost
 * one small record per collection instead of a second AST. Scalars resolve by
 * the YAML 1.2 core schema, as js-yaml's `load` does.
 *
 * A syntax error spoils only its own YAML doc: the text is cut at its `---`
 * lines (a doc marker ends even a block scalar, YAML 1.2 §9.1) and parsed in
 * batches of docs; a batch with an error is parsed doc by doc.
 */
import { parseEvents, getScalarValue, EVENT_ID, SCALAR_STYLE } from "js-yaml";
import type { Event, ScalarEvent } from "js-yaml";
import type { Diagnostic } from "./diagnostics.ts";
import { SourceText } from "./source.ts";

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
const POS_DESCRIPTOR: PropertyDescriptor = { value: undefined, enumerable: false, writable: false, configurable: false };

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

export const MAX_ALIASES_PER_DOCUMENT = 1000;
export const MAX_DEPTH = 100;

class AliasLimitError extends Error {
  constructor(readonly offset: number) {
    super(`more than ${MAX_ALIASES_PER_DOCUMENT} aliases`);
  }
}

const INT_DEC = /^[-+]?[0-9]+$/;
const INT_OCT = /^0o[0-7]+$/;
const INT_HEX = /^0x[0-9a-fA-F]+$/;
const FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;

/** YAML 1.2 core schema resolution of a plain scalar. */
function resolvePlain(s: string): unknown {
  if (s.length === 0) return null;
  const c = s.charCodeAt(0);
  // Fast path: most Kubernetes scalars start with a letter that cannot begin a number, null or bool.
  if ((c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a)) {
    switch (s) {
      case "null": case "Null": case "NULL": return null;
      case "true": case "True": case "TRUE": return true;
      case "false": case "False": case "FALSE": return false;
      default: return s;
    }
  }
  if (s === "~") return null;
  if (INT_DEC.test(s)) {
    const n = Number(s);
    return Number.isSafeInteger(n) ? n : s;
  }
  if (INT_OCT.test(s)) return parseInt(s.slice(2), 8);
  if (INT_HEX.test(s)) return parseInt(s.slice(2), 16);
  if (FLOAT.test(s)) return Number(s);
  switch (s) {
    case ".inf": case ".Inf": case ".INF": case "+.inf": case "+.Inf": case "+.INF": return Infinity;
    case "-.inf": case "-.Inf": case "-.INF": return -Infinity;
    case ".nan": case ".NaN": case ".NAN": return NaN;
    default: return s;
  }
}

function scalarValue(text: string, ev: ScalarEvent): unknown {
  const raw = getScalarValue(text, ev);
  if (ev.tagStart >= 0) {
    const tag = text.slice(ev.tagStart, ev.tagEnd);
    if (tag === "!!str" || tag === "!") return raw;
    if (tag === "!!int" || tag === "!!float") return Number(raw);
    if (tag === "!!bool") return raw === "true";
    if (tag === "!!null") return null;
  }
  return ev.style === SCALAR_STYLE.PLAIN ? resolvePlain(raw) : raw;
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
  expectingKey: boolean;
  /** A merge key (`<<`) has copied keys in. */
  merged: boolean;
}

/** Builds the documents of one text from its events. Offsets are shifted by `base`. */
function construct(
  source: SourceText,
  events: Event[],
  text: string,
  base: number,
  firstIndex: number,
  diagnostics: Diagnostic[],
): YamlDocument[] {
  const docs: YamlDocument[] = [];
  const frames: Frame[] = [];
  let depth = 0;
  const anchors = new Map<string, unknown>();
  let docValue: unknown = undefined;
  let docStart = -1;
  let aliases = 0;
  let index = firstIndex - 1;

  const place = (value: unknown, offset: number, keyable: boolean, keyText: string | undefined) => {
    if (depth === 0) {
      docValue = value;
      if (docStart < 0) docStart = offset;
      return;
    }
    const top = frames[depth - 1]!;
    if (top.isSeq) {
      top.at[top.n++] = base + offset;
      (top.value as unknown[]).push(value);
      return;
    }
    if (top.expectingKey) {
      top.pendingKey = keyable ? (keyText ?? String(value)) : JSON.stringify(value);
      top.pendingKeyOffset = base + offset;
      top.expectingKey = false;
      return;
    }
    top.expectingKey = true;
    const key = top.pendingKey;
    const map = top.value as Record<string, unknown>;
    if (key === "<<" && value !== null && typeof value === "object") {
      // Merge key (YAML 1.1 `<<`): copy keys the mapping does not set itself.
      for (const src of Array.isArray(value) ? value : [value]) {
        if (src && typeof src === "object" && !Array.isArray(src)) {
          for (const [k, v] of Object.entries(src as Record<string, unknown>)) if (!Object.hasOwn(map, k)) map[k] = v;
        }
      }
      top.merged = true;
      return;
    }
    let seen = -1;
    // A repeated key: small mappings without merged keys check their own record, others the object.
    let repeated: boolean;
    if (top.merged || top.n > 34) repeated = Object.hasOwn(map, key);
    else {
      repeated = false;
      for (let i = 2; i < top.n; i += 2) {
        if (top.at[i] === key) {
          repeated = true;
          break;
        }
      }
    }
    if (repeated) {
      diagnostics.push({
        code: "KTL106", severity: "warning", file: source.file, doc: index, ...source.positionAt(top.pendingKeyOffset),
        message: `duplicate key "${key}": the last value wins (the apiserver rejects this under strict decoding)`,
      });
      for (let i = 2; i < top.n; i += 2) if (top.at[i] === key) seen = i;
    }
    if (key === "__proto__") Object.defineProperty(map, key, { value, enumerable: true, writable: true, configurable: true });
    else map[key] = value;
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
        aliases = 0;
        anchors.clear();
        depth = 0;
        // Values placed with an empty stack become the doc's value; its POP closes it.
        docs.push({ index, line: 0, value: undefined });
        break;
      case EVENT_ID.MAPPING:
      case EVENT_ID.SEQUENCE: {
        const isSeq = ev.type === EVENT_ID.SEQUENCE;
        const value: Record<string, unknown> | unknown[] = isSeq ? [] : {};
        if (ev.anchorStart >= 0) anchors.set(text.slice(ev.anchorStart, ev.anchorEnd), value);
        place(value, ev.start, false, undefined);
        let f = frames[depth];
        if (!f) frames[depth] = f = { value, isSeq, at: [source, 0], n: 2, pendingKey: "", pendingKeyOffset: 0, expectingKey: false, merged: false };
        f.value = value;
        f.isSeq = isSeq;
        f.at[1] = base + ev.start;
        f.n = 2;
        f.expectingKey = !isSeq;
        f.merged = false;
        depth++;
        break;
      }
      case EVENT_ID.SCALAR: {
        const v = scalarValue(text, ev);
        if (ev.anchorStart >= 0) anchors.set(text.slice(ev.anchorStart, ev.anchorEnd), v);
        const top = depth > 0 ? frames[depth - 1]! : undefined;
        const asKey = top !== undefined && !top.isSeq && top.expectingKey;
        place(v, ev.valueStart, true, asKey ? (v === null ? "null" : String(v)) : undefined);
        break;
      }
      case EVENT_ID.ALIAS: {
        if (++aliases > MAX_ALIASES_PER_DOCUMENT) throw new AliasLimitError(base + ev.anchorStart);
        const name = text.slice(ev.anchorStart, ev.anchorEnd);
        place(anchors.get(name) ?? null, ev.anchorStart, true, undefined);
        break;
      }
      case EVENT_ID.POP: {
        if (depth > 0) {
          const f = frames[--depth]!;
          attach(f.value, f.at.slice(0, f.n));
        } else {
          const d = docs[docs.length - 1];
          if (d) {
            d.value = docValue === undefined ? null : docValue;
            d.line = docStart >= 0 ? source.lineAt(base + docStart) : 0;
          }
        }
        break;
      }
    }
  }
  return docs;
}

const DOC_MARKER = /^(---|\.\.\.)(?=[ \t\r\n]|$)/gm;

interface Part {
  text: string;
  base: number;
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
  return parts;
}

function syntaxDiagnostic(source: SourceText, err: unknown, base: number, doc: number): Diagnostic {
  const e = err as { reason?: string; message?: string; mark?: { position?: number } };
  if (err instanceof AliasLimitError) {
    return {
      code: "KTL105", severity: "error", file: source.file, doc, ...source.positionAt(err.offset),
      message: `more than ${MAX_ALIASES_PER_DOCUMENT} aliases: skipped (alias bomb guard); the rest of the file still loads`,
    };
  }
  const offset = base + (e.mark?.position ?? 0);
  const at = source.positionAt(Math.min(offset, source.text.length));
  const reason = e.reason ?? (err instanceof RangeError ? "nesting too deep" : (e.message ?? String(err)));
  return {
    code: "KTL101", severity: "error", file: source.file, doc, ...at,
    message: `${reason}; skipped, the rest of the file still loads`,
  };
}

/** A directive line (%YAML, %TAG): it belongs to the doc that the next `---` opens. */
const DIRECTIVE = /^%/m;

/** Docs are parsed in batches of about this many characters (see parseYamlFile). */
export const BATCH_CHARS = 1 << 18;

/** Parses some parts of a text; on a syntax error, each part alone so one bad doc spoils only itself. */
function parseParts(source: SourceText, text: string, parts: readonly Part[], firstIndex: number, documents: YamlDocument[], diagnostics: Diagnostic[]): number {
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  const before = diagnostics.length;
  if (parts.length > 1) {
    const batch = text.slice(first.base, last.base + last.text.length);
    try {
      const docs = construct(source, parseEvents(batch, { maxDepth: MAX_DEPTH }), batch, first.base, firstIndex, diagnostics);
      for (const d of docs) documents.push(d);
      return firstIndex + docs.length;
    } catch {
      diagnostics.length = before;
    }
  }
  let index = firstIndex;
  for (const part of parts) {
    try {
      const docs = construct(source, parseEvents(part.text, { maxDepth: MAX_DEPTH }), part.text, part.base, index, diagnostics);
      for (const d of docs) documents.push(d);
      index += docs.length;
    } catch (err) {
      diagnostics.push(syntaxDiagnostic(source, err, part.base, index));
      index++;
    }
  }
  return index;
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
export function parseYamlFile(file: string, text: string): YamlFileResult {
  const source = new SourceText(file, text);
  const diagnostics: Diagnostic[] = [];
  if (DIRECTIVE.test(text)) {
    try {
      const events = parseEvents(text, { maxDepth: MAX_DEPTH });
      return { documents: construct(source, events, text, 0, 0, diagnostics), diagnostics };
    } catch {
      // Fall through: parse doc by doc so one bad doc spoils only itself.
    }
    diagnostics.length = 0;
  }
  const documents: YamlDocument[] = [];
  const parts = splitDocuments(text);
  let index = 0;
  for (let i = 0; i < parts.length; ) {
    let j = i + 1;
    let size = parts[i]!.text.length;
    while (j < parts.length && size + parts[j]!.text.length <= BATCH_CHARS) size += parts[j++]!.text.length;
    index = parseParts(source, text, parts.slice(i, j), index, documents, diagnostics);
    i = j;
  }
  return { documents, diagnostics };
}
