/** A lesson's suggested edit applied through the engine (tests and the CLI; the playground runs what-ifs in its worker). */
import { applyWhatIf } from "../src/engine/whatif/index.ts";
import { replaceInText, type Lesson } from "./lessons.ts";

/** The suggested edit applied to `text` (the lesson's manifests by default). */
export function applyLessonEdit(lesson: Lesson, text: string = lesson.manifests): { text: string; error?: string } {
  const c = lesson.edit.change;
  if ("replace" in c) return replaceInText(c.replace, text);
  const r = applyWhatIf(text, c.whatIf);
  return r.error ? { text, error: r.error } : { text: r.text };
}
