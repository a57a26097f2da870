/**
 * Routers' objects in ktl validate: the HTTPRoute CRD's size limits
 * (gateway-api apis/v1 httproute_types.go MaxItems and its CEL rule on the
 * total of matches, v1.2 on), RE2 regexes a Gateway drops
 * (shared_types.go RouteConditionPartiallyInvalid) and the ones istiod's
 * webhook rejects (pkg/config/validation validateStringMatchRegexp).
 */
import { describe, expect, it } from "vitest";
import { buildModel, parseManifests, validateModel } from "../index.ts";

const route = (rules: unknown[], extra: Record<string, unknown> = {}) =>
  JSON.stringify(
    {
      apiVersion: "gateway.networking.k8s.io/v1",
      kind: "HTTPRoute",
      metadata: { name: "r", namespace: "default" },
      spec: { parentRefs: [{ name: "gw" }], rules, ...extra },
    },
    null,
    2,
  );
const vs = (match: unknown) =>
  JSON.stringify(
    {
      apiVersion: "networking.istio.io/v1",
      kind: "VirtualService",
      metadata: { name: "v", namespace: "default" },
      spec: { hosts: ["web"], http: [{ match: [match], route: [{ destination: { host: "web" } }] }] },
    },
    null,
    2,
  );
const validate = (text: string) => validateModel(buildModel(parseManifests([{ name: "r.yaml", text }])));
const rule = (matches = 1) => ({
  matches: Array.from({ length: matches }, () => ({ path: { type: "PathPrefix", value: "/" } })),
});

describe("HTTPRoute size limits (httproute_types.go)", () => {
  it.each<[string, string, string, string]>([
    ["17 rules (MaxItems=16)", route(Array.from({ length: 17 }, () => rule())), "spec.rules", "Too many"],
    ["65 matches in a rule (MaxItems=64)", route([rule(65)]), "spec.rules[0].matches", "Too many"],
    [
      "129 matches in all (the CEL rule: at most 128)",
      route(Array.from({ length: 3 }, () => rule(43))),
      "spec.rules",
      "Invalid value",
    ],
    [
      "17 headers in a match (MaxItems=16)",
      route([
        { matches: [{ headers: Array.from({ length: 17 }, (_, i) => ({ name: `h${i}`, value: "v" })) }] },
      ]),
      "spec.rules[0].matches[0].headers",
      "Too many",
    ],
    [
      "17 hostnames (MaxItems=16)",
      route([rule()], { hostnames: Array.from({ length: 17 }, (_, i) => `h${i}.example.com`) }),
      "spec.hostnames",
      "Too many",
    ],
  ])("%s", (_, text, field, type) => {
    const r = validate(text);
    expect(r.errors.map((e) => [e.field, e.type])).toEqual([[field, type]]);
    expect(r.errors[0]!.line).toBeGreaterThan(1);
  });
  it("16 rules of 8 matches pass", () => {
    expect(validate(route(Array.from({ length: 16 }, () => rule(8)))).errors).toEqual([]);
  });
});

describe("regexes in validate (KTL454)", () => {
  it("an HTTPRoute regex RE2 rejects: a warning naming the dropped rule", () => {
    const r = validate(
      route([{ matches: [{ path: { type: "RegularExpression", value: "/(?=a)" } }] }, rule()]),
    );
    expect(r.errors).toEqual([]);
    expect(r.warnings.map((w) => [w.code, w.field])).toEqual([
      ["KTL454", "spec.rules[0].matches[0].path.value"],
    ]);
    expect(r.warnings[0]!.detail).toContain("drops rule 1");
  });
  it.each<[string, unknown, string]>([
    ["a lookahead", { uri: { regex: "/(?=a)" } }, "error parsing regexp: invalid or unsupported Perl syntax"],
    ["an empty regex", { uri: { regex: "" } }, "regex string match should not be empty"],
    [
      "1025 characters",
      { headers: { x: { regex: "a".repeat(1025) } } },
      "regex is too large, max length allowed is 1024",
    ],
  ])("a VirtualService regex istiod rejects (%s): an error with its line", (_, match, why) => {
    const r = validate(vs(match));
    expect(r.errors.map((e) => e.code)).toEqual(["KTL454"]);
    expect(r.errors[0]!.detail).toContain(`admission webhook "validation.istio.io" denied the request`);
    expect(r.errors[0]!.detail).toContain(why);
    // The line of the regex itself (JSON laid out one key a line).
    expect(vs(match).split("\n")[r.errors[0]!.line - 1]).toMatch(/"regex"|"x"/);
  });
});
