/**
 * CI formats: `ktl validate --format sarif` is checked against the OASIS SARIF
 * 2.1.0 JSON schema (the copy Microsoft's sarif-js-sdk ships), `--format
 * github` follows GitHub's workflow-command escaping, and JUnit/Markdown
 * escape what the input names.
 */
import { createRequire } from "node:module";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Ajv from "ajv-draft-04";
import { describe, expect, it } from "vitest";
import { mdTable, toGithub, toJUnit, type Problem } from "./formats.ts";
import { runKtl } from "./testkit.ts";

const require = createRequire(import.meta.url);
const schema = JSON.parse(
  readFileSync(require.resolve("@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json"), "utf8"),
) as object;
const validateSarif = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false }).compile(schema);

const dir = mkdtempSync(join(tmpdir(), "ktl-formats-"));

const ktl = runKtl;

const BAD = `apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  externalTrafficPolicy: Local
  selector: {app: nope}
  ports:
  - port: 80
---
kind: [broken
`;

describe("ktl validate --format sarif", () => {
  it("is valid SARIF 2.1.0 with one result per error, warning and unreadable document, each on its line", async () => {
    const f = join(dir, "bad.yaml");
    writeFileSync(f, BAD);
    const r = await ktl("validate", "--format", "sarif", f);
    expect(r.code).toBe(1);
    const log = JSON.parse(r.out) as {
      version: string;
      runs: {
        tool: { driver: { name: string } };
        results: {
          ruleId: string;
          level: string;
          locations: { physicalLocation: { region?: { startLine: number } } }[];
        }[];
      }[];
    };
    const ok = validateSarif(log);
    expect(validateSarif.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
    expect(log.version).toBe("2.1.0");
    const results = log.runs[0]!.results.map((x) => [
      x.ruleId,
      x.level,
      x.locations[0]!.physicalLocation.region?.startLine,
    ]);
    expect(results).toContainEqual(["apiserver/invalid-value", "error", 6]);
    expect(results).toContainEqual(["KTL602", "warning", 7]);
    expect(results.some(([id, level]) => String(id).startsWith("KTL1") && level === "error")).toBe(true);
  });

  it("a clean input is a valid log with no results", async () => {
    const f = join(dir, "ok.yaml");
    writeFileSync(f, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n");
    const r = await ktl("validate", "--format=sarif", f);
    expect(r.code).toBe(0);
    const log = JSON.parse(r.out) as { runs: { results: unknown[] }[] };
    expect(validateSarif(log)).toBe(true);
    expect(log.runs[0]!.results).toEqual([]);
  });

  it("an unknown format is a usage error naming the formats", async () => {
    const r = await ktl("validate", "--format", "xml", join(dir, "ok.yaml"));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--format must be one of text, json, sarif, github/);
  });
});

describe("ktl validate --format github", () => {
  it("prints one workflow command per problem with file, line and title", async () => {
    const f = join(dir, "bad.yaml");
    writeFileSync(f, BAD);
    const r = await ktl("validate", "--format", "github", f);
    const lines = r.out.trim().split("\n");
    expect(lines).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^::error file=${f.replace(/[/.]/g, "\\$&")},line=6,title=kube-apiserver%3A Invalid value::Service default/web: spec.externalTrafficPolicy`,
        ),
      ),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(/^::warning file=.*,line=7,title=KTL602%3A lint::.*%0Afix: /),
    );
  });

  it("escapes what would end a property or a command (GitHub's escapeData and escapeProperty)", () => {
    const p: Problem = {
      ruleId: "X",
      level: "error",
      message: "50%\nnext",
      file: "a,b:c.yaml",
      line: 3,
      column: 2,
      title: "t",
    };
    expect(toGithub([p])).toBe("::error file=a%2Cb%3Ac.yaml,line=3,col=2,title=t::50%25%0Anext");
  });
});

describe("escaping in Markdown and JUnit", () => {
  it("a name with a pipe or markup stays in its cell as text", () => {
    expect(mdTable(["A"], [["x|<b>y</b>"]])).toBe("| A |\n| --- |\n| x\\|&lt;b&gt;y&lt;/b&gt; |");
  });

  it("JUnit XML escapes attributes and drops control characters", () => {
    const x = toJUnit("s", [
      { name: 'a "b" <c>', classname: "k", time: 0.0123, failure: "bad\u0007 & worse" },
    ]);
    expect(x).toContain('<testcase name="a &quot;b&quot; &lt;c&gt;" classname="k" time="0.012">');
    expect(x).toContain("bad &amp; worse</failure>");
    expect(x).toContain('<testsuites tests="1" failures="1" errors="0" time="0.012">');
  });
});
