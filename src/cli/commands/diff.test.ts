/** `ktl diff A B` through its run(): people's output, --json, --exit-code and usage errors. */
import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { run } from "./diff.ts";
import { UsageError } from "../io.ts";
import { applyWhatIf } from "../../engine/index.ts";

const dir = join(import.meta.dirname, "../../../scenarios/05-allow-one-caller-after-default-deny");
const before = join(dir, "manifests.yaml");
const tmp = mkdtempSync(join(tmpdir(), "ktl-diff-"));
const afterPath = join(tmp, "after.yaml");
writeFileSync(
  afterPath,
  applyWhatIf(readFileSync(before, "utf8"), { kind: "policyOff", policy: "shop/default-deny-ingress" }).text,
);

function ktl(...argv: string[]): { code: number; out: string; err: string } {
  const out: string[] = [];
  const err: string[] = [];
  const code = run(argv, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

describe("ktl diff", () => {
  it("prints the summary, then the flows gained, for people", () => {
    const r = ktl(before, afterPath);
    expect(r.code).toBe(0);
    expect(r.out.split("\n")[0]).toBe("6 flows gained; 8 workload connections (8 added).");
    expect(r.out).toMatch(/Flows gained \(6\):\n\s+FROM\s+TO\s+PORT\s+BEFORE\s+AFTER/);
    expect(r.out).toMatch(/pod:tools\/toolbox\s+pod:shop\/frontend\s+8080\/TCP\s+drop\s+allow/);
    expect(r.out).not.toMatch(/Flows lost/);
  });

  it("--json prints the engine's InputDiff", () => {
    const d = JSON.parse(ktl("--json", before, afterPath).out);
    expect(d.summary).toBe("6 flows gained; 8 workload connections (8 added)");
    expect(d.counts.podFlowsGained).toBe(6);
    expect(d.flows[0]).toMatchObject({ kind: "pod", change: "gained", before: "drop", after: "allow" });
  });

  it("reversed inputs lose what the other order gains", () => {
    expect(JSON.parse(ktl("--json", afterPath, before).out).summary).toBe(
      "6 flows lost; 8 workload connections (8 removed)",
    );
  });

  it("--exit-code exits 1 on a change and 0 without one; --limit shortens the tables", () => {
    expect(ktl("--exit-code", before, afterPath).code).toBe(1);
    expect(ktl("--exit-code", before, dir).code).toBe(0);
    expect(ktl("--limit", "2", before, afterPath).out).toMatch(/… 4 more/);
  });

  it("--format md is a pull-request comment: a heading with the summary and a table per change", () => {
    const md = ktl("--format", "md", "--limit", "2", before, afterPath).out.split("\n");
    expect(md[0]).toBe("### ktl diff: 6 flows gained; 8 workload connections (8 added)");
    expect(md).toContain("**Flows gained (6)**");
    expect(md).toContain("| from | to | port | before | after | why (after) |");
    expect(md.filter((l) => l.startsWith("| pod:"))).toHaveLength(2);
    expect(md).toContain("… 4 more (run `ktl diff --json` for all)");
    expect(() => ktl("--format", "html", before, afterPath)).toThrow(
      /--format must be one of text, json, md/,
    );
  });

  it("needs exactly two inputs", () => {
    expect(() => ktl(before)).toThrow(UsageError);
    expect(() => ktl("-", "-")).toThrow(/only one/);
    expect(() => ktl("--limit", "0", before, afterPath)).toThrow(/--limit/);
  });
});
