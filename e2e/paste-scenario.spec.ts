/**
 * Issue 30, point 4: a paste is a new scenario. Pasting other manifests over an open lesson resets
 * its question, the lesson, filters that no longer apply and the opened boxes, with one Undo; and
 * the share link of what is on screen opens the same picture.
 */
import { readFileSync } from "node:fs";
import { test, expect } from "./fixtures.ts";
import { WorkshopPanel } from "./pages/WorkshopPanel.ts";

test.use({ viewport: { width: 1440, height: 900 } });
const bookinfo = readFileSync("e2e/fixtures/real-apps/bookinfo.yaml", "utf8");

test("a paste over a lesson resets the lesson, the question, a filter that no longer applies and the opened boxes; Undo puts them back", async ({
  playground,
  page,
}) => {
  await playground.goto("./#lesson=12");
  const workshop = new WorkshopPanel(page);
  await workshop.revealAnswer();
  await workshop.traceLessonQuestion(0);
  await expect(playground.traceVerdict()).toBeVisible();
  await page.getByLabel("Port").selectOption("80/TCP");
  await playground.onlyDrops();
  await expect(page).toHaveURL(/#lesson=12/);

  await playground.loadText(bookinfo);
  await expect(workshop.lesson).toHaveCount(0);
  await expect(page).not.toHaveURL(/lesson=/);
  await expect(playground.traceVerdict()).toHaveCount(0);
  await expect(playground.notice()).toContainText("The pasted text is a new scenario");
  // Port 80 is not in Bookinfo: the filter goes back to all; Only drops still applies (and says why nothing shows).
  await expect(page.getByLabel("Port")).toHaveValue("all");
  await expect(page.getByLabel("Only drops")).toBeChecked();
  await expect(page.getByTestId("drops-none")).toBeVisible();

  await playground.notice().getByRole("button", { name: "Undo" }).click();
  await expect(workshop.lesson).toHaveAttribute("data-lesson", "12-serve-from-terminating-pods");
  await expect(page.getByLabel("Port")).toHaveValue("80/TCP");
  await expect(playground.traceVerdict()).toBeVisible();
});

test("the share link of what is on screen opens the same picture: verdicts, grouping, opened boxes, selection", async ({
  playground,
  browser,
}) => {
  await playground.goto("./#lesson=12");
  await playground.loadText(bookinfo);
  await playground.groupBy("workload");
  await playground.graph.node("group:workload:default/Deployment/reviews-v2").locator(".toggle").click();
  await playground.graph.clickNode("group:workload:default/Deployment/reviews-v1");
  const edges = await playground.graph.edges().count();
  const nodes = await playground.graph.root
    .locator(".react-flow__node")
    .evaluateAll((els) => els.map((e) => e.getAttribute("data-id")).sort());
  const url = await playground.share();

  const other = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page2 = await other.newPage();
  await page2.goto(url);
  const graph2 = page2.getByTestId("graph");
  await expect(graph2.locator('[data-testid="flow-edge"]').first()).toBeAttached({ timeout: 20_000 });
  // Verdicts shown (no lesson hides them), the same elements, the same selection.
  await expect(graph2.locator('[data-testid="flow-edge"][data-verdict="allow"]')).toHaveCount(edges);
  expect(
    (
      await graph2
        .locator(".react-flow__node")
        .evaluateAll((els) => els.map((e) => e.getAttribute("data-id")))
    ).sort(),
  ).toEqual(nodes);
  await expect(
    graph2.locator('.react-flow__node[data-id="group:workload:default/Deployment/reviews-v1"]'),
  ).toHaveClass(/selected/);
  await expect(page2.getByTestId("lesson")).toHaveCount(0);
  await other.close();
});
