/**
 * No import cycles in src/ and scenarios/, type-only imports included
 * (ARCHITECTURE.md, "Import direction"). A type-only cycle costs nothing at
 * run time, but it means two modules each think they are below the other:
 * the next runtime import between them is a real cycle. When this fails,
 * move the shared type or helper into the lower module (or a small leaf
 * beside both), as model/protocol.ts, cni/policies.ts and cli/escape.ts do.
 *
 * The imports are read with TypeScript's own scanner (ts.preProcessFile:
 * `import`, `import type`, `export ... from`, `import()`), relative
 * specifiers only; packages cannot import us back.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const DIRS = ["src", "scenarios"];

type Graph = Map<string, string[]>;

/** The modules a source text imports, as written (every kind of import TypeScript sees). */
function specifiers(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
}

/** `./x.ts`, `./x` or `./dir` (its index) from `from`, when it is one of `files`. */
function resolveSpecifier(files: ReadonlySet<string>, from: string, spec: string): string | undefined {
  if (!spec.startsWith(".")) return undefined;
  const base = join(dirname(from), spec);
  return [base, `${base}.ts`, `${base}.tsx`, join(base, "index.ts"), join(base, "index.tsx")].find((c) =>
    files.has(c),
  );
}

function graphOf(sources: ReadonlyMap<string, string>): Graph {
  const files = new Set(sources.keys());
  const g: Graph = new Map();
  for (const [file, text] of sources) {
    const to = specifiers(text).map((s) => resolveSpecifier(files, file, s));
    g.set(file, [...new Set(to.filter((t): t is string => t !== undefined))].sort());
  }
  return g;
}

/** Every cycle as its strongly connected component (Tarjan), each written as one closed path through it. */
function cyclesOf(g: Graph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of g.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const scc: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      scc.push(w);
    } while (w !== v);
    const self = g.get(v)?.includes(v);
    if (scc.length > 1 || self) out.push(pathThrough(g, new Set(scc)));
  };
  for (const v of [...g.keys()].sort()) if (!index.has(v)) visit(v);
  return out;
}

/** A closed walk from the component's first file back to it, for the failure message (a -> b -> a). */
function pathThrough(g: Graph, scc: ReadonlySet<string>): string[] {
  const start = [...scc].sort()[0]!;
  const prev = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const v = queue.shift()!;
    for (const w of g.get(v) ?? []) {
      if (!scc.has(w)) continue;
      if (w === start) {
        const path = [start];
        for (let x: string | undefined = v; x !== undefined && x !== start; x = prev.get(x))
          path.splice(1, 0, x);
        return [...path, start];
      }
      if (!prev.has(w)) {
        prev.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start, start];
}

function sourcesUnder(dirs: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.tsx?$/.test(e.name) && !e.name.endsWith(".d.ts")) out.set(p, readFileSync(p, "utf8"));
    }
  };
  for (const d of dirs) walk(join(ROOT, d));
  return out;
}

describe("import cycles", () => {
  it("finds the cycles it is meant to find (a type-only import counts)", () => {
    const src = new Map([
      ["/p/a.ts", 'import type { B } from "./b.ts";\nexport const a = 1;'],
      ["/p/b.ts", 'import { c } from "./c";\nexport type B = number;'],
      ["/p/c.ts", 'export { a } from "./a.ts";\nexport const c = 2;'],
      ["/p/d.ts", 'import { a } from "./a.ts";\nimport React from "react";'],
      ["/p/e/index.ts", 'const f = () => import("../f.ts");'],
      ["/p/f.ts", 'import "./e";'],
      ["/p/g.ts", 'import { x } from "./g.ts";'],
    ]);
    expect(cyclesOf(graphOf(src))).toEqual([
      ["/p/a.ts", "/p/b.ts", "/p/c.ts", "/p/a.ts"],
      ["/p/e/index.ts", "/p/f.ts", "/p/e/index.ts"],
      ["/p/g.ts", "/p/g.ts"],
    ]);
  });

  it("src/ and scenarios/ have none, type-only imports included", () => {
    const sources = sourcesUnder(DIRS);
    expect(sources.size).toBeGreaterThan(200);
    const cycles = cyclesOf(graphOf(sources)).map((c) => c.map((f) => relative(ROOT, f)).join(" -> "));
    expect(cycles).toEqual([]);
  });
});
