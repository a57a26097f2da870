/**
 * Issue 31, item 5: no text the user typed is ever lost. A `#url=` import keeps the work as the previous text
 * (a reload still has it) and can always be left (a server that trickles the body is cancelled, and the message
 * says so); a tab that stopped saving for another tab's text keeps its own through a reload, and asks before
 * it is closed.
 */
import { createServer, type Server, type ServerResponse } from "node:http";
import { test, expect } from "./fixtures.ts";
import { PlaygroundPage } from "./pages/PlaygroundPage.ts";

const SCENARIO = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: imported-from-url\n";

let files: Server;
let filesPort = 0;
const open = new Set<ServerResponse>();

test.beforeAll(async () => {
  // Another origin that allows cross-origin reads: /whole/ answers at once, /trickle/ sends a byte a second, forever.
  files = createServer((req, res) => {
    const headers = { "access-control-allow-origin": "*", "content-type": "text/yaml" };
    if (req.url?.startsWith("/whole/")) return void res.writeHead(200, headers).end(SCENARIO);
    res.writeHead(200, headers);
    open.add(res);
    const tick = setInterval(() => res.write("#"), 1000);
    res.on("close", () => {
      clearInterval(tick);
      open.delete(res);
    });
  });
  filesPort = await new Promise<number>((resolve) =>
    files.listen(0, "127.0.0.1", () => resolve((files.address() as { port: number }).port)),
  );
});

test.afterAll(async () => {
  for (const res of open) res.destroy();
  files?.close();
});

test("a #url= import keeps the user's text as the previous text, through a reload", async ({
  page,
  playground,
}) => {
  await playground.goto();
  await playground.appendText("\n# my own work\n");
  await expect
    .poll(() => page.evaluate(() => localStorage.getItem("ktl.work.v1") ?? ""))
    .toContain("my own work");
  await page.goto(`./#url=http://127.0.0.1:${filesPort}/whole/shop.yaml`);
  await page
    .getByRole("dialog", { name: "Open a scenario from a URL" })
    .getByRole("button", { name: "Open" })
    .click();
  await expect(page.getByTestId("notice")).toContainText("Your text is kept");
  expect(await playground.editorText()).toBe(SCENARIO);
  await expect
    .poll(() => page.evaluate(() => localStorage.getItem("ktl.work.v1") ?? ""))
    .toContain("imported-from-url");

  await page.reload();
  await expect(playground.editor).toBeVisible({ timeout: 20_000 });
  await page.getByTestId("restore-previous").click();
  await expect.poll(() => playground.editorText()).toContain("# my own work");
});

test("a #url= server that trickles the body can be cancelled while Opening…, and the text is unchanged", async ({
  page,
  playground,
}) => {
  await playground.goto();
  const before = await playground.editorText();
  await page.goto(`./#url=http://127.0.0.1:${filesPort}/trickle/shop.yaml`);
  const prompt = page.getByRole("dialog", { name: "Open a scenario from a URL" });
  await prompt.getByRole("button", { name: "Open" }).click();
  await expect(prompt.getByRole("button", { name: "Opening…" })).toBeDisabled();
  await page.waitForTimeout(1500);
  await expect(prompt.getByRole("button", { name: "Cancel" })).toBeEnabled();
  await prompt.getByRole("button", { name: "Cancel" }).click();
  await expect(prompt).toHaveCount(0);
  await expect(page.getByTestId("notice")).toContainText("opening was cancelled. Your text is unchanged.");
  expect(await playground.editorText()).toBe(before);
  expect(page.url()).not.toContain("url=");
});

test("a tab that stopped saving for another tab's text keeps its own through a reload, and asks before closing", async ({
  playground,
  page,
  context,
}) => {
  await playground.goto();
  const second = await context.newPage();
  const two = new PlaygroundPage(second);
  await two.goto();
  const saved = () => page.evaluate(() => localStorage.getItem("ktl.work.v1") ?? "");

  await playground.appendText("\n# edited in the first tab\n");
  await expect.poll(saved).toContain("edited in the first tab");
  await two.appendText("\n# edited in the second tab\n");
  await expect(second.getByTestId("tab-conflict")).toBeVisible();

  // Reloading the second tab before choosing: the browser asks first; leaving anyway, its text comes back.
  const dialogs: string[] = [];
  second.on("dialog", (d) => {
    dialogs.push(d.type());
    void d.accept();
  });
  await second.reload();
  expect(dialogs).toEqual(["beforeunload"]);
  await expect(two.editor).toBeVisible({ timeout: 20_000 });
  expect(await two.editorText()).toContain("edited in the second tab");
  await expect(second.getByTestId("tab-conflict")).toBeVisible();
  expect(await saved()).toContain("edited in the first tab");
  expect(await saved()).not.toContain("edited in the second tab");

  // Choosing ends it: the tab's text is saved and leaving asks nothing more.
  await second.getByTestId("tab-conflict").getByRole("button", { name: "Keep this tab's text" }).click();
  await expect.poll(saved).toContain("edited in the second tab");
  expect(await second.evaluate(() => sessionStorage.getItem("ktl.unsaved.v1"))).toBeNull();
  await second.close({ runBeforeUnload: true });
  expect(dialogs).toEqual(["beforeunload"]);
});
