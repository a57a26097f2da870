import { readFile } from "node:fs/promises";
import { expect, type Download, type Locator, type Page } from "@playwright/test";

/** The workshop controls: the lesson menu and bar, what-if controls and their comparison, presenter mode, exports and imports. */
export class WorkshopPanel {
  readonly lesson: Locator;
  readonly whatIf: Locator;
  readonly presenter: Locator;

  constructor(readonly page: Page) {
    this.lesson = page.getByTestId("lesson");
    this.whatIf = page.getByTestId("whatif");
    this.presenter = page.getByTestId("presenter");
  }

  // ---------- lessons ----------

  async openLessonFromMenu(id: string): Promise<void> {
    await this.page.getByRole("button", { name: "Lessons" }).click();
    await this.page.getByRole("dialog", { name: "Lessons" }).locator(`[data-lesson="${id}"]`).click();
    await expect(this.lesson).toHaveAttribute("data-lesson", id);
  }

  question(): Locator {
    return this.lesson.getByTestId("lesson-question");
  }

  answer(): Locator {
    return this.lesson.getByTestId("lesson-answer");
  }

  async revealAnswer(): Promise<void> {
    await this.lesson.getByRole("button", { name: "Reveal the answer" }).click();
    await expect(this.answer()).toBeVisible();
  }

  /** Reveals the answer unless it is shown: tracing a lesson's question and its edit come with the answer. */
  async ensureRevealed(): Promise<void> {
    const reveal = this.lesson.getByTestId("lesson-reveal");
    if ((await reveal.getAttribute("aria-expanded")) !== "true") await this.revealAnswer();
  }

  async traceLessonQuestion(index = 0): Promise<void> {
    await this.ensureRevealed();
    await this.lesson.getByTestId("lesson-trace").nth(index).click();
  }

  async applySuggestedEdit(): Promise<void> {
    await this.ensureRevealed();
    await this.lesson.getByTestId("lesson-edit").click();
  }

  // ---------- what-if ----------

  async applyWhatIf(
    action: string,
    target: string,
    options: { replicas?: number; field?: string } = {},
  ): Promise<void> {
    await this.page.getByRole("button", { name: "What if…" }).click();
    const dialog = this.page.getByRole("dialog", { name: "What if" });
    await dialog.getByLabel("What-if action").selectOption({ label: action });
    await dialog.getByLabel("What-if target").selectOption(target);
    if (options.replicas !== undefined) await dialog.getByLabel("Replicas").fill(String(options.replicas));
    if (options.field !== undefined)
      await dialog.getByLabel("Traffic policy field").selectOption(options.field);
    await dialog.getByRole("button", { name: "Apply what-if" }).click();
  }

  diffSummary(): Locator {
    return this.whatIf.getByTestId("diff-summary");
  }

  async expectDiff(summary: string): Promise<void> {
    await expect(this.whatIf).toHaveAttribute("data-status", "ready", { timeout: 20_000 });
    await expect(this.diffSummary()).toHaveText(summary);
  }

  async showChanges(): Promise<Locator> {
    await this.whatIf.getByRole("button", { name: "Show changes" }).click();
    return this.whatIf.getByTestId("diff-details");
  }

  async undoWhatIf(): Promise<void> {
    await this.whatIf.getByRole("button", { name: "Undo what-if" }).click();
  }

  // ---------- presenter ----------

  async present(): Promise<void> {
    await this.page.getByRole("button", { name: "Present" }).click();
    await expect(this.presenter).toBeVisible();
  }

  hop(): Locator {
    return this.presenter.getByTestId("presenter-hop");
  }

  /** The graph ids the shown hop lights (presenter styles), space-separated. */
  focus(): Locator {
    return this.page.getByTestId("workshop-styles");
  }

  // ---------- exports and imports ----------

  async export(item: string): Promise<{ name: string; bytes: Buffer }> {
    await this.page.getByRole("button", { name: "Export" }).click();
    const [download] = await Promise.all([
      this.page.waitForEvent("download"),
      this.page.getByRole("menuitem", { name: item }).click(),
    ]);
    return this.read(download);
  }

  private async read(d: Download): Promise<{ name: string; bytes: Buffer }> {
    return { name: d.suggestedFilename(), bytes: await readFile((await d.path())!) };
  }

  async openFile(name: string, text: string): Promise<void> {
    await this.page
      .getByTestId("open-file")
      .setInputFiles({ name, mimeType: "application/yaml", buffer: Buffer.from(text) });
  }

  async dropFile(name: string, text: string): Promise<void> {
    const target = this.page.getByTestId("graph");
    const data = await this.page.evaluateHandle(
      ([n, t]) => {
        const dt = new DataTransfer();
        dt.items.add(new File([t], n, { type: "application/yaml" }));
        return dt;
      },
      [name, text] as const,
    );
    await target.dispatchEvent("dragover", { dataTransfer: data });
    await target.dispatchEvent("drop", { dataTransfer: data });
  }
}
