import { test, expect } from "./fixtures.ts";

const HOSTILE = `apiVersion: v1
kind: Node
metadata:
  name: "<b>node</b>"
---
apiVersion: v1
kind: Pod
metadata:
  name: "<img src=x onerror=window.__pwned=1>"
  namespace: "<script>window.__pwned=2</script>"
  labels:
    app: "<svg onload=window.__pwned=3>"
spec:
  nodeName: "<b>node</b>"
  containers:
    - name: c
      image: i
      ports: [{containerPort: 80}]
---
apiVersion: v1
kind: Pod
metadata:
  name: plain
  namespace: "<script>window.__pwned=2</script>"
spec:
  nodeName: "<b>node</b>"
  containers: [{name: c, image: i}]
`;

test("names and labels that look like HTML are shown as text, never run as markup", async ({
  playground,
  page,
}) => {
  await playground.goto();
  await playground.pasteText(HOSTILE);
  const graph = playground.graph.root;
  // The paths lens shortens long names in the middle and carries the full name in the element's title.
  await expect(
    playground.graph
      .node("pod:<script>window.__pwned=2</script>/<img src=x onerror=window.__pwned=1>")
      .locator("[title]")
      .first(),
  ).toHaveAttribute("title", /^<img src=x onerror=window.__pwned=1>\n/);
  // The topology lens shows cluster nodes and full names.
  await page.getByRole("combobox", { name: "View" }).selectOption("topology");
  await expect(graph.getByText("<img src=x onerror=window.__pwned=1>", { exact: true })).toBeVisible();
  await expect(graph.getByText("<b>node</b>", { exact: true })).toBeVisible();
  await playground.graph
    .node("pod:<script>window.__pwned=2</script>/<img src=x onerror=window.__pwned=1>")
    .click();
  await expect(playground.details).toContainText("app=<svg onload=window.__pwned=3>");
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  await expect(page.locator("#root img[src='x'], #root b, #root script")).toHaveCount(0);
});

test("the layout is usable at 1280x720 and reachable by keyboard", async ({ playground, page }) => {
  await playground.goto();
  const separator = page.getByRole("separator", { name: "Resize the editor" });
  await separator.focus();
  const before = Number(await separator.getAttribute("aria-valuenow"));
  await page.keyboard.press("ArrowRight");
  await expect(separator).toHaveAttribute("aria-valuenow", String(before + 2));
  const share = page.getByRole("button", { name: "Share", exact: true });
  await share.focus();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/#share=/);
  for (const name of ["Share", "Download"]) {
    const box = await page.getByRole("button", { name, exact: true }).boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(1280);
  }
});

test("the dark theme is one click away and survives a reload", async ({ playground, page }) => {
  await playground.goto();
  const html = page.locator("html");
  const start = await html.getAttribute("data-theme");
  const other = start === "dark" ? "light" : "dark";
  await page.getByRole("button", { name: `Switch to ${other} theme` }).click();
  await expect(html).toHaveAttribute("data-theme", other);
  await page.reload();
  await expect(html).toHaveAttribute("data-theme", other);
});
