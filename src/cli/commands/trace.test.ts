/** `ktl trace` with a workload on one side: the aggregate, each pod's verdict, one representative trace. */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { run } from "./trace.ts";
import { UsageError } from "../io.ts";

const shop = join(import.meta.dirname, "../../../scenarios/01-trace-a-shop-across-zones/manifests.yaml");

function ktl(...argv: string[]): { code: number; out: string } {
  const out: string[] = [];
  const code = run(argv, { out: (s) => out.push(s), err: () => {} });
  return { code, out: out.join("\n") };
}

describe("ktl trace --from workload:", () => {
  it("text: the aggregate line, a row per pod, then the refused pod's trace", () => {
    const r = ktl("--from", "workload:shop/backend", "--to", "service:shop/cache:6379", shop);
    expect(r.code).toBe(0);
    expect(r.out).toContain(
      "PARTIAL: 1 of the 2 pods of StatefulSet shop/backend is allowed, 1 is not: the pods differ",
    );
    expect(r.out).toMatch(/^pod:shop\/backend-0 +service:shop\/cache:6379 +allow /m);
    expect(r.out).toMatch(/^pod:shop\/backend-1 +service:shop\/cache:6379 +drop /m);
    expect(r.out).toContain("Trace pod:shop/backend-1 -> service:shop/cache:6379 (TCP)");
  });

  it("json: the contract's fields are the representative's trace; `workload` answers the question", () => {
    const j = JSON.parse(
      ktl("--json", "--from", "workload:shop/backend", "--to", "service:shop/cache:6379", shop).out,
    );
    expect(j.verdict).toBe("drop");
    expect(j.from.name).toBe("shop/backend-1");
    expect(j.workload).toMatchObject({
      verdict: "partial",
      from: { name: "StatefulSet shop/backend", pods: 2 },
      representative: { from: "pod:shop/backend-1", to: "service:shop/cache:6379" },
    });
    expect(j.workload.pairs.map((p: { verdict: string }) => p.verdict)).toEqual(["allow", "drop"]);
  });

  it("a workload that does not exist is a usage error naming it", () => {
    expect(() => ktl("--from", "workload:shop/nope", "--to", "service:shop/cache:6379", shop)).toThrow(
      UsageError,
    );
    expect(() => ktl("--from", "workload:shop/nope", "--to", "service:shop/cache:6379", shop)).toThrow(
      /no workload shop\/nope/,
    );
  });
});
