/**
 * The analysis as a delta against the one the playground already holds.
 *
 * After an edit most of the analysis is what it was: the same pods,
 * Services, policies and flows. The worker keeps the analyses it sent last
 * (by the client's generation) and answers an `analyze` with only what
 * changed since the one the client names as its base; the client rebuilds
 * the whole analysis, keeping the unchanged items as the very objects it
 * had (so memoised views of them are not redrawn). Structured clone then
 * copies the changed parts only, which is the main thread's cost of an edit
 * at M (the whole analysis is megabytes).
 *
 * Objects are compared key by key; arrays item by item, an item found in
 * the base (by `id`, else `name`, else at the same place) and deeply equal
 * is sent as its index there; an object item found by its key but changed
 * is sent as its changes (a pod whose node and address moved is those two
 * fields, not the whole pod). Pure functions over JSON-safe data.
 */

import { sameJson as same } from "../engine/analysis/kept.ts";

/** Deep equality of JSON-safe values (undefined-valued keys count as absent): the engine's, which keeps unchanged items. */
export { same };

export type Delta =
  /** Unchanged. */
  | { s: 1 }
  /** A new value, whole. */
  | { v: unknown }
  /**
   * An array: each item the index of an equal item of the base, the base's item with the same key patched
   * (`p`: its index, `d`: the object's delta), or a new item (wrapped, so that numbers stay numbers).
   */
  | { a: (number | { v: unknown } | { p: number; d: Delta })[] }
  /** An object: changed keys only; removed keys listed. */
  | { o: Record<string, Delta>; d?: string[] };

export type AnalysisMessage<T = unknown> =
  | { full: T }
  /** A delta against the analysis of generation `base`. */
  | { base: number; delta: Delta };

const isObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === "object" && x !== null && !Array.isArray(x);

/** An item's key: its `id`, else its `name` (kinds apart, so an id never matches a name). */
function keyOf(x: unknown): { id: string } | { name: string } | undefined {
  if (!isObject(x)) return undefined;
  if (typeof x.id === "string") return { id: x.id };
  if (typeof x.name === "string") return { name: x.name };
  return undefined;
}

/** keyOf(a) === keyOf(b), both defined, without building the keys. */
function sameKey(a: unknown, b: unknown): boolean {
  if (!isObject(a) || !isObject(b)) return false;
  if (typeof b.id === "string") return a.id === b.id;
  if (typeof b.name === "string") return typeof a.id !== "string" && a.name === b.name;
  return false;
}

/**
 * The base's first index of each key. The keys are the items' own strings (no prefix is added), so a string
 * kept from an earlier analysis hashes once, not once per edit.
 */
interface KeyIndex {
  ids: Map<string, number>;
  names: Map<string, number>;
}

function firstIndexByKey(base: readonly unknown[]): KeyIndex {
  const at: KeyIndex = { ids: new Map(), names: new Map() };
  base.forEach((x, i) => {
    const k = keyOf(x);
    if (!k) return;
    const [map, key] = "id" in k ? [at.ids, k.id] : [at.names, k.name];
    if (!map.has(key)) map.set(key, i);
  });
  return at;
}

function arrayDelta(base: readonly unknown[], next: readonly unknown[]): Delta {
  // Most items keep their place, or moved with the items around them (an item added or removed above them
  // shifts them all alike): the item at the same index is tried first, then at the shift of the last item
  // that moved, and the index of the base's items by key is built only for an item that moved on its own.
  let at: KeyIndex | undefined;
  let reused = 0;
  let shift = 0;
  const a = next.map((x, i): number | { v: unknown } | { p: number; d: Delta } => {
    // The very item at its own place (the engine keeps unchanged flows and policies as the objects they were).
    if (i < base.length && base[i] === x) {
      reused++;
      return i;
    }
    let j: number | undefined;
    let keyed = true;
    if (i < base.length && sameKey(base[i], x)) j = i;
    else if (shift !== 0 && i + shift >= 0 && i + shift < base.length && sameKey(base[i + shift], x))
      j = i + shift;
    else {
      const k = keyOf(x);
      keyed = k !== undefined;
      if (k) {
        at ??= firstIndexByKey(base);
        j = "id" in k ? at.ids.get(k.id) : at.names.get(k.name);
      } else j = i < base.length ? i : undefined;
      if (j === undefined) return { v: x };
      if (keyed) shift = j - i;
    }
    if (same(base[j], x)) {
      reused++;
      return j;
    }
    // The same item (by its key) with some fields changed: those fields only.
    return keyed ? { p: j, d: diffValue(base[j], x) } : { v: x };
  });
  if (reused === next.length && next.length === base.length && a.every((j, i) => j === i)) return { s: 1 };
  return { a };
}

/** What turns `base` into `next`. */
export function diffValue(base: unknown, next: unknown): Delta {
  if (Array.isArray(base) && Array.isArray(next)) return arrayDelta(base, next);
  if (isObject(base) && isObject(next)) {
    const o: Record<string, Delta> = {};
    const d: string[] = [];
    let changed = false;
    for (const k in next) {
      if (next[k] === undefined) continue;
      const delta = k in base && base[k] !== undefined ? diffValue(base[k], next[k]) : { v: next[k] };
      if ("s" in delta) continue;
      o[k] = delta;
      changed = true;
    }
    for (const k in base)
      if (base[k] !== undefined && next[k] === undefined) {
        d.push(k);
        changed = true;
      }
    if (!changed) return { s: 1 };
    return d.length ? { o, d } : { o };
  }
  return same(base, next) ? { s: 1 } : { v: next };
}

/** `base` with `delta` applied: unchanged parts are the base's own objects. */
export function applyDelta(base: unknown, delta: Delta): unknown {
  if ("s" in delta) return base;
  if ("v" in delta) return delta.v;
  if ("a" in delta) {
    const b = base as readonly unknown[];
    return delta.a.map((x) => (typeof x === "number" ? b[x] : "p" in x ? applyDelta(b[x.p], x.d) : x.v));
  }
  const removed = new Set(delta.d);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(base as Record<string, unknown>)) if (!removed.has(k)) out[k] = v;
  for (const k in delta.o) out[k] = applyDelta(out[k], delta.o[k]!);
  return out;
}

/** The answer to send: a delta against the client's base when the worker still has it, else the whole value. */
export function messageFor<T>(
  next: T,
  base: { generation: number; value: T } | undefined,
): AnalysisMessage<T> {
  if (!base) return { full: next };
  return { base: base.generation, delta: diffValue(base.value, next) };
}

/** The whole value an answer stands for, given the value the client holds. */
export function valueOf<T>(m: AnalysisMessage<T>, held: { generation: number; value: T } | undefined): T {
  if ("full" in m) return m.full;
  if (!held || held.generation !== m.base)
    throw new Error(`the engine answered against analysis ${m.base}, which this page does not hold`);
  return applyDelta(held.value, m.delta) as T;
}
