/**
 * The README's examples work: every `./bin/ktl` line of its "Where you already
 * work" section runs and succeeds (exit 0, or 1 where a command reports what it
 * found), and the names its install example uses are the package's bins;
 * the test files of its `ktl test` section do what it says, on the command
 * line and in the playground's Tests tab.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createEngineHandlers } from "../src/worker/handlers.ts";
import { defaultScenario } from "../scenarios/index.ts";

const root = join(import.meta.dirname, "..");
const readme = readFileSync(join(root, "README.md"), "utf8");
const section = readme.slice(
  readme.indexOf("## Where you already work"),
  readme.indexOf("\n## ", readme.indexOf("## Where you already work") + 5),
);
const commands = [...section.matchAll(/```sh\n([\s\S]*?)```/g)]
  .flatMap((m) => m[1]!.split("\n"))
  .map((l) =>
    l
      .replace(/\s+#.*$/, "")
      .replace(/\s*>\s*\S+$/, "")
      .trim(),
  )
  .filter((l) => l.startsWith("./bin/ktl "));

describe("README examples", () => {
  it("the section has its examples", () => {
    expect(commands.length).toBeGreaterThanOrEqual(5);
  });

  it.each(commands)("%s", (line) => {
    const args = line.split(/\s+/).slice(1);
    let code = 0;
    let out = "";
    try {
      out = execFileSync(join(root, "bin/ktl"), args, { cwd: root, encoding: "utf8" });
    } catch (e) {
      const err = e as { status: number; stdout: string };
      code = err.status;
      out = err.stdout;
    }
    expect([0, 1]).toContain(code);
    expect(out.trim().length).toBeGreaterThan(0);
  });

  it("the install example's commands are the package's bins", () => {
    const bins = Object.keys(
      (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { bin: Record<string, string> }).bin,
    );
    expect(bins).toEqual(expect.arrayContaining(["ktl", "kube-traffic-lab", "kubectl-ktl"]));
    expect(section).toMatch(/\| ktl reach -/);
    expect(section).toMatch(/kubectl ktl trace/);
  });
});

describe("README: the test files of `ktl test` and the Tests tab", () => {
  const part = readme.slice(readme.indexOf("### Policy tests as files"), readme.indexOf("\n## Workshops"));
  const files = [...part.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!);
  const shop = join(root, "scenarios/01-trace-a-shop-across-zones");
  const ktlTest = (text: string): { code: number; out: string } => {
    const dir = mkdtempSync(join(tmpdir(), "ktl-readme-"));
    writeFileSync(join(dir, "tests.yaml"), text);
    try {
      return {
        code: 0,
        out: execFileSync(join(root, "bin/ktl"), ["test", join(dir, "tests.yaml"), shop], {
          encoding: "utf8",
        }),
      };
    } catch (e) {
      const err = e as { status: number; stdout: string };
      return { code: err.status, out: err.stdout };
    }
  };
  const playground = (text: string) => {
    const engine = createEngineHandlers();
    engine.handlers.analyze({ text: defaultScenario().manifests, file: "manifests.yaml", generation: 1 });
    return engine.handlers.tests({ text, file: "tests.yaml" });
  };

  it("has the CLI's example and the Tests tab's", () => {
    expect(files).toHaveLength(2);
  });

  it("the CLI's example passes against the scenario it names, in ktl and in the playground", () => {
    const r = ktlTest(files[0]!);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/\b3 passed, 0 failed/);
    expect(playground(files[0]!)).toMatchObject({ passed: 3, failed: 0 });
  });

  it("the Tests tab's example fails against the default scenario, as the README says, with a mark on the graph", () => {
    expect(ktlTest(files[1]!).code).toBe(1);
    const run = playground(files[1]!);
    expect(run).toMatchObject({ passed: 0, failed: 1 });
    expect(run.results[0]!.marks.length).toBeGreaterThan(0);
  });
});
