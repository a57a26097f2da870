import { describe, expect, it } from "vitest";
import { handoutHtml, handoutMarkdown } from "./handout.ts";
import { lessonById } from "../../../scenarios/lessons.ts";
import { sessionFromHash, sessionHash } from "./route.ts";

const lessons = [
  lessonById("17-refuse-a-path-with-a-cilium-l7-rule")!,
  lessonById("05-allow-one-caller-after-default-deny")!,
];

describe("a workshop session in one link", () => {
  it("carries the lessons in the teacher's order, by number, and reads them back", () => {
    const hash = sessionHash(
      lessons.map((l) => l.id),
      lessons[0]!.id,
    );
    expect(hash).toBe("#lesson=17&session=17,05");
    expect(sessionFromHash(hash)?.map((l) => l.id)).toEqual(lessons.map((l) => l.id));
    // Folder ids and unknown entries: the ids open, the unknown are left out.
    expect(
      sessionFromHash("#session=99,05-allow-one-caller-after-default-deny")?.map((l) => l.number),
    ).toEqual([5]);
    expect(sessionFromHash("#lesson=05")).toBeUndefined();
  });
});

describe("the hand-out", () => {
  it("puts every question before any answer, and each answer with its sources", () => {
    const md = handoutMarkdown("Workshop", lessons);
    const answers = md.indexOf("# Answers");
    expect(answers).toBeGreaterThan(0);
    for (const l of lessons) {
      expect(md.indexOf(l.question)).toBeLessThan(answers);
      expect(md.indexOf(l.answer)).toBeGreaterThan(answers);
    }
    // The questions' rows: a request says its method and path; the answer says the HTTP status.
    expect(md).toContain("| `shop/frontend → shop/api:80 · POST /api/orders` |  |");
    expect(md).toContain("| `shop/frontend → shop/api:80 · POST /api/orders` | drop, HTTP 403 |");
    expect(md).toMatch(/\]\(https:\/\/docs\.cilium\.io\/en\/stable\/security\/policy\/layer7\/#http\)/);
  });

  it("prints: self-contained HTML, escaped, answers from a new page", () => {
    const html = handoutHtml("Workshop <1>", lessons);
    expect(html).toContain("<title>Workshop &lt;1&gt;</title>");
    expect(html).toMatch(/\.answers \{ break-before: page; \}/);
    expect(html).not.toMatch(/<script|src=/);
    expect(html.indexOf(lessons[0]!.answer.replace(/&/g, "&amp;").slice(0, 40))).toBeGreaterThan(
      html.indexOf('<div class="answers">'),
    );
  });
});
