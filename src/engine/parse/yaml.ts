/**
 * YAML and JSON documents -> plain values, with the source offset of every
 * collection, mapping key and sequence item (positions.ts).
 *
 * A text is cut at its `---` lines (a doc marker ends even a block scalar,
 * YAML 1.2 §9.1). Each doc's events come from the block scanner
 * (blockScan.ts: the plain block YAML most manifests are, several times
 * faster) or from js-yaml's `parseEvents`, in batches of docs; `construct`
 * (construct.ts) makes the values from either. A syntax error spoils only its
 * own doc: a batch with an error is parsed doc by doc, and a doc that js-yaml
 * refuses for a stricture kubectl does not have is read leniently (lenient.ts).
 * Input from `kubectl get -o json` takes the JSON fast path (jsonFast.ts), and
 * the playground's worker re-parses only the docs an edit touched
 * (YamlPartCache).
 */
import { parseEvents } from "js-yaml";
import type { Event } from "js-yaml";
import type { Diagnostic } from "./diagnostics.ts";
import { SourceText } from "./source.ts";
import { readLeniently } from "./lenient.ts";
import { scanBlockEvents, scannerChars } from "./blockScan.ts";
import { construct } from "./construct.ts";
import { parseJsonFast } from "./jsonFast.ts";
import {
  atOf,
  attach,
  MAX_DEPTH,
  newOrigin,
  originOf,
  PosWriter,
  type Origin,
  type YamlDocument,
  type YamlFileResult,
} from "./positions.ts";
import { DocError, MAPPING_PROTO, newMapping } from "./scalars.ts";

/** At most this many YAML 1.1 reading warnings (KTL108) per file. */
export const MAX_YAML11_WARNINGS = 50;

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
  charsChecked = false,
): number {
  let index = firstIndex;
  let from = 0;
  // One origin and record table for the parts parsed together (positions.ts): a table per doc made a hundred thousand typed arrays at XL.
  const pos = new PosWriter(newOrigin(source, parts[0]?.base ?? 0));
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    const events = part.alone ? undefined : scanBlockEvents(part.text, charsChecked);
    if (!events) continue;
    if (from < i)
      index = parseWithJsYaml(source, text, parts.slice(from, i), index, documents, diagnostics, budget, pos);
    from = i + 1;
    const before = diagnostics.length;
    const warningsLeft = budget.yaml11;
    try {
      const docs = constructPart(source, events, part, index, diagnostics, budget, pos);
      for (const d of docs) documents.push(d);
      index += docs.length;
    } catch {
      // A doc kubectl's decoder refuses (a null key, say): js-yaml's path says so the one way it always does.
      diagnostics.length = before;
      budget.yaml11 = warningsLeft;
      index = parseWithJsYaml(source, text, [part], index, documents, diagnostics, budget, pos);
    }
  }
  if (from < parts.length)
    index = parseWithJsYaml(source, text, parts.slice(from), index, documents, diagnostics, budget, pos);
  pos.finish();
  return index;
}

/** One part's docs from its events, their position records in the batch's table (`pos`). */
function constructPart(
  source: SourceText,
  events: Event[],
  part: Part,
  index: number,
  diagnostics: Diagnostic[],
  budget: { yaml11: number },
  pos: PosWriter,
): YamlDocument[] {
  return construct(source, events, part.text, part.base, index, diagnostics, budget, undefined, pos);
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
  pos: PosWriter,
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
        undefined,
        pos,
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
      const docs = constructPart(
        source,
        parseEvents(part.text, { maxDepth: MAX_DEPTH }),
        part,
        index,
        diagnostics,
        budget,
        pos,
      );
      for (const d of docs) documents.push(d);
      index += docs.length;
    } catch (err) {
      const docs = leniently(source, part, index, err, diagnostics, budget, pos);
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
  pos: PosWriter,
): YamlDocument[] | undefined {
  let events: Event[] = [];
  const read = readLeniently(part.text, err, (t) => {
    events = parseEvents(t, { maxDepth: MAX_DEPTH });
  });
  if (!read) return undefined;
  const before = diagnostics.length;
  const warningsLeft = budget.yaml11;
  try {
    const docs = construct(source, events, read.text, part.base, index, diagnostics, budget, read.remap, pos);
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
  // The characters the block scanner leaves to js-yaml, looked for once in the whole text, not per part.
  const clean = scannerChars(text);
  let index = 0;
  for (let i = 0; i < parts.length;) {
    let j = i + 1;
    let size = parts[i]!.text.length;
    while (j < parts.length && size + parts[j]!.text.length <= BATCH_CHARS) size += parts[j++]!.text.length;
    index = parseParts(source, text, parts.slice(i, j), index, documents, diagnostics, budget, clean);
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
 * or first doc index), its origin moves by as much and its values stay
 * (`relocate`: positions are relative to their part), which is what a parse
 * of the new text makes, at a fraction of the cost, with the values' identity
 * kept. Parts not used by the newest parse are dropped at `rotate()`.
 */
export class YamlPartCache {
  // By file (and whether the part is parsed alone), then by the part's text: a key that is the text itself,
  // not a string built around it (which the map would copy whole to hash, 7.7 MB a parse at L).
  private entries = new Map<string, Map<string, CachedPart>>();
  private used = new Map<string, Map<string, CachedPart>>();
  /** Parts reused and parsed since the cache was made (for tests and benchmarks). */
  hits = 0;
  misses = 0;
  /** Of the hits, the parts an edit above had moved. */
  relocated = 0;
  /**
   * Parts whose values an edit above moved in place (relocate): a parse result of an older text that
   * shares them now reads their positions in the newer text, so whoever keeps one (the worker's
   * recent sessions) drops it when this count changed since.
   */
  movedInPlace = 0;

  private use(scope: string, text: string, part: CachedPart): void {
    let m = this.used.get(scope);
    if (!m) this.used.set(scope, (m = new Map()));
    m.set(text, part);
  }

  /** @internal */
  lookup(scope: string, text: string): CachedPart | undefined {
    const c = this.entries.get(scope)?.get(text) ?? this.used.get(scope)?.get(text);
    if (c) {
      this.hits++;
      this.use(scope, text, c);
    }
    return c;
  }

  /** @internal */
  store(scope: string, text: string, part: CachedPart): void {
    this.misses++;
    this.use(scope, text, part);
  }

  /** @internal A part found in another text (relocate), `moved` when at another offset, line or doc index. */
  keep(scope: string, text: string, part: CachedPart, moved: boolean, inPlace: boolean): void {
    if (moved) this.relocated++;
    if (moved && inPlace) this.movedInPlace++;
    this.use(scope, text, part);
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
  // The parts this parse has placed: one written twice is copied the second time (relocate).
  const placed = new Set<CachedPart>();
  for (const part of splitDocuments(text)) {
    const scope = `${file}\0${part.alone ? 1 : 0}`;
    const line = source.lineAt(part.base);
    const found = cache.lookup(scope, part.text);
    let c = found;
    if (c && (c.source !== source || c.base !== part.base || c.line !== line || c.index !== index)) {
      // Only a new text around it: its lines are the same in both texts (same offset, same line), so its
      // values move to the new text without a change any reader of the old one could see.
      const moved = c.base !== part.base || c.line !== line || c.index !== index;
      const inPlace = !placed.has(c);
      c = relocate(c, source, part.base, line, index, inPlace);
      cache.keep(scope, part.text, c, moved, inPlace);
    }
    if (!c) {
      const docs: YamlDocument[] = [];
      const errors: Diagnostic[] = [];
      const next = parseParts(source, text, [part], index, docs, errors, { yaml11: MAX_YAML11_WARNINGS });
      c = { documents: docs, diagnostics: errors, next, source, base: part.base, line, index };
      cache.store(scope, part.text, c);
    }
    if (found) placed.add(found);
    placed.add(c);
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
 * first doc index `index`. Positions are offsets relative to their part's origin (positions.ts), so
 * the part's values stay as they are and its origin moves to the new offset (`inPlace`): the values
 * keep their identity from one parse to the next. A part whose values this parse already placed
 * elsewhere (the same document written twice) is copied instead, under an origin of its own. Its
 * docs and diagnostics move by the lines' and indices' shift (a part starts at the start of a line, so
 * columns stay).
 */
function relocate(
  c: CachedPart,
  source: SourceText,
  base: number,
  line: number,
  index: number,
  inPlace: boolean,
): CachedPart {
  const lines = line - c.line;
  const docs = index - c.index;
  const moved = new Map<Origin, Origin>();
  // A cached part was parsed alone (parseWithCache), so each of its origins starts where the part does.
  const originFor = (o: Origin): Origin => {
    let m = moved.get(o);
    if (m) return m;
    if (inPlace) {
      o.source = source;
      o.base = base;
      m = o;
    } else m = { source, base, table: o.table };
    moved.set(o, m);
    return m;
  };
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
    // The copy's record is the original's, under the moved origin (which shares its table).
    const o = originOf(v);
    if (o) attach(out, originFor(o), atOf(v));
    return out;
  };
  const place = (v: unknown): unknown => {
    if (!inPlace) return copy(v);
    // Every collection of a doc shares its root's origin (one construct call builds a doc).
    const o = typeof v === "object" && v !== null ? originOf(v) : undefined;
    if (o) originFor(o);
    return v;
  };
  return {
    documents: c.documents.map((d) => ({
      index: d.index + docs,
      line: d.line ? d.line + lines : 0,
      value: place(d.value),
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
