/**
 * Edits of YAML text that keep every other byte: comments, key order, quoting
 * and blank lines stay as written. Positions come from the parser
 * (parse/yaml.ts positionOf: the offset of every collection, mapping key and
 * sequence item), so an edit touches only the span it means to change.
 *
 * Block style is written in block style; a flow mapping (`{...}`, JSON
 * input) gets JSON-shaped insertions, which YAML reads the same way.
 */
import { positionOf } from "../parse/positions.ts";

/** One replacement of [start, end) by `text`, with 1-based line and column for editors (Monaco's executeEdits). */
export interface TextEdit {
  start: number;
  end: number;
  text: string;
  startLine: number;
  startColumn: number;
  endLine: number;
  endColumn: number;
}

/** A pending replacement, by offset only; `finishEdits` adds lines and columns. */
export interface Splice {
  start: number;
  end: number;
  text: string;
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

function lineColumn(starts: readonly number[], offset: number): { line: number; column: number } {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo + 1, column: offset - starts[lo]! + 1 };
}

/** Sorts, checks for overlap and applies splices; returns the new text and the edits with positions in the old text. */
export function applySplices(text: string, splices: readonly Splice[]): { text: string; edits: TextEdit[] } {
  const sorted = [...splices].sort((a, b) => a.start - b.start || a.end - b.end);
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i]!.start < sorted[i - 1]!.end) throw new Error("overlapping edits");
  }
  const starts = lineStarts(text);
  const edits = sorted.map((s) => {
    const a = lineColumn(starts, s.start);
    const b = lineColumn(starts, s.end);
    return { ...s, startLine: a.line, startColumn: a.column, endLine: b.line, endColumn: b.column };
  });
  let out = "";
  let at = 0;
  for (const s of sorted) {
    out += text.slice(at, s.start) + s.text;
    at = s.end;
  }
  return { text: out + text.slice(at), edits };
}

export function lineStartOf(text: string, offset: number): number {
  return text.lastIndexOf("\n", offset - 1) + 1;
}

/** Offset just past the end of the line holding `offset` (after its newline, or the text's end). */
export function nextLineStart(text: string, offset: number): number {
  const nl = text.indexOf("\n", offset);
  return nl < 0 ? text.length : nl + 1;
}

function columnOf(text: string, offset: number): number {
  return offset - lineStartOf(text, offset);
}

/** The mapping is written in flow style (`{...}`). */
export function isFlow(text: string, node: object): boolean {
  const p = positionOf(node);
  return p !== undefined && text[p.offset] === "{";
}

/** Offset where a key's text starts (before an opening quote). */
function keyStart(text: string, offset: number): number {
  const c = text[offset - 1];
  return c === '"' || c === "'" ? offset - 1 : offset;
}

/** Offset just past a key's text and the `:` that follows it, and past the spaces after the colon. */
function afterColon(text: string, keyOffset: number): number {
  let i = keyOffset;
  const q = text[keyOffset - 1];
  if (q === '"' || q === "'") {
    while (i < text.length && !(text[i] === q && text[i - 1] !== "\\")) i++;
    i++;
  }
  while (i < text.length && text[i] !== ":") i++;
  i++;
  while (i < text.length && (text[i] === " " || text[i] === "\t")) i++;
  return i;
}

/** The span of a scalar written at `start` (plain, single- or double-quoted), in block or flow context. */
function scalarSpan(text: string, start: number, flow: boolean): { start: number; end: number } {
  const c = text[start];
  if (c === '"') {
    let i = start + 1;
    while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    return { start, end: i + 1 };
  }
  if (c === "'") {
    let i = start + 1;
    for (;;) {
      if (i >= text.length) break;
      if (text[i] === "'") {
        if (text[i + 1] === "'") i += 2;
        else break;
      } else i++;
    }
    return { start, end: i + 1 };
  }
  let i = start;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === "\n" || ch === "\r") break;
    if (ch === "#" && (text[i - 1] === " " || text[i - 1] === "\t")) break;
    if (flow && (ch === "," || ch === "}" || ch === "]")) break;
    i++;
  }
  while (i > start && (text[i - 1] === " " || text[i - 1] === "\t")) i--;
  return { start, end: i };
}

/** Span of the scalar value of `map[key]`, or undefined when the key is absent or its value is a collection. */
export function valueSpan(
  text: string,
  map: object,
  key: string,
): { start: number; end: number } | undefined {
  const p = positionOf(map);
  const k = p?.keys?.get(key);
  if (k === undefined) return undefined;
  const v = (map as Record<string, unknown>)[key];
  if (v !== null && typeof v === "object") return undefined;
  const start = afterColon(text, k);
  if (text[start] === "\n" || text[start] === "\r" || text[start] === "#") return { start, end: start };
  return scalarSpan(text, start, isFlow(text, map));
}

/** A scalar as YAML writes it in block style: quoted when a plain scalar would read as something else. */
export function yamlScalar(v: unknown): string {
  if (v === null) return "null";
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  const s = String(v);
  const plainSafe =
    /^[A-Za-z_/][A-Za-z0-9_./@-]*( [A-Za-z0-9_./@()-]+)*$/.test(s) &&
    !/^(true|false|yes|no|on|off|null|y|n|~)$/i.test(s);
  return plainSafe ? s : JSON.stringify(s);
}

/** Block-style YAML lines for a value under a key, each without indentation (the caller indents). */
export function yamlLines(key: string, value: unknown): string[] {
  if (Array.isArray(value)) {
    if (value.length === 0) return [`${key}: []`];
    const out = [`${key}:`];
    for (const item of value) {
      if (item !== null && typeof item === "object" && !Array.isArray(item)) {
        const inner = Object.entries(item as Record<string, unknown>).flatMap(([k, v]) => yamlLines(k, v));
        if (inner.length === 0) out.push("  - {}");
        inner.forEach((l, i) => out.push(i === 0 ? `  - ${l}` : `    ${l}`));
      } else out.push(`  - ${yamlScalar(item)}`);
    }
    return out;
  }
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) return [`${key}: {}`];
    return [`${key}:`, ...entries.flatMap(([k, v]) => yamlLines(k, v)).map((l) => `  ${l}`)];
  }
  return [`${key}: ${yamlScalar(value)}`];
}

/** Replaces a scalar value, or inserts the key when absent. */
export function setScalar(
  text: string,
  map: object,
  key: string,
  value: string | number | boolean,
  after?: string,
): Splice {
  const span = valueSpan(text, map, key);
  const flow = isFlow(text, map);
  const written = flow ? JSON.stringify(value) : yamlScalar(value);
  if (span) {
    const sep = span.start === span.end && !flow ? " " : "";
    const prefix = text[span.start - 1] === ":" ? " " : sep;
    return { start: span.start, end: span.end, text: prefix + written };
  }
  return insertKey(text, map, key, value, after);
}

/**
 * Inserts `key: value` into a mapping: after the line of `after` when that key
 * has a one-line value, else before the first key, at its indentation.
 */
export function insertKey(text: string, map: object, key: string, value: unknown, after?: string): Splice {
  const p = positionOf(map);
  if (!p) throw new Error("mapping without a position");
  if (text[p.offset] === "{") {
    const empty = !p.keys || p.keys.size === 0;
    return {
      start: p.offset + 1,
      end: p.offset + 1,
      text: `${JSON.stringify(key)}: ${JSON.stringify(value)}${empty ? "" : ", "}`,
    };
  }
  const first = p.keys && p.keys.size ? Math.min(...p.keys.values()) : undefined;
  if (first === undefined) throw new Error("empty block mapping");
  const firstStart = keyStart(text, first);
  const indent = " ".repeat(columnOf(text, firstStart));
  const lines = yamlLines(key, value);
  const afterOffset = after !== undefined ? p.keys!.get(after) : undefined;
  const afterValue = after !== undefined ? (map as Record<string, unknown>)[after] : undefined;
  if (afterOffset !== undefined && (afterValue === null || typeof afterValue !== "object")) {
    const at = nextLineStart(text, afterOffset);
    const nl = at === text.length && !text.endsWith("\n") ? "\n" : "";
    return { start: at, end: at, text: nl + lines.map((l) => indent + l).join("\n") + (nl ? "" : "\n") };
  }
  return {
    start: firstStart,
    end: firstStart,
    text: lines.map((l, i) => (i === 0 ? l : indent + l)).join("\n") + "\n" + indent,
  };
}

/** Offset where the line after a block value ends: the first later line indented at or left of `column` (blank and comment lines inside belong to the block). */
function blockEnd(text: string, from: number, column: number): number {
  let at = nextLineStart(text, from);
  let lastContentEnd = at;
  while (at < text.length) {
    const end = nextLineStart(text, at);
    const line = text.slice(at, end).replace(/\r?\n$/, "");
    const trimmed = line.trimStart();
    if (trimmed === "" || (trimmed.startsWith("#") && line.length - trimmed.length > column)) {
      at = end;
      continue;
    }
    const indent = line.length - trimmed.length;
    if (indent <= column || /^(---|\.\.\.)(\s|$)/.test(line)) break;
    at = end;
    lastContentEnd = end;
  }
  return lastContentEnd;
}

/** Removes a key with its value (its own line and the indented block below it) from a block mapping. */
export function removeKey(text: string, map: object, key: string): Splice | undefined {
  const p = positionOf(map);
  const k = p?.keys?.get(key);
  if (!p || k === undefined) return undefined;
  if (text[p.offset] === "{") {
    const span = valueSpan(text, map, key);
    let end = span ? span.end : afterColon(text, k);
    const v = (map as Record<string, unknown>)[key];
    if (v !== null && typeof v === "object") {
      const inner = positionOf(v);
      end = inner ? matchingClose(text, inner.offset) : end;
    }
    let start = keyStart(text, k);
    while (end < text.length && /[\s,]/.test(text[end]!)) end++;
    if (text[end] === "}") {
      while (start > 0 && /[\s,]/.test(text[start - 1]!)) start--;
      return { start: start, end: end, text: "" };
    }
    return { start, end, text: "" };
  }
  const start = keyStart(text, k);
  const column = columnOf(text, start);
  const lineStart = lineStartOf(text, start);
  const onlyKeyOnLine = text.slice(lineStart, start).trim() === "";
  const end = blockEnd(text, k, column);
  if (onlyKeyOnLine) return { start: lineStart, end, text: "" };
  // The key follows a sequence dash ("- key: v"): keep the dash for the next key.
  const nextKey = [...p.keys!.values()].filter((o) => o > k).sort((a, b) => a - b)[0];
  if (nextKey === undefined) return { start, end, text: "{}\n" };
  return { start, end: keyStart(text, nextKey), text: "" };
}

function matchingClose(text: string, open: number): number {
  const o = text[open];
  const c = o === "{" ? "}" : "]";
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"') {
      i++;
      while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
      continue;
    }
    if (ch === o || ch === (o === "{" ? "[" : "{")) depth++;
    else if (ch === c || ch === (o === "{" ? "]" : "}")) {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return text.length;
}

const MARKER = /^(---|\.\.\.)(?=[ \t\r\n]|$)/gm;

/** The YAML doc holding `offset`: from just after the previous `---` line (or 0) to the next marker line (or the end). */
export function documentSpan(
  text: string,
  offset: number,
): { start: number; end: number; markerStart: number | undefined; nextMarker: number | undefined } {
  let markerStart: number | undefined;
  let nextMarker: number | undefined;
  MARKER.lastIndex = 0;
  for (let m = MARKER.exec(text); m; m = MARKER.exec(text)) {
    if (m.index <= offset) markerStart = m.index;
    else {
      nextMarker = m.index;
      break;
    }
  }
  const start = markerStart === undefined ? 0 : nextLineStart(text, markerStart);
  return { start, end: nextMarker ?? text.length, markerStart, nextMarker };
}

/** Removes a top-level YAML doc: its `---` line, leading comments and content. In the first doc, comments above the object stay (they head the file). */
export function removeDocument(text: string, root: object): Splice {
  const p = positionOf(root);
  if (!p) throw new Error("object without a position");
  const d = documentSpan(text, p.offset);
  if (d.markerStart !== undefined) return { start: d.markerStart, end: d.end, text: "" };
  const from = lineStartOf(text, keyStartOfMapping(text, root));
  const end = d.nextMarker !== undefined ? nextLineStart(text, d.nextMarker) : d.end;
  return { start: from, end, text: "" };
}

/** Where a mapping's text starts: its `{`, or its first key. */
function keyStartOfMapping(text: string, map: object): number {
  const p = positionOf(map)!;
  if (text[p.offset] === "{" || !p.keys || p.keys.size === 0) return p.offset;
  return keyStart(text, Math.min(p.offset, ...p.keys.values()));
}

/** The lines of an item of a block sequence (the `- ` line and its indented block). */
export function sequenceItemSpan(
  text: string,
  seq: object,
  index: number,
): { start: number; end: number } | undefined {
  const p = positionOf(seq);
  const at = p?.items?.[index];
  if (at === undefined) return undefined;
  const lineStart = lineStartOf(text, at);
  const dash = text.indexOf("-", lineStart);
  const column = dash - lineStart;
  return { start: lineStart, end: blockEnd(text, at, column) };
}

/** Prefixes every non-blank line of [start, end) with `# `. */
export function commentOut(text: string, start: number, end: number): Splice {
  const body = text.slice(start, end);
  const out = body.replace(/^(?=.*\S)/gm, "# ");
  return { start, end, text: out };
}

/** Comments out a top-level YAML doc from the object's first line to the doc's end; comments above it stay. */
export function commentDocument(text: string, root: object): Splice {
  const p = positionOf(root)!;
  const d = documentSpan(text, p.offset);
  return commentOut(text, lineStartOf(text, keyStartOfMapping(text, root)), d.end);
}

/** Appends lines at the end of a top-level YAML doc, before the next `---` (block-style docs). */
export function appendToDocument(text: string, root: object, lines: readonly string[]): Splice {
  const p = positionOf(root)!;
  const d = documentSpan(text, p.offset);
  let end = d.end;
  while (end > d.start && /\s/.test(text[end - 1]!)) end--;
  return { start: end, end, text: "\n" + lines.join("\n") };
}

/** Inserts a new YAML doc after the one holding `root` (or at the end). */
export function insertDocumentAfter(text: string, root: object | undefined, body: string): Splice {
  if (!root) {
    const sep = text.trim() === "" ? "" : text.endsWith("\n") ? "---\n" : "\n---\n";
    return { start: text.length, end: text.length, text: sep + body };
  }
  const p = positionOf(root)!;
  const d = documentSpan(text, p.offset);
  if (d.nextMarker === undefined) {
    const sep = text.endsWith("\n") ? "---\n" : "\n---\n";
    return { start: text.length, end: text.length, text: sep + body };
  }
  return { start: d.nextMarker, end: d.nextMarker, text: "---\n" + body };
}
