import { readFile } from "node:fs/promises";
import { test, expect } from "./fixtures.ts";
import { WorkshopPanel } from "./pages/WorkshopPanel.ts";

/** A workshop session (issue 32): ordered in the menu, carried by one link, stepped through, handed out. */
test("a teacher orders lessons into a session, shares one link, steps through it and hands it out", async ({
  playground,
  page,
}) => {
  await playground.goto();
  const w = new WorkshopPanel(page);
  await page.getByRole("button", { name: "Lessons" }).click();
  const menu = page.getByRole("dialog", { name: "Lessons" });
  for (const n of ["17", "05", "32"]) await menu.getByLabel(`Put lesson ${n} in the session`).check();
  await menu.getByRole("button", { name: "Move lesson 32 up" }).click();
  const link = await menu.getByLabel("Session link").inputValue();
  expect(link).toMatch(/#lesson=17&session=17,32,05$/);

  // The hand-out: every question first, then the answers with their sources.
  const [md] = await Promise.all([
    page.waitForEvent("download"),
    menu.getByRole("button", { name: "Hand-out (Markdown)" }).click(),
  ]);
  const text = await readFile((await md.path())!, "utf8");
  expect(text.indexOf("## 32 ·")).toBeLessThan(text.indexOf("# Answers"));
  expect(text.indexOf("POST /api/orders` | drop, HTTP 403")).toBeGreaterThan(text.indexOf("# Answers"));
  const [html] = await Promise.all([
    page.waitForEvent("download"),
    menu.getByRole("button", { name: "Hand-out (HTML, to print)" }).click(),
  ]);
  expect(html.suggestedFilename()).toBe("workshop-handout.html");
  expect(await readFile((await html.path())!, "utf8")).toContain("break-before: page");

  await menu.getByRole("button", { name: "Start the session" }).click();
  await expect(w.lesson).toHaveAttribute("data-lesson", "17-refuse-a-path-with-a-cilium-l7-rule");
  await expect(w.lesson.getByTestId("session-step")).toHaveText("Session 1/3 · ");
  await expect(page).toHaveURL(/#lesson=17&session=17,32,05$/);
  await w.lesson.getByRole("button", { name: "Next lesson" }).click();
  await expect(w.lesson).toHaveAttribute("data-lesson", "32-apply-a-policy-on-flannel");
  await expect(w.lesson.getByTestId("session-step")).toHaveText("Session 2/3 · ");
  await expect(page).toHaveURL(/#lesson=32&session=17,32,05$/);

  // The link opens the session in another browser, at its first lesson; a clicker steps in presenter mode.
  const p2 = await page.context().browser()!.newPage();
  await p2.goto(link);
  const w2 = new WorkshopPanel(p2);
  await expect(w2.lesson).toHaveAttribute("data-lesson", "17-refuse-a-path-with-a-cilium-l7-rule");
  await expect(w2.lesson.getByTestId("session-step")).toHaveText("Session 1/3 · ");
  await w2.present();
  await p2.keyboard.press("PageDown");
  await expect(w2.presenter.getByTestId("presenter-lesson")).toContainText("Lesson 32");
  await p2.keyboard.press("PageDown");
  await expect(w2.presenter.getByTestId("presenter-lesson")).toContainText("Lesson 05");
  await p2.keyboard.press("PageUp");
  await expect(w2.presenter.getByTestId("presenter-lesson")).toContainText("Lesson 32");
  await p2.close();

  // A lesson outside the session leaves it.
  await w.openLessonFromMenu("02-spread-load-with-external-local");
  await expect(w.lesson.getByTestId("session-step")).toHaveCount(0);
  await expect(page).toHaveURL(/#lesson=02$/);
});
