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

describe("workflow hygiene (issue 34)", () => {
  const text = (name: string) => readFileSync(join(root, ".github/workflows", name), "utf8");
  const raw = (name: string) => load(text(name)) as Record<string, unknown> & Workflow;
  it.each(["ci.yml", "pages.yml"])(
    "%s pins every action to a full commit SHA, with its tag in a comment",
    (name) => {
      const uses = [...text(name).matchAll(/uses:\s*(\S+)(.*)$/gm)];
      expect(uses.length).toBeGreaterThan(0);
      for (const [, ref, rest] of uses) {
        expect(ref, ref).toMatch(/^[\w.-]+\/[\w./-]+@[0-9a-f]{40}$/);
        expect(rest, ref).toMatch(/# v\d+\.\d+\.\d+/);
      }
    },
  );
  it.each(["ci.yml", "pages.yml"])("%s runs a supported Node LTS (22 or later)", (name) => {
    for (const step of Object.values(raw(name).jobs).flatMap((j) => j.steps ?? []))
      if (step.with && "node-version" in step.with)
        expect(Number(step.with["node-version"])).toBeGreaterThanOrEqual(22);
  });
  it("ci reads only, and a newer push cancels the run it makes stale", () => {
    const w = raw("ci.yml");
    expect(w.permissions).toEqual({ contents: "read" });
    expect(w.concurrency).toMatchObject({ "cancel-in-progress": true });
  });
  it("pages never cancels a deployment under way", () => {
    expect(raw("pages.yml").concurrency).toMatchObject({ group: "pages", "cancel-in-progress": false });
  });
});
