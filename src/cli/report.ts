/** Prints input diagnostics on stderr, one line each: file, document, line, message. */
import type { Diagnostic } from "../engine/index.ts";
import type { Output } from "./io.ts";

export function formatDiagnostic(d: Diagnostic): string {
  const where = d.line ? `${d.file}:${d.line}:${d.column || 1}` : d.file;
  return `${where}: ${d.severity} ${d.code}: ${d.message}${d.hint ? ` (${d.hint})` : ""}`;
}

export function reportDiagnostics(diags: readonly Diagnostic[], io: Output, quietInfo = false): void {
  for (const d of diags) {
    if (d.severity === "info" && quietInfo) continue;
    io.err(formatDiagnostic(d));
  }
}
