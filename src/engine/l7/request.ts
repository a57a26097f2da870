/**
 * The HTTP request of a trace (`ktl trace --http 'METHOD PATH?query'
 * --header 'Name: value'`, shared/contract/ktl-cli.md): what the L7 routers
 * (Gateway API routes, Ingress rules, Istio routes and policies, Cilium HTTP
 * rules) match on. Pure data, parsed once, shared by every router.
 *
 * - METHOD is an RFC 9110 token, kept as written (methods are case-sensitive:
 *   `get` is not `GET`); PATH starts with `/` and may carry `?query`.
 * - Header names are case-insensitive (RFC 9110 5.1): they are kept lower-cased;
 *   values are case-sensitive and kept as written. A repeated header keeps
 *   every value, joined with ", " as RFC 9110 5.3 allows proxies to do.
 * - The query string is split at `&` into name/value pairs, `+` and %-escapes
 *   left as written: Gateway API matches query params by exact value
 *   (HTTPQueryParamMatch), so no decoding is guessed.
 */

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

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** `GET /cart?id=7` (the method may be left out: GET). */
export function parseHttpRequest(text: string): HttpRequest | { error: string } {
  const parts = text.trim().split(/\s+/);
  let method = "GET";
  let target: string | undefined;
  if (parts.length === 1 && parts[0]!.startsWith("/")) target = parts[0];
  else if (parts.length === 2) [method, target] = parts as [string, string];
  if (!target || !TOKEN.test(method) || !target.startsWith("/"))
    return {
      error: `--http ${JSON.stringify(text)}: expected 'METHOD PATH' such as 'GET /cart?id=7' (PATH starts with /)`,
    };
  const q = target.indexOf("?");
  const path = q >= 0 ? target.slice(0, q) : target;
  const query = q >= 0 ? target.slice(q + 1) : "";
  const params = query
    .split("&")
    .filter((p) => p !== "")
    .map((p) => {
      const eq = p.indexOf("=");
      return eq >= 0 ? { name: p.slice(0, eq), value: p.slice(eq + 1) } : { name: p, value: "" };
    });
  return { method, path, query, params, headers: {} };
}

/** `Name: value`. */
export function parseHeader(text: string): { name: string; value: string } | { error: string } {
  const colon = text.indexOf(":");
  const name = colon > 0 ? text.slice(0, colon).trim() : "";
  if (!name || !TOKEN.test(name))
    return { error: `--header ${JSON.stringify(text)}: expected 'Name: value'` };
  return { name: name.toLowerCase(), value: text.slice(colon + 1).trim() };
}

/** Adds a header (repeated names join with ", "). */
export function withHeader(req: HttpRequest, name: string, value: string): HttpRequest {
  const key = name.toLowerCase();
  const prev = req.headers[key];
  return { ...req, headers: { ...req.headers, [key]: prev === undefined ? value : `${prev}, ${value}` } };
}

/** Builds a request from `--http` and `--header` texts. */
export function buildHttpRequest(
  http: string,
  headers: readonly string[] = [],
): HttpRequest | { error: string } {
  let req = parseHttpRequest(http);
  if ("error" in req) return req;
  for (const h of headers) {
    const p = parseHeader(h);
    if ("error" in p) return p;
    req = withHeader(req, p.name, p.value);
  }
  return req;
}

export function header(req: HttpRequest, name: string): string | undefined {
  return req.headers[name.toLowerCase()];
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
