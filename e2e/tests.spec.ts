import { test, expect } from "./fixtures.ts";

/** One expectation that holds in the default scenario and one that does not (the toolbox is denied by shop/default-deny-ingress). */
const TESTS = `tests:
  - name: the storefront reaches the backend
    from: shop/frontend
    to: service:shop/backend:80
    expect: allow
  - name: the toolbox reaches the backend
    from: tools/toolbox
    to: service:shop/backend:80
    expect: allow
`;

/** The fix: a NetworkPolicy that lets the tools namespace in (src/worker/handlers.test.ts checks the same). */
const FIX = `
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: backend-from-tools
  namespace: shop
spec:
  podSelector:
    matchLabels:
      app: backend
  ingress:
    - from:
        - namespaceSelector:
            matchLabels:
              kubernetes.io/metadata.name: tools
`;

test("the Tests tab runs a ktl test file: pass and fail per expectation, failures marked on the graph, and the marks follow a fix", async ({
  playground,
  page,
}) => {
  await playground.goto();
  await page.getByRole("tab", { name: /Tests/ }).click();
  const panel = page.getByTestId("tests-panel");
  await panel.getByTestId("tests-text").fill(TESTS);
  await panel.getByTestId("tests-run").click();
  await expect(panel.getByTestId("tests-status")).toHaveText("1 passed, 1 failed");
  const results = panel.getByTestId("test-result");
  await expect(results).toHaveCount(2);
  await expect(results.nth(0)).toHaveAttribute("data-pass", "true");
  await expect(results.nth(0)).toContainText("PASS");
  await expect(results.nth(1)).toHaveAttribute("data-pass", "false");
  await expect(results.nth(1)).toContainText(
    "pod:tools/toolbox -> service:shop/backend:80: drop, expected allow",
  );

  await expect(
    results.nth(1).getByRole("button", { name: /NetworkPolicy shop\/default-deny-ingress · line/ }),
  ).toBeVisible();

  // The graph marks the failing expectation's edges (a tag, not colour alone), and only those.
  const g = playground.graph;
  const failed = g.edge("pod:tools/toolbox", "service:shop/backend");
  await expect(failed).toHaveAttribute("data-test-failed", "true");
  await expect(
    page.locator(`[data-edge-label="${await failed.getAttribute("data-edge-id")}"]`),
  ).toContainText("✗ test failed");
  await expect(g.edge("pod:shop/frontend-0", "service:shop/backend")).not.toHaveAttribute(
    "data-test-failed",
    "true",
  );
  await expect(page.getByRole("group", { name: "Legend" }).locator('[data-note="test"]')).toBeVisible();

  // Selecting the expectation lights its path and keeps the Tests tab open.
  await results.nth(1).getByRole("button", { name: "the toolbox reaches the backend" }).click();
  await expect(failed).toHaveClass(/\blit\b/);
  await expect(page.getByRole("tab", { name: /Tests/ })).toHaveAttribute("aria-selected", "true");

  // Fix the YAML: the tests run again with the new analysis, and the mark goes.
  await playground.appendText(FIX);
  await expect(panel.getByTestId("tests-status")).toHaveText("2 passed, 0 failed");
  await expect(page.locator('[data-test-failed="true"]')).toHaveCount(0);
  await expect(g.edge("pod:tools/toolbox", "service:shop/backend")).toHaveAttribute("data-verdict", "allow");

  // The deciding rule links into the editor, as the Inspector's links do.
  const rule = results.nth(1).getByRole("button", { name: /NetworkPolicy shop\/backend-from-tools · line/ });
  await rule.click();
  await expect(playground.cursorLine()).toContainText(`Line ${await rule.getAttribute("data-line")},`);

  // A bad test file: a clear message with its line, and nothing runs.
  await panel.getByTestId("tests-text").fill(TESTS.replace("expect: allow\n", "expect: alow\n"));
  await expect(panel.getByTestId("tests-problems")).toContainText("tests.yaml line 5");
  await expect(panel.getByTestId("tests-problems")).toContainText(
    'expect must be allow, drop or partial, not "alow"',
  );
  await expect(results).toHaveCount(0);
});
