/**
 * Near misses follow NetworkPolicyPeer matching (namespaceSelector AND
 * podSelector; no namespaceSelector: the policy's namespace), the same
 * peerMatches/portMatches that decide the verdict.
 */
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadModel } from "../index.ts";
import { explainIngress } from "./index.ts";
import { nearMisses } from "./nearmiss.ts";

const fixture = readFileSync(
  join(import.meta.dirname, "../../../scenarios/fixtures/why-frontend-cannot-reach-payments/manifests.yaml"),
  "utf8",
);

function misses(text: string, from: string, to: string, port: number) {
  const m = loadModel([{ name: "t.yaml", text }]);
  const src = m.pods.find((p) => p.key.startsWith(from))!;
  const dst = m.pods.find((p) => p.key.startsWith(to))!;
  const v = explainIngress(m, dst, { ip: src.ips[0]!, pod: src }, port, "TCP");
  expect(v.allowed).toBe(false);
  return nearMisses(m, "ingress", dst, { ip: src.ips[0]!, pod: src }, port, "TCP", v.selecting);
}

const NS = (name: string, labels = "{}") =>
  `apiVersion: v1\nkind: Namespace\nmetadata: {name: ${name}, labels: ${labels}}`;
const POD = (ns: string, name: string, labels: string) =>
  `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}, namespace: ${ns}, labels: ${labels}}\nspec: {containers: [{name: c, image: x}]}`;
const NP = (ingress: string) =>
  `apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: np, namespace: db}\nspec:\n  podSelector: {}\n  policyTypes: [Ingress]\n  ingress: ${ingress}`;

describe("nearMisses", () => {
  it("the fixture: rule 1 of allow-checkout-and-web asks for team=web, namespace web has team=storefront", () => {
    const [first, ...rest] = misses(fixture, "web/frontend", "payments/payments", 8443);
    expect(first).toMatchObject({
      policy: "payments/allow-checkout-and-web",
      rule: 0,
      peer: 1,
      condition: "namespaceSelector",
      text: "rule 1 of payments/allow-checkout-and-web matches if namespace web has label `team=web`; it has `team=storefront`",
      ruleRef: {
        kind: "NetworkPolicy",
        name: "allow-checkout-and-web",
        field: "spec.ingress[0].from[1].namespaceSelector",
      },
      objectRef: { kind: "Namespace", name: "web" },
      edit: { kind: "label", target: { kind: "Namespace", name: "web" }, key: "team", value: "web" },
    });
    const lines = fixture.split("\n");
    expect(lines[first!.ruleRef.line - 1]).toContain("- namespaceSelector:");
    expect(lines[first!.ruleRef.line + 1]).toContain("team: web");
    expect(lines[first!.objectRef!.line - 1]).toContain("labels:");
    // The other peer (team=checkout) misses by one label too, but selects a namespace that exists: it comes later.
    expect(rest.map((m) => m.peer)).toEqual([0]);
  });

  it.each([
    [
      "a podSelector one label off",
      [
        NS("db"),
        POD("db", "pg", "{app: pg}"),
        POD("db", "api", "{app: apo}"),
        NP("[{from: [{podSelector: {matchLabels: {app: api}}}]}]"),
      ],
      "db/api",
      "podSelector",
      "pod db/api has label `app=api`; it has `app=apo`",
    ],
    [
      "a peer without namespaceSelector only selects the policy's namespace",
      [
        NS("db"),
        NS("web"),
        POD("db", "pg", "{app: pg}"),
        POD("web", "api", "{app: api}"),
        NP("[{from: [{podSelector: {matchLabels: {app: api}}}]}]"),
      ],
      "web/api",
      "namespace",
      "web/api were in namespace db",
    ],
    [
      "the right peer on another port",
      [
        NS("db"),
        POD("db", "pg", "{app: pg}"),
        POD("db", "api", "{app: api}"),
        NP("[{from: [{podSelector: {matchLabels: {app: api}}}], ports: [{port: 5433}]}]"),
      ],
      "db/api",
      "port",
      "only on TCP/5433; the connection is TCP/5432",
    ],
  ])("%s", (_, docs, from, condition, text) => {
    const [m] = misses(docs.join("\n---\n"), from, "db/pg", 5432);
    expect(m).toMatchObject({ condition });
    expect(m!.text).toContain(text);
  });

  it("no near miss when the rule fails by two conditions", () => {
    const text = [
      NS("db"),
      NS("web", "{team: x}"),
      POD("db", "pg", "{app: pg}"),
      POD("web", "api", "{app: apo}"),
      NP(
        "[{from: [{namespaceSelector: {matchLabels: {team: web}}, podSelector: {matchLabels: {app: api}}}]}]",
      ),
    ].join("\n---\n");
    expect(misses(text, "web/api", "db/pg", 5432)).toEqual([]);
  });
});
