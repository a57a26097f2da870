/**
 * The HTTP request as the L7 routers match on it, derived from the trace's
 * request (engine/http/request.ts: `ktl trace --http 'METHOD PATH?query'
 * --header 'Name: value'`, shared/contract/ktl-cli.md), parsed once there
 * and shared with the CNI dialects' HTTP rules.
 *
 * - The path is split from its query string; the query is split at `&` into
 *   name/value pairs, `+` and %-escapes left as written: Gateway API matches
 *   query params by exact value (HTTPQueryParamMatch), so no decoding is
 *   guessed.
 * - Header names are lower-cased (RFC 9110 5.1), values kept as written.
 */
import type { HttpRequest as WireRequest } from "../http/request.ts";

export type { WireRequest };

export interface HttpRequest {
  method: string;
  /** The path without the query string. */
  path: string;
  /** The raw query string without `?` ("" when none). */
  query: string;
  /** Query parameters in order; a name without `=` has value "". */
  params: { name: string; value: string }[];
  /** Header values by lower-cased name. */
  headers: Record<string, string>;
}

export function toL7Request(req: WireRequest): HttpRequest {
  const q = req.path.indexOf("?");
  const path = q >= 0 ? req.path.slice(0, q) : req.path;
  const query = q >= 0 ? req.path.slice(q + 1) : "";
  const params = query
    .split("&")
    .filter((p) => p !== "")
    .map((p) => {
      const eq = p.indexOf("=");
      return eq >= 0 ? { name: p.slice(0, eq), value: p.slice(eq + 1) } : { name: p, value: "" };
    });
  // No prototype: a header named __proto__ is a header like any other.
  const headers = Object.create(null) as Record<string, string>;
  for (const [k, v] of Object.entries(req.headers)) headers[k.toLowerCase()] = v;
  return { method: req.method, path, query, params, headers };
}

/** Back to the trace's form (for the lower layers' L7 rules). */
export function toWire(req: HttpRequest): WireRequest {
  return { method: req.method, path: req.path + (req.query ? `?${req.query}` : ""), headers: req.headers };
}

/** Own headers only: a match on a header named `constructor` or `toString` is not Object.prototype's. */
export function header(req: HttpRequest, name: string): string | undefined {
  const key = name.toLowerCase();
  return Object.hasOwn(req.headers, key) ? req.headers[key] : undefined;
}

/** The Host header without a port (`example.com:8080` -> `example.com`), lower-cased: hostnames compare case-insensitively. */
export function hostOf(req: HttpRequest): string | undefined {
  const h = header(req, "host");
  if (h === undefined) return undefined;
  const v = h.trim().toLowerCase();
  if (v.startsWith("[")) return v.slice(0, v.indexOf("]") + 1);
  const colon = v.lastIndexOf(":");
  return colon >= 0 && /^\d+$/.test(v.slice(colon + 1)) ? v.slice(0, colon) : v;
}

export function formatRequest(req: HttpRequest): string {
  return `${req.method} ${req.path}${req.query ? `?${req.query}` : ""}`;
}
