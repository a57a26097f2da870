/**
 * Where each parsed value sits in its source, and the documents the YAML and
 * JSON readers give (yaml.ts, jsonFast.ts). A collection carries its
 * position under private fields; lineOf and lineOfPath read a line off it
 * for a diagnostic or a link to the editor.
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
 * Where the text a parse read starts in its source, and the position
 * records of the collections that parse made. One per part of a text parsed
 * alone (a document between `---` lines, or a batch of them), shared by
 * every collection of it, so that when an edit above moves the part
 * (YamlPartCache) its values keep their identity and only the origin moves
 * (yaml.ts `relocate`). Offsets are relative to `base`.
 *
 * `table` holds the records end to end: at a record's index, the
 * collection's own offset, the count n of offsets that follow, then, for a
 * sequence, the offset of each item, for a mapping, the offset of each key in
 * the mapping's own key order (Object.keys). The table is a typed array, so
 * the records live outside the JavaScript heap: 1.5 million collections (the
 * XL bench) took one array each before, which the young generation's
 * collector copied as they all lived on (the XL parse kept 274 MB live then,
 * 153 MB with a table per batch). A mapping whose key order is not the order its keys
 * were written in (a `<<` merge, an array-index key, which JavaScript orders
 * first) keeps a `KeyedRecord` instead. A table is written by one PosWriter
 * and never changed after it (a copy of a part shares it).
 */
export interface Origin {
  source: SourceText;
  base: number;
  table: Int32Array;
}

/** A mapping's record that keeps its keys: `[offset, key, offset, key, offset, ...]`, keys in order of appearance (a repeated key keeps its first place and its last offset). */
export type KeyedRecord = readonly (string | number)[];

/** A collection's record: an index into its origin's table, or a KeyedRecord. */
export type At = number | KeyedRecord;

/**
 * Installs private fields on a collection that was not made by this class: a base constructor that
 * returns its argument makes `super(node)` the node, and the derived class adds its fields to it (ES2022
 * class fields). V8 adds a private field as it adds a property, with the transition kept in the inline
 * cache: 1.5 million collections (the XL bench's parse) take about 0.1 s, against about 0.5 s for
 * `Object.defineProperty` of a non-enumerable symbol, which goes through the runtime each time.
 * Private fields are invisible to Object.keys, own symbols, JSON, spread, structured clone and deep
 * equality, and cheaper than a WeakMap (whose entries every garbage collection has to trace).
 */
// eslint-disable-next-line @typescript-eslint/no-extraneous-class -- its constructor returns the node it is given: that is its whole use
class Receiver {
  constructor(node: object) {
    return node;
  }
}

class Positions extends Receiver {
  #origin: Origin;
  #at: At;
  private constructor(node: object, origin: Origin, at: At) {
    super(node);
    this.#origin = origin;
    this.#at = at;
  }
  static attach(node: object, origin: Origin, at: At): void {
    new Positions(node, origin, at);
  }
  static origin(node: object): Origin | undefined {
    return #origin in node ? (node as Positions).#origin : undefined;
  }
  /** The record of a node that has an origin. */
  static at(node: object): At {
    return (node as Positions).#at;
  }
}

/** The origin of a collection's record, or undefined for a value no parse made. */
export function originOf(node: object): Origin | undefined {
  return Positions.origin(node);
}

/** The record of a collection that has an origin (originOf). */
export function atOf(node: object): At {
  return Positions.at(node);
}

/** Gives a collection its position record, once (a second record for the same collection throws). */
export function attach(node: object, origin: Origin, at: At): void {
  Positions.attach(node, origin, at);
}

/** A new origin with an empty table, for a PosWriter to fill. */
export function newOrigin(source: SourceText, base: number): Origin {
  return { source, base, table: EMPTY };
}
const EMPTY = new Int32Array(0);

/**
 * Writes the records of one parse into its origin's table and gives each
 * collection its place in it. `finish` trims the table to its size; until
 * then the table may be swapped for a larger one.
 */
export class PosWriter {
  private table: Int32Array;
  private n = 0;
  constructor(readonly origin: Origin) {
    this.table = new Int32Array(256);
    origin.table = this.table;
  }
  private room(count: number): void {
    if (this.n + count <= this.table.length) return;
    let size = this.table.length * 2;
    while (size < this.n + count) size *= 2;
    const next = new Int32Array(size);
    next.set(this.table.subarray(0, this.n));
    this.table = next;
    this.origin.table = next;
  }
  /**
   * A record for `node` at `offset` (relative to the origin) whose offsets are
   * `from[start]`, `from[start + step]`, ... before `end`.
   */
  record(
    node: object,
    offset: number,
    from: ArrayLike<unknown>,
    start: number,
    end: number,
    step: number,
  ): void {
    const count = end > start ? Math.ceil((end - start) / step) : 0;
    this.room(2 + count);
    const t = this.table;
    const at = this.n;
    t[at] = offset;
    t[at + 1] = count;
    let j = at + 2;
    for (let i = start; i < end; i += step) t[j++] = from[i] as number;
    this.n = j;
    Positions.attach(node, this.origin, at);
  }
  /** A mapping's record that keeps its keys (KeyedRecord). */
  keyed(node: object, record: KeyedRecord): void {
    Positions.attach(node, this.origin, record);
  }
  /** The table at its size: nothing is written after this. */
  finish(): void {
    this.origin.table = this.n === this.table.length ? this.table : this.table.slice(0, this.n);
  }
}

/** A key JavaScript orders before the others in an object (an array index: "0" to "4294967294"). */
export function isArrayIndex(key: string): boolean {
  const c = key.charCodeAt(0);
  if (!(c >= 48 && c <= 57) || key.length > 10 || (c === 48 && key.length > 1)) return false;
  for (let i = 1; i < key.length; i++) {
    const d = key.charCodeAt(i);
    if (d < 48 || d > 57) return false;
  }
  return Number(key) < 4294967295;
}

/** The collection's own offset, relative to its origin. */
function ownOffset(origin: Origin, at: At): number {
  return typeof at === "number" ? origin.table[at]! : (at[0] as number);
}

export function positionOf(node: object): NodePosition | undefined {
  const origin = Positions.origin(node);
  if (!origin) return undefined;
  const at = Positions.at(node);
  const { source, base, table } = origin;
  const offset = base + ownOffset(origin, at);
  if (Array.isArray(node)) {
    const n = typeof at === "number" ? table[at + 1]! : 0;
    const items: number[] = [];
    for (let i = 0; i < n; i++) items.push(base + table[(at as number) + 2 + i]!);
    return { source, offset, items };
  }
  const keys = new Map<string, number>();
  if (typeof at === "number") {
    const n = table[at + 1]!;
    let i = 0;
    for (const k of Object.keys(node)) if (i < n) keys.set(k, base + table[at + 2 + i++]!);
  } else for (let i = 1; i < at.length; i += 2) keys.set(at[i] as string, base + (at[i + 1] as number));
  return { source, offset, keys };
}

/** Offset of a key or item of `node` in its record (relative to its origin), or -1. */
function offsetIn(node: object, origin: Origin, at: At, key: string | number): number {
  if (typeof at !== "number") {
    if (typeof key !== "string") return -1;
    for (let i = 1; i < at.length; i += 2) if (at[i] === key) return at[i + 1] as number;
    return -1;
  }
  const table = origin.table;
  const n = table[at + 1]!;
  if (Array.isArray(node)) {
    if (typeof key !== "number" || !Number.isInteger(key) || key < 0 || key >= n) return -1;
    return table[at + 2 + key]!;
  }
  if (typeof key !== "string") return -1;
  let i = 0;
  for (const k in node) {
    if (i >= n) break;
    if (k === key) return table[at + 2 + i]!;
    i++;
  }
  return -1;
}

/** 1-based line of a collection, or of one of its keys or items. */
export function lineOf(node: unknown, key?: string | number): number {
  if (node === null || typeof node !== "object") return 0;
  const origin = Positions.origin(node);
  if (!origin) return 0;
  const at = Positions.at(node);
  let offset: number;
  if (key === undefined) offset = ownOffset(origin, at);
  else {
    // A key the node lacks has no line: 0, so callers choose their own fallback (`lineOf(o, k) || o.line`).
    offset = offsetIn(node, origin, at, key);
    if (offset < 0) return 0;
  }
  return origin.source.lineAt(origin.base + offset);
}

/** Line of the deepest existing node along a path such as ["spec", "ports", 0, "port"]. */
export function lineOfPath(root: unknown, path: readonly (string | number)[]): number {
  let node: unknown = root;
  let best = lineOf(root);
  for (const key of path) {
    if (node === null || typeof node !== "object") break;
    const origin = Positions.origin(node);
    const o = origin ? offsetIn(node, origin, Positions.at(node), key) : -1;
    if (o < 0) break;
    best = origin!.source.lineAt(origin!.base + o);
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
