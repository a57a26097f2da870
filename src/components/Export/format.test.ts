import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { asJSON, fileName, matrixMarkdown, md, traceMarkdown } from "./format.ts";
import { buildProxyIndex, loadModel, traceRequest } from "../../engine/index.ts";

const text = readFileSync(
  join(import.meta.dirname, "../../../scenarios/14-resolve-a-named-target-port/manifests.yaml"),
  "utf8",
);

describe("trace as Markdown", () => {
  it("has the verdict, every hop with its object and line, and the endpoints table", () => {
    const model = loadModel([{ name: "m.yaml", text }]);
    const q = { from: "pod:shop/web", to: "service:shop/api:80", protocol: "TCP" };
    const t = traceRequest(model, buildProxyIndex(model), q.from, q.to, "TCP");
    const md = traceMarkdown(q, t);
    expect(md.split("\n")[0]).toBe("# Trace pod:shop/web → service:shop/api:80 (TCP)");
    expect(md).toContain("**ALLOW**: 2 of 2 candidate endpoints accept the connection");
    expect(md.match(/^\d+\. \*\*/gm)).toHaveLength(t.hops.length);
    expect(md).toMatch(/\*\*kube-proxy\*\* \[ok\]: .*_\(Service shop\/api/);
    expect(md).toMatch(/\| 10\.[\d.]+:9090 \| shop\/api-v2 \| node-\d \| 1\/2 \| allow \|/);
  });

  it("says why a question cannot be asked", () => {
    const md = traceMarkdown(
      { from: "pod:x/y", to: "service:a/b:1", protocol: "TCP" },
      { verdict: "drop", reason: "", sourceIPPreserved: true, endpoints: [], hops: [], error: "no pod x/y" },
    );
    expect(md).toContain("cannot be asked: no pod x/y");
  });
});

describe("matrix as Markdown", () => {
  it("numbers the columns and marks cells", () => {
    const md = matrixMarkdown({
      port: 8080,
      protocol: "TCP",
      by: "pod",
      labels: ["a|b", "c"],
      cells: ["ad", "pa"],
    });
    expect(md).toBe(
      "# Reachability TCP/8080 by pod\n\nRows send, columns receive: ✓ allowed, ✗ dropped, ◐ some pods only.\n\n| from \\ to | 1 | 2 |\n|---|:-:|:-:|\n| 1. a\\|b | ✓ | ✗ |\n| 2. c | ◐ | ✓ |\n",
    );
  });
  it("passes on why a matrix is too large", () => {
    expect(
      matrixMarkdown({ port: 80, protocol: "TCP", by: "pod", labels: [], cells: [], tooLarge: "too many" }),
    ).toContain("too many");
  });
});

describe("names and JSON", () => {
  it("file names keep letters, digits, dots and dashes", () => {
    expect(fileName(["trace", "pod:shop/web", "service:shop/api:80"], "md")).toBe(
      "trace_pod-shop-web_service-shop-api-80.md",
    );
    expect(fileName(["", "///"], "json")).toBe("ktl.json");
  });
  it("JSON is indented and ends with a newline", () => {
    expect(asJSON({ a: 1 })).toBe('{\n  "a": 1\n}\n');
  });
});

describe("Markdown exports keep input text inert (issue 16)", () => {
  it("writes HTML in names as entities and escapes Markdown marks", () => {
    expect(md('<img src=x onerror="alert(1)"> *b* [l](u) `c` a_b')).toBe(
      '&lt;img src=x onerror="alert(1)"&gt; \\*b\\* \\[l\\](u) \\`c\\` a\\_b',
    );
    const out = traceMarkdown({ from: "pod:x/<script>", to: "svc", protocol: "TCP" }, {
      error: "no pod <script>alert(1)</script>",
    } as never);
    expect(out).not.toContain("<script>");
    expect(out).toContain("&lt;script&gt;");
  });
});
