/**
 * The Tests tab's failures on the graph: the parts of a failing
 * expectation's path (engine analysis/tests.ts) become the drawn edges'
 * "test failed" note, in both lenses and when pods fold into workloads.
 */
import { describe, expect, it } from "vitest";
import { openAnalysis, type TestResultView } from "../engine/analysis/index.ts";
import { defaultScenario } from "../../scenarios/index.ts";
import { buildGraph } from "./build.ts";
import type { GraphModel } from "./model.ts";
import { toFlowElements } from "./flow.ts";
import { testFailedEdges } from "./testMarks.ts";
import { NOTES, TEST_FAILED_TAG, noteTag } from "./verdicts.ts";
import type { GraphLens, Grouping } from "../store/types.ts";

const session = openAnalysis([{ name: "m.yaml", text: defaultScenario().manifests }]);
const tests = (body: string): TestResultView[] =>
  session.tests({ text: `tests:\n${body}`, file: "t.yaml" }).results;
const failing = tests(
  "  - name: toolbox to backend\n    from: tools/toolbox\n    to: service:shop/backend:80\n    expect: allow\n" +
    "  - name: frontend to backend\n    from: shop/frontend\n    to: service:shop/backend:80\n    expect: allow\n",
);
const graph = (lens: GraphLens, grouping: Grouping = "auto"): GraphModel =>
  buildGraph(session.analysis, {
    filters: { hiddenNamespaces: [], port: "all", onlyDrops: false },
    grouping,
    lens,
    open: {},
    budget: 30,
  });

describe("test failed marks", () => {
  it("the legend's note and the edge's tag are one entry of verdicts.ts", () => {
    expect(NOTES.find((n) => n.id === "test")?.sample).toBe(TEST_FAILED_TAG);
    expect(noteTag("test", { verdict: "drop" })).toBe(TEST_FAILED_TAG);
  });

  it.each([
    ["paths", "pod"],
    ["topology", "pod"],
    ["paths", "workload"],
  ] as const)("%s lens, grouped by %s: the failing expectation's edges, and only they", (lens, grouping) => {
    const g = graph(lens, grouping);
    const marks = testFailedEdges(g, failing);
    expect(marks.size).toBeGreaterThan(0);
    const marked = g.edges.filter((e) => marks.has(e.id));
    // Every marked edge leads from the toolbox (or its workload) to the backend, or from the backend Service to its pods.
    for (const e of marked) {
      expect(`${e.source} ${e.target}`).toMatch(/toolbox.*backend|service:shop\/backend .*backend/);
      expect(marks.get(e.id)).toEqual(["toolbox to backend"]);
    }
    expect(marked.some((e) => e.source.includes("toolbox"))).toBe(true);
  });

  it("passing expectations mark nothing", () => {
    expect(
      testFailedEdges(
        graph("paths"),
        failing.filter((r) => r.pass),
      ).size,
    ).toBe(0);
    expect(testFailedEdges(graph("paths"), undefined).size).toBe(0);
  });

  it("a marked edge is tagged before its label, always labelled, and says so to screen readers; others are untouched", () => {
    const g = graph("paths");
    const testFailed = testFailedEdges(g, failing);
    const plain = toFlowElements(g, undefined);
    const marked = toFlowElements(g, undefined, { testFailed });
    for (const [i, e] of marked.edges.entries()) {
      const before = plain.edges[i]!;
      if (!testFailed.has(e.id)) {
        expect(e.data).toEqual(before.data);
        continue;
      }
      expect(e.data!.edge.label.startsWith(`${TEST_FAILED_TAG} · `)).toBe(true);
      expect(e.data!.edge.label).toBe(`${TEST_FAILED_TAG} · ${before.data!.edge.label}`);
      expect(e.data!.showLabel).toBe(true);
      expect(e.data!.testFailed).toEqual(["toolbox to backend"]);
      expect(e.ariaLabel).toContain("test failed: toolbox to backend");
      // The verdict is the engine's, unchanged: the mark is a note, not a new verdict.
      expect(e.data!.edge.verdict).toBe(before.data!.edge.verdict);
    }
  });
});
