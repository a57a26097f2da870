import { describe, expect, it } from "vitest";
import { analyzeText } from "./index.ts";
import { defaultScenario } from "../../../scenarios/index.ts";
import { FLOW_BUDGET } from "./flows.ts";

// The workload flows must agree with the traced pod-to-Service flows (traceRequest) wherever both exist:
// a small input is analysed with the traced flows, and with the budget forced to zero to get the workload flows.
describe("workloadFlows agrees with the traced flows (pairAllowed vs traceRequest)", () => {
  const text = defaultScenario().manifests;
  const traced = analyzeText(text);
  it("the small input is traced, so it has no workload flows", () => {
    expect(traced.reach).toBeUndefined();
    expect(FLOW_BUDGET).toBeGreaterThan(0);
  });
  const big = analyzeText(text, "manifests.yaml", { flowBudget: 0 });
  it("every workload flow's verdict matches the traced NetworkPolicy verdict of its pods", () => {
    const byPair = new Map<string, string[]>();
    for (const f of traced.flows.filter((x) => x.kind === "service"))
      for (const from of f.from)
        byPair.set(`${from}>${f.to}:${f.port}`, [
          ...(byPair.get(`${from}>${f.to}:${f.port}`) ?? []),
          f.dropCause === "traffic-policy" ? "allow" : f.verdict,
        ]);
    let compared = 0;
    for (const f of big.reach!.flows)
      for (const from of f.from) {
        const t = byPair.get(`${from}>${f.to}:${f.port}`);
        if (!t) continue;
        compared++;
        // A traced drop at some endpoints is partial for the workload; a traced allow is allow or partial (some endpoints refuse).
        expect(
          t.some((v) => v === f.verdict || v === "partial" || f.verdict === "partial"),
          `${from} -> ${f.to}:${f.port}: ${t} vs ${f.verdict}`,
        ).toBe(true);
      }
    expect(compared).toBeGreaterThan(5);
    // Pairs no endpoint admits are counted, not listed: toolbox -> backend is dropped by policy.
    expect(
      big.reach!.flows.some((f) => f.from.includes("pod:tools/toolbox") && f.to === "service:shop/backend"),
    ).toBe(false);
    expect(big.reach!.dropped).toBeGreaterThan(0);
  });
});
