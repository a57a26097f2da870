/** Opening a lesson: its manifests in the editor (undoable), its answer hidden, the URL naming it. */
import type { AppStore } from "../../store/createAppStore.ts";
import { LESSONS, lessonById, type Lesson } from "../../../scenarios/lessons.ts";
import { lessonHash, sessionHash } from "./route.ts";

/**
 * Puts `#lesson=NN` (and the session's `&session=NN,NN`) in the address bar,
 * or takes it out, unless a share link is there. The address names the lesson
 * by its number: `#lesson=9` and an old `#lesson=09-keep-…` become `#lesson=09`.
 */
export function syncLessonHash(id: string | undefined, session?: readonly string[]): void {
  if (/(^#|&)share=/.test(location.hash)) return;
  const hash = !id ? "" : session?.includes(id) ? sessionHash(session, id) : lessonHash(id);
  if (location.hash === hash) return;
  history.replaceState(null, "", location.pathname + location.search + hash);
}

/** The lessons to step through from `lesson`: the session's, when it is in one, else the catalogue. */
export function lessonOrder(lesson: Lesson, session: readonly string[] | undefined): readonly Lesson[] {
  if (!session?.includes(lesson.id)) return LESSONS;
  return session.map((id) => lessonById(id)).filter((l): l is Lesson => l !== undefined);
}

export function openLesson(store: AppStore, lesson: Lesson): void {
  const s = store.getState();
  const previous = s.text;
  // A lesson outside the session leaves it.
  if (s.session && !s.session.includes(lesson.id)) s.setSession(undefined);
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
  syncLessonHash(lesson.id, store.getState().session);
  if (previous !== lesson.manifests)
    s.notify({
      kind: "info",
      text: `Opened lesson ${String(lesson.number).padStart(2, "0")}: “${lesson.title}”.`,
      undoText: previous,
    });
}
