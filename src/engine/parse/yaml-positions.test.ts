// Positions are stored on each parsed collection under a non-enumerable
// symbol (yaml.ts, Pos). These tests pin that the record answers like the
// former Map/array per collection did, and that the values stay plain data.
import { describe, expect, it } from "vitest";
import { parseYamlFile } from "./yaml.ts";
import { lineOf, lineOfPath, positionOf } from "./positions.ts";

const first = (text: string) => parseYamlFile("p.yaml", text).documents[0]!.value as Record<string, unknown>;

describe("positions of parsed collections", () => {
  it("leaves values plain: keys, JSON, spread, structured clone and deep equality see no position", () => {
    const v = first("a: {b: 1}\nc: [1, 2]\n");
    expect(Object.keys(v)).toEqual(["a", "c"]);
    expect(JSON.stringify(v)).toBe('{"a":{"b":1},"c":[1,2]}');
    expect(Object.getOwnPropertySymbols({ ...v })).toEqual([]);
    expect(structuredClone(v)).toEqual({ a: { b: 1 }, c: [1, 2] });
    expect(v).toEqual({ a: { b: 1 }, c: [1, 2] });
    // Mappings inherit nothing: `constructor`, `toString` or `__proto__` are ordinary keys.
    expect(Object.getPrototypeOf(Object.getPrototypeOf(v))).toBe(null);
    expect("constructor" in v || "toString" in v).toBe(false);
    expect(Array.isArray(v.c)).toBe(true);
  });

  it("gives the line of a mapping, of each key, and of each sequence item", () => {
    const v = first("kind: Pod\nspec:\n  containers:\n  - name: a\n  -\n    name: b\n");
    expect(lineOf(v)).toBe(1);
    expect(lineOf(v, "spec")).toBe(2);
    const containers = (v.spec as { containers: unknown[] }).containers;
    expect([lineOf(containers), lineOf(containers, 0), lineOf(containers, 1)]).toEqual([4, 4, 6]);
    expect(lineOfPath(v, ["spec", "containers", 1, "name"])).toBe(6);
  });

  it("gives each key its line where the mapping's key order is not the written one (array-index keys, `<<` merges, repeats)", () => {
    // Most records hold offsets in key order and no key (positions.ts Pos); these keep their keys.
    const v = first('x: 1\n"10": 2\n2: 3\nb: 4\nx: 5\n');
    expect(Object.keys(v)).toEqual(["2", "10", "x", "b"]);
    expect(["x", "10", "2", "b"].map((k) => lineOf(v, k))).toEqual([5, 2, 3, 4]);
    const m = first("base: &b {p: 1, q: 2}\nuse:\n  r: 0\n  <<: *b\n  s: 3\n").use as Record<string, unknown>;
    expect(Object.keys(m)).toEqual(["r", "p", "q", "s"]);
    expect(["r", "s", "p"].map((k) => lineOf(m, k))).toEqual([3, 5, 0]);
    expect([...positionOf(m)!.keys!.keys()]).toEqual(["r", "s"]);
    // A repeat keeps its first place: the keyless record stays in step with the keys after it.
    const r = first("a: 1\nb: 2\na: 3\nc: 4\n");
    expect(["a", "b", "c"].map((k) => lineOf(r, k))).toEqual([3, 2, 4]);
    expect(positionOf(r)!.keys).toEqual(
      new Map([
        ["a", 10],
        ["b", 5],
        ["c", 15],
      ]),
    );
  });

  it("places each closed sequence once, exactly sized, wherever it went: its parent, its anchor's aliases, a merge list, the doc", () => {
    // construct.ts exactSize swaps a sequence for a copy when it closes: every reference must see the copy.
    const v = first("m: &m {k: 1}\na: &x [1, [2]]\nb: *x\nc: {<<: [*m], j: 2}\nd: [*x, *x]\n");
    expect(v.b).toBe(v.a);
    expect((v.d as unknown[])[0]).toBe(v.a);
    expect(v.c).toEqual({ k: 1, j: 2 });
    expect([lineOf(v.a, 0), lineOf(v.a, 1), lineOf((v.a as unknown[])[1])]).toEqual([2, 2, 2]);
    const doc = parseYamlFile("p.yaml", "- 1\n- [2, 3]\n").documents[0]!.value as unknown[];
    expect(doc).toEqual([1, [2, 3]]);
    expect([lineOf(doc), lineOf(doc, 1)]).toEqual([1, 2]);
  });

  it("gives 0 for keys a collection does not have, of the wrong type, or out of range (callers pick their fallback)", () => {
    const v = first("a:\n  b: 1\nl:\n- x\n");
    const seq = v.l as unknown[];
    expect([lineOf(v, "zz"), lineOf(v, 0), lineOf(v, "__proto__"), lineOf(v, "toString")]).toEqual([
      0, 0, 0, 0,
    ]);
    expect([
      lineOf(seq, 1),
      lineOf(seq, -1),
      lineOf(seq, 0.5),
      lineOf(seq, "0"),
      lineOf(seq, "length"),
    ]).toEqual([0, 0, 0, 0, 0]);
    expect([lineOf(v), lineOf(seq), lineOf(seq, 0)]).toEqual([1, 4, 4]);
    expect(lineOfPath(v, ["l", 3, "x"])).toBe(3);
    expect(lineOfPath(v, ["a", "b", "c"])).toBe(2);
    expect(lineOf({ made: "by hand" }, "made")).toBe(0);
  });

  it("keeps a repeated key at its last line, warning on it (last value wins)", () => {
    const r = parseYamlFile("d.yaml", "a: 1\nb: 2\na: 3\n");
    const v = r.documents[0]!.value as Record<string, unknown>;
    expect(v).toEqual({ a: 3, b: 2 });
    expect(lineOf(v, "a")).toBe(3);
    expect(r.diagnostics.map((d) => `${d.code}@${d.line}`)).toEqual(["KTL106@3"]);
    expect([...positionOf(v)!.keys!.keys()]).toEqual(["a", "b"]);
  });

  it("finds repeated keys in large mappings and after a merge key, as an own-property check would", () => {
    const many = Array.from({ length: 40 }, (_, i) => `k${i}: ${i}`).join("\n");
    const big = parseYamlFile("big.yaml", `${many}\nk7: again\n`);
    expect(big.diagnostics.map((d) => `${d.code}@${d.line}`)).toEqual(["KTL106@41"]);
    expect(lineOf(big.documents[0]!.value, "k7")).toBe(41);
    // A key copied in by `<<` then written explicitly: warned as repeated, its line is the explicit one.
    const merged = parseYamlFile("m.yaml", "base: &b {x: 1, w: 2}\nm:\n  <<: *b\n  x: 3\n");
    const m = (merged.documents[0]!.value as { m: Record<string, unknown> }).m;
    expect(m).toEqual({ x: 3, w: 2 });
    expect(merged.diagnostics.map((d) => `${d.code}@${d.line}`)).toEqual(["KTL106@4"]);
    // A merged-in key has no line of its own in this mapping.
    expect([lineOf(m, "x"), lineOf(m, "w"), lineOf(m, "<<"), lineOf(m)]).toEqual([4, 0, 0, 3]);
  });

  it("answers positionOf with the offsets of keys and items", () => {
    const v = first("a: 1\nl: [x, y]\n");
    const p = positionOf(v)!;
    expect(p.offset).toBe(0);
    expect([...p.keys!]).toEqual([
      ["a", 0],
      ["l", 5],
    ]);
    expect(positionOf(v.l as object)).toMatchObject({ offset: 8, items: [9, 12] });
    expect(positionOf({})).toBeUndefined();
  });

  it("keeps __proto__ as an ordinary key with its line", () => {
    const v = first("x: 0\n__proto__: {polluted: true}\n");
    expect(Object.keys(v)).toEqual(["x", "__proto__"]);
    expect(lineOf(v, "__proto__")).toBe(2);
  });
});
