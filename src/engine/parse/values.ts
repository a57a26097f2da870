/** Narrowing helpers for untyped manifest values. Wrong types read as absent. */
export type Json = Record<string, unknown>;

export function isObj(v: unknown): v is Json {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}
export function obj(v: unknown): Json | undefined {
  return isObj(v) ? v : undefined;
}
export function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}
export function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}
export function num(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}
export function bool(v: unknown): boolean | undefined {
  return typeof v === "boolean" ? v : undefined;
}
/** The prototype of input records: empty and with none of its own, so no key of Object.prototype shows through. */
const RECORD_PROTO: object = Object.create(null) as object;

/**
 * A record keyed by input: no Object.prototype behind it, so `constructor` or `__proto__` are plain keys and `in`
 * sees only what the input wrote. Made on an empty null-prototype object rather than as `Object.create(null)`,
 * which V8 keeps in dictionary mode: pods' labels are read by every selector, enumerated and compared per edit.
 */
export function inputRecord<T>(): Record<string, T> {
  return Object.create(RECORD_PROTO) as Record<string, T>;
}

/** A map of string values (labels, annotations, nodeSelector); non-string values are stringified as the apiserver would reject them. */
export function strMap(v: unknown): Record<string, string> {
  const out = inputRecord<string>();
  if (!isObj(v)) return out;
  for (const [k, val] of Object.entries(v)) {
    if (typeof val === "string") out[k] = val;
    else if (typeof val === "number" || typeof val === "boolean") out[k] = String(val);
  }
  return out;
}
/** Reads a nested value: get(o, "spec", "ports", 0). */
export function get(v: unknown, ...path: (string | number)[]): unknown {
  let cur = v;
  for (const k of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string | number, unknown>)[k];
  }
  return cur;
}

/**
 * The strings of a list; numbers and booleans written as text; maps, lists and
 * nulls left out. Never `String(x)` an unknown value: YAML aliases let a small YAML
 * doc describe a tree of billions of nodes, and Array.prototype.toString
 * would walk all of it.
 */
export function strList(v: unknown): string[] {
  const out: string[] = [];
  for (const x of arr(v)) {
    if (typeof x === "string") out.push(x);
    else if (typeof x === "number" || typeof x === "boolean") out.push(String(x));
  }
  return out;
}

/** JSON text of a value, cut after about `limit` characters (aliases can make a small YAML doc describe a huge tree). */
export function boundedJson(v: unknown, limit = 1 << 20): string {
  let out = "";
  const walk = (x: unknown): void => {
    if (out.length > limit) return;
    if (x === null || typeof x !== "object") {
      out += JSON.stringify(x) ?? "null";
      return;
    }
    if (Array.isArray(x)) {
      out += "[";
      for (let i = 0; i < x.length && out.length <= limit; i++) {
        if (i) out += ",";
        walk(x[i]);
      }
      out += "]";
      return;
    }
    out += "{";
    let first = true;
    for (const k of Object.keys(x)) {
      if (out.length > limit) break;
      out += `${first ? "" : ","}${JSON.stringify(k)}:`;
      first = false;
      walk((x as Record<string, unknown>)[k]);
    }
    out += "}";
  };
  walk(v);
  return out;
}

/** An integer, or undefined: the apiserver decodes int32 fields strictly and rejects 1.5 (a decoding error, not a value). */
export function int(v: unknown): number | undefined {
  return typeof v === "number" && Number.isSafeInteger(v) ? v : undefined;
}
