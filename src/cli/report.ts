/** Prints input diagnostics on stderr, one line each: file, document, line, message. */
import type { Diagnostic } from "../engine/index.ts";
import type { Output } from "./io.ts";

export { escapeControls } from "./escape.ts";

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
