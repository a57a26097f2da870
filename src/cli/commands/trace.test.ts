/** `ktl trace` with a workload on one side: the aggregate, each pod's verdict, one representative trace. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { run } from "./trace.ts";
import { UsageError } from "../io.ts";
import { yamlOf } from "../../engine/testing/fixtures.ts";
import { canaryBehindPolicy } from "../../engine/l7/test-fixtures.ts";

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

// Issue 20's "done when", on the command line: an external client through a Gateway (externalTrafficPolicy
// Local) with a weighted HTTPRoute to pods behind NetworkPolicy shows every layer, and the probabilities multiply.
describe("ktl trace through a Gateway to pods behind NetworkPolicy", () => {
  const file = join(mkdtempSync(join(tmpdir(), "ktl-trace-gw-")), "canary.yaml");
  writeFileSync(file, yamlOf(canaryBehindPolicy()));
  const args = [
    "--from",
    "external:203.0.113.10@node-1",
    "--to",
    "gateway:shop/web:80",
    "--http",
    "GET /",
    file,
  ];
  const LAYERS = [
    "load balancer",
    "load balancer health check",
    "kube-proxy",
    "router",
    "listener",
    "route",
    "backend",
    "proxy to backend",
    "ingress policy at backend",
  ];

  it("json: every layer is a hop; each endpoint's chance is its backend's weight over the backend's endpoints", () => {
    const r = ktl("--json", ...args);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out) as {
      verdict: string;
      hops: { step: string }[];
      backends: { service: string; weight: number }[];
      endpoints: { ip: string; pod: string; probability: number; verdict: string }[];
    };
    expect(j.verdict).toBe("partial");
    for (const layer of LAYERS) expect(j.hops.map((h) => h.step)).toContain(layer);
    const weight = Object.fromEntries(j.backends.map((b) => [b.service, b.weight]));
    expect(weight).toEqual({ "shop/stable": 0.9, "shop/canary": 0.1 });
    const chance = Object.fromEntries(j.endpoints.map((e) => [e.ip, [e.probability, e.verdict]]));
    expect(chance).toEqual({
      "10.244.1.11": [0.45, "allow"],
      "10.244.2.11": [0.45, "allow"],
      "10.244.1.12": [0.1, "drop"],
    });
    // The product down the path: the route's weight times the Service's even share, summing to 1.
    const of = (svc: string) => j.endpoints.filter((e) => e.pod.startsWith(`shop/${svc}`));
    for (const svc of ["stable", "canary"])
      for (const e of of(svc)) expect(e.probability).toBeCloseTo(weight[`shop/${svc}`]! / of(svc).length, 12);
    expect(j.endpoints.reduce((n, e) => n + e.probability, 0)).toBeCloseTo(1, 12);
  });

  it("text: the hops, the backends' shares and each endpoint's chance", () => {
    const r = ktl(...args);
    expect(r.code).toBe(0);
    for (const layer of LAYERS) expect(r.out).toMatch(new RegExp(`^ ?\\d+\\. \\[[^\\]]+\\] ${layer}: `, "m"));
    expect(r.out).toMatch(
      /^PARTIAL: 2 of 3 candidate endpoints accept the request; 10\.244\.1\.12:3000 does not/m,
    );
    // Shares as fractions (formatProbability): 90% is 9/10, half of it 9/20.
    expect(r.out).toMatch(/^shop\/stable:8080 +- +9\/10 *$/m);
    expect(r.out).toMatch(/^10\.244\.1\.11:3000 +shop\/stable\S* +node-1 +9\/20 /m);
    expect(r.out).toMatch(/^10\.244\.1\.12:3000 +shop\/canary\S* +node-1 +1\/10 .* drop /m);
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
