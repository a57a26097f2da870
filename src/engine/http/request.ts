/**
 * An HTTP request as `ktl trace --http 'METHOD PATH' --header 'Name: value'`
 * writes it (shared/contract/ktl-cli.md), for every L7 layer that judges
 * requests (Cilium HTTP rules, Gateway/Ingress routes, Istio). Header names
 * are case-insensitive (RFC 9110 5.1): they are kept lower-cased.
 */
export interface HttpRequest {
  method: string;
  /** As given, query string included. */
  path: string;
  /** Lower-cased name -> value; a repeated header keeps its values joined by ", " (RFC 9110 5.3). */
  headers: Record<string, string>;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export function parseHttpRequestLine(text: string): HttpRequest | { error: string } {
  const parts = text.trim().split(/\s+/);
  if (parts.length === 1 && parts[0]!.startsWith("/")) return { method: "GET", path: parts[0]!, headers: {} };
  if (parts.length !== 2 || !parts[0])
    return { error: `--http takes 'METHOD PATH', such as 'GET /api/v1?x=1', not "${text}"` };
  const [method, path] = parts as [string, string];
  if (!TOKEN.test(method)) return { error: `--http: "${method}" is not an HTTP method` };
  if (!path.startsWith("/") && path !== "*")
    return { error: `--http: the path must start with "/", not "${path}"` };
  return { method, path, headers: {} };
}

/** Adds one `Name: value` header; an error names what is wrong. */
export function addHttpHeader(req: HttpRequest, text: string): HttpRequest | { error: string } {
  const at = text.indexOf(":");
  if (at <= 0) return { error: `--header takes 'Name: value', not "${text}"` };
  const name = text.slice(0, at).trim();
  if (!TOKEN.test(name)) return { error: `--header: "${name}" is not a header name` };
  const key = name.toLowerCase();
  const value = text.slice(at + 1).trim();
  const prev = Object.hasOwn(req.headers, key) ? req.headers[key] : undefined;
  return { ...req, headers: { ...req.headers, [key]: prev === undefined ? value : `${prev}, ${value}` } };
}

/** The path without its query string. */
export function pathOnly(path: string): string {
  const q = path.indexOf("?");
  return q < 0 ? path : path.slice(0, q);
}

export function formatHttpRequest(req: HttpRequest): string {
  const h = Object.entries(req.headers)
    .map(([k, v]) => ` [${k}: ${v}]`)
    .join("");
  return `${req.method} ${req.path}${h}`;
}
