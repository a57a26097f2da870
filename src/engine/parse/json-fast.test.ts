/**
 * The JSON fast path (parseJsonFast: JSON.parse plus a scan for positions) against the YAML path
 * (parseYamlText, js-yaml's events) on the same JSON text: equal values (mappings with the same
 * prototype, keys in the same order), equal positions (every collection's offset, every key's and
 * item's offset, so every line a diagnostic names), equal docs and diagnostics. Inputs: the
 * scenario catalogue and the bench generator's S cluster, each as `kubectl get -o json` writes a
 * List (four-space indent) and as compact JSON, and random JSON values (fast-check). Where the two
 * readings could differ (YAML 1.1 numbers, a repeated key, deep nesting) the fast path declines.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SCENARIOS } from "../../../scenarios/index.ts";
// @ts-expect-error: the bench generator is plain JavaScript
import { generate } from "../../../bench/generate.mjs";
import { SourceText } from "./source.ts";
import { parseYamlFile, parseYamlText } from "./yaml.ts";
import { positionOf, type YamlFileResult } from "./positions.ts";
import { parseJsonFast } from "./jsonFast.ts";

/** Values, prototypes, key order and position records, compared node by node. */
function sameTree(a: unknown, b: unknown, path = "$"): void {
  if (a === null || typeof a !== "object" || b === null || typeof b !== "object") {
    expect(Object.is(a, b), `${path}: ${String(a)} vs ${String(b)}`).toBe(true);
    return;
  }
  expect(Array.isArray(a), path).toBe(Array.isArray(b));
  expect(Object.getPrototypeOf(a), path).toBe(Object.getPrototypeOf(b));
  expect(Object.keys(a), path).toEqual(Object.keys(b));
  const pa = positionOf(a);
  const pb = positionOf(b);
  expect(pa && { offset: pa.offset, keys: pa.keys, items: pa.items }, path).toEqual(
    pb && { offset: pb.offset, keys: pb.keys, items: pb.items },
  );
  for (const k of Object.keys(a))
    sameTree((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`);
}

function bothPaths(file: string, text: string): { fast: YamlFileResult | undefined; yaml: YamlFileResult } {
  return { fast: parseJsonFast(new SourceText(file, text)), yaml: parseYamlText(new SourceText(file, text)) };
}

function expectSame(file: string, text: string): void {
  const { fast, yaml } = bothPaths(file, text);
  expect(fast, "the fast path takes this text").toBeDefined();
  expect(fast!.diagnostics).toEqual(yaml.diagnostics);
  expect(fast!.documents.map((d) => [d.index, d.line])).toEqual(yaml.documents.map((d) => [d.index, d.line]));
  sameTree(fast!.documents[0]!.value, yaml.documents[0]!.value);
}

/** What `kubectl get -o json` prints for these objects. */
const asList = (values: unknown[], indent: number | undefined) =>
  JSON.stringify(
    { apiVersion: "v1", kind: "List", items: values, metadata: { resourceVersion: "" } },
    null,
    indent,
  );

const valuesOf = (file: string, text: string) =>
  parseYamlFile(file, text)
    .documents.map((d) => d.value)
    .filter((v) => v !== null);

describe("JSON fast path equals the YAML path", () => {
  it.each(SCENARIOS.map((s) => [s.id, s] as const))("scenario %s as a List", (_, s) => {
    const values = valuesOf(s.file, s.manifests);
    expectSame("list.json", asList(values, 4));
    expectSame("compact.json", asList(values, undefined));
    for (const v of values.slice(0, 3)) expectSame("one.json", `\n\n${JSON.stringify(v, null, 2)}\r\n`);
  });

  it("the bench generator's S cluster as a List", () => {
    const { text } = generate("S", 20240601) as { text: string };
    expectSame("S.json", asList(valuesOf("S.yaml", text), 4));
  });

  it("random JSON values (fast-check)", () => {
    let taken = 0;
    const key = fc.oneof(
      fc.string(),
      fc.string({ unit: "grapheme" }),
      fc.constantFrom("__proto__", "constructor"),
    );
    const value = fc.jsonValue({ maxDepth: 4 });
    fc.assert(
      fc.property(
        fc.oneof(fc.dictionary(key, value), fc.array(value)),
        fc.constantFrom(undefined, 1, 2, 4),
        (v, indent) => {
          const text = JSON.stringify(v, null, indent);
          const { fast, yaml } = bothPaths("r.json", text);
          // Declining is allowed (characters js-yaml refuses, deep nesting); answering differently is not.
          if (!fast) return;
          taken++;
          expect(fast.diagnostics).toEqual(yaml.diagnostics);
          expect(fast.documents.map((d) => d.line)).toEqual(yaml.documents.map((d) => d.line));
          sameTree(fast.documents[0]!.value, yaml.documents[0]!.value);
        },
      ),
      { numRuns: 300 },
    );
    expect(taken).toBeGreaterThan(150);
  });

  it("numbers at the edges of JSON's grammar", () => {
    expectSame(
      "n.json",
      '{"a": 1e3, "b": -0, "c": 12345678901234567890, "d": 1.0, "e": -1.5E-7, "f": [0, 0.5]}',
    );
  });

  it.each([
    ["a repeated key (the YAML path warns, KTL106)", '{"a": 1, "a": 2}'],
    ["a tab", '{"a":\t1}'],
    ["a byte order mark", '\uFEFF{"a": 1}'],
    ["nesting deeper than 100", "[".repeat(101) + "]".repeat(101)],
    ["not JSON", "{a: 1}"],
    ["a document that does not start its line (js-yaml: deficient indentation)", '  {\n"a": 1}'],
    ["a scalar document", '"text"'],
    ["two documents", '{"a": 1}\n---\n{"b": 2}'],
  ])("declines %s", (_, text) => {
    expect(parseJsonFast(new SourceText("x.json", text))).toBeUndefined();
  });
});
