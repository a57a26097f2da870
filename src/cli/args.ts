/**
 * Strict command lines: every command declares its flags, and anything else is
 * an error that names the nearest known flag, so a typo such as `--jsn` can
 * never swallow the next argument (issue: `--jsn file.yaml` took the file as
 * its value and said "no INPUT given"). Built on node:util parseArgs (strict).
 */
import { parseArgs as nodeParseArgs } from "node:util";
import { UsageError } from "./io.ts";

export interface FlagSpec {
  /** Flags without a value (`--json`); `--name=true|false` is accepted too. */
  booleans?: readonly string[];
  /** Flags with one value (`--port 80`, `--port=80`). */
  strings?: readonly string[];
  /** Flags that may be given several times (`--header 'A: b' --header 'C: d'`). */
  multiple?: readonly string[];
  /** One-letter spellings, as the tool a command follows has them (`eval -s POD`): letter -> flag. */
  short?: Readonly<Record<string, string>>;
}

export interface ParsedArgs {
  flags: Map<string, string | true | string[]>;
  positional: string[];
}

/** Levenshtein distance, for "did you mean". */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length]!;
}

/** The known flag closest to `name`, if it is close enough to be a typo of it. */
export function nearestFlag(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const k of known) {
    const d = k.startsWith(name) || name.startsWith(k) ? Math.min(1, distance(name, k)) : distance(name, k);
    if (d < bestD) [best, bestD] = [k, d];
  }
  return best !== undefined && bestD <= Math.max(2, Math.floor(best.length / 3)) ? best : undefined;
}

function unknownFlag(raw: string, known: readonly string[]): UsageError {
  const name = raw.replace(/^-+/, "").replace(/=.*$/, "");
  // kubectl's -n: a typo suggestion (--cni) would mislead; say what ktl does instead.
  if (
    (name === "n" && !known.includes("n")) ||
    name === "namespace" ||
    name === "all-namespaces" ||
    name === "A"
  )
    return new UsageError(
      `${raw.replace(/=.*$/, "")}: this command has no namespace filter; it reads every namespace in INPUT (give only the files of the namespaces you want)`,
    );
  const near = nearestFlag(name, known);
  const list = known.map((k) => `--${k}`).join(", ");
  return new UsageError(
    `unknown option ${raw.replace(/=.*$/, "")}${near ? `; did you mean --${near}?` : ""} (options: ${list})`,
  );
}

/**
 * One output flag everywhere, as kubectl spells it: `-o FORMAT` is `--format FORMAT`; a command
 * whose only machine format is JSON (a `--json` flag, no `--format`) takes `-o json` and
 * `--format json` as `--json` (and `text` as the default), and one with `--format` only takes
 * `--json` as `--format json`. Rewritten before parsing, so every command gets the same aliases.
 */
function outputAliases(argv: readonly string[], spec: FlagSpec): string[] {
  const hasFormat = (spec.strings ?? []).includes("format");
  const hasJson = (spec.booleans ?? []).includes("json");
  if (!hasFormat && !hasJson) return [...argv];
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--") {
      out.push(...argv.slice(i));
      break;
    }
    let value: string | undefined;
    let flag = a;
    if (a === "-o" || (!hasFormat && a === "--format")) {
      value = argv[++i];
      if (value === undefined) throw new UsageError(`${a} needs a value`);
    } else if (/^-o./.test(a)) [flag, value] = ["-o", a.slice(2).replace(/^=/, "")];
    else if (!hasFormat && a.startsWith("--format=")) [flag, value] = ["--format", a.slice(9)];
    else if (hasFormat && !hasJson && a === "--json") value = "json";
    if (value === undefined) out.push(a);
    else if (hasFormat) out.push(`--format=${value}`);
    else if (value.toLowerCase() === "json") out.push("--json");
    else if (!/^(text|txt)$/i.test(value))
      throw new UsageError(`${flag} must be json or text (the default) here, not "${value}"`);
  }
  return out;
}

/**
 * Inputs as the tools people come from name them: netpol-analyzer's `--dirpath DIR` and kubectl's
 * `-f FILE` / `--filename FILE` (repeatable) are INPUTs, read after the positional ones, so a
 * command whose first positional is something else (`test TESTS`, `observe FLOWS`) keeps it first.
 */
export const INPUT_FLAGS = ["dirpath", "filename", "f"] as const;

function inputAliases(argv: readonly string[]): { rest: string[]; inputs: string[] } {
  const rest: string[] = [];
  const inputs: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--") {
      rest.push(...argv.slice(i));
      break;
    }
    const long = /^--(dirpath|filename)(?:=(.*))?$/.exec(a);
    let value: string | undefined;
    if (long) value = long[2] ?? argv[++i];
    else if (a === "-f") value = argv[++i];
    else if (/^-f=?./.test(a)) value = a.slice(2).replace(/^=/, "");
    else {
      rest.push(a);
      continue;
    }
    if (value === undefined || value === "")
      throw new UsageError(`${a.replace(/=.*$/, "")} needs a file or directory`);
    inputs.push(value);
  }
  return { rest, inputs };
}

export function parseArgs(argvIn: readonly string[], spec: FlagSpec): ParsedArgs {
  const { rest, inputs } = inputAliases(argvIn);
  const argv = outputAliases(rest, spec);
  const booleans = ["help", ...(spec.booleans ?? [])];
  const strings = spec.strings ?? [];
  const multiple = spec.multiple ?? [];
  const known = [...new Set([...booleans, ...strings, ...multiple])];
  // node's parseArgs rejects `--bool=value`; kube-proxy style `--masquerade-all=false` is common, so read it here.
  const explicit = new Map<string, boolean>();
  const args: string[] = [];
  for (const a of argv) {
    const m = /^--([^=]+)=(true|false)$/.exec(a);
    if (m && booleans.includes(m[1]!)) explicit.set(m[1]!, m[2] === "true");
    else args.push(a);
  }
  const options: Record<string, { type: "string" | "boolean"; multiple?: boolean; short?: string }> = {};
  for (const b of booleans) options[b] = { type: "boolean" };
  options.help = { type: "boolean", short: "h" };
  for (const s of strings) options[s] = { type: "string" };
  for (const s of multiple) options[s] = { type: "string", multiple: true };
  for (const [letter, name] of Object.entries(spec.short ?? {}))
    if (options[name]) options[name].short = letter;
  let parsed;
  try {
    parsed = nodeParseArgs({ args, options, strict: true, allowPositionals: true });
  } catch (e) {
    const err = e as Error & { code?: string };
    const flag = /'(-[^' ]+)/.exec(err.message)?.[1] ?? "";
    if (err.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION")
      throw unknownFlag(
        flag,
        known.filter((k) => k !== "help"),
      );
    if (err.code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
      const name = flag.replace(/^-+/, "");
      if (booleans.includes(name)) throw new UsageError(`${flag} takes no value`);
      throw new UsageError(
        `${flag} needs a value${/ambiguous/.test(err.message) ? " (the next argument starts with -; write --name=value)" : ""}`,
      );
    }
    throw new UsageError(err.message);
  }
  const flags = new Map<string, string | true | string[]>();
  for (const [k, v] of Object.entries(parsed.values)) {
    if (v === undefined || v === false) continue;
    flags.set(k, v === true ? true : Array.isArray(v) ? v.map(String) : String(v));
  }
  // An explicit false is kept as "false", so a flag that overrides a configuration file can say no.
  for (const [k, v] of explicit) flags.set(k, v ? true : "false");
  return { flags, positional: [...parsed.positionals, ...inputs] };
}

/** Whether a boolean flag is on (`--json`, `--json=true`; not `--json=false`). */
export function isOn(args: ParsedArgs, name: string): boolean {
  return args.flags.get(name) === true;
}

export function flagString(args: ParsedArgs, name: string): string | undefined {
  const v = args.flags.get(name);
  return typeof v === "string" ? v : undefined;
}

export function flagStrings(args: ParsedArgs, name: string): string[] {
  const v = args.flags.get(name);
  return Array.isArray(v) ? v : typeof v === "string" ? [v] : [];
}
