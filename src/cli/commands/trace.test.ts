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

const payments = join(
  import.meta.dirname,
  "../../../scenarios/fixtures/why-frontend-cannot-reach-payments/manifests.yaml",
);

describe("ktl trace: near misses in the text answer", () => {
  it("a drop says what would allow it: the rule, both lines and the edit", () => {
    const r = ktl(
      "--from",
      "pod:web/frontend-5z9smncpq2-prk7w",
      "--to",
      "service:payments/payments:8443",
      payments,
    );
    expect(r.code).toBe(0);
    const lines = r.out.split("\n");
    const at = lines.findIndex((l) => l.startsWith("Would allow if"));
    expect(at).toBeGreaterThan(lines.findIndex((l) => l.startsWith("DROP")));
    expect(lines.slice(at, at + 5)).toEqual([
      "Would allow if (the 2 closest fixes):",
      "  - rule 1 of payments/allow-checkout-and-web matches if namespace web has label `team=web`; it has `team=storefront`",
      `      rule:   NetworkPolicy payments/allow-checkout-and-web spec.ingress[0].from[1].namespaceSelector, ${payments}:211`,
      `      object: Namespace web metadata.labels, ${payments}:15`,
      `      edit:   set label team: web on Namespace web (${payments}:16)`,
    ]);
  });

  it("a kube-proxy drop names the Service field to change", () => {
    // The shop's cache has internalTrafficPolicy Local and no endpoint on backend-1's node.
    const r = ktl("--from", "pod:shop/backend-1", "--to", "service:shop/cache:6379", shop);
    expect(r.out).toContain("Would allow if (the closest fix):");
    expect(r.out).toMatch(
      /^ {6}asks: {3}Service shop\/cache spec\.internalTrafficPolicy, .*manifests\.yaml:\d+$/m,
    );
    expect(r.out).toMatch(
      /^ {6}edit: {3}set spec\.internalTrafficPolicy: Cluster in Service shop\/cache \(/m,
    );
  });

  it("an allowed request has no such block, and the JSON keeps its near misses where they were", () => {
    const ok = ktl("--from", "workload:shop/StatefulSet/frontend", "--to", "service:shop/backend:80", shop);
    expect(ok.out).not.toContain("Would allow if");
    const j = JSON.parse(
      ktl(
        "--json",
        "--from",
        "pod:web/frontend-5z9smncpq2-prk7w",
        "--to",
        "service:payments/payments:8443",
        payments,
      ).out,
    );
    expect(j).not.toHaveProperty("nearMisses");
    const hop = j.hops.find((h: { verdict: string }) => h.verdict === "drop");
    expect(hop.cause.nearMisses[0].edit).toMatchObject({
      kind: "label",
      target: { kind: "Namespace", name: "web" },
      key: "team",
      value: "web",
    });
  });
});
