// Browser figures for `npm run bench`: the production build served as
// `npm start` serves it, driven in Debian's Chromium through Playwright.
//
// - bundle sizes: every built script, raw and gzip; the main bundle is the
//   entry script index.html loads (Monaco, ELK and the engine are separate
//   chunks and workers, loaded later);
// - first load to a drawn default scenario: from navigation start to the
//   app's first `ktl:graph-drawn:*` User Timing mark, empty storage;
// - edit to redrawn graph at S and M: the tier's cluster is the saved work,
//   one paste of a new policy into the editor, from the keydown to the next
//   revision's draw mark (each paste is new text: no cached analysis);
// - layout time: each ELK request in the layout worker, from postMessage to
//   its answer, for the full graph of S and M on first load.
import { spawn, spawnSync } from "node:child_process";
import { createServer } from "node:net";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
const FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
const WORK_KEY = "ktl.work.v1";
const LOADS = 5;
const EDITS = 5;

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function waitForServer(url, ms) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    try {
      const r = await fetch(url);
      if (r.ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not answer within ${ms / 1000} s`);
}

function bundleSizes(dist, record) {
  const html = readFileSync(join(dist, "index.html"), "utf8");
  const entry = /<script type="module"[^>]*src="\.\/(assets\/[^"]+\.js)"/.exec(html)?.[1];
  const preloads = [...html.matchAll(/<link rel="modulepreload"[^>]*href="\.\/(assets\/[^"]+\.js)"/g)].map(
    (m) => m[1],
  );
  const assets = readdirSync(join(dist, "assets")).filter((f) => f.endsWith(".js"));
  const sizes = assets.map((f) => {
    const bytes = readFileSync(join(dist, "assets", f));
    return {
      file: `assets/${f}`,
      raw: bytes.length / 1000,
      gzip: gzipSync(bytes, { level: 9 }).length / 1000,
    };
  });
  const main = sizes.filter((s) => s.file === entry || preloads.includes(s.file));
  const mainGzip = main.reduce((n, s) => n + s.gzip, 0);
  const mainRaw = main.reduce((n, s) => n + s.raw, 0);
  record("-", "main bundle without Monaco (gzip)", "kB", [mainGzip], {
    browser: true,
    raw: Math.round(mainRaw),
    files: main.map((s) => s.file),
  });
  for (const s of sizes.sort((a, b) => b.gzip - a.gzip)) {
    if (main.includes(s)) continue;
    const name = s.file.replace(/^assets\//, "").replace(/-[\w-]{8}\.js$/, ".js");
    record("-", `chunk ${name} (gzip)`, "kB", [s.gzip], { browser: true, raw: Math.round(s.raw) });
  }
}

/** Runs in the page before any script: records layout worker round trips and the last keydown. */
function pageProbe() {
  window.__ktlBench = { layouts: [], keydown: 0 };
  const Native = window.Worker;
  const count = (n) => 1 + (n.children ?? []).reduce((k, c) => k + count(c), 0);
  window.Worker = class extends Native {
    constructor(url, options) {
      super(url, options);
      if (!String(url).includes("layout")) return;
      const sent = new Map();
      const post = this.postMessage.bind(this);
      this.postMessage = (m, ...rest) => {
        if (m && typeof m === "object" && "id" in m)
          sent.set(m.id, { t: performance.now(), nodes: m.graph ? count(m.graph) : 0 });
        post(m, ...rest);
      };
      this.addEventListener("message", (e) => {
        const s = sent.get(e.data?.id);
        if (s) window.__ktlBench.layouts.push({ ms: performance.now() - s.t, nodes: s.nodes });
      });
    }
  };
  window.addEventListener("keydown", () => (window.__ktlBench.keydown = performance.now()), true);
}

const drawMarks = (page) =>
  page.evaluate(() =>
    performance
      .getEntriesByType("mark")
      .filter((m) => m.name.startsWith("ktl:graph-drawn:"))
      .map((m) => ({ revision: Number(m.name.slice("ktl:graph-drawn:".length)), at: m.startTime })),
  );

async function waitForDraw(page, after, ms = 60_000) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const marks = (await drawMarks(page)).filter((m) => m.revision > after);
    if (marks.length) return marks[0];
    await page.waitForTimeout(20);
  }
  throw new Error(`no graph drawn after revision ${after} within ${ms / 1000} s`);
}

/** A policy that opens every pod of `namespace` to ingress: it turns edges, so the graph redraws. */
const openPolicy = (namespace, i) =>
  `\n---\napiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata:\n  name: bench-open-${i}\n  namespace: ${namespace}\nspec:\n  podSelector: {}\n  ingress:\n  - ${i % 2 ? "{}" : "ports: [{port: 8080}]"}\n`;

export async function measureBrowser({ root, record, log, clusterFile }) {
  if (!existsSync(CHROMIUM)) return { skipped: `no Chromium at ${CHROMIUM} (set CHROMIUM_PATH)` };
  let chromium;
  try {
    ({ chromium } = await import("@playwright/test"));
  } catch {
    return { skipped: "@playwright/test is not installed" };
  }
  const dist = join(root, ".cache", "bench", "dist");
  log("browser: vite build ...");
  const build = spawnSync(
    "npx",
    ["vite", "build", "--outDir", dist, "--emptyOutDir", "--logLevel", "error"],
    { cwd: root, encoding: "utf8" },
  );
  if (build.status !== 0 || !existsSync(join(dist, "index.html")))
    return { skipped: `vite build failed: ${(build.stderr || build.stdout).trim().slice(-500)}` };
  bundleSizes(dist, record);

  const port = await freePort();
  const base = `http://127.0.0.1:${port}/`;
  const server = spawn(
    "npx",
    ["vite", "preview", "--outDir", dist, "--host", "127.0.0.1", "--port", String(port), "--strictPort"],
    { cwd: root, stdio: "ignore", detached: true },
  );
  let browser;
  try {
    await waitForServer(base, 60_000);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
    const context = async (work) => {
      const ctx = await browser.newContext({ viewport: { width: 1280, height: 720 } });
      await ctx.grantPermissions(["clipboard-read", "clipboard-write"], { origin: new URL(base).origin });
      await ctx.addInitScript(pageProbe);
      if (work !== undefined)
        await ctx.addInitScript(
          ([k, v]) => localStorage.setItem(k, v),
          [WORK_KEY, JSON.stringify({ text: work })],
        );
      return ctx;
    };

    log("browser: first load of the default scenario ...");
    const firstLoad = [];
    for (let i = 0; i < LOADS; i++) {
      const ctx = await context(undefined);
      const page = await ctx.newPage();
      await page.goto(base);
      firstLoad.push((await waitForDraw(page, -1)).at);
      await ctx.close();
    }
    record("default", "first load to drawn scenario", "ms", firstLoad, { browser: true });

    for (const tier of ["S", "M"]) {
      const { path, stats } = clusterFile(tier);
      const text = readFileSync(path, "utf8");
      const namespace =
        /\nkind: Namespace\nmetadata:\n {2}name: ([\w-]+)\n {2}labels:\n {4}team:/.exec(text)?.[1] ??
        "default";
      log(`browser: ${tier} (${stats.pods} pods): load, layout, ${EDITS} edits ...`);
      const loads = [];
      const layouts = [];
      const edits = [];
      for (let i = 0; i < 3; i++) {
        const ctx = await context(text);
        const page = await ctx.newPage();
        await page.goto(base);
        let last = await waitForDraw(page, -1, 120_000);
        loads.push(last.at);
        const l = await page.evaluate(() => window.__ktlBench.layouts);
        const biggest = l.reduce((b, x) => (!b || x.nodes > b.nodes ? x : b), undefined);
        if (biggest) layouts.push(biggest.ms);
        if (i === 0) {
          const editor = page.locator('[data-testid="editor"][data-ready="true"] .monaco-editor');
          await editor.waitFor({ timeout: 60_000 });
          for (let e = 0; e < EDITS; e++) {
            // Each edit is new text (the worker reuses the analysis of a text it has just seen, as after an undo).
            await page.evaluate((t) => navigator.clipboard.writeText(t), openPolicy(namespace, e));
            await editor.locator("textarea").first().focus();
            await page.keyboard.press("ControlOrMeta+End");
            await page.keyboard.press("ControlOrMeta+V");
            const drawn = await waitForDraw(page, last.revision, 60_000);
            const keydown = await page.evaluate(() => window.__ktlBench.keydown);
            edits.push(drawn.at - keydown);
            last = drawn;
          }
        }
        await ctx.close();
      }
      record(tier, "load to drawn graph", "ms", loads, { browser: true, pods: stats.pods });
      record(tier, "layout (ELK in its worker)", "ms", layouts, { browser: true, pods: stats.pods });
      record(tier, "edit to redrawn graph", "ms", edits, { browser: true, pods: stats.pods });
    }
    return {};
  } catch (e) {
    return { skipped: `the browser run failed: ${e instanceof Error ? e.message : String(e)}` };
  } finally {
    await browser?.close();
    try {
      process.kill(-server.pid, "SIGTERM");
    } catch {
      // already gone
    }
  }
}
