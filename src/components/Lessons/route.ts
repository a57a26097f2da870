/**
 * `#lesson=<id>` opens a lesson: its number (`#lesson=9`, `#lesson=09`, what the playground writes)
 * or its full folder id (`#lesson=09-keep-traffic-in-zone-with-hints`, older links). Other hash
 * parameters (`#share=`) are left alone.
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

/**
 * The hash that opens a lesson: its number (`#lesson=07`), not its folder id,
 * because the address bar is on the projector before the reveal and a folder
 * id can name the answer. Old links with the id still open (lessonFromHash).
 */
export function lessonHash(id: string, lessons: readonly Lesson[] = LESSONS): string {
  const l = lessons.find((x) => x.id === id);
  return `#${LESSON_PARAM}=${l ? String(l.number).padStart(2, "0") : encodeURIComponent(id)}`;
}

export const SESSION_PARAM = "session";

/**
 * A workshop session in the link: `#lesson=07&session=04,07,12` carries the
 * lessons in the teacher's order (numbers or folder ids). Unknown entries are
 * left out; undefined when the hash has no session.
 */
export function sessionFromHash(hash: string, lessons: readonly Lesson[] = LESSONS): Lesson[] | undefined {
  const h = hash.startsWith("#") ? hash.slice(1) : hash;
  for (const part of h.split("&")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq) === SESSION_PARAM) {
      const out: Lesson[] = [];
      for (const v of decodeURIComponent(part.slice(eq + 1)).split(",")) {
        const l = lessons.find((x) => x.id === v || (/^\d{1,2}$/.test(v) && x.number === Number(v)));
        if (l && !out.includes(l)) out.push(l);
      }
      return out.length ? out : undefined;
    }
  }
  return undefined;
}

/** The hash of a lesson within a session: `#lesson=NN&session=NN,NN,…`. */
export function sessionHash(
  session: readonly string[],
  current: string,
  lessons: readonly Lesson[] = LESSONS,
): string {
  const nums = session
    .map((id) => lessons.find((l) => l.id === id))
    .filter((l): l is Lesson => l !== undefined)
    .map((l) => String(l.number).padStart(2, "0"));
  return `${lessonHash(current, lessons)}&${SESSION_PARAM}=${nums.join(",")}`;
}
