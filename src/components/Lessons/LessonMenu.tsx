/** The lesson menu: every lesson of the catalogue, and `#lesson=<id>` links that open one. */
import { useCallback, useEffect, useRef, useState } from "react";
import { useDismiss } from "./useDismiss.ts";
import { useApp, useAppStore } from "../../store/StoreProvider.tsx";
import { LESSONS, lessonById } from "../../../scenarios/lessons.ts";
import { lessonFromHash } from "./route.ts";
import { openLesson, syncLessonHash } from "./open.ts";

/** Follows `#lesson=` in the URL (on load and when the hash changes) and keeps it in step with the open scenario. */
function useLessonRoute() {
  const store = useAppStore();
  const scenarioId = useApp((s) => s.scenarioId);
  const started = useRef(false);
  useEffect(() => {
    const follow = () => {
      const r = lessonFromHash(location.hash);
      if (r.kind === "lesson") {
        const s = store.getState();
        if (s.scenarioId !== r.lesson.id || s.text !== r.lesson.manifests) openLesson(store, r.lesson);
      } else if (r.kind === "unknown") {
        store.getState().notify({
          kind: "error",
          text: `There is no lesson “${r.value}”. Open one from the Lessons menu.`,
        });
      }
    };
    if (!started.current) {
      started.current = true;
      follow();
    }
    addEventListener("hashchange", follow);
    return () => removeEventListener("hashchange", follow);
  }, [store]);
  useEffect(() => {
    if (!started.current) return;
    if (lessonFromHash(location.hash).kind === "unknown") return;
    syncLessonHash(scenarioId && lessonById(scenarioId) ? scenarioId : undefined);
  }, [scenarioId]);
}

export function LessonMenu() {
  const store = useAppStore();
  const scenarioId = useApp((s) => s.scenarioId);
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  useDismiss(
    open,
    useCallback(() => setOpen(false), []),
    box,
  );
  useLessonRoute();
  return (
    <div className="ws-menu" ref={box}>
      <button
        type="button"
        className="btn small"
        aria-expanded={open}
        aria-haspopup="dialog"
        onClick={() => setOpen(!open)}
      >
        Lessons
      </button>
      {open ? (
        <div className="ws-popover lessons" role="dialog" aria-label="Lessons">
          <p className="muted">
            Each lesson makes one idea visible: predict the answer to its question, reveal it, then try its
            edit.
          </p>
          <ol className="ws-lessons">
            {LESSONS.map((l) => (
              <li key={l.id}>
                <button
                  type="button"
                  className="ws-lesson"
                  aria-current={scenarioId === l.id ? "true" : undefined}
                  data-lesson={l.id}
                  onClick={() => {
                    setOpen(false);
                    openLesson(store, l);
                  }}
                >
                  <span className="ws-num">{String(l.number).padStart(2, "0")}</span>
                  <span>
                    <strong>{l.title}</strong>
                    <span className="muted">{l.goal}</span>
                  </span>
                </button>
              </li>
            ))}
          </ol>
        </div>
      ) : null}
    </div>
  );
}
