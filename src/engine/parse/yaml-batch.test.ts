// parseYamlFile cuts a stream at its document markers and parses it in batches.
// These tests pin that the cut is invisible: YAML 1.2 §9.1 (a `---` or `...`
// line ends every construct, c-forbidden) and §7.1 (anchors are scoped to one
// document) make a stream equal to its documents parsed one by one.
import { describe, expect, it } from "vitest";
import { BATCH_CHARS, parseYamlFile, YamlPartCache } from "./yaml.ts";
import { lineOf, lineOfPath, positionOf } from "./positions.ts";

/** A manifest of about `size` characters whose values depend on `i`. */
function doc(i: number, size = 300): string {
  const pad = "x".repeat(Math.max(0, size - 200));
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-${i}\n  labels: {num: "${i}", k: v}\ndata:\n  a: &a ${i}\n  b: *a\n  pad: ${pad}\n  list:\n  - ${i}\n  - {x: ${i % 7}}\n`;
}

describe("parseYamlFile in batches (YAML 1.2 §9.1, §7.1)", () => {
  const count = Math.ceil((3 * BATCH_CHARS) / 300) + 7;
  const docs = Array.from({ length: count }, (_, i) => doc(i));
  const text = docs.map((d) => `---\n${d}`).join("");

  it("gives every doc of a stream longer than several batches the value, index and lines of the doc parsed alone", () => {
    const whole = parseYamlFile("s.yaml", text);
    expect(whole.diagnostics).toEqual([]);
    expect(whole.documents).toHaveLength(count);
    let line = 1;
    for (let i = 0; i < count; i++) {
      const alone = parseYamlFile("one.yaml", `---\n${docs[i]}`).documents[0]!;
      const d = whole.documents[i]!;
      expect(d.index).toBe(i);
      expect(d.value).toEqual(alone.value);
      // Lines are the stream's: the doc alone starts at line 2, in the stream one line after its `---`.
      expect(d.line).toBe(line + 1);
      expect(lineOfPath(d.value, ["data", "list", 1, "x"])).toBe(line + 12);
      line += docs[i]!.split("\n").length;
    }
  }, 60_000);

  it("gives every collection and key of a batch its line, docs the block scanner reads and docs left to js-yaml alike (one record table per batch)", () => {
    // Every third doc has an anchor (js-yaml's path), the others are plain block YAML (the scanner's).
    const plain = (i: number) =>
      `apiVersion: v1\nkind: Service\nmetadata:\n  name: s-${i}\n  labels: {app: a${i}}\nspec:\n  ports:\n  - port: ${i}\n    name: p\n  - {port: 2, name: q}\n`;
    const mixed = Array.from({ length: Math.ceil((2 * BATCH_CHARS) / 150) }, (_, i) =>
      i % 3 === 0 ? doc(i, 220) : plain(i),
    );
    const whole = parseYamlFile("m.yaml", mixed.map((d) => `---\n${d}`).join(""));
    expect(whole.diagnostics).toEqual([]);
    let line = 1;
    const lines = (v: unknown, shift: number, out: number[]) => {
      if (v === null || typeof v !== "object") return;
      out.push(lineOf(v) - shift);
      for (const k of Object.keys(v)) {
        out.push(lineOf(v, Array.isArray(v) ? Number(k) : k) - shift);
        lines((v as Record<string, unknown>)[k], shift, out);
      }
    };
    mixed.forEach((d, i) => {
      const alone = parseYamlFile("one.yaml", `---\n${d}`).documents[0]!;
      const got: number[] = [];
      const want: number[] = [];
      lines(whole.documents[i]!.value, line - 1, got);
      lines(alone.value, 0, want);
      expect(got).toEqual(want);
      expect(want.every((n) => n > 1)).toBe(true);
      line += d.split("\n").length;
    });
  }, 60_000);

  it("keeps a syntax error inside a batch to its own doc, with the stream's doc index and line", () => {
    const broken = [...docs];
    broken[5] = "kind: Broken\nx: [1,\ny: 2\n";
    const r = parseYamlFile("b.yaml", broken.map((d) => `---\n${d}`).join(""));
    expect(r.documents).toHaveLength(count - 1);
    expect(r.documents.map((d) => d.index)).toEqual([...Array(count).keys()].filter((i) => i !== 5));
    expect(r.diagnostics).toHaveLength(1);
    const brokenLine = 1 + broken.slice(0, 5).reduce((n, d) => n + d.split("\n").length, 0);
    expect(r.diagnostics[0]).toMatchObject({ code: "KTL101", doc: 5, line: brokenLine + 3 });
  });

  it("reports duplicate keys once, in the doc that has them, even when a later doc of the batch is broken", () => {
    const r = parseYamlFile("d.yaml", "a: 1\na: 2\n---\nb: [1,\n---\nc: 3\n");
    expect(r.diagnostics.map((d) => `${d.code}@${d.doc}:${d.line}`)).toEqual(["KTL106@0:2", "KTL101@1:5"]);
    expect(r.documents.map((d) => d.value)).toEqual([{ a: 2 }, { c: 3 }]);
  });

  it("bounds alias expansion per doc: a bomb in one doc of a batch spoils only that doc", () => {
    const bomb = [
      "a: &a [x,x,x,x,x,x,x,x,x,x]",
      ...["b", "c", "d", "e", "f"].map(
        (k, i) => `${k}: &${k} [${Array(10).fill(`*${"abcdef"[i]}`).join(",")}]`,
      ),
    ].join("\n");
    const r = parseYamlFile("bomb.yaml", `kind: Before\n---\n${bomb}\n---\nkind: After\n`);
    expect(r.diagnostics.map((d) => `${d.code}@${d.doc}`)).toEqual(["KTL105@1"]);
    expect(r.documents.map((d) => [d.index, (d.value as { kind: string }).kind])).toEqual([
      [0, "Before"],
      [2, "After"],
    ]);
  });

  it("ends a doc at `...` and at a column-0 `---`, even inside a block scalar", () => {
    const r = parseYamlFile("m.yaml", "a: 1\n...\n# between\n---\nb: |\n  text\n---\nc: 3\n...\nd: 4\n");
    expect(r.documents.map((d) => [d.index, d.line, d.value])).toEqual([
      [0, 1, { a: 1 }],
      [1, 5, { b: "text\n" }],
      [2, 8, { c: 3 }],
      [3, 10, { d: 4 }],
    ]);
  });

  it("does not carry anchors across docs (§7.1): an alias to an earlier doc's anchor is unknown (goyaml.v2's error)", () => {
    const r = parseYamlFile(
      "a.yaml",
      `a: &x 1\n${docs
        .slice(0, 3)
        .map((d) => `---\n${d}`)
        .join("")}---\nb: *x\n`,
    );
    expect(r.documents[0]!.value).toEqual({ a: 1 });
    expect(r.documents).toHaveLength(4);
    expect(r.diagnostics.map((d) => `${d.code}@${d.doc}`)).toEqual(["KTL101@4"]);
    expect(r.diagnostics[0]!.message).toContain("unknown anchor 'x' referenced");
  });

  it("parses text with directives as one stream (a directive belongs to the doc after it)", () => {
    const r = parseYamlFile(
      "y.yaml",
      "%YAML 1.2\n---\na: 1\n...\n%TAG !e! tag:example.com,2000:\n---\nb: !e!x 2\n",
    );
    expect(r.diagnostics).toEqual([]);
    expect(r.documents.map((d) => [d.index, d.line, d.value])).toEqual([
      [0, 3, { a: 1 }],
      [1, 7, { b: 2 }],
    ]);
    expect(lineOf(r.documents[1]!.value, "b")).toBe(7);
  });

  it("accepts CRLF line ends and a byte order mark before the first marker", () => {
    const r = parseYamlFile("w.yaml", "\uFEFF---\r\na: 1\r\n---\r\nb: 2\r\n");
    expect(r.documents.map((d) => [d.line, d.value])).toEqual([
      [2, { a: 1 }],
      [4, { b: 2 }],
    ]);
  });
});

describe("YamlPartCache: docs an edit above moved are reused, moved", () => {
  it("a document written twice is placed twice: the second is a copy with positions of its own", () => {
    const one = doc(1, 240);
    const cache = new YamlPartCache();
    parseYamlFile("c.yaml", `---\n${one}`, cache);
    cache.rotate();
    const text = `---\n${one}---\n${one}`;
    const cached = parseYamlFile("c.yaml", text, cache);
    const fresh = parseYamlFile("c.yaml", text);
    expect(cached.documents[1]!.value).not.toBe(cached.documents[0]!.value);
    expect(cached.documents.map((d) => lineOfPath(d.value, ["data", "list", 1, "x"]))).toEqual(
      fresh.documents.map((d) => lineOfPath(d.value, ["data", "list", 1, "x"])),
    );
  });

  const docs = Array.from({ length: 12 }, (_, i) => doc(i, 240));
  const join = (ds: string[]) => ds.map((d) => `---\n${d}`).join("");
  /** Every collection's lines and offsets under `v`, as a fresh parse gives them. */
  const where = (v: unknown, out: unknown[] = []): unknown[] => {
    if (typeof v !== "object" || v === null) return out;
    const p = positionOf(v);
    out.push(p && [p.offset, p.source.lineAt(p.offset), [...(p.keys ?? [])], p.items]);
    for (const x of Object.values(v)) where(x, out);
    return out;
  };
  it.each([
    [
      "a line added to a doc above",
      (ds: string[]) => ds.map((d, i) => (i === 2 ? d.replace("data:", "extra: 1\ndata:") : d)),
    ],
    [
      "a doc's value made longer above",
      (ds: string[]) => ds.map((d, i) => (i === 0 ? d.replace("cm-0", "cm-0-longer") : d)),
    ],
    ["a doc added above", (ds: string[]) => [doc(99, 240), ...ds]],
    ["a doc removed above", (ds: string[]) => ds.slice(1)],
    ["a syntax error above", (ds: string[]) => ds.map((d, i) => (i === 1 ? "kind: Broken\nx: [1,\n" : d))],
  ])("%s: the same values, doc indices, lines, positions and diagnostics as a fresh parse", (_, edit) => {
    const cache = new YamlPartCache();
    const before = parseYamlFile("c.yaml", join(docs), cache);
    cache.rotate();
    const text = join(edit(docs));
    const cached = parseYamlFile("c.yaml", text, cache);
    const fresh = parseYamlFile("c.yaml", text);
    expect(cache.relocated).toBeGreaterThan(0);
    // A moved doc keeps its values: the same objects as the parse before (only their origin moved).
    const last = before.documents.at(-1)!.value;
    expect(cached.documents.at(-1)!.value).toBe(last);
    expect(cached.diagnostics).toEqual(fresh.diagnostics);
    expect(cached.documents.map((d) => [d.index, d.line])).toEqual(
      fresh.documents.map((d) => [d.index, d.line]),
    );
    for (let i = 0; i < fresh.documents.length; i++) {
      expect(cached.documents[i]!.value).toEqual(fresh.documents[i]!.value);
      expect(where(cached.documents[i]!.value)).toEqual(where(fresh.documents[i]!.value));
      expect(lineOfPath(cached.documents[i]!.value, ["data", "list", 1, "x"])).toBe(
        lineOfPath(fresh.documents[i]!.value, ["data", "list", 1, "x"]),
      );
    }
  });
});
