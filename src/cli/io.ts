/** Reading INPUT arguments: files, directories (recursively, in path order) and `-` for stdin. */
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { InputFile } from "../engine/index.ts";

export class UsageError extends Error {}

const MANIFEST = /\.(ya?ml|json)$/i;

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  )) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...walk(p));
    else if (MANIFEST.test(e.name)) out.push(p);
  }
  return out;
}

export function readInputs(args: readonly string[]): InputFile[] {
  if (args.length === 0)
    throw new UsageError("no INPUT given: name a file, a directory or - for standard input");
  const files: InputFile[] = [];
  for (const a of args) {
    if (a === "-") {
      files.push({ name: "<stdin>", text: readFileSync(0, "utf8") });
      continue;
    }
    let st;
    try {
      st = statSync(a);
    } catch {
      throw new UsageError(`${a}: no such file or directory`);
    }
    const paths = st.isDirectory() ? walk(a) : [a];
    for (const p of paths) {
      try {
        files.push({ name: p, text: readFileSync(p, "utf8") });
      } catch (e) {
        throw new UsageError(`${p}: cannot read: ${(e as Error).message}`);
      }
    }
  }
  return files;
}

export interface Output {
  out: (s: string) => void;
  err: (s: string) => void;
}

/** Pads columns for people-readable tables. */
export function table(rows: string[][]): string {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  return rows
    .map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join("  "))
    .join("\n");
}
