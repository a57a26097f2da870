/** Prints input diagnostics on stderr, one line each: file, document, line, message. */
import type { Diagnostic } from "../engine/index.ts";
import type { Output } from "./io.ts";

/** `file: document N, line L, column C: severity CODE: message (hint)`. */
export function formatDiagnostic(d: Diagnostic): string {
  const where = [
    d.file,
    `document ${d.doc + 1}`,
    ...(d.line ? [`line ${d.line}`] : []),
    ...(d.column ? [`column ${d.column}`] : []),
  ].join(", ");
  return `${where}: ${d.severity} ${d.code}: ${d.message}${d.hint ? ` (${d.hint})` : ""}`;
}

export function reportDiagnostics(diags: readonly Diagnostic[], io: Output, quietInfo = false): void {
  for (const d of diags) {
    if (d.severity === "info" && quietInfo) continue;
    io.err(formatDiagnostic(d));
  }
}

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
