/** Issue 34, item 4: each problem's code links to its section of the rules page, as SARIF's helpUri does. */
import { test, expect } from "./fixtures.ts";

test("a problem's code opens its rule on the rules page, in a new tab", async ({ playground }) => {
  await playground.goto();
  await playground.loadText(
    [
      "apiVersion: v1",
      "kind: Service",
      "metadata: {name: web, namespace: shop}",
      "spec:",
      "  selector: {app: wbe}",
      "  ports: [{port: 80}]",
      "---",
      "apiVersion: v1",
      "kind: Pod",
      "metadata: {name: web-1, namespace: shop, labels: {app: web}}",
      "spec: {containers: [{name: c, image: nginx}]}",
      "",
    ].join("\n"),
  );
  const problems = await playground.openProblems();
  const link = problems.getByTestId("rule-link").first();
  await expect(link).toHaveAttribute("href", /\/docs\/rules\.md#ktl\d{3}$/);
  await expect(link).toHaveAttribute("target", "_blank");
  await expect(link).toHaveAttribute("rel", /noopener/);
  const code = (await link.innerText()).toLowerCase();
  await expect(link).toHaveAttribute("href", new RegExp(`#${code}$`));
});
