/**
 * What every what-if shares: the input loaded once (Ctx), an object found by
 * its id, the splices that set, add or delete a key, a YAML doc or a list
 * item, and the result (done, or refused with why).
 */
import { parseManifests, type KObject } from "../parse/manifests.ts";
import { buildModel } from "../load/index.ts";
import type { Model } from "../model/types.ts";
import { arr, isObj, obj, str, type Json } from "../parse/values.ts";
import { parseYamlFile } from "../parse/yaml.ts";
import { positionOf } from "../parse/positions.ts";
import {
  appendToDocument,
  applySplices,
  insertKey,
  isFlow,
  lineStartOf,
  removeDocument,
  removeKey,
  sequenceItemSpan,
  setScalar,
  yamlLines,
  type Splice,
  type TextEdit,
} from "./text.ts";

export interface WhatIfResult {
  /** The edit was made (false: refused or nothing to change; `text` is the input). */
  changed: boolean;
  text: string;
  /** The replacements, in the input's offsets and 1-based lines/columns (apply all at once, e.g. Monaco executeEdits). */
  edits: TextEdit[];
  /** What was done, in one sentence. */
  summary: string;
  /** Consequences worth saying (pods removed, pods written out, fields dropped). */
  notes: string[];
  /** Why nothing was changed. */
  error?: string;
}

export interface WhatIfOptions {
  /** File name used for parsing (diagnostics only). */
  file?: string;
  /** The deletionTimestamp written by `terminating` (RFC 3339); fixed by default so results are reproducible. */
  now?: string;
}

export const DEFAULT_NOW = "2025-01-01T00:00:00Z";

export interface Ctx {
  text: string;
  objects: KObject[];
  model: Model;
  now: string;
}

export function load(text: string, options: WhatIfOptions): Ctx {
  const parsed = parseManifests([{ name: options.file ?? "manifests.yaml", text }]);
  const model = buildModel(parsed);
  return { text, objects: parsed.objects, model, now: options.now ?? DEFAULT_NOW };
}

export function strip(id: string, prefix: string): string {
  return id.startsWith(`${prefix}:`) ? id.slice(prefix.length + 1) : id;
}

/** "ns/name" (namespace default when absent). */
export function nsName(id: string): { namespace: string; name: string } {
  const i = id.indexOf("/");
  return i < 0 ? { namespace: "default", name: id } : { namespace: id.slice(0, i), name: id.slice(i + 1) };
}

export function findObject(
  ctx: Ctx,
  kinds: (k: string) => boolean,
  namespace: string | undefined,
  name: string,
): KObject | undefined {
  // The last definition wins, as in the model (model/build.ts dedupe).
  let found: KObject | undefined;
  for (const o of ctx.objects) {
    if (!kinds(o.kind) || o.name !== name) continue;
    if (namespace !== undefined && (o.namespace ?? "default") !== namespace) continue;
    found = o;
  }
  return found;
}

export function refused(text: string, error: string): WhatIfResult {
  return { changed: false, text, edits: [], summary: error, notes: [], error };
}

export function done(text: string, splices: Splice[], summary: string, notes: string[] = []): WhatIfResult {
  if (splices.length === 0) return { changed: false, text, edits: [], summary, notes };
  const r = applySplices(text, splices);
  return { changed: r.text !== text, text: r.text, edits: r.edits, summary, notes };
}

/** The object is a YAML doc of its own (not an item of a `kind: List`). */
export function isRoot(text: string, o: KObject): boolean {
  const p = positionOf(o.raw);
  if (!p) return false;
  if (text[p.offset] === "{") return text.slice(lineStartOf(text, p.offset), p.offset).trim() === "";
  const first = p.keys && p.keys.size ? Math.min(...p.keys.values()) : p.offset;
  const c = text[first - 1];
  const start = c === '"' || c === "'" ? first - 1 : first;
  return start === lineStartOf(text, start);
}

/** Sets `path` (all mappings but the last key) to a scalar, creating missing mappings. */
export function setPath(
  ctx: Ctx,
  o: KObject,
  path: readonly string[],
  value: string | number | boolean,
  after?: string,
): Splice {
  let node: Json = o.raw;
  for (let i = 0; i < path.length - 1; i++) {
    const key = path[i]!;
    const child = obj(node[key]);
    if (!child || !positionOf(child)) {
      const nested: Record<string, unknown> = {};
      let cur = nested;
      for (let j = i + 1; j < path.length - 1; j++) cur = (cur[path[j]!] = {}) as Record<string, unknown>;
      cur[path[path.length - 1]!] = value;
      return addKey(ctx, o, node, key, nested);
    }
    node = child;
  }
  return setScalar(ctx.text, node, path[path.length - 1]!, value, after);
}

/** Adds a key to a mapping of object `o`: at the end of the YAML doc for a top-level key of a block-style doc, else in place. */
export function addKey(ctx: Ctx, o: KObject, map: Json, key: string, value: unknown): Splice {
  if (map === o.raw && isRoot(ctx.text, o) && !isFlow(ctx.text, map))
    return appendToDocument(ctx.text, o.raw, yamlLines(key, value));
  return insertKey(ctx.text, map, key, value);
}

// ---------- scale ----------

export function controllerOfPod(o: KObject): { kind: string; name: string } | undefined {
  const owners = arr(obj(o.raw.metadata)?.ownerReferences).filter(isObj);
  const c = owners.find((r) => r.controller === true);
  const kind = str(c?.kind);
  const name = str(c?.name);
  return kind && name ? { kind, name } : undefined;
}

export function deleteSplice(ctx: Ctx, o: KObject): Splice {
  if (isRoot(ctx.text, o)) return removeDocument(ctx.text, o.raw);
  const list = findContainingSequence(ctx, o);
  if (list) {
    const span = sequenceItemSpan(ctx.text, list.seq, list.index);
    if (span) return { ...span, text: "" };
  }
  return removeDocument(ctx.text, o.raw);
}

/** The `items` sequence of a `kind: List` that holds `o` (matched by offset in a fresh parse of the same text). */
export function findContainingSequence(ctx: Ctx, o: KObject): { seq: unknown[]; index: number } | undefined {
  const target = positionOf(o.raw)?.offset;
  if (target === undefined) return undefined;
  for (const d of parseYamlFile("x", ctx.text).documents) {
    const items = isObj(d.value) ? d.value.items : undefined;
    if (!Array.isArray(items)) continue;
    const index = items.findIndex((it) => isObj(it) && positionOf(it)?.offset === target);
    if (index >= 0) return { seq: items, index };
  }
  return undefined;
}

/** Replaces a key's collection value by a new one (its whole block). */
export function setListValue(text: string, map: Json, key: string, value: unknown): Splice {
  const r = removeKey(text, map, key)!;
  const indent = text.slice(r.start, text.length).match(/^ */)![0];
  return {
    start: r.start,
    end: r.end,
    text:
      yamlLines(key, value)
        .map((l) => indent + l)
        .join("\n") + "\n",
  };
}

/** Inserts a mapping as the first item of a non-empty block sequence. */
export function insertSequenceItem(text: string, seq: unknown[], item: Record<string, unknown>): Splice {
  const p = positionOf(seq)!;
  const first = p.items![0]!;
  if (text[p.offset] === "[")
    return { start: p.offset + 1, end: p.offset + 1, text: `${JSON.stringify(item)}, ` };
  const lineStart = lineStartOf(text, first);
  const dash = text.indexOf("-", lineStart);
  const indent = " ".repeat(dash - lineStart);
  const lines = Object.entries(item).flatMap(([k, v]) => yamlLines(k, v));
  return {
    start: lineStart,
    end: lineStart,
    text: lines.map((l, i) => `${indent}${i === 0 ? "- " : "  "}${l}`).join("\n") + "\n",
  };
}
