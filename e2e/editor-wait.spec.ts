/**
 * When the editor loads (issue 33, load to drawn graph): Monaco's chunk and its model of the whole text are
 * seconds of work on a two-core machine. A large saved text's first picture comes first, however long its
 * analysis; when nothing will be drawn (safe mode), the editor loads without waiting for a picture.
 */
import { deflateRawSync } from "node:zlib";
import type { Page } from "@playwright/test";
import { test, expect } from "./fixtures.ts";
// @ts-expect-error: the bench generator is plain JavaScript
import { generate } from "../bench/generate.mjs";

test.use({ viewport: { width: 1280, height: 720 } });

/** The saved work as the playground reads it, and a probe of when Monaco's editor first appears. */
async function openWith(page: Page, text: string, unfinishedLoad: boolean) {
  await page.addInitScript(
    ([work, flag]) => {
      localStorage.setItem("ktl.work.v1", work);
      if (flag) localStorage.setItem("ktl.loading.v1", JSON.stringify({ at: 0 }));
      const seen = new MutationObserver(() => {
        if (!document.querySelector(".monaco-editor")) return;
        performance.mark("test:editor-mounted");
        seen.disconnect();
      });
      addEventListener("DOMContentLoaded", () =>
        seen.observe(document.body, { childList: true, subtree: true }),
      );
    },
    // Stored as the playground stores a large text (persistence.ts): deflated, or it would not fit in storage.
    [
      JSON.stringify({
        deflated: deflateRawSync(Buffer.from(text, "utf8"), { level: 1 }).toString("base64url"),
      }),
      unfinishedLoad,
    ] as const,
  );
  await page.goto("./");
}

const markAt = (page: Page, prefix: string) =>
  page.evaluate(
    (p) => performance.getEntriesByType("mark").find((m) => m.name.startsWith(p))?.startTime ?? null,
    prefix,
  );

test("a large saved text: the first picture is drawn before the editor loads", async ({
  page,
  playground,
}) => {
  test.setTimeout(180_000);
  // L (about 10,000 pods, 7.7 MB): its analysis takes longer than a small text's wait for the picture.
  await openWith(page, (generate("L") as { text: string }).text, false);
  await expect(playground.editor).toBeVisible({ timeout: 120_000 });
  const drawn = await markAt(page, "ktl:graph-drawn:");
  const mounted = await markAt(page, "test:editor-mounted");
  expect(drawn, "a picture was drawn by the time the editor is ready").not.toBeNull();
  expect(mounted, "the editor mounted").not.toBeNull();
  expect(drawn!).toBeLessThan(mounted!);
});

test("safe mode draws nothing, and the editor loads without waiting for a picture", async ({
  page,
  playground,
}) => {
  test.setTimeout(120_000);
  await openWith(page, (generate("L") as { text: string }).text, true);
  await expect(page.getByTestId("engine-status")).toHaveAttribute("data-status", "paused");
  // The editor is there and editable while no graph has been drawn (the wait for a picture is 30 s).
  await expect(playground.editor).toBeVisible({ timeout: 20_000 });
  expect(await markAt(page, "ktl:graph-drawn:")).toBeNull();
});
