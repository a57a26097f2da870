/** ktl: command dispatch. Each command lives in commands/<name>.ts and exports run() and help. */
import { UsageError, type Output } from "./io.ts";
import { escapeControls, oneLine } from "./report.ts";
import { nearestFlag } from "./args.ts";
import { version } from "./version.ts";
import * as reach from "./commands/reach.ts";
import * as trace from "./commands/trace.ts";
import * as connlist from "./commands/connlist.ts";
import * as validate from "./commands/validate.ts";
import * as iptables from "./commands/iptables.ts";
import * as nft from "./commands/nft.ts";
import * as ipvs from "./commands/ipvs.ts";
import * as diff from "./commands/diff.ts";
import * as test from "./commands/test.ts";
import * as observe from "./commands/observe.ts";
import * as evaluate from "./commands/eval.ts";
import { help as completionHelp, runCompletion } from "./completion.ts";
import type { FlagSpec } from "./args.ts";

interface Command {
  run: (argv: string[], io: Output) => number | Promise<number>;
  help: string;
  /** Its options: the parser's, the help's and the shell completion's one table. */
  flags: FlagSpec;
}

export const commands: Record<string, Command> = {
  reach,
  connlist,
  validate,
  trace,
  iptables,
  nft,
  ipvs,
  diff,
  test,
  observe,
  eval: evaluate,
  // Shell completion, written from the table above (completion.ts).
  completion: {
    help: completionHelp,
    flags: {},
    run: (argv, io) => runCompletion(argv, io, commands, ALIASES),
  },
};

/** Other tools' names for a command, where the meaning is the same: netpol-analyzer's `list` is connlist. */
export const ALIASES: Record<string, string> = { list: "connlist", evaluate: "eval" };

const commandOf = (name: string): Command | undefined => {
  const key = Object.hasOwn(ALIASES, name) ? ALIASES[name]! : name;
  return Object.hasOwn(commands, key) ? commands[key] : undefined;
};

function usage(): string {
  return `ktl: where does this request go in my Kubernetes cluster, and why is it dropped?

Usage: ktl <command> [options] INPUT...
INPUT is a file, a directory (every *.yaml, *.yml, *.json below it) or - for stdin.

Commands:
${Object.entries(commands)
  .map(([, c]) => `  ${c.help.split("\n")[0]!.replace(/^ktl /, "")}`)
  .join("\n")}

netpol-analyzer's names work too: ktl list is ktl connlist, ktl evaluate ktl eval, --dirpath DIR (and kubectl's -f FILE) an INPUT.
ktl help <command> (or ktl <command> --help) explains one command. Every command that prints a
machine format takes -o FORMAT (the same as --format FORMAT; --json is -o json). Exit codes: 0 success, 1 problems found or a document could not be read,
2 bad usage, unreadable input or no Kubernetes object in it.`;
}

/**
 * A reader that stops early (`ktl reach x.yaml | head`) closes the pipe: ktl
 * stops quietly with 0, as Unix tools do, instead of dying on an unhandled
 * EPIPE with a stack trace. Any other write error is one line and exit 2.
 */
let stdoutGuarded = false;
function guardStdout(): void {
  if (stdoutGuarded) return;
  stdoutGuarded = true;
  process.stdout.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code === "EPIPE") process.exit(0);
    process.stderr.write(`ktl: cannot write the output: ${e.code ?? e.message}\n`);
    process.exit(2);
  });
}

export async function main(argvIn: string[]): Promise<number> {
  guardStdout();
  // Every line is written with its control characters escaped (names come from the input).
  const io: Output = {
    out: (s) => process.stdout.write(escapeControls(s) + "\n"),
    err: (s) => process.stderr.write(escapeControls(s) + "\n"),
  };
  // --debug, anywhere before `--`: an internal error prints its stack too.
  const end = argvIn.indexOf("--");
  const debug = argvIn.slice(0, end < 0 ? undefined : end).includes("--debug");
  const argv = debug ? argvIn.filter((a, i) => a !== "--debug" || (end >= 0 && i > end)) : argvIn;
  const [name, ...rest] = argv;
  if (name === "help" && rest.length) {
    // `ktl help CMD`, as git and kubectl read it: that command's help.
    const topic = rest[0]!;
    const c = commandOf(topic);
    if (c && rest.length === 1) {
      io.out(c.help);
      return 0;
    }
    const near = nearestFlag(topic, Object.keys(commands));
    io.err(
      rest.length > 1
        ? `ktl help: takes one command, not ${rest.length} (try ktl help ${topic})`
        : `ktl help: no command "${topic}"${near ? `; did you mean "${near}"?` : ""} (commands: ${Object.keys(commands).join(", ")})`,
    );
    return 2;
  }
  if (!name || name === "--help" || name === "-h" || name === "help") {
    io.out(usage());
    return name ? 0 : 2;
  }
  if (name === "--version" || name === "-V" || name === "version") {
    io.out(`ktl ${version}`);
    return 0;
  }
  const cmd = commandOf(name);
  if (!cmd) {
    const near = nearestFlag(name, Object.keys(commands));
    io.err(`ktl: unknown command "${name}"${near ? `; did you mean "${near}"?` : ""} (try ktl --help)`);
    return 2;
  }
  try {
    return await cmd.run(rest, io);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`ktl ${name}: ${oneLine(e.message)}`);
      return 2;
    }
    // One line; the stack with --debug.
    const msg = e instanceof Error ? e.message.split("\n")[0] : String(e);
    io.err(
      `ktl ${name}: internal error (a ktl bug): ${msg}${debug ? "" : "; run again with --debug for the stack"}`,
    );
    if (debug && e instanceof Error && e.stack) io.err(e.stack);
    return 3;
  }
}
