import { readFile } from "node:fs/promises";
import { expect, type Locator, type Page } from "@playwright/test";
import { GraphPanel } from "./GraphPanel.ts";

/** The playground as a person uses it: the editor, the toolbar, the details and problems panels, the matrix. */
export class PlaygroundPage {
  readonly graph: GraphPanel;
  readonly editor: Locator;
  readonly details: Locator;

  constructor(readonly page: Page) {
    this.graph = new GraphPanel(page);
    this.editor = page.locator('[data-testid="editor"][data-ready="true"] .monaco-editor');
    this.details = page.getByTestId("details");
  }

  async goto(path = "./"): Promise<void> {
    await this.page.goto(path);
    await this.graph.waitForDrawn();
    await expect(this.editor).toBeVisible({ timeout: 20_000 });
  }

  /** Replaces the whole text the way a person pastes it (select all, paste). */
  async pasteText(text: string): Promise<void> {
    await this.focusEditor();
    await this.page.keyboard.press("ControlOrMeta+A");
    await this.paste(text);
  }

  /** Pastes text at the end of the document. */
  async appendText(text: string): Promise<void> {
    await this.focusEditor();
    await this.page.keyboard.press("ControlOrMeta+End");
    await this.paste(text);
  }

  /** Goes to a line (Ctrl+G is taken by the browser in some setups: use the cursor keys) and pastes at its end. */
  async insertAfterLine(line: number, text: string): Promise<void> {
    await this.focusEditor();
    await this.page.keyboard.press("ControlOrMeta+Home");
    for (let i = 1; i < line; i++) await this.page.keyboard.press("ArrowDown");
    await this.page.keyboard.press("End");
    await this.paste(text);
  }

  private async focusEditor(): Promise<void> {
    // Halfway down the visible editor: once a long text is scrolled, Monaco's sticky scroll covers its first lines.
    const guard = this.editor.locator(".overflow-guard").first();
    const box = await guard.boundingBox();
    if (!box) throw new Error("the editor is not on screen");
    await guard.click({ position: { x: Math.min(140, box.width / 2), y: Math.round(box.height / 2) } });
  }

  private async paste(text: string): Promise<void> {
    await this.page.evaluate((t) => navigator.clipboard.writeText(t), text);
    await this.page.keyboard.press("ControlOrMeta+V");
  }

  /** The editor's whole text, as the Download button saves it. */
  async editorText(): Promise<string> {
    const [download] = await Promise.all([
      this.page.waitForEvent("download"),
      this.page.getByRole("button", { name: "Download" }).click(),
    ]);
    const path = await download.path();
    return readFile(path, "utf8");
  }

  async share(): Promise<string> {
    await this.page.getByRole("button", { name: "Share", exact: true }).click();
    await expect(this.page).toHaveURL(/#share=/);
    return this.page.url();
  }

  notice(): Locator {
    return this.page.getByTestId("notice");
  }

  cursorLine(): Locator {
    return this.page.getByTestId("cursor-position");
  }

  traceVerdict(): Locator {
    return this.details.getByTestId("trace-verdict");
  }

  /** The trace's hops in the details, in order. */
  traceHops(): Locator {
    return this.details.getByTestId("hop");
  }

  /** Pastes a whole new text and waits until the graph has drawn it (a new revision). */
  async loadText(text: string): Promise<void> {
    const graph = this.page.getByTestId("graph");
    const before = await graph.getAttribute("data-revision");
    await this.pasteText(text);
    await expect(graph).not.toHaveAttribute("data-revision", before ?? "", { timeout: 90_000 });
    await expect(graph).not.toHaveAttribute("data-revision", "", { timeout: 90_000 });
  }

  async groupBy(value: "auto" | "pod" | "workload" | "namespace"): Promise<void> {
    await this.page.getByLabel("Group by").selectOption(value);
    await this.graphSettled();
  }

  async onlyDrops(on = true): Promise<void> {
    await this.page.getByLabel("Only drops").setChecked(on);
    await this.graphSettled();
  }

  /**
   * Waits until the graph shows the view asked for: past 500 pods a new view is mapped a slice per task while
   * the last picture stays, and the canvas's data-revision is empty meanwhile.
   */
  async graphSettled(): Promise<void> {
    const graph = this.page.getByTestId("graph");
    if ((await graph.count()) === 0) return;
    await expect(graph).not.toHaveAttribute("data-revision", "", { timeout: 30_000 });
  }

  /** The details panel's "Where the drops are" list (shown while nothing is selected). */
  dropList(): Locator {
    return this.page.getByTestId("drop-list");
  }

  async fitView(): Promise<void> {
    await this.page.getByRole("button", { name: /fit view/i }).click();
    await this.page.waitForTimeout(300);
  }

  async openProblems(): Promise<Locator> {
    await this.page.getByRole("tab", { name: /Problems/ }).click();
    return this.page.getByTestId("problems");
  }

  async openMatrix(): Promise<Locator> {
    await this.page.getByRole("tab", { name: "Matrix" }).click();
    return this.page.getByTestId("matrix");
  }
}
