import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { test, expect } from "./fixtures.ts";
// @ts-expect-error: the bench generator is plain JavaScript
import { generate } from "../bench/generate.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const scenario = "scenarios/01-trace-a-shop-across-zones/manifests.yaml";

interface Reach {
  pods: string[];
  allowed: boolean[][];
}

test("the matrix matches the engine (ktl reach --json), and a cell opens its trace", async ({
  playground,
}) => {
  const reach = JSON.parse(
    execFileSync(process.execPath, ["bin/ktl", "reach", "--json", "--port", "8080", scenario], {
      cwd: root,
      encoding: "utf8",
    }),
  ) as Reach;
  await playground.goto();
  const matrix = await playground.openMatrix();
  await playground.page.getByRole("button", { name: "8080/TCP http" }).click();
  const cells = matrix.locator("button.cell");
  await expect(cells).toHaveCount(reach.pods.length ** 2);
  for (const [i, from] of reach.pods.entries()) {
    for (const [j, to] of reach.pods.entries()) {
      await expect(
        matrix.locator(`button.cell[data-from="pod:${from}"][data-to="pod:${to}"]`),
      ).toHaveAttribute("data-verdict", reach.allowed[i]![j] ? "allow" : "drop");
    }
  }
  await matrix.locator('button.cell[data-from="pod:tools/toolbox"][data-to="pod:shop/backend-0"]').click();
  await expect(playground.traceVerdict()).toHaveAttribute("data-verdict", "drop");
});

test("at S (189 pods) the matrix draws only the cells in view, is one tab stop moved by the grid keys, scrolls to the rest, and a cell still opens its trace", async ({
  playground,
  page,
}) => {
  test.setTimeout(120_000);
  await playground.goto();
  const graph = page.getByTestId("graph");
  const before = await graph.getAttribute("data-revision");
  await playground.pasteText((generate("S") as { text: string }).text);
  await expect(graph).not.toHaveAttribute("data-revision", before ?? "", { timeout: 90_000 });
  const matrix = await playground.openMatrix();
  const region = matrix.locator(".matrix-virtual");
  await expect(region).toHaveAttribute("data-rows", "189", { timeout: 30_000 });
  const cells = matrix.locator("button.cell");
  const drawn = await cells.count();
  expect(drawn).toBeGreaterThan(20);
  expect(drawn).toBeLessThan((189 * 189) / 10);

  // A WAI-ARIA grid: its size announced, one tab stop, the keys move the active cell and scroll it into view.
  const grid = matrix.getByRole("grid");
  await expect(grid).toHaveAttribute("aria-rowcount", "190");
  await expect(grid).toHaveAttribute("aria-colcount", "190");
  await expect(grid.getByRole("rowheader").first()).toHaveAttribute("aria-colindex", "1");
  await expect(grid.getByRole("columnheader").nth(1)).toHaveAttribute("aria-colindex", "2");
  await expect(matrix.locator('button.cell[tabindex="0"]')).toHaveCount(1);
  await page.getByLabel("Matrix rows").focus();
  await page.keyboard.press("Tab");
  /** The focused cell: its position, its row's and cell's ARIA indexes, and whether it shows clear of the sticky headers. */
  const focused = () =>
    page.evaluate(() => {
      const b = document.activeElement as HTMLElement;
      if (!b.matches("button.cell")) return undefined;
      const region = b.closest(".matrix-virtual")!;
      const r = b.getBoundingClientRect();
      const box = region.getBoundingClientRect();
      return {
        row: Number(b.dataset.row),
        col: Number(b.dataset.col),
        rowindex: b.closest('[role="row"]')!.getAttribute("aria-rowindex"),
        colindex: b.closest('[role="gridcell"]')!.getAttribute("aria-colindex"),
        shown:
          r.top >= box.top + 150 - 1 &&
          r.left >= box.left + 200 - 1 &&
          r.bottom <= box.top + region.clientHeight + 1 &&
          r.right <= box.left + region.clientWidth + 1,
      };
    });
  expect(await focused()).toEqual({ row: 0, col: 0, rowindex: "2", colindex: "2", shown: true });
  await page.keyboard.press("End");
  expect(await focused()).toMatchObject({ row: 0, col: 188, colindex: "190", shown: true });
  await page.keyboard.press("Control+End");
  expect(await focused()).toEqual({ row: 188, col: 188, rowindex: "190", colindex: "190", shown: true });
  await page.keyboard.press("PageUp");
  const paged = await focused();
  expect(paged).toMatchObject({ col: 188, shown: true });
  expect(paged!.row).toBeLessThan(188);
  expect(paged!.row).toBeGreaterThan(150);
  await page.keyboard.press("Home");
  expect(await focused()).toMatchObject({ row: paged!.row, col: 0, colindex: "2", shown: true });
  await page.keyboard.press("Control+Home");
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("ArrowRight");
  expect(await focused()).toEqual({ row: 1, col: 1, rowindex: "3", colindex: "3", shown: true });
  await expect(matrix.locator('button.cell[tabindex="0"]')).toHaveCount(1);
  // Enter opens the active cell's trace; Tab leaves the grid (no second stop inside it).
  await page.keyboard.press("Enter");
  await expect(playground.traceVerdict()).toBeVisible();
  await expect(matrix.locator('button.cell[data-row="1"][data-col="1"]')).toHaveAttribute(
    "aria-pressed",
    "true",
  );
  await page.keyboard.press("Tab");
  expect(await focused()).toBeUndefined();
  const last = await matrix.locator("button.cell").last().getAttribute("data-from");
  await region.evaluate((el) => el.scrollTo(0, el.scrollHeight));
  await expect(matrix.locator("button.cell").last()).not.toHaveAttribute("data-from", last ?? "");
  await matrix.locator("button.cell").last().click();
  await expect(playground.traceVerdict()).toBeVisible();
});
