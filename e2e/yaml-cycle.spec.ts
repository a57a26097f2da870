/**
 * Issue 31: a cyclic alias in the editor overflowed monaco-yaml's worker (validation, document links,
 * definitions) on every edit. Such a text now gets the plain YAML language, and the engine still names the doc.
 */
import { test, expect } from "./fixtures.ts";

test("a cyclic alias in the editor overflows nothing, and the problems panel names it", async ({
  page,
  playground,
}) => {
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text().slice(0, 200));
  });
  await playground.goto();
  await playground.pasteText(
    "apiVersion: v1\nkind: Pod\nmetadata: &m {name: c, namespace: default, labels: *m}\nspec: &s {containers: [{name: c, image: x}], x: *s}\n---\na: &a [*a]\n",
  );
  await page.waitForTimeout(1500);
  await playground.appendText("\n# an edit\n");
  await page.waitForTimeout(1500);
  const problems = await playground.openProblems();
  await expect(problems).toContainText("KTL105");
  expect(errors).toEqual([]);
});
