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

test("at S (189 pods) the matrix draws only the cells in view, scrolls to the rest, and a cell still opens its trace", async ({
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
  const last = await matrix.locator("button.cell").last().getAttribute("data-from");
  await region.evaluate((el) => el.scrollTo(0, el.scrollHeight));
  await expect(matrix.locator("button.cell").last()).not.toHaveAttribute("data-from", last ?? "");
  await matrix.locator("button.cell").last().click();
  await expect(playground.traceVerdict()).toBeVisible();
});
