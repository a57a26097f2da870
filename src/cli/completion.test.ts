/**
 * Issue 34, item 3: shell completion written from the same option tables the parser reads, so
 * every command and every option completes; bash's script is checked by bash itself (`bash -n`).
 * zsh and fish are not installed on this machine: their scripts are checked for every name.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ALIASES, commands } from "./main.ts";
import { completionScript, optionsOf, SHELLS } from "./completion.ts";
import { CNI_NAMES } from "../engine/cni/profile.ts";

describe.each(SHELLS)("ktl completion %s", (shell) => {
  const script = completionScript(shell, commands, ALIASES);

  it("names every command, every alias, and every option of each command", () => {
    for (const [name, c] of Object.entries(commands)) {
      expect(script, name).toContain(name);
      for (const o of optionsOf(c))
        expect(script, `${name} --${o.name}`).toMatch(new RegExp(`(--|-l )${o.name}\\b`));
    }
    for (const a of Object.keys(ALIASES)) expect(script).toContain(a);
    for (const cni of CNI_NAMES) expect(script).toContain(cni);
  });
});

describe("bash's script", () => {
  it("passes bash -n and completes a command's options in a real bash", () => {
    const dir = mkdtempSync(join(tmpdir(), "ktl-completion-"));
    const file = join(dir, "ktl.bash");
    writeFileSync(file, completionScript("bash", commands, ALIASES));
    execFileSync("bash", ["-n", file]);
    const words = (line: string) =>
      execFileSync(
        "bash",
        [
          "-c",
          `source ${file}; COMP_WORDS=(${line}); COMP_CWORD=$((\${#COMP_WORDS[@]}-1)); _ktl; printf '%s\\n' "\${COMPREPLY[@]}"`,
        ],
        { encoding: "utf8" },
      )
        .trim()
        .split("\n");
    expect(words("ktl re")).toEqual(["reach"]);
    expect(words("ktl reach --su")).toEqual(["--summary"]);
    expect(words("ktl trace --cni cil")).toEqual(["cilium", "cilium-kpr"]);
    expect(words("ktl list --dir")).toEqual(["--dirpath"]);
  });
});
