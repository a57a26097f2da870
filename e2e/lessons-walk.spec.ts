import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "@playwright/test";
import { test, expect } from "./fixtures.ts";
import { WorkshopPanel } from "./pages/WorkshopPanel.ts";

/**
 * Issue 32, "workshops that hold up in a room": every lesson, walked as a
 * room walks it. Before the reveal nothing on screen states a verdict (the
 * DOM outside the lesson bar and the editor: attributes, text, every tab);
 * each question is predicted wrong, revealed, traced and judged wrong; then
 * hidden, predicted right (verdict and, for a request, its HTTP answer) and
 * judged right. The answers come from the README (rendered from lessons.ts
 * and kept equal by its test), one line per question in the rows' order.
 */
interface Row {
  verdict: "allow" | "drop" | "partial";
  /** The HTTP answer of a request: "HTTP 404", "no HTTP answer"; undefined for a connection. */
  status: string | undefined;
}

const dir = join(import.meta.dirname, "../scenarios");
const lessons = readdirSync(dir)
  .filter((d) => /^\d\d-/.test(d) && !d.startsWith("01-"))
  .sort()
  .map((id) => {
    const md = readFileSync(join(dir, id, "README.md"), "utf8");
    const checked = md.slice(md.indexOf("### Checked by"), md.indexOf("### Try"));
    const rows: Row[] = [
      ...checked.matchAll(/^- `.+?` → `.+?`.*?: (allow|drop|partial)( \((HTTP \d+|no HTTP answer)\))?$/gm),
    ].map((m) => ({ verdict: m[1] as Row["verdict"], status: m[3] }));
    return { id, number: Number(id.slice(0, 2)), rows };
  });

const WORDS = { allow: "allowed", drop: "dropped", partial: "partly allowed" } as const;
const WRONG = { allow: "drop", drop: "allow", partial: "allow" } as const;

/** Words and numbers that state a verdict: what the engine's answers say. */
const VERDICT_TEXT =
  /\b(allowed|dropped|denied|rejected|refused|REJECT|DROP|accepts the connection)\b|HTTP [2-5]\d\d|\d+ of \d+ drawn flows/;

/** The page's text outside the lesson bar (the learner's own controls) and the editor (the manifests). */
async function textOutsideLesson(page: Page): Promise<string> {
  return page.evaluate(() => {
    const body = document.body.cloneNode(true) as HTMLElement;
    const drop = [
      '[data-testid="lesson"]',
      '[aria-label="Editor"]',
      // The getting-started heading asks a general question ("…and why is it dropped?").
      'section[aria-label="Getting started"] > h3',
    ];
    for (const sel of drop) body.querySelectorAll(sel).forEach((e) => e.remove());
    return body.textContent ?? "";
  });
}

async function expectNoVerdictOnScreen(page: Page, lesson: string): Promise<void> {
  const where = (what: string) => `lesson ${lesson}: ${what}`;
  // No element states a verdict in its attributes, and every edge is neutral.
  expect(await page.locator("[data-verdict]").count(), where("data-verdict")).toBe(0);
  expect(
    await page.locator('[data-testid="flow-edge"]:not([data-category="hidden"])').count(),
    where("edges"),
  ).toBe(0);
  expect(await textOutsideLesson(page), where("graph and details")).not.toMatch(VERDICT_TEXT);
  // Every tab: the matrix and the node rules are veiled, the problems keep only errors, the tests are veiled.
  for (const tab of ["Matrix", "Node rules"]) {
    await page.getByRole("tab", { name: tab, exact: true }).click();
    await expect(page.locator("#view-main").getByTestId("veil"), where(tab)).toBeVisible();
  }
  await page.getByRole("tab", { name: "Graph", exact: true }).click();
  await page.getByRole("tab", { name: /^Problems/ }).click();
  await expect(page.locator(".problems .sev-warning"), where("problems")).toHaveCount(0);
  expect(await textOutsideLesson(page), where("problems")).not.toMatch(VERDICT_TEXT);
  await page.getByRole("tab", { name: /^Tests/ }).click();
  await expect(page.locator("#side-panel").getByTestId("veil"), where("tests")).toBeVisible();
  await page.getByRole("tab", { name: "Details", exact: true }).click();
  // Exports that state verdicts wait for the reveal.
  await page.getByRole("button", { name: "Export" }).click();
  await expect(page.getByRole("menuitem", { name: "Matrix as Markdown" }), where("export")).toBeDisabled();
  await page.getByRole("button", { name: "Export" }).click();
}

async function predict(w: WorkshopPanel, rows: Row[], right: boolean): Promise<void> {
  const predictions = w.lesson.getByTestId("lesson-predict").getByTestId("prediction");
  await expect(predictions).toHaveCount(rows.length);
  for (const [i, r] of rows.entries()) {
    const row = predictions.nth(i);
    await row.getByLabel(WORDS[right ? r.verdict : WRONG[r.verdict]], { exact: true }).check();
    if (r.status !== undefined) {
      const wrong = r.status === "HTTP 200" ? "HTTP 404" : "HTTP 200";
      await row
        .getByRole("combobox", { name: /^HTTP answer/ })
        .selectOption({ label: right ? r.status : wrong });
    }
  }
}

/** Reveals, traces every question that has no answer yet, and expects each judged as `right`. */
async function revealAndJudge(w: WorkshopPanel, rows: Row[], right: boolean): Promise<void> {
  await w.revealAnswer();
  const results = w.lesson.getByTestId("result");
  await expect(results).toHaveCount(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const result = results.nth(i);
    const trace = result.getByRole("button", { name: "trace it to see" });
    if (await trace.isVisible()) await trace.click();
    await expect(result).toHaveAttribute("data-right", String(right), { timeout: 20_000 });
    await expect(result).toContainText(right ? "✓" : "✗");
  }
}

test.describe("every lesson holds up in a room", () => {
  for (const l of lessons) {
    test(`${String(l.number).padStart(2, "0")}: nothing answers before the reveal; wrong, then right, per question`, async ({
      playground,
      page,
    }) => {
      test.setTimeout(120_000);
      expect(l.rows.length, "the README lists the questions").toBeGreaterThan(0);
      await playground.goto(`./#lesson=${l.number}`);
      const w = new WorkshopPanel(page);
      await expect(w.lesson).toHaveAttribute("data-lesson", l.id);
      await expect(playground.graph.edges().first()).toBeAttached({ timeout: 20_000 });
      // The address bar carries the lesson's number, not its folder id.
      await expect(page).toHaveURL(new RegExp(`#lesson=${String(l.number).padStart(2, "0")}$`));
      await expectNoVerdictOnScreen(page, l.id);

      await predict(w, l.rows, false);
      await revealAndJudge(w, l.rows, false);

      await w.lesson.getByRole("button", { name: "Hide the answer" }).click();
      await expect(playground.graph.edges().first()).toHaveAttribute("data-category", "hidden");
      await predict(w, l.rows, true);
      await revealAndJudge(w, l.rows, true);
      await expect(w.lesson.getByTestId("lesson-sources").locator("a").first()).toHaveAttribute(
        "href",
        /^https:\/\//,
      );
    });
  }
});
