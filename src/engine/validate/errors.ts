/**
 * Field errors as kube-apiserver reports them
 * (k8s.io/apimachinery/pkg/util/validation/field/errors.go): a field path, an
 * error type, the bad value and a detail whose wording is the apiserver's own.
 */

/** field.ErrorType.String() for the types validation can return. */
export type FieldErrorType =
  | "Invalid value"
  | "Required value"
  | "Unsupported value"
  | "Forbidden"
  | "Duplicate value"
  | "Too long"
  | "Too many"
  | "Internal error";

/** One step of a field path: a child name, a list index, or a map key (printed `[key]`). */
export type PathSegment = string | number | { key: string };

export interface FieldError {
  path: PathSegment[];
  type: FieldErrorType;
  /** The bad value, JSON-safe; absent where the apiserver omits it (Required, Forbidden, Too long). */
  value?: unknown;
  detail: string;
  /** The upstream function whose rule this is. */
  upstream: string;
  /** Where to point in the manifest when it differs from `path` (e.g. `clusterIP` for `spec.clusterIPs`). */
  at?: (string | number)[];
}

/** field.Path.String(): `spec.ports[0].name`, `metadata.annotations[a/b]`. */
export function formatPath(path: readonly PathSegment[]): string {
  let s = "";
  for (const seg of path) {
    if (typeof seg === "number") s += `[${seg}]`;
    else if (typeof seg === "string") s += s ? `.${seg}` : seg;
    else s += `[${seg.key}]`;
  }
  return s;
}

/** The manifest path of a field path: map keys become plain keys. */
export function rawPath(path: readonly PathSegment[]): (string | number)[] {
  return path.map((s) => (typeof s === "object" ? s.key : s));
}

const MAX_VALUE_NODES = 64;

/**
 * The bad value as findings carry it: JSON-safe and bounded. YAML aliases can
 * make a small YAML doc hold an exponentially large value (a "billion laughs"
 * shape); only its first nodes are kept.
 */
export function jsonSafe(v: unknown): unknown {
  let budget = MAX_VALUE_NODES;
  const walk = (x: unknown, depth: number): unknown => {
    if (x === undefined) return null;
    if (typeof x === "number" && !Number.isFinite(x)) return String(x);
    if (x === null || typeof x !== "object") return x;
    if (--budget < 0 || depth > 4) return "…";
    if (Array.isArray(x)) {
      const out: unknown[] = [];
      for (const item of x) {
        if (budget <= 0) {
          out.push("…");
          break;
        }
        out.push(walk(item, depth + 1));
      }
      return out;
    }
    const out: Record<string, unknown> = {};
    for (const [k, val] of Object.entries(x)) {
      if (budget <= 0) {
        out["…"] = "…";
        break;
      }
      out[k] = walk(val, depth + 1);
    }
    return out;
  };
  return walk(v, 0);
}

export function invalid(path: PathSegment[], value: unknown, detail: string, upstream: string): FieldError {
  return { path, type: "Invalid value", value: jsonSafe(value), detail, upstream };
}

export function required(path: PathSegment[], detail: string, upstream: string): FieldError {
  return { path, type: "Required value", detail, upstream };
}

export function forbidden(path: PathSegment[], detail: string, upstream: string): FieldError {
  return { path, type: "Forbidden", detail, upstream };
}

export function duplicate(path: PathSegment[], value: unknown, upstream: string): FieldError {
  return { path, type: "Duplicate value", value: jsonSafe(value), detail: "", upstream };
}

/** field.NotSupported: `supported values: "A", "B"` (values quoted as Go's strconv.Quote does). */
export function notSupported(
  path: PathSegment[],
  value: unknown,
  valid: readonly string[],
  upstream: string,
): FieldError {
  const detail = valid.length ? `supported values: ${valid.map((v) => JSON.stringify(v)).join(", ")}` : "";
  return { path, type: "Unsupported value", value: jsonSafe(value), detail, upstream };
}

/** field.TooLong: `may not be more than N bytes`. */
export function tooLong(path: PathSegment[], max: number, upstream: string): FieldError {
  return {
    path,
    type: "Too long",
    detail: `may not be more than ${max} ${max === 1 ? "byte" : "bytes"}`,
    upstream,
  };
}

/** field.TooMany: `must have at most N items`. */
export function tooMany(path: PathSegment[], actual: number, max: number, upstream: string): FieldError {
  return {
    path,
    type: "Too many",
    value: actual,
    detail: `must have at most ${max} ${max === 1 ? "item" : "items"}`,
    upstream,
  };
}

export function internal(path: PathSegment[], detail: string, upstream: string): FieldError {
  return { path, type: "Internal error", detail, upstream };
}

/** Error.Error(): `spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive`. */
export function formatFieldError(e: {
  field: string;
  type: string;
  value?: unknown;
  detail: string;
}): string {
  let body: string = e.type;
  const omit =
    e.type === "Required value" ||
    e.type === "Forbidden" ||
    e.type === "Too long" ||
    e.type === "Internal error";
  if (!omit && e.value !== undefined) body += `: ${formatValue(e.value)}`;
  if (e.detail) body += `: ${e.detail}`;
  return `${e.field}: ${body}`;
}

function formatValue(v: unknown): string {
  if (typeof v === "string") return JSON.stringify(v);
  if (v === null) return "null";
  if (Array.isArray(v)) return `[${v.map(formatValue).join(",")}]`;
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}
