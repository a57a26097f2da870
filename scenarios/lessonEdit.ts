/** A lesson's suggested edit applied through the engine (tests and the CLI; the playground runs what-ifs in its worker). */
import { applyWhatIf } from "../src/engine/whatif/index.ts";
import { loadModel } from "../src/engine/index.ts";
import { updateFindings } from "../src/engine/validate/update.ts";
import { replaceInText, type Lesson } from "./lessons.ts";

/**
 * The suggested edit applied to `text` (the lesson's manifests by default).
 * `notes`: what the apiserver does with the edit applied over the running
 * objects (the update path: values it keeps, fields it rejects as immutable).
 */
export function applyLessonEdit(
  lesson: Lesson,
  text: string = lesson.manifests,
): { text: string; error?: string; notes?: string[] } {
  const c = lesson.edit.change;
  if ("replace" in c) {
    const r = replaceInText(c.replace, text);
    if (r.error) return r;
    const u = updateFindings(
      loadModel([{ name: "manifests.yaml", text }]),
      loadModel([{ name: "manifests.yaml", text: r.text }]),
    );
    const notes = [
      ...u.errors.map((e) => `the apiserver rejects this update: ${e.field}: ${e.detail}`),
      ...u.warnings.map((w) => w.detail),
    ];
    return notes.length ? { ...r, notes } : r;
  }
  const r = applyWhatIf(text, c.whatIf);
  return r.error
    ? { text, error: r.error }
    : r.notes.length
      ? { text: r.text, notes: r.notes }
      : { text: r.text };
}
