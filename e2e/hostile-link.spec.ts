/**
 * Issue 16: the memory-bomb share link (987 aliases nesting 330 x 330 x 330
 * NetworkPolicy peers) opened in a tab with work. The work is kept before the
 * link's text replaces it, the bomb is refused with a located problem instead
 * of killing the tab, and the app stays usable: the work comes back with one
 * click and draws.
 */
import { encodeShare, hashFor } from "../src/share/codec.ts";
import { test, expect } from "./fixtures.ts";

const BOMB = [
  "apiVersion: networking.k8s.io/v1",
  "kind: NetworkPolicy",
  "metadata: {name: bomb, namespace: x}",
  "spec:",
  "  podSelector: {}",
  "  ingress:",
  `  - from: &p0 [${Array(330).fill("{podSelector: {}}").join(",")}]`,
  `  - from: &p1 [${Array(330).fill("*p0").join(",")}]`,
  `  - from: &p2 [${Array(330).fill("*p1").join(",")}]`,
  "",
].join("\n");

test("the memory-bomb link in a tab with work keeps the work and the app usable", async ({
  playground,
  page,
}) => {
  await playground.goto();
  await playground.appendText("\n# my own work\n");
  const work = await playground.editorText();
  await expect
    .poll(() => page.evaluate(() => localStorage.getItem("ktl.work.v1") ?? ""))
    .toContain("my own work");

  const r = encodeShare({ text: BOMB });
  if (!r.ok) throw new Error(r.error);
  await page.goto("about:blank");
  // No edges to wait for: the bomb draws two synthesised nodes at most.
  await page.goto(`./${hashFor(r.payload)}`);
  await expect(playground.editor).toBeVisible({ timeout: 30_000 });

  // The work is kept before anything else happens to it.
  await expect(playground.notice()).toContainText("is kept");
  expect(await page.evaluate(() => localStorage.getItem("ktl.previous.v1") ?? "")).toContain("my own work");

  // The bomb is a located problem, not a dead tab.
  const problems = await playground.openProblems();
  const found = problems.locator('li[data-code="KTL105"]').first();
  await expect(found).toBeVisible({ timeout: 30_000 });
  expect(Number(await found.getAttribute("data-line"))).toBe(8);
  await expect(page.getByRole("alert").filter({ hasText: "Something went wrong" })).toHaveCount(0);

  // One click brings the work back, and it is analysed and drawn.
  await page.getByTestId("notice").getByRole("button", { name: "Restore previous text" }).click();
  await expect.poll(() => playground.editorText()).toBe(work);
  await playground.graph.expectEdge("pod:tools/toolbox", "service:shop/backend", "drop");
});
