/**
 * Pasting inputs from the engine's hostile corpus (src/engine/validate/testdata/hostile):
 * the page neither crashes nor hangs, says what is wrong with a located problem,
 * and keeps every byte the user pasted.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test, expect } from "./fixtures.ts";

const DIR = join(import.meta.dirname, "..", "src", "engine", "validate", "testdata", "hostile");

const CASES: { file: string; code: string }[] = [
  { file: "alias-bomb.yaml", code: "KTL105" },
  { file: "deep-nesting.yaml", code: "KTL101" },
  { file: "broken-yaml.yaml", code: "KTL101" },
  { file: "missing-kind-name.yaml", code: "KTL103" },
];

for (const { file, code } of CASES) {
  test(`pasting ${file} keeps the page, reports ${code} on a line and keeps the text`, async ({
    playground,
    page,
  }) => {
    await playground.goto();
    const text = readFileSync(join(DIR, file), "utf8");
    await playground.pasteText(text);
    const problems = await playground.openProblems();
    const found = problems.locator(`li[data-code="${code}"]`).first();
    await expect(found).toBeVisible({ timeout: 20_000 });
    expect(Number(await found.getAttribute("data-line"))).toBeGreaterThan(0);
    await expect(page.getByRole("alert").filter({ hasText: "Something went wrong" })).toHaveCount(0);
    expect(await playground.editorText()).toBe(text);
  });
}
