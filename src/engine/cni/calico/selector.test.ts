/** Vectors from projectcalico/calico libcalico-go/lib/selector/parser/parser_test.go (selectorTests, badSelectors, canonicalisationTests). */
import { describe, expect, it } from "vitest";
import { evaluateSelector, isSelectorError, parseCalicoSelector } from "./selector.ts";

type L = Record<string, string>;
const selectorTests: [string, L[], L[]][] = [
  [`a == "b"`, [{ a: "b" }, { a: "b", c: "d" }], [{}, { a: "c" }, { c: "d" }]],
  [
    `a == "b" && c == "d"`,
    [{ a: "b", c: "d" }],
    [{}, { a: "b", c: "e" }, { a: "c", c: "d" }, { c: "d" }, { a: "b" }],
  ],
  [
    `a == "b" || c == "d"`,
    [{ a: "b", c: "d" }, { a: "b" }, { c: "d" }],
    [{}, { a: "e", c: "e" }, { c: "e" }, { a: "e" }],
  ],
  [`a in {"'", '"', "c"}`, [{ a: "c" }, { a: `"` }, { a: `'` }], [{}, { a: "e" }]],
  [`a not in {"'", '"', "c"}`, [{}, { a: "e" }], [{ a: "c" }, { a: `"` }, { a: `'` }]],
  [`a != "a"`, [{}], [{ a: "a" }]],
  [`a contains "a"`, [{ a: "a" }, { a: "bab" }], [{}, { a: "b" }, { b: "aaa" }]],
  [`a starts with "a"`, [{ a: "abb" }], [{}, { a: "baa" }, { b: "aaa" }]],
  [`a startswith "a"`, [{ a: "abb" }], [{ a: "baa" }]],
  [`a ends with "a"`, [{ a: "bba" }], [{}, { a: "aab" }]],
  [`!a in {"a"}`, [{ a: "b" }, {}], [{ a: "a" }]],
  [`has(a)`, [{ a: "b" }], [{ b: "a" }]],
  [`!has(a)`, [{ b: "b" }], [{ a: "b" }]],
  [`!!has(b)`, [], [{ a: "b" }]],
  [`!! ! has(a)`, [], [{ a: "b" }]],
  [``, [{}, { a: "b" }], []],
  [` `, [{}], []],
  [` all()`, [{}, { a: "b" }], []],
  [`!(!has(a) || has(b))`, [{ a: "a" }], [{ a: "a", b: "b" }]],
  [`a != 'a1' || b != 'b1'`, [], [{ a: "a1", b: "b1" }]],
  [`! a == 'a1' || ! b == 'b1'`, [], [{ a: "a1", b: "b1" }]],
  [`a == 'a1' || b == 'b1' && c == 'c1'`, [{ a: "a1" }], [{ b: "b1" }]],
  [`projectcalico.org/name == 'dev'`, [{ "projectcalico.org/name": "dev" }], [{}]],
];

const badSelectors = [
  "b == b",
  "b contains b",
  "b starts with b",
  "b ends with b",
  "'b1' == b",
  "b",
  "a b",
  "!",
  `foo == "bar" &`,
  `foo == "bar" |`,
  `foo != ||`,
  `foo in {"", ||`,
  `foo in ""`,
  `"FOO`,
  `"FOO'`,
  `'FOO`,
  `(`,
  `(a == "foo"`,
  `)`,
  `()`,
  `%`,
  `a == "b" && %`,
  `a == "b" || %`,
  `a `,
  `has(foo) &&`,
];

describe("Calico selectors (parser_test.go selectorTests)", () => {
  it.each(selectorTests)("%s", (text, matches, nonMatches) => {
    const s = parseCalicoSelector(text);
    if (isSelectorError(s)) throw new Error(s.error);
    for (const l of matches) expect(evaluateSelector(s.root, l), JSON.stringify(l)).toBe(true);
    for (const l of nonMatches) expect(evaluateSelector(s.root, l), JSON.stringify(l)).toBe(false);
    // Round trip through the canonical form (parser_test.go "should match after canonicalising").
    const again = parseCalicoSelector(s.canonical);
    if (isSelectorError(again)) throw new Error(again.error);
    expect(again.canonical).toBe(s.canonical);
  });
  it.each(badSelectors)("rejects %s", (text) => {
    const s = parseCalicoSelector(text);
    expect(isSelectorError(s)).toBe(true);
  });
  it("global() matches only non-namespaced resources", () => {
    const s = parseCalicoSelector("global()");
    if (isSelectorError(s)) throw new Error(s.error);
    expect(evaluateSelector(s.root, {}, false)).toBe(false);
    expect(evaluateSelector(s.root, {}, true)).toBe(true);
  });
  it.each([
    [`a == "b" && %`, 12],
    [`(a == "foo"`, 11],
    [`app = 'x'`, 4],
  ])("locates the error in %s at column %i", (text, column) => {
    const s = parseCalicoSelector(text);
    if (!isSelectorError(s)) throw new Error("expected an error");
    expect(s.column).toBe(column);
  });
});
