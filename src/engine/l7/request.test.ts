import { describe, expect, it } from "vitest";
import { addHttpHeader, parseHttpRequestLine } from "../http/request.ts";
import { hostOf, toL7Request } from "./request.ts";

// shared/contract/ktl-cli.md: --http 'METHOD PATH?query' (PATH may carry a query string), --header 'Name: value'.
describe("toL7Request", () => {
  it.each<[string, string, string, string, string[]]>([
    ["GET /cart?id=7", "GET", "/cart", "id=7", ["id=7"]],
    ["POST /", "POST", "/", "", []],
    ["GET /a?x=1&y&z=", "GET", "/a", "x=1&y&z=", ["x=1", "y=", "z="]],
    ["GET /a?x=%2F+b", "GET", "/a", "x=%2F+b", ["x=%2F+b"]], // exact values: no decoding guessed
  ])("%j", (text, method, path, query, params) => {
    const w = parseHttpRequestLine(text);
    if ("error" in w) throw new Error(w.error);
    const r = toL7Request(w);
    expect([r.method, r.path, r.query, r.params.map((p) => `${p.name}=${p.value}`)]).toEqual([
      method,
      path,
      query,
      params,
    ]);
  });
  // RFC 9110 5.1 / 5.3; the Host header compares without its port and case-insensitively.
  it("headers and Host", () => {
    let w = parseHttpRequestLine("GET /");
    for (const h of ["Version: One", "version: two", "Host: Example.COM:8080"]) {
      if ("error" in w) throw new Error(w.error);
      w = addHttpHeader(w, h);
    }
    if ("error" in w) throw new Error(w.error);
    const r = toL7Request(w);
    expect(r.headers).toEqual({ version: "One, two", host: "Example.COM:8080" });
    expect(hostOf(r)).toBe("example.com");
  });
});
