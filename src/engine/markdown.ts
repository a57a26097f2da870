/**
 * Markdown from plain text, for every Markdown the project writes (`ktl`'s
 * `--format md`, the playground's exports and workshop handout): names,
 * reasons and rules are data, never markup. HTML's characters become
 * entities (a renderer would take `<b>` as HTML), Markdown's own marks are
 * escaped, and a line break would end a table row, so text stays on one line.
 */

/** Inline text: HTML's characters as entities, Markdown's marks escaped, on one line. */
export function mdText(s: string): string {
  return s
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/([\\`*_[\]])/g, "\\$1")
    .replace(/\r?\n/g, " ");
}

/** A table cell: inline text whose pipes would end the cell, escaped too. */
export function mdCell(s: string): string {
  return mdText(s).replace(/\|/g, "\\|");
}

/** A table with a header row. */
export function mdTable(head: readonly string[], rows: readonly (readonly string[])[]): string {
  return [
    `| ${head.map(mdCell).join(" | ")} |`,
    `|${head.map(() => " --- ").join("|")}|`,
    ...rows.map((r) => `| ${r.map(mdCell).join(" | ")} |`),
  ].join("\n");
}

/**
 * A table cell holding code: a code span (no escape is read inside one, so none is written), its
 * fence longer than any run of backticks in it, pipes escaped (GFM's table reads `\|` even there).
 */
export function mdCodeCell(s: string): string {
  const text = s.replace(/\r?\n/g, " ").replace(/\|/g, "\\|");
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((r) => r.length));
  const fence = "`".repeat(longest + 1);
  const pad = text.startsWith("`") || text.endsWith("`") ? " " : "";
  return `${fence}${pad}${text}${pad}${fence}`;
}
