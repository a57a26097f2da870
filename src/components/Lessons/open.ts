/** Opening a lesson: its manifests in the editor (undoable), its answer hidden, the URL naming it. */
import type { AppStore } from "../../store/createAppStore.ts";
import type { Lesson } from "../../../scenarios/lessons.ts";
import { lessonHash, lessonParam } from "./route.ts";

/** Puts `#lesson=<id>` in the address bar (or takes it out), unless a share link is there. */
export function syncLessonHash(id: string | undefined): void {
  if (/(^#|&)share=/.test(location.hash)) return;
  // The address names the lesson by its number: `#lesson=9` and an old `#lesson=09-keep-…` become `#lesson=09`.
  const hash = id ? lessonHash(id) : "";
  if (lessonParam(location.hash) === lessonParam(hash)) return;
  history.replaceState(null, "", location.pathname + location.search + hash);
}

export function openLesson(store: AppStore, lesson: Lesson): void {
  const s = store.getState();
  const previous = s.text;
  s.replaceText(lesson.manifests, "scenario", lesson.id);
  s.showAnswer(false);
  s.clearPredictions();
  s.clearWhatIf();
  s.setPresenterStep(-1);
  // Nothing from before may answer this lesson: no question asked in another lesson, no filter by verdict or layer.
  s.clearQuestion();
  if (s.filters.onlyDrops || (s.filters.layer && s.filters.layer !== "all"))
    s.setFilters({ onlyDrops: false, layer: "all" });
  if (lesson.rulesMode) s.setRulesMode(lesson.rulesMode);
  syncLessonHash(lesson.id);
  if (previous !== lesson.manifests)
    s.notify({
      kind: "info",
      text: `Opened lesson ${String(lesson.number).padStart(2, "0")}: “${lesson.title}”.`,
      undoText: previous,
    });
}
