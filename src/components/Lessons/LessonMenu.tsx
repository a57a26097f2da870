/**
 * The lesson menu: every lesson of the catalogue, `#lesson=NN` links that open
 * one, and the workshop session: a teacher picks lessons in an order, one link
 * (`#lesson=NN&session=NN,NN,…`) carries them, the lesson bar and a clicker
 * (Page Down / Page Up in presenter mode) step through them, and a hand-out
 * (Markdown, or HTML to print) holds their questions with the answers behind.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { useDismiss } from "./useDismiss.ts";
import { useApp, useAppStore } from "../../store/StoreProvider.tsx";
import type { AppStore } from "../../store/createAppStore.ts";
import { LESSONS, lessonById, type Lesson } from "../../../scenarios/lessons.ts";
import { lessonFromHash, sessionFromHash, sessionHash } from "./route.ts";
import { lessonOrder, openLesson, syncLessonHash } from "./open.ts";
import { handoutHtml, handoutMarkdown } from "./handout.ts";
import { downloadBlob } from "../Export/graphSvg.ts";

/** Follows `#lesson=` and `&session=` in the URL (on load and when the hash changes) and keeps them in step with the store. */
function useLessonRoute() {
  const store = useAppStore();
  const scenarioId = useApp((s) => s.scenarioId);
  const session = useApp((s) => s.session);
  const started = useRef(false);
  useEffect(() => {
    const follow = () => {
      const sessionLessons = sessionFromHash(location.hash);
      if (sessionLessons) store.getState().setSession(sessionLessons.map((l) => l.id));
      const r = lessonFromHash(location.hash);
      const lesson = r.kind === "lesson" ? r.lesson : r.kind === "none" ? sessionLessons?.[0] : undefined;
      if (lesson) {
        const s = store.getState();
        if (s.scenarioId !== lesson.id || s.text !== lesson.manifests) openLesson(store, lesson);
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
    syncLessonHash(scenarioId && lessonById(scenarioId) ? scenarioId : undefined, session);
  }, [scenarioId, session]);
}

/** A presentation clicker sends Page Down and Page Up: in presenter mode they step through the session's lessons. */
function useSessionKeys(store: AppStore) {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "PageDown" && e.key !== "PageUp") return;
      const s = store.getState();
      const lesson = s.scenarioId ? lessonById(s.scenarioId) : undefined;
      if (!s.presenting || !s.session || !lesson) return;
      const order = lessonOrder(lesson, s.session);
      const to = order[order.indexOf(lesson) + (e.key === "PageDown" ? 1 : -1)];
      if (!to) return;
      e.preventDefault();
      openLesson(store, to);
    };
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  }, [store]);
}

const num = (l: Lesson) => String(l.number).padStart(2, "0");

function download(text: string, name: string, type: string) {
  downloadBlob(new Blob([text], { type }), name);
}

/** The session being built: lessons picked in order, moved up and down, started, shared, handed out. */
function SessionBuilder({
  draft,
  setDraft,
  onStart,
}: {
  draft: string[];
  setDraft: (ids: string[]) => void;
  onStart: () => void;
}) {
  const lessons = draft.map((id) => lessonById(id)).filter((l): l is Lesson => l !== undefined);
  const link = lessons.length ? `${location.origin}${location.pathname}${sessionHash(draft, draft[0]!)}` : "";
  const move = (i: number, by: number) => {
    const next = [...draft];
    const [x] = next.splice(i, 1);
    next.splice(i + by, 0, x!);
    setDraft(next);
  };
  const title = `Workshop: ${lessons.length} lesson${lessons.length === 1 ? "" : "s"}`;
  return (
    <section className="ws-session" aria-label="Workshop session" data-testid="session-builder">
      <p>
        <strong>Workshop session.</strong>{" "}
        {lessons.length
          ? "In this order; one link carries it."
          : "Tick lessons below to put them in a session, in the order you tick them."}
      </p>
      {lessons.length ? (
        <>
          <ol className="ws-session-list">
            {lessons.map((l, i) => (
              <li key={l.id} data-session-lesson={l.id}>
                <span className="ws-num">{num(l)}</span> <span>{l.title}</span>
                <button
                  type="button"
                  className="btn small"
                  aria-label={`Move lesson ${num(l)} up`}
                  disabled={i === 0}
                  onClick={() => move(i, -1)}
                >
                  ↑
                </button>
                <button
                  type="button"
                  className="btn small"
                  aria-label={`Move lesson ${num(l)} down`}
                  disabled={i === lessons.length - 1}
                  onClick={() => move(i, 1)}
                >
                  ↓
                </button>
              </li>
            ))}
          </ol>
          <label className="ws-session-link">
            Link
            <input readOnly value={link} aria-label="Session link" onFocus={(e) => e.target.select()} />
          </label>
          <div className="ws-row">
            <button type="button" className="btn small primary" onClick={onStart}>
              Start the session
            </button>
            <button
              type="button"
              className="btn small"
              onClick={() => void navigator.clipboard?.writeText(link)}
            >
              Copy the link
            </button>
            <button
              type="button"
              className="btn small"
              onClick={() =>
                download(handoutMarkdown(title, lessons), "workshop-handout.md", "text/markdown")
              }
            >
              Hand-out (Markdown)
            </button>
            <button
              type="button"
              className="btn small"
              onClick={() => download(handoutHtml(title, lessons), "workshop-handout.html", "text/html")}
            >
              Hand-out (HTML, to print)
            </button>
            <button type="button" className="btn small" onClick={() => setDraft([])}>
              Clear
            </button>
          </div>
        </>
      ) : null}
    </section>
  );
}

export function LessonMenu() {
  const store = useAppStore();
  const scenarioId = useApp((s) => s.scenarioId);
  const session = useApp((s) => s.session);
  const [open, setOpen] = useState(false);
  const [draft, setDraft] = useState<string[]>([]);
  const box = useRef<HTMLDivElement>(null);
  useDismiss(
    open,
    useCallback(() => setOpen(false), []),
    box,
  );
  useLessonRoute();
  useSessionKeys(store);
  const toggle = (id: string) =>
    setDraft(draft.includes(id) ? draft.filter((x) => x !== id) : [...draft, id]);
  return (
    <div className="ws-menu" ref={box}>
      <button
        type="button"
        className="btn small"
        aria-expanded={open}
        aria-haspopup="dialog"
        onClick={() => {
          // The builder starts from the running session, if any.
          if (!open && session) setDraft(session);
          setOpen(!open);
        }}
      >
        Lessons
      </button>
      {open ? (
        <div className="ws-popover lessons" role="dialog" aria-label="Lessons">
          <p className="muted">
            Each lesson makes one idea visible: predict the answer to its question, reveal it, then try its
            edit.
          </p>
          <SessionBuilder
            draft={draft}
            setDraft={setDraft}
            onStart={() => {
              const first = lessonById(draft[0]!);
              store.getState().setSession(draft);
              setOpen(false);
              if (first) openLesson(store, first);
            }}
          />
          <ol className="ws-lessons">
            {LESSONS.map((l) => (
              <li key={l.id} className="ws-lesson-row">
                <input
                  type="checkbox"
                  className="ws-pick"
                  aria-label={`Put lesson ${num(l)} in the session`}
                  checked={draft.includes(l.id)}
                  onChange={() => toggle(l.id)}
                />
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
                  <span className="ws-num">{num(l)}</span>
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
