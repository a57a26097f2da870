import { describe, expect, it } from "vitest";
import { buildHttpRequest, hostOf, parseHeader, parseHttpRequest } from "./request.ts";

// shared/contract/ktl-cli.md: --http 'METHOD PATH?query', --header 'Name: value'.
describe("parseHttpRequest", () => {
  it.each<[string, string | null, string, string, string[]]>([
    ["GET /cart?id=7", "GET", "/cart", "id=7", ["id=7"]],
    ["POST /", "POST", "/", "", []],
    ["/only-path", "GET", "/only-path", "", []],
    ["get /lower", "get", "/lower", "", []], // RFC 9110 9.1: methods are case-sensitive, kept as written
    ["GET /a?x=1&y&z=", "GET", "/a", "x=1&y&z=", ["x=1", "y=", "z="]],
    ["GET cart", null, "", "", []],
    ["G ET /", null, "", "", []],
    ["", null, "", "", []],
  ])("%j", (text, method, path, query, params) => {
    const r = parseHttpRequest(text);
    if (method === null) return expect("error" in r).toBe(true);
    if ("error" in r) throw new Error(r.error);
    expect([r.method, r.path, r.query, r.params.map((p) => `${p.name}=${p.value}`)]).toEqual([
      method,
      path,
      query,
      params,
    ]);
  });
});

describe("headers", () => {
  // RFC 9110 5.1: field names are case-insensitive; 5.3: repeated fields combine with ", ".
  it("lower-cases names, keeps values, joins repeats", () => {
    const r = buildHttpRequest("GET /", ["Version: One", "version: two", "Host: Example.COM:8080"]);
    if ("error" in r) throw new Error(r.error);
    expect(r.headers).toEqual({ version: "One, two", host: "Example.COM:8080" });
    expect(hostOf(r)).toBe("example.com");
  });
  it.each(["no colon", ": empty name", "bad name: x"])("rejects %j", (h) =>
    expect("error" in parseHeader(h)).toBe(true),
  );
});
