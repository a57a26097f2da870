/**
 * The README and docs/ point only at files in this repository (issue 34: the README pointed at
 * ../shared), and docs/cli.md is the command line's own help, command by command.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { commands } from "../src/cli/main.ts";

const root = join(import.meta.dirname, "..");
const pages = [
  "README.md",
  ...readdirSync(join(root, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

describe("docs", () => {
  it.each(pages)("every relative link of %s resolves to a file in the repository", (page) => {
    const text = readFileSync(join(root, page), "utf8");
    const links = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
    for (const link of links) {
      if (/^(https?:|mailto:|#)/.test(link)) continue;
      const path = join(root, dirname(page), link.replace(/#.*$/, ""));
      expect(existsSync(path), `${page}: ${link}`).toBe(true);
      expect(path.startsWith(root), `${page}: ${link} leaves the repository`).toBe(true);
    }
  });

  it.each(Object.keys(commands))("docs/cli.md holds ktl help %s as the command prints it", (name) => {
    const cli = readFileSync(join(root, "docs/cli.md"), "utf8");
    expect(cli).toContain(`## ktl ${name}\n\n\`\`\`text\n${commands[name]!.help}\n\`\`\``);
  });
});
