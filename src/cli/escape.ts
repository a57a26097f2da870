/** Terminal-safe text: report.ts and io.ts print through it (a leaf, so they do not import each other). */

/**
 * Control characters made visible: ESC, BEL, CR, DEL and the C1 controls in a
 * name could retitle the terminal, write the clipboard (OSC 52) or overwrite
 * a line. Newlines and tabs stay (ktl's own layout); everything else prints
 * as a \uXXXX escape, which is also what JSON would have written.
 */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

export function escapeControls(s: string): string {
  return s.replace(CONTROL, (c) =>
    c === "\r" ? "\\r" : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
