/**
 * Issue 16, no lost work in the browser: a load that crashed the tab opens
 * the next time in safe mode (the text intact, the engine paused until asked);
 * two tabs never overwrite each other's saved text in silence; and the built
 * site runs under its Content-Security-Policy with no violation.
 */
import { test, expect } from "./fixtures.ts";
import { PlaygroundPage } from "./pages/PlaygroundPage.ts";

test("a load that crashed the tab reopens in safe mode with the text intact, and resumes on request", async ({
  playground,
  page,
  context,
}) => {
  await playground.goto();
  await playground.appendText("\n# my own work\n");
  await expect
    .poll(() => page.evaluate(() => localStorage.getItem("ktl.work.v1") ?? ""))
    .toContain("my own work");
  // A drawn load leaves no flag behind.
  expect(await page.evaluate(() => localStorage.getItem("ktl.loading.v1"))).toBeNull();

  // A load that started a minute ago never drew (the engine hung, or the tab ran out of memory), and the tab is closed.
  // (Chromium's Page.crash takes the whole test browser down here, so the crash is the flag it leaves behind.)
  await page.evaluate(() =>
    localStorage.setItem("ktl.loading.v1", JSON.stringify({ at: Date.now() - 60_000 })),
  );
  await page.close();
  const next = await context.newPage();
  const again = new PlaygroundPage(next);
  await next.goto("./");
  const safe = next.getByTestId("safe-mode");
  await expect(safe).toBeVisible({ timeout: 20_000 });
  await expect(next.getByTestId("engine-status")).toHaveAttribute("data-status", "paused");
  await expect(again.editor).toBeVisible({ timeout: 20_000 });
  expect(await again.editorText()).toContain("# my own work");
  await expect(again.graph.edges()).toHaveCount(0);

  await safe.getByRole("button", { name: "Resume analysis" }).click();
  await expect(safe).toHaveCount(0);
  await again.graph.waitForDrawn();
  await again.graph.expectEdge("pod:tools/toolbox", "service:shop/backend", "drop");
  await expect.poll(() => next.evaluate(() => localStorage.getItem("ktl.loading.v1"))).toBeNull();
});

test("a second tab is told, and a tab whose saved text another tab overwrote chooses which to keep", async ({
  playground,
  page,
  context,
}) => {
  await playground.goto();
  const second = await context.newPage();
  const two = new PlaygroundPage(second);
  await two.goto();
  await expect(two.notice()).toContainText("also open in another tab");

  await two.appendText("\n# edited in the second tab\n");
  const saved = () => page.evaluate(() => localStorage.getItem("ktl.work.v1") ?? "");
  await expect.poll(saved).toContain("edited in the second tab");

  // The first tab is told, and its own typing no longer saves over the second tab's text.
  const conflict = page.getByTestId("tab-conflict");
  await expect(conflict).toBeVisible();
  await playground.appendText("\n# edited in the first tab\n");
  await page.waitForTimeout(800);
  expect(await saved()).toContain("edited in the second tab");
  expect(await saved()).not.toContain("edited in the first tab");

  // Keeping the first tab's text saves it; the second tab's stays as the previous text, and that tab is told in turn.
  await conflict.getByRole("button", { name: "Keep this tab's text" }).click();
  await expect.poll(saved).toContain("edited in the first tab");
  expect(await page.evaluate(() => localStorage.getItem("ktl.previous.v1") ?? "")).toContain(
    "edited in the second tab",
  );
  await expect(second.getByTestId("tab-conflict")).toBeVisible();

  // The permanent entry brings the second tab's text back in the first tab.
  await page.getByTestId("restore-previous").click();
  await expect.poll(() => playground.editorText()).toContain("edited in the second tab");
});

test("the built site runs under its Content-Security-Policy with no violation", async ({
  playground,
  page,
}) => {
  const violations: string[] = [];
  page.on("console", (m) => {
    if (/Content[- ]Security[- ]Policy|Refused to/i.test(m.text())) violations.push(m.text());
  });
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) =>
      console.error(`Refused to load: Content-Security-Policy ${e.violatedDirective} ${e.blockedURI}`),
    );
  });
  await playground.goto();
  expect(
    await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute("content"),
  ).not.toContain("unsafe-eval");
  // Monaco's editor and YAML workers run: hover and markers come from them.
  await playground.appendText("\nbad: [\n");
  await expect(page.locator(".monaco-editor .squiggly-error").first()).toBeAttached({ timeout: 20_000 });
  await playground.graph.waitForDrawn();
  expect(violations).toEqual([]);
});
