/**
 * The rules page (docs/rules.md) documents every code ktl emits, and SARIF's helpUri leads to it:
 * a code added to the source without its anchor on the page fails here.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DIAGNOSTIC_CODES } from "../engine/parse/diagnostics.ts";
import { problemsOf, ruleHelpUri, RULES_URL, toSarif } from "./formats.ts";

const root = join(import.meta.dirname, "..", "..");
const page = readFileSync(join(root, "docs", "rules.md"), "utf8");
/** GitHub's anchor of a heading `### KTL610` is `ktl610`. */
const anchors = new Set([...page.matchAll(/^### (KTL\d{3})$/gm)].map((m) => m[1]!.toLowerCase()));

/** Every KTL code written in a non-test source file under src/. */
function codesInSource(dir: string, out = new Set<string>()): Set<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) codesInSource(p, out);
    else if (/\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name))
      for (const m of readFileSync(p, "utf8").matchAll(/KTL\d{3}/g)) out.add(m[0]);
  }
  return out;
}

describe("docs/rules.md", () => {
  it("has an anchor for every code the source emits", () => {
    const codes = new Set([...Object.keys(DIAGNOSTIC_CODES), ...codesInSource(join(root, "src"))]);
    expect([...codes].filter((c) => !anchors.has(c.toLowerCase()))).toEqual([]);
  });

  it("documents no code the source does not define", () => {
    const known = new Set(Object.keys(DIAGNOSTIC_CODES).map((c) => c.toLowerCase()));
    expect([...anchors].filter((a) => !known.has(a))).toEqual([]);
  });

  it("gives each code what, why, fix and source", () => {
    const sections = page.split(/^### /m).slice(1);
    for (const s of sections)
      for (const part of ["**What:**", "**Why:**", "**Fix:**", "**Source:**"])
        expect(s, s.slice(0, 6)).toContain(part);
  });
});

describe("SARIF helpUri", () => {
  it("points each rule at its anchor on the rules page, apiserver errors at KTL501", () => {
    const problems = problemsOf(
      [{ code: "KTL101", severity: "error", message: "bad", file: "a.yaml", doc: 0, line: 3, column: 1 }],
      [
        {
          kind: "Service",
          namespace: "default",
          name: "web",
          field: "spec.ports",
          type: "Required value",
          detail: "",
          file: "a.yaml",
          line: 5,
        } as Parameters<typeof problemsOf>[1][number],
      ],
      [],
      (f) => f.field,
    );
    const sarif = toSarif(problems, "0") as {
      runs: { tool: { driver: { rules: { id: string; helpUri: string }[] } } }[];
    };
    const rules = sarif.runs[0]!.tool.driver.rules;
    expect(rules.map((r) => [r.id, r.helpUri])).toEqual([
      ["KTL101", `${RULES_URL}#ktl101`],
      ["apiserver/required-value", `${RULES_URL}#ktl501`],
    ]);
    for (const r of rules) expect(anchors.has(ruleHelpUri(r.id).split("#")[1]!)).toBe(true);
  });
});
