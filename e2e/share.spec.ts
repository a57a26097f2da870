import { test, expect } from "./fixtures.ts";
import { PlaygroundPage } from "./pages/PlaygroundPage.ts";
import { WorkshopPanel } from "./pages/WorkshopPanel.ts";
import { encodeShare, hashFor } from "../src/share/codec.ts";

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

  test("a link with a before-state (the GitHub Action's) opens the after-state with its changes marked", async ({
    playground,
    page,
    browser,
    baseURL,
  }) => {
    // The before and after of a change whose marks are known: draining node-a (what-if.spec.ts).
    await playground.goto();
    const before = await playground.editorText();
    const w = new WorkshopPanel(page);
    await w.applyWhatIf("Drain a node", "node-a");
    const summary =
      "4 flows lost, 1 gained; 6 workload connections (6 removed); 1 endpoint vanishes, 1 appears";
    await w.expectDiff(summary);
    const after = await playground.editorText();
    const link = encodeShare({ text: after, before });
    if (!link.ok) throw new Error(link.error);

    const fresh = await browser.newContext(baseURL ? { baseURL } : {});
    try {
      const other = new PlaygroundPage(await fresh.newPage());
      await other.goto(`./${hashFor(link.payload)}`);
      expect(await other.editorText()).toBe(after);
      await new WorkshopPanel(other.page).expectDiff(summary);
      await expect(other.graph.edge("pod:shop/backend-1", "service:shop/cache")).toHaveAttribute(
        "data-diff",
        "gained",
      );
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

  test("a share link and a reload keep the question, the filters, the tabs and the lesson step", async ({
    playground,
    page,
    browser,
    baseURL,
  }) => {
    await playground.goto("./#lesson=5");
    // Verdicts, and the filters by verdict, come with the lesson's answer.
    await page.getByTestId("lesson").getByRole("button", { name: "Reveal the answer" }).click();
    await playground.graph.clickEdge("pod:shop/orders", "service:shop/payments");
    await expect(playground.traceVerdict()).toBeVisible();
    const verdict = await playground.traceVerdict().getAttribute("data-verdict");
    await page.getByLabel("Only drops").check();
    await page.getByRole("tab", { name: /Problems/ }).click();
    await page.getByRole("tab", { name: "Matrix" }).click();

    const expectView = async (p: typeof page) => {
      await expect(p.getByRole("tab", { name: "Matrix" })).toHaveAttribute("aria-selected", "true");
      await expect(p.getByRole("tab", { name: /Problems/ })).toHaveAttribute("aria-selected", "true");
      await expect(p.getByTestId("lesson")).toHaveAttribute(
        "data-lesson",
        "05-allow-one-caller-after-default-deny",
      );
      await expect(p.getByTestId("lesson").getByTestId("lesson-answer")).toBeVisible();
      await p.getByRole("tab", { name: "Graph" }).click();
      await expect(p.getByLabel("Only drops")).toBeChecked();
      await p.getByRole("tab", { name: "Details" }).click();
      await expect(p.getByTestId("trace-verdict")).toHaveAttribute("data-verdict", verdict!);
      await expect(p.getByRole("combobox", { name: "Source", exact: true })).toHaveValue("pod:shop/orders");
    };

    // A reload keeps the view (saved beside the text).
    await expect
      .poll(() => page.evaluate(() => localStorage.getItem("ktl.view.v1") ?? ""))
      .toContain('"tab":"matrix"');
    await page.reload();
    await expectView(page);

    // The link carries it to a fresh browser.
    await page.getByRole("tab", { name: /Problems/ }).click();
    await page.getByRole("tab", { name: "Matrix" }).click();
    await page.getByRole("button", { name: "Share", exact: true }).click();
    await expect(page).toHaveURL(/#share=/);
    const url = page.url();
    const fresh = await browser.newContext(baseURL ? { baseURL } : {});
    try {
      const other = await fresh.newPage();
      await other.goto(url);
      await expectView(other);
    } finally {
      await fresh.close();
    }
  });

  test("pasted text gets its own name, used by the download; a long link offers the file instead", async ({
    playground,
    page,
  }) => {
    await playground.goto();
    await expect(page.getByTestId("scenario-name")).toHaveAttribute("data-name", "A shop across two zones");
    const pods = Array.from(
      { length: 400 },
      (_, i) =>
        `apiVersion: v1\nkind: Pod\nmetadata:\n  name: p${i}-${(i * 7919).toString(36)}\n  namespace: ${i % 2 ? "payments" : "web"}\n  labels: {app: a${(i * 104729).toString(36)}}\nspec:\n  containers: [{name: c, image: img-${(i * 15485863).toString(36)}}]\n`,
    ).join("---\n");
    await playground.pasteText(pods);
    await expect(page.getByTestId("scenario-name")).toHaveAttribute("data-name", "web, payments");
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download", exact: true }).click(),
    ]);
    expect(download.suggestedFilename()).toBe("web-payments.yaml");
    await page.getByRole("button", { name: "Share", exact: true }).click();
    await expect(playground.notice()).toContainText("This link is long");
    const [file] = await Promise.all([
      page.waitForEvent("download"),
      playground.notice().getByRole("button", { name: "Download the file" }).click(),
    ]);
    expect(file.suggestedFilename()).toBe("web-payments.yaml");
  });
});
