import { fileURLToPath } from "node:url";
import { test, expect } from "./fixtures.ts";
import { WorkshopPanel } from "./pages/WorkshopPanel.ts";

/** Lesson 39's conntrack export: three rows, two of which its manifests predict dropped (the CNI enforces nothing). */
const FLOWS = fileURLToPath(
  new URL("../scenarios/39-catch-a-policy-the-cni-ignores/flows.csv", import.meta.url),
);

test("the Observed tab compares a flow file with the manifests, row by row, as ktl observe does; veiled until the lesson's reveal", async ({
  playground,
  page,
}) => {
  await playground.goto("./#lesson=39");
  await page.getByRole("tab", { name: /Observed/ }).click();
  const panel = page.getByTestId("observe-panel");
  await panel.getByTestId("observe-file").setInputFiles(FLOWS);
  // The rows state verdicts: before the reveal they stay veiled, and the tab's badge does not count them.
  await expect(panel.getByTestId("veil")).toBeVisible();
  await expect(page.getByRole("tab", { name: /Observed/ })).not.toContainText("≠");
  await new WorkshopPanel(page).revealAnswer();
  // The reveal opens the details of the lesson's question: back to the tab.
  await page.getByRole("tab", { name: /Observed/ }).click();
  await expect(panel.getByTestId("observe-status")).toHaveText(
    "3 records: 3 matched, 0 unmatched. 2 of 3 rows disagree with the manifests.",
  );
  const rows = panel.getByTestId("observe-row");
  await expect(rows).toHaveCount(3);
  await expect(rows.nth(0)).toHaveAttribute("data-case", "observed-forwarded-but-predicted-dropped");
  await expect(rows.nth(0)).toContainText("the flannel profile");
  await expect(page.getByRole("tab", { name: /Observed/ })).toContainText("2 ≠");
});
