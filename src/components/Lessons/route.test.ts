import { describe, expect, it } from "vitest";
import { lessonFromHash, lessonHash, lessonParam } from "./route.ts";
import { LESSONS } from "../../../scenarios/lessons.ts";

describe("#lesson=<id> routes", () => {
  it.each([
    ["#lesson=09-keep-traffic-in-zone-with-hints", "09-keep-traffic-in-zone-with-hints"],
    ["#lesson=9", "09-keep-traffic-in-zone-with-hints"],
    ["#lesson=09", "09-keep-traffic-in-zone-with-hints"],
    ["#theme=dark&lesson=12", "12-serve-from-terminating-pods"],
  ])("%s opens %s", (hash, id) => {
    const r = lessonFromHash(hash);
    expect(r.kind === "lesson" && r.lesson.id).toBe(id);
  });

  it("an unknown lesson is reported with what was asked", () => {
    expect(lessonFromHash("#lesson=99")).toEqual({ kind: "unknown", value: "99" });
    expect(lessonFromHash("#lesson=1")).toEqual({ kind: "unknown", value: "1" });
  });

  it("a hash without lesson= is not a lesson route (share links keep working)", () => {
    expect(lessonFromHash("#share=AQAB")).toEqual({ kind: "none" });
    expect(lessonFromHash("")).toEqual({ kind: "none" });
    expect(lessonParam("#share=x")).toBeUndefined();
  });

  it("the playground writes a lesson's number, not its folder id (an id can name the answer)", () =>
    expect(lessonHash("04-drop-calls-with-no-local-endpoint")).toBe("#lesson=04"));

  it("every lesson's hash opens it again", () => {
    for (const l of LESSONS) {
      const r = lessonFromHash(lessonHash(l.id));
      expect(r.kind === "lesson" && r.lesson.id).toBe(l.id);
    }
  });
});
