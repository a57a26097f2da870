/**
 * `ktl test` asks what `ktl trace` answers (engine/l7 traceL7), for every
 * destination kind of the contract: every lesson check of the catalogue,
 * written as an expectation, passes exactly when its stated verdict is the
 * trace's. Before, an expectation went through the packet-level trace only:
 * gateway:, ingress: and host: destinations failed with an error, and an
 * Istio route that answers 503 passed an "allow".
 */
import { describe, expect, it } from "vitest";
import { LESSONS } from "../../../scenarios/lessons.ts";
import { loadModel } from "../load/index.ts";
import { buildProxyIndex } from "../proxy/index.ts";
import { addHttpHeader, parseHttpRequestLine, type HttpRequest } from "../http/request.ts";
import { parseExpectations, runExpectation, type Expectation } from "./index.ts";

function request(http: string | undefined, headers: readonly string[] = []): HttpRequest | undefined {
  if (!http) return undefined;
  let req = parseHttpRequestLine(http);
  for (const h of headers) if (!("error" in req)) req = addHttpHeader(req, h);
  if ("error" in req) throw new Error(req.error);
  return req;
}

const cases = LESSONS.flatMap((l) =>
  l.checks.map((c, i) => ({
    name: `${l.id} check ${i + 1}: ${c.from} -> ${c.to}${c.http ? ` ${c.http}` : ""}`,
    l,
    c,
  })),
);

describe("every lesson check, as a ktl test expectation, gets the trace's verdict", () => {
  it.each(cases)("$name", ({ l, c }) => {
    const model = loadModel([{ name: l.file, text: l.manifests }], c.cni ? { cni: c.cni } : {});
    const index = buildProxyIndex(model);
    const http = request(c.http, c.headers);
    const e: Expectation = {
      name: "check",
      from: c.from,
      to: c.to,
      protocol: c.protocol ?? "TCP",
      expect: c.verdict,
      ...(http ? { http } : {}),
      file: "t.yaml",
      doc: 0,
      line: 1,
      format: "ktl",
    };
    const r = runExpectation(model, index, e);
    expect(r.failures).toEqual([]);
    // And the opposite expectation fails: the test can tell.
    const other = c.verdict === "allow" ? "drop" : "allow";
    expect(runExpectation(model, index, { ...e, expect: other }).pass).toBe(false);
  });
});

describe("a tests file may name the routers' destinations", () => {
  it.each([
    ["gateway:shop/web-gw:80", "25-split-a-canary-through-a-gateway"],
    ["ingress:shop/shop:80", "26-find-why-an-ingress-answers-404"],
    ["host:httpbin.org:80", "30-admit-an-external-host-with-a-serviceentry"],
  ])("to: %s parses and runs", (to, lesson) => {
    const l = LESSONS.find((x) => x.id === lesson)!;
    const { expectations, diagnostics } = parseExpectations(
      "t.yaml",
      `tests:\n  - {name: t, from: ${l.checks[0]!.from}, to: "${to}", expect: ${l.checks[0]!.verdict}}`,
    );
    expect(diagnostics).toEqual([]);
    const model = loadModel([{ name: l.file, text: l.manifests }]);
    const r = runExpectation(model, buildProxyIndex(model), expectations[0]!);
    // Traced (a case with a verdict), not refused as a destination ktl test cannot ask.
    expect(r.cases.map((c) => c.to)).toEqual([to]);
  });
});
