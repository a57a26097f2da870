import { test, expect } from "./fixtures.ts";
import { PlaygroundPage } from "./pages/PlaygroundPage.ts";

test.describe("sharing and keeping work", () => {
  test("a share link round-trips the exact text in a fresh browser context", async ({
    playground,
    browser,
    baseURL,
  }) => {
    await playground.goto();
    await playground.appendText("\n# shared by Zoë: ünïcödé, tabs\tand <b>markup</b>\n");
    await playground.graph.waitForDrawn();
    const sent = await playground.editorText();
    expect(sent).toContain("shared by Zoë");
    const url = await playground.share();
    await expect(playground.notice()).toContainText("nothing leaves your browser");

    const fresh = await browser.newContext(baseURL ? { baseURL } : {});
    try {
      const page = await fresh.newPage();
      const other = new PlaygroundPage(page);
      await other.goto(url);
      expect(await other.editorText()).toBe(sent);
      await other.graph.expectEdge("pod:tools/toolbox", "service:shop/backend", "drop");
    } finally {
      await fresh.close();
    }
  });

  test("a damaged link says so and opens the default scenario", async ({ playground }) => {
    await playground.goto("./#share=ATWPQU7DMBBFrzIy-damaged");
    await expect(playground.notice()).toContainText("damaged");
    await playground.graph.expectEdge("pod:tools/toolbox", "service:shop/backend", "drop");
    await expect(playground.page).not.toHaveURL(/#share=/);
  });

  test("a damaged link keeps the work already in this browser", async ({ playground, page }) => {
    await playground.goto();
    await playground.appendText("\n# my own work\n");
    await expect
      .poll(() => page.evaluate(() => localStorage.getItem("ktl.work.v1") ?? ""))
      .toContain("my own work");
    // Open the damaged link as a new page load (a pasted link in the same tab only changes the hash).
    await playground.page.goto("about:blank");
    await playground.goto("./#share=AQ");
    await expect(playground.notice()).toContainText("Your own text is open as you left it");
    expect(await playground.editorText()).toContain("# my own work");
  });

  test("a reload keeps unsaved edits", async ({ playground, page }) => {
    await playground.goto();
    await playground.appendText("\n# edited, not shared, not downloaded\n");
    const edited = await playground.editorText();
    await page.reload();
    await playground.graph.waitForDrawn();
    await expect(playground.editor).toBeVisible();
    expect(await playground.editorText()).toBe(edited);
  });
});
