import { describe, expect, it } from "vitest";
import { ANALYSIS_STEPS, openAnalysis, type AnalysisProgress } from "./index.ts";
import { defaultScenario } from "../../../scenarios/index.ts";
// @ts-expect-error: the bench generator is plain JavaScript
import { generate } from "../../../bench/generate.mjs";

const stepsOf = (text: string) => {
  const seen: AnalysisProgress[] = [];
  openAnalysis([{ name: "m.yaml", text }], { onProgress: (p) => seen.push(p) });
  return seen;
};

// Issue 33, item 4: a load over a second says what is being done and how far.
describe("an analysis reports its steps as each starts", () => {
  it("past the trace budget: every step in order, with how much each handles, the answer last", () => {
    const seen = stepsOf((generate("S") as { text: string }).text);
    expect(seen.map((p) => p.step)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(seen.every((p) => p.steps === ANALYSIS_STEPS)).toBe(true);
    expect(seen[0]!.what).toMatch(/^Reading the YAML \(\d+ kB\)$/);
    expect(seen[1]!.what).toMatch(/^Building the cluster model from [\d,]+ objects$/);
    expect(seen[2]!.what).toMatch(/^Grouping 189 pods by the 64 NetworkPolicies that select them$/);
    expect(seen[5]!.what).toMatch(/workload to Service/);
    expect(seen.at(-1)!.what).toBe("Sending the answer to the page");
  });

  it("a small input has no workload step: the answer is still the last of the seven", () => {
    expect(stepsOf(defaultScenario().manifests).map((p) => p.step)).toEqual([1, 2, 3, 4, 5, 7]);
  });
});
