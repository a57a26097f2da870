/**
 * The README's examples work: every `./bin/ktl` line of its "Where you already
 * work" section runs and succeeds (exit 0, or 1 where a command reports what it
 * found), and the names its install example uses are the package's bins.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

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
