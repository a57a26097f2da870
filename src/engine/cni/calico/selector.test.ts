/** Vectors from projectcalico/calico libcalico-go/lib/selector/parser/parser_test.go (selectorTests, badSelectors, canonicalisationTests). */
import { describe, expect, it } from "vitest";
import { evaluateSelector, isSelectorError, MAX_SELECTOR_DEPTH, parseCalicoSelector } from "./selector.ts";

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

/**
 * libcalico-go's parser (lib/selector/parser/parser.go) recurses once per
 * parenthesis and Go stacks grow, so Calico accepts any depth; a JavaScript
 * stack does not (issue 31: 3,000 parentheses overflowed it). ktl evaluates
 * MAX_SELECTOR_DEPTH levels and reports a deeper selector as an error value.
 */
describe("Calico selectors nested deep (issue 31)", () => {
  const nest = (n: number, inner = `app == 'a'`) => "(".repeat(n) + inner + ")".repeat(n);
  const chain = (n: number) => {
    let s = `a == 'x'`;
    for (let i = 0; i < n; i++) s = `!(${s} && has(k${i}))`;
    return s;
  };
  it.each([
    ["parentheses", nest(MAX_SELECTOR_DEPTH), true],
    ["negated groups", chain(MAX_SELECTOR_DEPTH), true],
    ["parentheses, one too deep", nest(MAX_SELECTOR_DEPTH + 1), false],
    ["3,000 parentheses", nest(3000), false],
    ["negated groups, 3,000 deep", chain(3000), false],
    ["an unclosed run of 100,000", "(".repeat(100_000), false],
  ] as const)("%s: evaluated up to the bound, an error value past it", (_, text, ok) => {
    const s = parseCalicoSelector(text);
    expect(isSelectorError(s)).toBe(!ok);
    if (isSelectorError(s)) {
      expect(s.tooDeep).toBe(true);
      // At the first parenthesis past the bound.
      let at = -1;
      for (let i = 0; i <= MAX_SELECTOR_DEPTH; i++) at = text.indexOf("(", at + 1);
      expect(s.column).toBe(at);
    } else {
      expect(typeof evaluateSelector(s.root, { app: "a" })).toBe("boolean");
      expect(parseCalicoSelector(s.canonical)).toMatchObject({ canonical: s.canonical });
    }
  });
});
