/**
 * Peer conformance for `ktl diff`'s workload-level comparison: the good-path
 * table of np-guard/netpol-analyzer's own diff tests
 * (pkg/netpol/diff/diff_test.go, goodPathTests), with its inputs and txt
 * expected outputs copied byte for byte into peer/ (see peer/README.md for
 * the commit, the licence and what was left out).
 *
 * One `it` per upstream case: both input folders are read as `ktl` reads a
 * directory (every *.yaml, *.yml, *.json below it, sub-folders included, in
 * path order), diffWorkloads(ref1, ref2) is formatted by
 * formatWorkloadDiffTxt, and the set of lines (order-insensitive, trailing
 * whitespace trimmed, blank lines dropped) must equal the expected file's.
 * A failure lists the missing and the extra lines. Cases ktl cannot run
 * (multi-network, no txt output upstream, inputs too big to copy) are
 * it.skip with the reason from peer/cases.json.
 *
 * To see the score (passed / failed / skipped per case):
 *
 *     npx vitest run src/engine/diff/peer.test.ts
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { loadModel, type InputFile } from "../index.ts";
import type { Model } from "../model/types.ts";
import { diffWorkloads, formatWorkloadDiffTxt } from "./workloads.ts";

const PEER = join(import.meta.dirname, "peer");
const TESTS = join(PEER, "tests");

interface PeerCase {
  name: string;
  ref1: string;
  ref2: string;
  /** Relative to peer/; null for a skipped case. */
  expected: string | null;
  options: { formats: string[]; multipleNetworks: boolean };
  inputBytes: number;
  skip?: string;
}

const { cases } = JSON.parse(readFileSync(join(PEER, "cases.json"), "utf8")) as { cases: PeerCase[] };

const MANIFEST = /\.(ya?ml|json)$/i;

/** Every manifest below `dir`, sub-folders included, in path order (as src/cli/io.ts walks a directory). */
function manifestPaths(dir: string): string[] {
  const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  return entries.flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return manifestPaths(p);
    return e.isFile() && MANIFEST.test(e.name) ? [p] : [];
  });
}

/** Each folder is read and modelled once, however many cases use it. */
const models = new Map<string, Model>();
function modelOf(dir: string): Model {
  let m = models.get(dir);
  if (!m) {
    const files: InputFile[] = manifestPaths(join(TESTS, dir)).map((p) => ({
      name: relative(TESTS, p),
      text: readFileSync(p, "utf8"),
    }));
    m = loadModel(files);
    models.set(dir, m);
  }
  return m;
}

const lineSet = (text: string) =>
  new Set(
    text
      .split("\n")
      .map((l) => l.trimEnd())
      .filter((l) => l.length > 0),
  );

/** "" when equal, else the missing and extra lines, one per line. */
function lineDiff(want: Set<string>, got: Set<string>): string {
  const missing = [...want].filter((l) => !got.has(l)).sort();
  const extra = [...got].filter((l) => !want.has(l)).sort();
  if (missing.length === 0 && extra.length === 0) return "";
  return [
    `${missing.length} missing, ${extra.length} extra (expected ${want.size} lines, got ${got.size})`,
    ...missing.map((l) => `- ${l}`),
    ...extra.map((l) => `+ ${l}`),
  ].join("\n");
}

describe("ktl diff vs netpol-analyzer's diff tests (peer/cases.json)", () => {
  for (const c of cases) {
    const title = `${c.ref1} -> ${c.ref2}`;
    if (c.skip || !c.expected) {
      it.skip(`${title} (skipped: ${c.skip ?? "no expected output"})`, () => {});
      continue;
    }
    const expectedFile = c.expected;
    it(title, () => {
      const want = lineSet(readFileSync(join(PEER, expectedFile), "utf8"));
      const got = lineSet(formatWorkloadDiffTxt(diffWorkloads(modelOf(c.ref1), modelOf(c.ref2))));
      const d = lineDiff(want, got);
      if (d) expect.fail(`${c.name}.txt ("-" missing from ktl, "+" extra in ktl): ${d}`);
    });
  }
});
