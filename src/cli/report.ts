/**
 * What every command says about its input besides its answer: diagnostics on
 * stderr, one line each (file, document, line, message); what the answer
 * leaves out (`skipped`, `replaced`: shared/contract/ktl-cli.md, "Every
 * layer, and no silent answers"); and the exit codes that follow from them.
 */
import {
  inputOmissions,
  skippedHeadline,
  type Diagnostic,
  type InputOmissions,
  type Model,
} from "../engine/index.ts";
import { UsageError, type Output } from "./io.ts";

import { oneLine } from "./escape.ts";

export { escapeControls, oneLine } from "./escape.ts";

/** `file: document N, line L, column C: severity CODE: message (hint)`, one line whatever the names in it hold. */
export function formatDiagnostic(d: Diagnostic): string {
  const where = [
    d.file,
    `document ${d.doc + 1}`,
    ...(d.line ? [`line ${d.line}`] : []),
    ...(d.column ? [`column ${d.column}`] : []),
  ].join(", ");
  return oneLine(`${where}: ${d.severity} ${d.code}: ${d.message}${d.hint ? ` (${d.hint})` : ""}`);
}

export function reportDiagnostics(diags: readonly Diagnostic[], io: Output, quietInfo = false): void {
  for (const d of diags) {
    if (d.severity === "info" && quietInfo) continue;
    io.err(formatDiagnostic(d));
  }
}

/** Files the input held that are not Kubernetes manifests (KTL110 notes), in words, or "". */
function notManifests(model: Pick<Model, "diagnostics">): string {
  const files = new Set(model.diagnostics.filter((d) => d.code === "KTL110").map((d) => d.file));
  if (files.size === 0) return "";
  const names = [...files].slice(0, 3).join(", ");
  return `${files.size} file(s) that are not Kubernetes manifests (${names}${files.size > 3 ? ", ..." : ""})`;
}

/**
 * An input with no Kubernetes object at all has nothing to answer about: a
 * usage error (exit 2) with one line saying why, never an empty answer that
 * reads as "nothing is allowed" or "nothing is wrong".
 */
export function requireObjects(
  model: Pick<Model, "objectsRead" | "diagnostics">,
  subject = "the input holds",
): void {
  if (model.objectsRead > 0) return;
  const { skipped } = inputOmissions({ diagnostics: model.diagnostics, replaced: [] });
  const reasons = [
    ...(skipped.length ? [`${skipped.length} document(s) could not be read (listed above)`] : []),
    ...(notManifests(model) ? [notManifests(model)] : []),
  ];
  throw new UsageError(
    `${subject} no Kubernetes object${reasons.length ? `: ${reasons.join("; ")}` : " (it is empty)"}; nothing to answer about`,
  );
}

/** The contract's `skipped` and `replaced` for a command's JSON. */
export function omissionsOf(model: Pick<Model, "diagnostics" | "replaced">): InputOmissions {
  return inputOmissions(model);
}

/** The first line of a human answer that misses documents; undefined when it misses none. */
export function omissionsHeadline(o: InputOmissions): string | undefined {
  return skippedHeadline(o.skipped);
}

/** A command that answered exits 1 when its answer misses a document (else `code`, its own). */
export function exitFor(o: InputOmissions, code = 0): number {
  return code === 0 && o.skipped.length > 0 ? 1 : code;
}
