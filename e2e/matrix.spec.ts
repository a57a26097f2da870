import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { test, expect } from "./fixtures.ts";

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
