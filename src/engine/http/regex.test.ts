/**
 * User regexes as RE2 reads them: each row from RE2's syntax doc
 * (github.com/google/re2/wiki/Syntax), matched against the whole value as
 * Envoy's safe_regex does.
 */
import { describe, expect, it } from "vitest";
import { RE2JS } from "re2js";
import {
  compileUserRegex,
  estimateProgramSize,
  isRegexError,
  MAX_PROGRAM_SIZE,
  regexMatches,
} from "./regex.ts";

describe("RE2 syntax (github.com/google/re2/wiki/Syntax)", () => {
  it.each<[string, string, string, boolean]>([
    ["flags: (?i) case-insensitive", "(?i)/api/.*", "/API/x", true],
    ["flags: (?i:re) on a group only", "/(?i:api)/X", "/API/x", false],
    ["flags: (?s) lets . match \\n", "(?s)a.b", "a\nb", true],
    [". does not match \\n by default", "a.b", "a\nb", false],
    ["whole value: a|ab takes ab (FullMatch)", "a|ab", "ab", true],
    ["whole value: a part is not enough", "/api", "/api/x", false],
    ["\\d is ASCII (Perl classes)", "\\d+", "\u0663", false],
    ["\\pN is Unicode", "\\pN+", "\u0663", true],
    ["ASCII classes [[:alpha:]]", "[[:alpha:]]+", "abc", true],
    ["named groups (?P<name>re)", "/(?P<id>[0-9]+)", "/42", true],
    ["\\z end of text", "a\\z", "a", true],
    ["\\Q...\\E literal text", "\\Q/a.b\\E", "/a.b", true],
    ["\\Q...\\E: the dot is literal", "\\Q/a.b\\E", "/axb", false],
    ["nested quantifiers run in linear time: (a+)+b on 40 a's", "/(a+)+b", `/${"a".repeat(40)}`, false],
    ["the same where it matches", "/(a+)+b", `/${"a".repeat(40)}b`, true],
  ])("%s", (_, pattern, value, want) => {
    expect(regexMatches(pattern, value)).toBe(want);
  });

  it.each<[string, string, string]>([
    ["(?=re) NOT SUPPORTED (lookahead)", "/(?=x)x", "invalid or unsupported Perl syntax"],
    ["(?!re) NOT SUPPORTED (negative lookahead)", "/(?!x).*", "invalid or unsupported Perl syntax"],
    ["(?<=re) NOT SUPPORTED (lookbehind)", "(?<=a)b", "error parsing regexp"],
    ["\\1 NOT SUPPORTED (backreference)", "(a)\\1", "invalid escape sequence"],
    ["\\Z NOT SUPPORTED", "a\\Z", "invalid escape sequence"],
    ["x{n} with n over 1000", "a{1001}", "invalid repeat count"],
    ["repetitions that nest past 1000", "(a{100}){100}", "invalid repeat count"],
    ["an unclosed group", "/api(", "missing closing )"],
    ["nesting past 1000 groups", "(".repeat(1001) + ")".repeat(1001), "expression nests too deeply"],
  ])("rejects %s", (_, pattern, why) => {
    const r = compileUserRegex(pattern);
    expect(isRegexError(r) && r.error).toContain(why);
    expect(isRegexError(r) && r.tooLarge).toBeFalsy();
    expect(regexMatches(pattern, "x")).toBe(false);
  });

  it("a pattern longer than the caller's bound is an error naming it", () => {
    const r = compileUserRegex("a".repeat(1025), 1024);
    expect(isRegexError(r) && r.error).toBe("regex is too large: 1025 characters, at most 1024 allowed");
  });

  it("a program larger than ktl evaluates is refused before it is compiled, and marked tooLarge", () => {
    // Six thousand instructions by counted repetition in 36 characters: RE2 accepts it.
    const big = "[^/]{1000}".repeat(6);
    expect(estimateProgramSize(big)).toBeGreaterThan(MAX_PROGRAM_SIZE);
    const r = compileUserRegex(big);
    expect(isRegexError(r) && r.tooLarge).toBe(true);
    expect(isRegexError(r) && r.error).toContain(`more than the ${MAX_PROGRAM_SIZE} ktl evaluates`);
  });

  it.each([
    "/api/v[0-9]+/users/[^/]+",
    "(?i)^/(a|b|c){1,3}$",
    "\\Q(\\E[[:alpha:]]{10,20}",
    "x{2,500}y{0,400}",
    "(?:.{0,499})(?:.{0,499})",
    "(a|b|c|d){100}",
    "[^/]{1000}",
  ])("the estimate for %s stays within a factor of three of RE2's program", (p) => {
    const size = RE2JS.compile(p).programSize();
    const est = estimateProgramSize(p);
    expect(est).toBeGreaterThanOrEqual(size / 3);
    expect(est).toBeLessThanOrEqual(size * 3);
  });
});
