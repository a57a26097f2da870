/**
 * The block scanner (scanBlockEvents) against js-yaml's `parseEvents`, the parser it stands in for:
 * on every doc it reads, the same events (type, collection offsets, scalar offsets, styles, anchors,
 * tags and decoded text, which is all `construct` reads); on a doc js-yaml refuses, no answer. Inputs:
 * the scenario catalogue, the bench generator's S cluster, the hostile and broken inputs in testdata,
 * and random edits of them (fast-check) that aim at the subset's edges: colons, dashes, quotes,
 * brackets, comments, indentation, anchors, tags, block scalars.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { parseEvents, getScalarValue, EVENT_ID, type Event } from "js-yaml";
import { describe, expect, it } from "vitest";
import { SCENARIOS } from "../../../scenarios/index.ts";
// @ts-expect-error: the bench generator is plain JavaScript
import { generate } from "../../../bench/generate.mjs";
import { scanBlockEvents } from "./blockScan.ts";
import { parseYamlFile } from "./yaml.ts";

/** The docs of a text as yaml.ts cuts it (splitDocuments: at `---` lines, the line kept with its doc). */
function parts(text: string): string[] {
  const out: string[] = [];
  const marker = /^\uFEFF?(---|\.\.\.)(?=[ \t\r\n]|$)/gm;
  let start = 0;
  for (let m = marker.exec(text); m; m = marker.exec(text)) {
    if (m.index === 0) continue;
    out.push(text.slice(start, m.index));
    start = m.index;
  }
  out.push(text.slice(start));
  return out;
}

/** What construct reads of each event. */
function read(text: string, events: readonly Event[]): unknown[] {
  return events.map((e) => {
    switch (e.type) {
      case EVENT_ID.SCALAR:
        return ["scalar", e.valueStart, e.style, e.anchorStart, e.tagStart, getScalarValue(text, e)];
      case EVENT_ID.MAPPING:
      case EVENT_ID.SEQUENCE:
        return [e.type === EVENT_ID.MAPPING ? "map" : "seq", e.start, e.anchorStart, e.tagStart];
      case EVENT_ID.ALIAS:
        return ["alias", e.anchorStart];
      default:
        return [e.type === EVENT_ID.DOCUMENT ? "doc" : "pop"];
    }
  });
}

function jsYaml(text: string): unknown[] | "refused" {
  try {
    return read(text, parseEvents(text, { maxDepth: 100 }));
  } catch {
    return "refused";
  }
}

/** The scanner agrees with js-yaml or declines; true when it read the doc. */
function agrees(text: string): boolean {
  const mine = scanBlockEvents(text);
  if (!mine) return false;
  expect(read(text, mine), JSON.stringify(text.slice(0, 300))).toEqual(jsYaml(text));
  return true;
}

const testdata = (dir: string) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((d): string[] =>
    d.isDirectory()
      ? testdata(join(dir, d.name))
      : /\.ya?ml$/.test(d.name)
        ? [readFileSync(join(dir, d.name), "utf8")]
        : [],
  );

const SCENARIO_DOCS = SCENARIOS.flatMap((s) => parts(s.manifests));
const BENCH_S = parts((generate("S", 20240601) as { text: string }).text);

describe("scanBlockEvents", () => {
  it("reads the scenario catalogue as js-yaml does, most of its docs itself", () => {
    const read = SCENARIO_DOCS.filter(agrees).length;
    expect(read).toBeGreaterThan(SCENARIO_DOCS.length * 0.9);
  });

  it("reads every doc of the bench's S cluster (Deployments, policies, flow lists) as js-yaml does", () => {
    expect(BENCH_S.filter(agrees).length).toBe(BENCH_S.length);
  });

  it("agrees with js-yaml or declines on the hostile and broken inputs in testdata", () => {
    const docs = [...testdata("src/engine/validate/testdata"), ...testdata("src/engine/parse")].flatMap(
      parts,
    );
    expect(docs.length).toBeGreaterThan(20);
    for (const d of docs) agrees(d);
  });

  it.each([
    ["an anchor and an alias", "a: &x 1\nb: *x\n"],
    ["a tag", "a: !!str 1\n"],
    ["a block scalar", "data:\n  x: |\n    line\n"],
    ["a folded scalar", "a: >\n  folded\n"],
    ["an empty value", "a:\nb: 1\n"],
    ["a plain scalar over two lines", "a: one\n  two\n"],
    ["a quoted scalar over two lines", 'a: "one\n  two"\n'],
    ["a flow over two lines", "a: [1,\n  2]\n"],
    ["a tab", "a:\t1\n"],
    ["CRLF", "a: 1\r\nb: 2\r\n"],
    ["an escape in double quotes", 'a: "x\\ty"\n'],
    ["a question-mark key", "? a\n: b\n"],
    ["a root list", "- a\n- b\n"],
    ["a list in a list", "a:\n- - x\n"],
    ["an item below its dash", "a:\n-\n  b: 1\n"],
    ["a key with no space before the value", "a:1\n"],
    ["a colon in a plain value", "a: b: c\n"],
    ["a pair in a flow list", "a: [b: c]\n"],
    ["a trailing comma", "a: {b: c,}\n"],
    ["a byte order mark inside", "a: \uFEFFb\n"],
    ["an indented line after a value", "a: 1\n  b: 2\n"],
  ])("leaves %s to js-yaml", (_, text) => {
    expect(scanBlockEvents(text)).toBeUndefined();
  });

  it.each([
    ["quoted keys and values", "\"a\": 'it''s'\nb: \"x: y # z\"\n"],
    ["nested flows", 'a: {k: v, l: [1, "2", {m: n}]}\nb: []\nc: {}\n'],
    ["a list at its key's indent", "a:\n- x\n- y: 1\n  z: 2\nb: 3\n"],
    ["comments everywhere", "# head\n---   # doc\na: 1 # one\n  # indented\nb:   # block\n  c: d#e\n"],
    ["YAML 1.1 words and numbers", "on: yes\nn: 010\nx: 0x1F\ny: -1.5e3\nz: ~\n"],
    ["a merge key", "base: {a: 1}\nm:\n  <<: {b: 2}\n  c: 3\n"],
  ])("reads %s as js-yaml does", (_, text) => {
    expect(agrees(text)).toBe(true);
  });

  it("the files it reads parse to the same docs and diagnostics through yaml.ts either way", () => {
    // A duplicate key and a YAML 1.1 word: construct's warnings come the same from the scanner's events.
    const text = "a: 1\na: 2\nb: yes\n---\nc: &x 1\nd: *x\n";
    const r = parseYamlFile("m.yaml", text);
    expect(r.documents.map((d) => d.value)).toEqual([
      { a: 2, b: true },
      { c: 1, d: 1 },
    ]);
    expect(r.diagnostics.map((d) => [d.code, d.line])).toEqual([
      ["KTL106", 2],
      ["KTL108", 3],
    ]);
  });

  // Random edits of real docs, biased to what the scanner must get right or decline.
  const PIECES = [
    " ",
    ":",
    ": ",
    "-",
    "- ",
    "#",
    " #",
    '"',
    "'",
    "''",
    "{",
    "}",
    "[",
    "]",
    ",",
    "\n",
    "\n  ",
    "|",
    ">",
    "&a ",
    "*a",
    "!",
    "? ",
    "%",
    "@",
    "\\",
    "~",
    "0x1",
    "yes",
    "<<: ",
    "---",
    "\n- ",
    "  ",
  ];
  const edit = fc.oneof(
    fc.record({ at: fc.nat(), put: fc.constantFrom(...PIECES) }),
    fc.record({ at: fc.nat(), cut: fc.integer({ min: 1, max: 3 }) }),
  );
  const short = [...SCENARIO_DOCS, ...BENCH_S.slice(0, 60)].filter(
    (d) => d.length < 2500 && scanBlockEvents(d),
  );

  it("agrees with js-yaml or declines after random edits of real docs", () => {
    let read = 0;
    fc.assert(
      fc.property(fc.nat(), fc.array(edit, { minLength: 1, maxLength: 3 }), (pick, edits) => {
        let text = short[pick % short.length]!;
        for (const e of edits) {
          const at = e.at % (text.length + 1);
          text =
            "put" in e
              ? text.slice(0, at) + e.put + text.slice(at)
              : text.slice(0, at) + text.slice(at + e.cut);
        }
        if (agrees(text)) read++;
      }),
      { numRuns: 3000, seed: 20241205 },
    );
    // Edits that keep a doc in the subset are read, not all declined.
    expect(read).toBeGreaterThan(500);
  });
});
