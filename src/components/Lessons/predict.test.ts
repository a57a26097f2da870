import { describe, expect, it } from "vitest";
import { backendOptions, checkKey, judge, outcomeOf, verdictsHidden } from "./predict.ts";
import type { Flow } from "../../engine/analysis/index.ts";

const ep = (to: string, traceTo: string): Flow =>
  ({ id: to, kind: "endpoint", from: ["service:shop/web"], to, port: 80, protocol: "TCP", traceTo }) as Flow;

describe("predict, then reveal", () => {
  it("hides verdicts only in an unrevealed lesson", () => {
    expect(verdictsHidden({ scenarioId: "05-allow-one-caller-after-default-deny", answerShown: false })).toBe(
      true,
    );
    expect(verdictsHidden({ scenarioId: "05-allow-one-caller-after-default-deny", answerShown: true })).toBe(
      false,
    );
    expect(verdictsHidden({ scenarioId: "01-trace-a-shop-across-zones", answerShown: false })).toBe(false);
    expect(verdictsHidden({ scenarioId: undefined, answerShown: false })).toBe(false);
  });

  it("offers the pods behind the asked Service port, when there is a choice", () => {
    const flows = [
      ep("pod:shop/web-b", "service:shop/web:80"),
      ep("pod:shop/web-a", "service:shop/web:80"),
      ep("pod:shop/web-a", "service:shop/web:80"),
      ep("pod:shop/other", "service:shop/web:8080"),
    ];
    expect(backendOptions({ flows }, "service:shop/web:80")).toEqual(["pod:shop/web-a", "pod:shop/web-b"]);
    expect(backendOptions({ flows }, "service:shop/web:8080")).toEqual([]);
    expect(backendOptions({ flows }, "pod:shop/web-a:80")).toEqual([]);
    expect(backendOptions(undefined, "service:shop/web:80")).toEqual([]);
  });

  const trace = {
    verdict: "partial" as const,
    endpoints: [
      {
        ip: "10.0.0.1",
        port: 80,
        pod: "shop/web-a",
        probability: 0.5,
        verdict: "allow" as const,
        reason: "",
      },
      { ip: "10.0.0.2", port: 80, pod: "shop/web-b", probability: 0.5, verdict: "drop" as const, reason: "" },
      { ip: "10.0.0.3", port: 80, pod: "shop/web-c", probability: 0, verdict: "allow" as const, reason: "" },
    ],
  };

  it("judges against the engine's trace: the verdict, and the backend among the pods that receive it", () => {
    const o = outcomeOf(trace);
    expect(o).toEqual({ verdict: "partial", receiving: ["pod:shop/web-a"] });
    expect(judge({ verdict: "partial", backend: "pod:shop/web-a" }, o)).toEqual({
      verdict: { said: "partial", is: "partial", right: true },
      backend: { said: "pod:shop/web-a", receiving: ["pod:shop/web-a"], right: true },
    });
    // Dropped by policy, or never chosen (probability 0): not a receiving backend.
    expect(judge({ verdict: "allow", backend: "pod:shop/web-b" }, o).backend?.right).toBe(false);
    expect(judge({ verdict: "allow", backend: "pod:shop/web-c" }, o).backend?.right).toBe(false);
    expect(judge({ verdict: "allow" }, o)).toEqual({
      verdict: { said: "allow", is: "partial", right: false },
    });
    expect(judge(undefined, o).verdict).toEqual({ said: undefined, is: "partial", right: false });
  });

  it("a question's key defaults its protocol to TCP", () => {
    expect(checkKey({ from: "pod:a/b", to: "service:a/c:80" })).toBe(
      checkKey({ from: "pod:a/b", to: "service:a/c:80", protocol: "TCP" }),
    );
    expect(checkKey({ from: "pod:a/b", to: "service:a/c:53", protocol: "UDP" })).not.toBe(
      checkKey({ from: "pod:a/b", to: "service:a/c:53" }),
    );
  });
});
