/**
 * Where each parsed value sits in its source, and the documents the YAML and
 * JSON readers give (yaml.ts, jsonFast.ts). A collection carries its
 * position record under a non-enumerable symbol; lineOf and lineOfPath read
 * a line off it for a diagnostic or a link to the editor.
 */
import type { Diagnostic } from "./diagnostics.ts";
import type { SourceText } from "./source.ts";

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
 * Where the text a parse read starts in its source: the offsets of a
 * position record are relative to `base`. One per part of a text parsed
 * alone (a document between `---` lines, or a batch of them), shared by
 * every collection of it, so that when an edit above moves the part
 * (YamlPartCache) its values keep their identity and only the origin moves
 * (yaml.ts `relocate`).
 */
export interface Origin {
  source: SourceText;
  base: number;
}

/**
 * The stored form of a position, one exact-size array per collection:
 * `[origin, offset, ...]` followed, for a sequence, by the offset of each
 * item; for a mapping, by the offset of each key in the mapping's own key
 * order (Object.keys), or, when that order is not the order of appearance (a
 * `<<` merge, an array-index key), by `key, offset` pairs in order of
 * appearance (a repeated key keeps its first place and its last offset): a
 * string third element tells the second form. Offsets are relative to the
 * origin's base. Most mappings take the first form, which holds no key. It
 * hangs off the collection as a private field (`Positions` below): invisible
 * to Object.keys, own symbols, JSON, spread, structured clone and deep
 * equality, and cheaper than a WeakMap (whose entries every garbage
 * collection has to trace).
 */
export type Pos = (Origin | string | number)[];

/**
 * Installs a private field on a collection that was not made by this class: a base constructor that
 * returns its argument makes `super(node)` the node, and the derived class adds its field to it (ES2022
 * class fields). V8 adds a private field as it adds a property, with the transition kept in the inline
 * cache: 1.5 million collections (the XL bench's parse) take about 0.1 s, against about 0.5 s for
 * `Object.defineProperty` of a non-enumerable symbol, which goes through the runtime each time.
 */
// eslint-disable-next-line @typescript-eslint/no-extraneous-class -- its constructor returns the node it is given: that is its whole use
class Receiver {
  constructor(node: object) {
    return node;
  }
}

class Positions extends Receiver {
  #pos: Pos;
  private constructor(node: object, pos: Pos) {
    super(node);
    this.#pos = pos;
  }
  static attach(node: object, pos: Pos): void {
    new Positions(node, pos);
  }
  static of(node: object): Pos | undefined {
    return #pos in node ? (node as Positions).#pos : undefined;
  }
}

export function posOf(node: object): Pos | undefined {
  return Positions.of(node);
}

/** Gives a collection its position record, once (a second record for the same collection throws). */
export function attach(node: object, pos: Pos): void {
  Positions.attach(node, pos);
}

/** The part's origin of a position record. */
export function originOf(p: Pos): Origin {
  return p[0] as Origin;
}

export function positionOf(node: object): NodePosition | undefined {
  const p = posOf(node);
  if (!p) return undefined;
  const { source, base } = originOf(p);
  const offset = base + (p[1] as number);
  if (Array.isArray(node)) return { source, offset, items: (p.slice(2) as number[]).map((o) => base + o) };
  const keys = new Map<string, number>();
  if (keyless(p)) {
    let i = 2;
    for (const k of Object.keys(node)) if (i < p.length) keys.set(k, base + (p[i++] as number));
  } else for (let i = 2; i < p.length; i += 2) keys.set(p[i] as string, base + (p[i + 1] as number));
  return { source, offset, keys };
}

/** A mapping's record holds offsets in its key order, no keys. */
function keyless(p: Pos): boolean {
  return p.length > 2 && typeof p[2] === "number";
}

/** Offset of a key or item of `node` in its position record (relative to its origin), or -1. */
function offsetIn(node: object, p: Pos, key: string | number): number {
  if (Array.isArray(node)) {
    if (typeof key !== "number" || !Number.isInteger(key) || key < 0 || key + 2 >= p.length) return -1;
    return p[key + 2] as number;
  }
  if (typeof key !== "string") return -1;
  if (keyless(p)) {
    let i = 2;
    for (const k in node) {
      if (i >= p.length) break;
      if (k === key) return p[i] as number;
      i++;
    }
    return -1;
  }
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
  const o = originOf(p);
  return o.source.lineAt(o.base + offset);
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
    const origin = originOf(p!);
    best = origin.source.lineAt(origin.base + o);
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
