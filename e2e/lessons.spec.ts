import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { test, expect } from "./fixtures.ts";
import { WorkshopPanel } from "./pages/WorkshopPanel.ts";

/** The lessons as their READMEs state them (rendered from scenarios/lessons.ts and kept equal by its test). */
const dir = join(import.meta.dirname, "../scenarios");
const lessons = readdirSync(dir)
  .filter((d) => /^\d\d-/.test(d) && !d.startsWith("01-"))
  .sort()
  .map((id) => {
    const md = readFileSync(join(dir, id, "README.md"), "utf8");
    const title = /^# \d\d · (.+)$/m.exec(md)![1]!;
    const question = /## Question\n\n(.+)\n/.exec(md)![1]!;
    const answer = /<summary>Answer<\/summary>\n\n(.+)\n/.exec(md)![1]!;
    // A check line: from → to, an optional protocol, an optional HTTP request (L7 lessons), the verdict, its HTTP status.
    const first =
      /^- `(.+?)` → `(.+?)`(?: \((\w+)\))?(?: `[^`]*`)?: (allow|drop|partial)(?: \((?:HTTP \d+|no HTTP answer)\))?$/m.exec(
        md,
      )!;
    return {
      id,
      number: Number(id.slice(0, 2)),
      title,
      question,
      answer,
      check: { from: first[1]!, to: first[2]!, verdict: first[4]! },
    };
  });

test.describe("lessons", () => {
  test("the lesson menu lists every lesson and opens one", async ({ playground, page }) => {
    await playground.goto();
    const w = new WorkshopPanel(page);
    await page.getByRole("button", { name: "Lessons" }).click();
    const menu = page.getByRole("dialog", { name: "Lessons" });
    await expect(menu.locator("[data-lesson]")).toHaveCount(lessons.length);
    await page.getByRole("button", { name: "Lessons" }).click();
    await w.openLessonFromMenu(lessons[0]!.id);
    // The address names the lesson by its number: a folder id can name the answer.
    await expect(page).toHaveURL(new RegExp(`#lesson=${String(lessons[0]!.number).padStart(2, "0")}$`));
    await expect(w.question()).toContainText(lessons[0]!.question);
    await expect(w.answer()).toHaveCount(0);
  });

  for (const l of lessons) {
    test(`#lesson=${l.number} opens “${l.title}”, reveals its answer, and traces its question`, async ({
      playground,
      page,
    }) => {
      await playground.goto(`./#lesson=${l.number}`);
      const w = new WorkshopPanel(page);
      await expect(w.lesson).toHaveAttribute("data-lesson", l.id);
      await expect(w.lesson).toContainText(l.title);
      await expect(w.question()).toContainText(l.question);
      await expect(w.answer()).toHaveCount(0);
      await w.revealAnswer();
      await expect(w.answer()).toContainText(l.answer);
      await w.traceLessonQuestion(0);
      await expect(playground.traceVerdict()).toHaveAttribute("data-verdict", l.check.verdict);
    });
  }

  test("an unknown lesson says so and keeps the playground usable", async ({ playground }) => {
    await playground.goto("./#lesson=99");
    await expect(playground.notice()).toContainText("There is no lesson “99”");
  });

  test("next and previous walk the catalogue, and the URL follows", async ({ playground, page }) => {
    await playground.goto("./#lesson=2");
    const w = new WorkshopPanel(page);
    await w.lesson.getByRole("button", { name: "Next lesson" }).click();
    await expect(w.lesson).toHaveAttribute("data-lesson", lessons[1]!.id);
    await expect(page).toHaveURL(new RegExp(`#lesson=${String(lessons[1]!.number).padStart(2, "0")}$`));
    await w.lesson.getByRole("button", { name: "Previous lesson" }).click();
    await expect(w.lesson).toHaveAttribute("data-lesson", lessons[0]!.id);
  });
});
