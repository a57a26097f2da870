/**
 * `ktl completion bash|zsh|fish`: shell completion written from the same
 * option tables the parser and the help use (each command's `flags`), so a
 * new option completes as soon as it parses. Completes the command, its
 * options, the values of --cni, and files for everything else (INPUT).
 */
import type { FlagSpec } from "./args.ts";
import { INPUT_FLAGS, isOn, parseArgs } from "./args.ts";
import { UsageError, type Output } from "./io.ts";
import { CNI_NAMES } from "../engine/cni/profile.ts";

export interface Completable {
  help: string;
  flags: FlagSpec;
}

export const SHELLS = ["bash", "zsh", "fish"] as const;

export const help = `ktl completion bash|zsh|fish

Prints a shell completion script for ktl: commands, each command's options,
the --cni profiles, and files for INPUT.

  bash   source <(ktl completion bash)        (or save it in ~/.local/share/bash-completion/completions/ktl)
  zsh    ktl completion zsh > "\${fpath[1]}/_ktl"   (then compinit)
  fish   ktl completion fish > ~/.config/fish/completions/ktl.fish`;

/** Every option of a command as typed: --name for each flag, -o and the input aliases, --help. */
export function optionsOf(c: Completable): { name: string; value: boolean }[] {
  const out = new Map<string, boolean>();
  for (const b of ["help", ...(c.flags.booleans ?? [])]) out.set(b, false);
  for (const s of [...(c.flags.strings ?? []), ...(c.flags.multiple ?? [])]) out.set(s, true);
  // Every command reads INPUTs through the same aliases (args.ts), and -o where it has a format.
  for (const f of INPUT_FLAGS) if (f !== "f") out.set(f, true);
  return [...out].map(([name, value]) => ({ name, value }));
}

const summary = (c: Completable) => c.help.split("\n")[0]!.replace(/^ktl /, "");
const hasOutput = (c: Completable) =>
  (c.flags.strings ?? []).includes("format") || (c.flags.booleans ?? []).includes("json");

function bash(commands: Record<string, Completable>, aliases: Record<string, string>): string {
  const names = [...Object.keys(commands), ...Object.keys(aliases), "help"].sort();
  const cases = Object.entries(commands).map(([name, c]) => {
    const words = optionsOf(c).map((o) => `--${o.name}`);
    words.push("-f", ...(hasOutput(c) ? ["-o"] : []));
    const pattern = [name, ...Object.keys(aliases).filter((a) => aliases[a] === name)].join("|");
    return `    ${pattern}) opts="${words.join(" ")}" ;;`;
  });
  const valued = [
    ...new Set(
      Object.values(commands).flatMap((c) =>
        optionsOf(c)
          .filter((o) => o.value)
          .map((o) => `--${o.name}`),
      ),
    ),
  ];
  return `# ktl shell completion for bash: source <(ktl completion bash)
_ktl() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" opts=""
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=( $(compgen -W "${names.join(" ")}" -- "$cur") )
    return
  fi
  case "\${COMP_WORDS[1]}" in
${cases.join("\n")}
    help) COMPREPLY=( $(compgen -W "${Object.keys(commands).join(" ")}" -- "$cur") ); return ;;
  esac
  case "$prev" in
    --cni) COMPREPLY=( $(compgen -W "${CNI_NAMES.join(" ")}" -- "$cur") ); return ;;
    --dirpath) COMPREPLY=( $(compgen -d -- "$cur") ); return ;;
    -f|--filename) COMPREPLY=( $(compgen -f -- "$cur") ); return ;;
    ${valued.filter((v) => !["--cni", "--dirpath", "--filename"].includes(v)).join("|")}|-o) return ;;
  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=( $(compgen -W "$opts" -- "$cur") )
  else
    COMPREPLY=( $(compgen -f -- "$cur") )
  fi
}
complete -o default -o filenames -F _ktl ktl kube-traffic-lab
`;
}

const zshQuote = (s: string) =>
  s.replace(/'/g, "'\\''").replace(/:/g, "\\:").replace(/\[/g, "\\[").replace(/]/g, "\\]");

function zsh(commands: Record<string, Completable>, aliases: Record<string, string>): string {
  const described = [
    ...Object.entries(commands).map(([name, c]) => `'${name}:${zshQuote(summary(c))}'`),
    ...Object.entries(aliases).map(([a, to]) => `'${a}:${zshQuote(`the same as ${to}`)}'`),
    `'help:the help of a command'`,
  ];
  const cases = Object.entries(commands).map(([name, c]) => {
    const specs = optionsOf(c).map((o) =>
      o.name === "cni"
        ? `'--cni[the CNI that enforces policy]:profile:(${CNI_NAMES.join(" ")})'`
        : o.name === "dirpath"
          ? `'*--dirpath[an INPUT directory]:directory:_files -/'`
          : o.name === "filename"
            ? `'*--filename[an INPUT file]:file:_files'`
            : o.value
              ? `'*--${o.name}[--${o.name}]:value: '`
              : `'--${o.name}[--${o.name}]'`,
    );
    specs.push(`'*-f[an INPUT file]:file:_files'`);
    if (hasOutput(c)) specs.push(`'-o[output format]:format: '`);
    specs.push(`'*:input:_files'`);
    const pattern = [name, ...Object.keys(aliases).filter((a) => aliases[a] === name)].join("|");
    return `    (${pattern})\n      _arguments -s ${specs.join(" \\\n        ")}\n      ;;`;
  });
  return `#compdef ktl kube-traffic-lab
# ktl shell completion for zsh: ktl completion zsh > "\${fpath[1]}/_ktl"
_ktl() {
  local -a commands
  commands=(
    ${described.join("\n    ")}
  )
  if (( CURRENT == 2 )); then
    _describe -t commands 'ktl command' commands
    return
  fi
  case $words[2] in
${cases.join("\n")}
    (help)
      _describe -t commands 'ktl command' commands
      ;;
  esac
}
_ktl "$@"
`;
}

const fishQuote = (s: string) => `'${s.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;

function fish(commands: Record<string, Completable>, aliases: Record<string, string>): string {
  const names = [...Object.keys(commands), ...Object.keys(aliases), "help"];
  const out = [
    "# ktl shell completion for fish: ktl completion fish > ~/.config/fish/completions/ktl.fish",
    "complete -c ktl -f",
    `complete -c ktl -n 'not __fish_seen_subcommand_from ${names.join(" ")}' -a 'help' -d 'the help of a command'`,
  ];
  for (const [name, c] of Object.entries(commands)) {
    out.push(
      `complete -c ktl -n 'not __fish_seen_subcommand_from ${names.join(" ")}' -a ${name} -d ${fishQuote(summary(c))}`,
    );
    const when = [name, ...Object.keys(aliases).filter((a) => aliases[a] === name)].join(" ");
    for (const o of optionsOf(c)) {
      const values =
        o.name === "cni"
          ? ` -x -a ${fishQuote(CNI_NAMES.join(" "))}`
          : o.name === "dirpath" || o.name === "filename"
            ? " -r -F"
            : o.value
              ? " -x"
              : "";
      out.push(`complete -c ktl -n '__fish_seen_subcommand_from ${when}' -l ${o.name}${values}`);
    }
    out.push(`complete -c ktl -n '__fish_seen_subcommand_from ${when}' -s f -r -F -d 'an INPUT file'`);
    if (hasOutput(c))
      out.push(`complete -c ktl -n '__fish_seen_subcommand_from ${when}' -s o -x -d 'output format'`);
    out.push(`complete -c ktl -n '__fish_seen_subcommand_from ${when}' -F`);
  }
  for (const [a, to] of Object.entries(aliases))
    out.push(
      `complete -c ktl -n 'not __fish_seen_subcommand_from ${names.join(" ")}' -a ${a} -d ${fishQuote(`the same as ${to}`)}`,
    );
  return out.join("\n") + "\n";
}

export function completionScript(
  shell: string,
  commands: Record<string, Completable>,
  aliases: Record<string, string>,
): string {
  if (shell === "bash") return bash(commands, aliases);
  if (shell === "zsh") return zsh(commands, aliases);
  if (shell === "fish") return fish(commands, aliases);
  throw new UsageError(
    `completion for ${shell ? `"${shell}"` : "which shell?"}: one of ${SHELLS.join(", ")}`,
  );
}

export function runCompletion(
  argv: string[],
  io: Output,
  commands: Record<string, Completable>,
  aliases: Record<string, string>,
): number {
  const args = parseArgs(argv, {});
  if (isOn(args, "help")) {
    io.out(help);
    return 0;
  }
  if (args.positional.length !== 1) throw new UsageError(`takes one shell: ${SHELLS.join(", ")}`);
  io.out(completionScript(args.positional[0]!, commands, aliases).trimEnd());
  return 0;
}
