/**
 * Issue 16, no lost work in the browser: a load that crashed the tab opens
 * the next time in safe mode (the text intact, the engine paused until asked);
 * two tabs never overwrite each other's saved text in silence; and the built
 * site runs under its Content-Security-Policy with no violation.
 */
import { deflateRawSync } from "node:zlib";
import { test, expect } from "./fixtures.ts";
import { PlaygroundPage } from "./pages/PlaygroundPage.ts";

test("a load whose tab crashed before its first drawing reopens in safe mode with the text intact, and resumes on request", async ({
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

  // The next load of that text crashes the tab before its first drawing: the engine worker's script is held back
  // (so nothing can be drawn), the start code writes its flag, and Chromium's renderer is killed (CDP Page.crash),
  // as an out-of-memory kill would. No pagehide runs: the flag the real start code wrote is what is left behind.
  await page.route(/engine\.worker[^/]*\.js/, async (route) => {
    await new Promise((r) => setTimeout(r, 15_000));
    await route.continue().catch(() => undefined);
  });
  await page.reload();
  await page.waitForFunction(() => localStorage.getItem("ktl.loading.v1") !== null);
  const crashed = page.waitForEvent("crash");
  const cdp = await context.newCDPSession(page);
  void cdp.send("Page.crash").catch(() => undefined);
  await crashed;

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

test("another site cannot frame the playground: frame-ancestors comes as a header, with the rest of the policy", async ({
  page,
  baseURL,
}) => {
  // The preview serves the build as a host that reads the build's `_headers` file does.
  const response = await page.request.get(baseURL!);
  const policy = response.headers()["content-security-policy"] ?? "";
  expect(policy).toContain("frame-ancestors 'none'");
  expect(policy).toContain("script-src 'self'");
  expect(response.headers()["x-frame-options"]).toBe("DENY");

  // A page of another origin (about:blank here) frames it: the browser refuses, the app never starts inside.
  await page.setContent(`<iframe id="ktl" src="${baseURL}" width="800" height="600"></iframe>`);
  const frame = page.frameLocator("#ktl");
  await expect(frame.locator("#root")).toHaveCount(0);
});

test("a text over 200 kB keeps its YAML colouring but never starts monaco-yaml's worker; a small one is served by it", async ({
  playground,
  page,
}) => {
  // monaco-yaml's worker re-read the whole document on every change (links, code lenses, symbols) even with
  // validation off: at 10,000 pods its heap grew by about 400 MB an edit until the tab crashed, and at 2,000
  // it took a core from the engine while typing (mount.ts, SCHEMA_LIMIT).
  test.setTimeout(120_000);
  const pods = Array.from(
    { length: 1_000 },
    (_, i) =>
      `apiVersion: v1\nkind: Pod\nmetadata:\n  name: pod-${i}\n  namespace: default\n  labels: {app: web-${i % 40}, team: shop}\nspec:\n  nodeName: node-1\n  containers:\n  - name: c\n    image: nginx:1.27\n    ports: [{containerPort: 8080, name: http}]\n`,
  ).join("---\n");
  expect(pods.length).toBeGreaterThan(200_000);
  // The saved work, as the playground stores a large text (persistence.ts): deflated.
  const saved = JSON.stringify({ deflated: deflateRawSync(Buffer.from(pods, "utf8")).toString("base64url") });
  await page.addInitScript((v) => localStorage.setItem("ktl.work.v1", v), saved);
  const yamlWorkers = () => page.workers().filter((w) => /yaml\.worker/.test(w.url())).length;
  // No Service, so no edge to wait for: the page is ready when the Details intro counts the pods.
  await page.goto("./");
  await expect(page.getByText(/1,?000 pods/).first()).toBeVisible({ timeout: 60_000 });
  await expect(page.locator(".monaco-editor .view-lines")).toContainText("apiVersion");
  const colours = await page
    .locator(".monaco-editor .view-lines span[class*='mtk']")
    .evaluateAll((spans) => new Set(spans.map((s) => s.className)).size);
  expect(colours).toBeGreaterThan(2);
  await page.waitForTimeout(2_000);
  expect(yamlWorkers()).toBe(0);
  // Under the limit, monaco-yaml serves the text: its worker starts.
  await playground.pasteText("apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n");
  await expect.poll(yamlWorkers, { timeout: 20_000 }).toBe(1);
});

test("an app chunk that never arrives is a message, not a blank page", async ({ playground, page }) => {
  void playground;
  // The entry (main.tsx) starts the engine worker and then imports the app's chunk: that import fails here.
  await page.route(/\/boot-[^/]*\.js$/, (route) => route.abort());
  await page.goto("./");
  const alert = page.getByRole("alert");
  await expect(alert).toContainText("Kube Traffic Lab could not load.");
  await expect(alert).toContainText("Reload the page");
});
