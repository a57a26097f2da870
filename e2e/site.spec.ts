/**
 * The built site deploys anywhere: served from a sub-path it loads, draws and
 * opens lessons by hash; and `#url=` opens a scenario from another server
 * only after asking, explaining a server that does not allow cross-origin reads.
 */
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import { readFile } from "node:fs/promises";
import { extname, join, normalize } from "node:path";
import { test, expect } from "./fixtures.ts";
import { WorkshopPanel } from "./pages/WorkshopPanel.ts";

const DIST = join(import.meta.dirname, "..", "dist");
const SUB = "/teams/networking/kube-traffic-lab/";
const TYPES: Record<string, string> = {
  ".html": "text/html",
  ".js": "text/javascript",
  ".css": "text/css",
  ".svg": "image/svg+xml",
  ".json": "application/json",
  ".png": "image/png",
  ".woff2": "font/woff2",
  ".ttf": "font/ttf",
};

const SCENARIO = `apiVersion: v1
kind: Namespace
metadata:
  name: imported-from-url
---
apiVersion: v1
kind: Pod
metadata:
  name: web
  namespace: imported-from-url
  labels: {app: web}
spec:
  containers: [{name: web, image: nginx, ports: [{containerPort: 80}]}]
---
apiVersion: v1
kind: Pod
metadata:
  name: client
  namespace: imported-from-url
spec:
  containers: [{name: c, image: curl}]
`;

function listen(server: Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve((server.address() as { port: number }).port)),
  );
}

let site: Server;
let files: Server;
let sitePort = 0;
let filesPort = 0;

test.beforeAll(async () => {
  // dist/ under a sub-path, as GitHub Pages or any static host serves a project site.
  site = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    if (!path.startsWith(SUB)) return void res.writeHead(404).end("not under the sub-path");
    const rel = normalize(path.slice(SUB.length) || "index.html").replace(/^(\.\.[/\\])+/, "");
    readFile(join(DIST, rel))
      .then((body) =>
        res.writeHead(200, { "content-type": TYPES[extname(rel)] ?? "application/octet-stream" }).end(body),
      )
      .catch(() => res.writeHead(404).end());
  });
  // Another origin: /cors/ allows cross-origin reads (as raw file hosts do), /private/ does not.
  files = createServer((req, res) => {
    if (req.url?.startsWith("/cors/"))
      return void res
        .writeHead(200, { "access-control-allow-origin": "*", "content-type": "text/yaml" })
        .end(SCENARIO);
    res.writeHead(200, { "content-type": "text/yaml" }).end(SCENARIO);
  });
  sitePort = await listen(site);
  filesPort = await listen(files);
});

test.afterAll(async () => {
  site?.close();
  files?.close();
});

test("served from a sub-path it draws the default scenario and opens a lesson by hash", async ({
  page,
  playground,
}) => {
  await playground.goto(`http://127.0.0.1:${sitePort}${SUB}`);
  await expect(playground.graph.edges().first()).toHaveAttribute("data-verdict", /allow|drop|partial/);
  await playground.goto(`http://127.0.0.1:${sitePort}${SUB}#lesson=5`);
  await expect(new WorkshopPanel(page).lesson).toHaveAttribute(
    "data-lesson",
    "05-allow-one-caller-after-default-deny",
  );
});

test("the README's preview command serves the built site under its sub-path", async ({ playground }) => {
  // The hosted site section's example, run as written but on a free port (e2e runs after the build).
  const readme = await readFile(join(import.meta.dirname, "..", "README.md"), "utf8");
  const section = readme.slice(
    readme.indexOf("### The hosted site"),
    readme.indexOf("\n### ", readme.indexOf("### The hosted site") + 5),
  );
  const line = /^npx vite preview .*$/m.exec(section)?.[0].replace(/\s+#.*$/, "");
  expect(line).toBeDefined();
  const base = /--base (\S+)/.exec(line!)?.[1];
  expect(base).toBe(SUB);
  // A port nobody uses: the one the system hands out, freed again.
  const probe = createServer();
  const port = await listen(probe);
  await new Promise((r) => probe.close(r));
  const args = line!
    .split(/\s+/)
    .slice(1)
    .map((a, i, all) => (all[i - 1] === "--port" ? String(port) : a));
  const preview = spawn("npx", [...args, "--host", "127.0.0.1", "--strictPort"], {
    cwd: join(import.meta.dirname, ".."),
    stdio: "ignore",
    // Its own process group: npx starts vite as a child, and both must stop with the test.
    detached: true,
  });
  try {
    await expect
      .poll(
        () =>
          fetch(`http://127.0.0.1:${port}${SUB}`).then(
            (r) => r.status,
            () => 0,
          ),
        { timeout: 20_000 },
      )
      .toBe(200);
    await playground.goto(`http://127.0.0.1:${port}${SUB}`);
    await expect(playground.graph.edges().first()).toHaveAttribute("data-verdict", /allow|drop|partial/);
  } finally {
    if (preview.pid) process.kill(-preview.pid, "SIGTERM");
  }
});

test("#url= asks first, then opens the file, with Undo", async ({ page, playground }) => {
  await playground.goto();
  let requests = 0;
  page.on("request", (r) => {
    if (r.url().includes(`:${filesPort}/`)) requests++;
  });
  await page.goto(`./#url=http://127.0.0.1:${filesPort}/cors/shop.yaml`);
  const prompt = page.getByRole("dialog", { name: "Open a scenario from a URL" });
  await expect(prompt).toContainText("the only request Kube Traffic Lab makes outside your browser");
  expect(requests).toBe(0);
  await prompt.getByRole("button", { name: "Open" }).click();
  await expect(page.getByTestId("notice")).toContainText(`Opened shop.yaml from 127.0.0.1:${filesPort}`);
  expect(requests).toBe(1);
  expect(await playground.editorText()).toBe(SCENARIO);
  expect(page.url()).not.toContain("url=");
  await page.getByTestId("notice").getByRole("button", { name: "Restore previous text" }).click();
  expect(await playground.editorText()).not.toContain("imported-from-url");
});

test("#url= to a server without CORS says so and keeps the text", async ({ page, playground }) => {
  await playground.goto();
  const before = await playground.editorText();
  await page.goto(`./#url=http://127.0.0.1:${filesPort}/private/shop.yaml`);
  await page
    .getByRole("dialog", { name: "Open a scenario from a URL" })
    .getByRole("button", { name: "Open" })
    .click();
  await expect(page.getByTestId("notice")).toContainText(
    "does not allow other sites to read its files (no CORS header)",
  );
  expect(await playground.editorText()).toBe(before);
});
