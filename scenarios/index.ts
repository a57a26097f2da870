/**
 * The scenario catalogue: the playground's default and lesson menu, the e2e
 * fixtures and CLI smoke tests all read this list. Each scenario is a folder
 * `NN-verb-phrase/` with `manifests.yaml` and a `README.md`.
 *
 * `expect` pins a few flows as "default + exceptions" so that a change in the
 * engine that alters what the scenario teaches fails a test (src/engine/analysis/scenarios.test.ts).
 */
import shopAcrossZones from "./01-trace-a-shop-across-zones/manifests.yaml";
import frontendToPayments from "./fixtures/why-frontend-cannot-reach-payments/manifests.yaml";
import { LESSON_SCENARIOS } from "./lessons.ts";

export type { ExpectedVerdict, Scenario, ScenarioExpectation } from "./types.ts";
import type { Scenario } from "./types.ts";

export const SCENARIOS: readonly Scenario[] = [
  {
    id: "01-trace-a-shop-across-zones",
    title: "A shop across two zones",
    summary: "Two nodes in two zones: allowed, NetworkPolicy-dropped and traffic-policy-dropped paths.",
    file: "manifests.yaml",
    manifests: shopAcrossZones,
    expect: [
      { from: "pod:shop/frontend-0", to: "service:shop/backend:80", verdict: "allow" },
      { from: "pod:tools/toolbox", to: "service:shop/backend:80", verdict: "drop" },
      { from: "pod:shop/backend-0", to: "service:shop/cache:6379", verdict: "allow" },
      { from: "pod:shop/backend-1", to: "service:shop/cache:6379", verdict: "drop" },
      { from: "external:203.0.113.10@node-a", to: "service:shop/frontend:80", verdict: "allow" },
      { from: "pod:tools/toolbox", to: "pod:shop/frontend-1:8080", verdict: "allow" },
      { from: "pod:tools/toolbox", to: "pod:shop/backend-0:8080", verdict: "drop" },
    ],
  },
  ...LESSON_SCENARIOS,
  {
    id: "fixture-why-frontend-cannot-reach-payments",
    title: "Why can't frontend reach payments?",
    summary:
      "Three teams' namespaces with two mistakes the apiserver accepts: payments allows namespaces labelled team: web while web is labelled team: storefront, and its DNS egress rule selects name: kube-system, a label kube-system does not have.",
    file: "manifests.yaml",
    manifests: frontendToPayments,
    expect: [
      { from: "pod:web/frontend-5z9smncpq2-prk7w", to: "service:payments/payments:8443", verdict: "drop" },
      {
        from: "pod:checkout/checkout-clhttt4lm4-z2gp8",
        to: "service:payments/payments:8443",
        verdict: "allow",
      },
      // The DNS mistake: payments cannot look up checkout's name (trace/dns.ts), though its egress rule 2 allows the call itself.
      { from: "pod:payments/payments-k79vf8n2xv-2nps5", to: "service:checkout/checkout:80", verdict: "drop" },
    ],
  },
];

export const DEFAULT_SCENARIO_ID = "01-trace-a-shop-across-zones";

export function scenarioById(id: string): Scenario | undefined {
  return SCENARIOS.find((s) => s.id === id);
}

export function defaultScenario(): Scenario {
  return scenarioById(DEFAULT_SCENARIO_ID)!;
}
