/** The GitHub workflows: CI runs the README's test command, Pages publishes the relative-path build. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { load } from "js-yaml";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..");
type Workflow = {
  jobs: Record<string, { steps?: { run?: string; uses?: string; with?: Record<string, unknown> }[] }>;
};
const read = (name: string) => load(readFileSync(join(root, ".github/workflows", name), "utf8")) as Workflow;
const runs = (w: Workflow) =>
  Object.values(w.jobs).flatMap((j) => (j.steps ?? []).map((s) => s.run ?? s.uses ?? ""));

describe("workflows", () => {
  it("ci runs npm ci, then the README's test command", () => {
    const readmeTest = /^npm test\b/m.exec(readFileSync(join(root, "README.md"), "utf8"));
    expect(readmeTest).not.toBeNull();
    const steps = runs(read("ci.yml"));
    const ci = steps.findIndex((s) => s.startsWith("npm ci"));
    const test = steps.findIndex((s) => /(^|\s)npm test$/.test(s));
    expect(ci).toBeGreaterThanOrEqual(0);
    expect(test).toBeGreaterThan(ci);
  });

  it("pages builds and uploads dist/, and the build is relative so any sub-path serves it", () => {
    const w = read("pages.yml");
    expect(runs(w)).toContain("npm run build");
    const upload = Object.values(w.jobs)
      .flatMap((j) => j.steps ?? [])
      .find((s) => s.uses?.startsWith("actions/upload-pages-artifact"));
    expect(upload?.with?.path).toBe("dist");
    expect(readFileSync(join(root, "vite.config.ts"), "utf8")).toMatch(/base: "\.\/"/);
  });
});
