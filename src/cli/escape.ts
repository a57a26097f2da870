/** Terminal-safe text: report.ts and io.ts print through it (a leaf, so they do not import each other). */

/**
 * Control characters made visible: ESC, BEL, CR, DEL and the C1 controls in a
 * name could retitle the terminal, write the clipboard (OSC 52) or overwrite
 * a line. Newlines and tabs stay (ktl's own layout); everything else prints
 * as a \uXXXX escape, which is also what JSON would have written.
 */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * One line of plain text, whatever a name holds (issue 31): a newline or tab inside a name prints as \n or
 * \t, so a name can neither break a table nor start a line of its own (a line such as `::error::` or
 * `::stop-commands::` that GitHub Actions would run as a workflow command). Used where a name or a message
 * naming one becomes a line of ktl's text output; the layout's own newlines are added around it.
 */
export function oneLine(s: string): string {
  return escapeControls(s).replace(/[\n\t]/g, (c) => (c === "\n" ? "\\n" : "\\t"));
}

export function escapeControls(s: string): string {
  return s.replace(CONTROL, (c) =>
    c === "\r" ? "\\r" : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
