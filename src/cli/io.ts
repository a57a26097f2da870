/**
 * Reading INPUT arguments: files, directories (recursively, in path order) and
 * `-` for stdin. Inside a directory only regular files (or links to them) are
 * read: a FIFO named x.yaml would block forever and a link to /dev/zero never
 * ends. Every read stops at MAX_INPUT_BYTES, so even a named special file
 * (`<(helm template ...)` is a FIFO, and is fine) fails cleanly. UTF-16 files
 * (with their byte order mark) are decoded; everything else is read as UTF-8.
 */
import { closeSync, fstatSync, openSync, readSync, readdirSync, statSync, type Stats } from "node:fs";
import { join } from "node:path";
import type { InputFile } from "../engine/index.ts";
import { escapeControls, oneLine } from "./escape.ts";

export class UsageError extends Error {}

const MANIFEST = /\.(ya?ml|json)$/i;

/** The largest input ktl reads, per file and in all (the bench's XL cluster is about 40 MB). */
export const MAX_INPUT_BYTES = 256 << 20;

function errnoText(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  if (code === "ENOENT") return "no such file or directory";
  if (code === "ELOOP") return "too many levels of symbolic links";
  if (code === "EISDIR") return "is a directory";
  return code ?? (e as Error).message;
}

function kindOf(st: Stats): string {
  if (st.isFIFO()) return "a FIFO";
  if (st.isCharacterDevice()) return "a character device";
  if (st.isBlockDevice()) return "a block device";
  if (st.isSocket()) return "a socket";
  return "not a regular file";
}

function walk(dir: string, warn: (s: string) => void, out: string[], depth = 0): void {
  if (depth > 64) throw new UsageError(`${dir}: directories nest deeper than 64 levels`);
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    throw new UsageError(`${dir}: cannot read directory: ${errnoText(e)}`);
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    const p = join(dir, e.name);
    // Real directories only: a link to a directory could lead back up the tree.
    if (e.isDirectory()) {
      walk(p, warn, out, depth + 1);
      continue;
    }
    if (!MANIFEST.test(e.name)) continue;
    let st: Stats;
    try {
      st = statSync(p);
    } catch (err) {
      warn(`ktl: skipping ${p}: ${errnoText(err)}`);
      continue;
    }
    if (st.isFile()) out.push(p);
    else if (!st.isDirectory())
      warn(`ktl: skipping ${p}: ${kindOf(st)}; inside a directory ktl reads regular files only`);
  }
}

/** Reads at most MAX_INPUT_BYTES (plus one, to tell) from a descriptor. */
function readCapped(fd: number, name: string, budget: { left: number }, size = 0): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  const limit = Math.min(MAX_INPUT_BYTES, budget.left);
  // A file of known size is read into one buffer (a byte more, to see it end), not copied from chunks.
  let whole = size > 0 && size <= limit ? Buffer.allocUnsafe(size + 1) : undefined;
  let filled = 0;
  for (;;) {
    if (whole && filled === whole.length) {
      // The file grew while being read: go on in chunks.
      chunks.push(whole);
      whole = undefined;
    }
    const buf = whole ?? Buffer.allocUnsafe(1 << 20);
    const at = whole ? filled : 0;
    let n: number;
    try {
      n = readSync(fd, buf, at, buf.length - at, null);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      // A non-blocking stdin with nothing yet: wait a little and read again.
      if (code === "EAGAIN") {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
        continue;
      }
      if (code === "EOF") break;
      throw new UsageError(`${name}: cannot read: ${errnoText(e)}`);
    }
    if (n === 0) break;
    total += n;
    if (total > limit) {
      throw new UsageError(
        `${name}: larger than ${limit >> 20} MiB, the most ktl reads${limit < MAX_INPUT_BYTES ? " in all" : ""}; split the input`,
      );
    }
    if (whole) filled += n;
    else chunks.push(buf.subarray(0, n));
  }
  budget.left -= total;
  if (whole) {
    if (chunks.length === 0) return whole.subarray(0, filled);
    chunks.push(whole.subarray(0, filled));
  }
  return Buffer.concat(chunks, total);
}

/** Text of a file: UTF-16 (by its byte order mark) or UTF-8. */
export function decodeText(buf: Buffer): string {
  if (buf.length >= 2 && buf[0] === 0xff && buf[1] === 0xfe)
    return new TextDecoder("utf-16le").decode(buf.subarray(2));
  if (buf.length >= 2 && buf[0] === 0xfe && buf[1] === 0xff)
    return new TextDecoder("utf-16be").decode(buf.subarray(2));
  return buf.toString("utf8");
}

function readPath(p: string, budget: { left: number }): string {
  let fd: number;
  try {
    fd = openSync(p, "r");
  } catch (e) {
    throw new UsageError(`${p}: cannot read: ${errnoText(e)}`);
  }
  try {
    const st = fstatSync(fd);
    return decodeText(readCapped(fd, p, budget, st.isFile() ? st.size : 0));
  } finally {
    closeSync(fd);
  }
}

export function readInputs(
  args: readonly string[],
  warn: (s: string) => void = (s) => process.stderr.write(`${escapeControls(s)}\n`),
): InputFile[] {
  if (args.length === 0)
    throw new UsageError("no INPUT given: name a file, a directory or - for standard input");
  const files: InputFile[] = [];
  const budget = { left: MAX_INPUT_BYTES };
  for (const a of args) {
    if (a === "-") {
      files.push({ name: "<stdin>", text: decodeText(readCapped(0, "<stdin>", budget)) });
      continue;
    }
    let st: Stats;
    try {
      st = statSync(a);
    } catch (e) {
      throw new UsageError(`${a}: ${errnoText(e)}`);
    }
    const paths: string[] = [];
    if (st.isDirectory()) walk(a, warn, paths);
    else paths.push(a);
    for (const p of paths) files.push({ name: p, text: readPath(p, budget) });
  }
  return files;
}

export interface Output {
  out: (s: string) => void;
  err: (s: string) => void;
}

/** Pads columns for people-readable tables; a cell is one line (a name's newline prints as \\n). */
export function table(cells: string[][]): string {
  const rows = cells.map((r) => r.map(oneLine));
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  return rows
    .map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join("  "))
    .join("\n");
}
