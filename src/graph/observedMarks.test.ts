/**
 * The Observed tab's rows on the graph (the fixture with planted
 * disagreements): the edges carrying a disagreeing row are "disagree", the
 * others the rows cross "agree", in both lenses and when pods fold into
 * workloads.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { openAnalysis } from "../engine/analysis/index.ts";
import { buildGraph } from "./build.ts";
import { observedEdges, observedGraph } from "./observedMarks.ts";
import type { GraphLens, Grouping } from "../store/types.ts";

const dir = new URL("../../scenarios/fixtures/observed-vs-predicted/", import.meta.url);
const session = openAnalysis([
  { name: "m.yaml", text: readFileSync(new URL("manifests.yaml", dir), "utf8") },
]);
const rows = session.observe({ text: readFileSync(new URL("flows.csv", dir), "utf8"), file: "flows.csv" })
  .report!.flows;

const graph = (lens: GraphLens, grouping: Grouping = "auto") =>
  buildGraph(session.analysis, {
    filters: { hiddenNamespaces: [], port: "all", onlyDrops: false },
    grouping,
    lens,
    open: {},
    budget: 30,
  });

describe("observed marks", () => {
  it.each([
    ["paths", "pod"],
    ["topology", "pod"],
    ["paths", "workload"],
  ] as const)(
    "%s lens, grouped by %s: toolbox's edge to the backend disagrees, frontend's agrees",
    (lens, grouping) => {
      const g = graph(lens, grouping);
      const marks = observedEdges(g, rows);
      const marked = g.edges.filter((e) => marks.has(e.id));
      expect(
        marked.some((e) => e.source.includes("toolbox") && marks.get(e.id)?.case.startsWith("observed-")),
      ).toBe(true);
      expect(
        marked.some((e) => e.source.includes("frontend") && marks.get(e.id)?.case === "agree-allowed"),
      ).toBe(true);
      for (const e of marked.filter((x) => marks.get(x.id)?.case.startsWith("observed-")))
        expect(`${e.source} ${e.target}`).toMatch(/toolbox|collector|backend|metrics/);
    },
  );

  it("each of the four cases marks an edge, with the counts seen; traffic no flow draws gets an edge of its own", () => {
    const g = graph("paths", "pod");
    const { marks: byId, extra } = observedGraph(g, rows);
    const marks = [...byId.values()];
    expect(extra.map((e) => e.kind)).toContain("observed");
    for (const e of extra) expect(byId.has(e.id)).toBe(true);
    const cases = new Set(marks.map((m) => m.case));
    for (const c of [
      "agree-allowed",
      "agree-dropped",
      "observed-forwarded-but-predicted-dropped",
      "observed-dropped-but-predicted-allowed",
    ] as const)
      expect(cases).toContain(c);
    const drops = marks.find((m) => m.rows.some((r) => r.port === 9000))!;
    expect(drops).toMatchObject({
      case: "observed-dropped-but-predicted-allowed",
      forwarded: 0,
      dropped: 14,
    });
  });

  it("no rows, no marks", () => {
    expect(observedEdges(graph("paths"), []).size).toBe(0);
  });
});
