/**
 * `#lesson=<id>` opens a lesson: the full folder id (`#lesson=09-keep-traffic-in-zone-with-hints`)
 * or its number (`#lesson=9`, `#lesson=09`). Other hash parameters (`#share=`) are left alone.
 */
import { LESSONS, type Lesson } from "../../../scenarios/lessons.ts";

export const LESSON_PARAM = "lesson";

/** The value of `lesson=` in a URL hash, or undefined. */
export function lessonParam(hash: string): string | undefined {
  const h = hash.startsWith("#") ? hash.slice(1) : hash;
  for (const part of h.split("&")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq) === LESSON_PARAM) return decodeURIComponent(part.slice(eq + 1));
  }
  return undefined;
}

export type LessonRoute =
  { kind: "none" } | { kind: "lesson"; lesson: Lesson } | { kind: "unknown"; value: string };

/** The lesson a hash names. */
export function lessonFromHash(hash: string, lessons: readonly Lesson[] = LESSONS): LessonRoute {
  const v = lessonParam(hash);
  if (v === undefined) return { kind: "none" };
  const exact = lessons.find((l) => l.id === v);
  if (exact) return { kind: "lesson", lesson: exact };
  if (/^\d{1,2}$/.test(v)) {
    const byNumber = lessons.find((l) => l.number === Number(v));
    if (byNumber) return { kind: "lesson", lesson: byNumber };
  }
  return { kind: "unknown", value: v };
}

export function lessonHash(id: string): string {
  return `#${LESSON_PARAM}=${encodeURIComponent(id)}`;
}
