// Browser figures for `npm run bench`: the production build served as
// `npm start` serves it, driven in Debian's Chromium through Playwright.
//
// - bundle sizes: every built script, raw and gzip; the main bundle is the
//   entry script index.html loads (Monaco, ELK and the engine are separate
//   chunks and workers, loaded later);
// - first load to a drawn default scenario: from navigation start to the
//   app's first `ktl:graph-drawn:*` User Timing mark, empty storage;
// - keystroke to redrawn graph at S, M and L: the tier's cluster is the
//   saved work; 20 edits of four kinds made with the keyboard in Monaco (a
//   label's value, a port, a new policy pasted at the end, a pod deleted:
//   its doc at L, a replica less at S and M), from the edit's last keydown to
//   the next revision's draw mark; median and 95th percentile;
// - the longest main-thread task (PerformanceObserver "longtask") from the
//   first edit to the last draw, and the engine's answers per edit (JSON
//   characters of the worker's messages: the analysis delta and validation);
// - layout time: each ELK request in the layout worker, from postMessage to
//   its answer, for the full graph of S and M on first load.
import { spawn, spawnSync } from "node:child_process";
import { createServer } from "node:net";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { deflateRawSync, gzipSync } from "node:zlib";

import { CHROMIUM, CHROMIUM_FLAGS as FLAGS } from "../scripts/chromium.mjs";
const WORK_KEY = "ktl.work.v1";
const LOADS = 5;
const EDITS = 20;
/** Tiers measured in the browser, and page loads per tier. */
const BROWSER_TIERS = [
  ["S", 3],
  ["M", 3],
  ["L", 2],
];

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
export function pageProbe() {
  window.__ktlBench = { layouts: [], keydown: 0, longtasks: [], messages: [] };
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries())
        window.__ktlBench.longtasks.push({ at: e.startTime, ms: e.duration });
    }).observe({ type: "longtask", buffered: true });
  } catch {
    // no Long Tasks API in this browser
  }
  const Native = window.Worker;
  const count = (n) => 1 + (n.children ?? []).reduce((k, c) => k + count(c), 0);
  window.Worker = class extends Native {
    constructor(url, options) {
      super(url, options);
      if (String(url).includes("engine")) {
        // Kept by reference only: sizes are measured after the draw, outside the timed path.
        this.addEventListener("message", (e) =>
          window.__ktlBench.messages.push({ at: performance.now(), data: e.data }),
        );
        return;
      }
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

export async function waitForDraw(page, after, ms = 60_000) {
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

/**
 * The 20 edits of a tier, in order, as keyboard actions on 1-based lines of
 * the saved text. Label, port and replica edits keep the line count, and
 * come from the first half of the file; pod docs are deleted from the end
 * backwards and policies pasted at the end, so no edit moves the lines of a
 * later one.
 */
export function planEdits(text, n) {
  const lines = text.split("\n");
  const half = lines.length >> 1;
  const pick = (re, from = 0, to = half) => {
    const out = [];
    for (let i = from; i < to; i++) if (re.test(lines[i])) out.push(i + 1);
    return out;
  };
  const labels = pick(/^\s+(app|team|tier|component|role): [\w-]+$/);
  const ports = pick(/^\s+(- )?(containerPort|port|targetPort): \d+$/);
  const replicas = pick(/^\s+replicas: [2-9]$/);
  const podDocs = [];
  for (let i = lines.length - 1; i > half && podDocs.length < n; i--)
    if (lines[i] === "kind: Pod") {
      let start = i;
      while (start > 0 && lines[start] !== "---") start--;
      let end = i;
      while (end + 1 < lines.length && lines[end + 1] !== "---") end++;
      podDocs.push({ start: start + 1, count: end - start + 1 });
    }
  const namespace =
    /\nkind: Namespace\nmetadata:\n {2}name: ([\w-]+)\n {2}labels:\n {4}team:/.exec(text)?.[1] ?? "default";
  const plan = [];
  for (let i = 0; i < n; i++) {
    const k = ["label", "port", "policy", "pod"][i % 4];
    const j = i >> 2;
    if (k === "label" && labels.length) plan.push({ kind: k, line: labels[(j * 7) % labels.length] });
    else if (k === "port" && ports.length) plan.push({ kind: k, line: ports[(j * 5) % ports.length] });
    else if (k === "pod" && podDocs.length > j) plan.push({ kind: k, ...podDocs[j] });
    else if (k === "pod" && replicas.length)
      plan.push({ kind: k, replicas: replicas[(j * 3) % replicas.length] });
    else plan.push({ kind: "policy", text: openPolicy(namespace, i) });
  }
  return plan;
}

/** Puts the cursor at the end of a line (Monaco's Go to Line). */
async function gotoLine(page, line) {
  await page.keyboard.press("ControlOrMeta+G");
  await page.keyboard.type(String(line));
  await page.keyboard.press("Enter");
  await page.keyboard.press("End");
}

/** Makes one planned edit; the last key it presses is the one that changes the text. */
export async function makeEdit(page, e) {
  if (e.kind === "label") {
    await gotoLine(page, e.line);
    await page.keyboard.press("x");
  } else if (e.kind === "port") {
    await gotoLine(page, e.line);
    await page.keyboard.press("Shift+ArrowLeft");
    await page.keyboard.press("7");
  } else if (e.kind === "pod" && e.replicas) {
    await gotoLine(page, e.replicas);
    await page.keyboard.press("Shift+ArrowLeft");
    await page.keyboard.press("1");
  } else if (e.kind === "pod") {
    await gotoLine(page, e.start);
    await page.keyboard.press("Home");
    for (let i = 0; i < e.count; i++) await page.keyboard.press("Shift+ArrowDown");
    await page.keyboard.press("Delete");
  } else {
    await page.evaluate((t) => navigator.clipboard.writeText(t), e.text);
    await page.keyboard.press("ControlOrMeta+End");
    await page.keyboard.press("ControlOrMeta+V");
  }
}

const percentile = (xs, p) => {
  const v = xs.filter(Number.isFinite).sort((a, b) => a - b);
  return v.length ? v[Math.min(v.length - 1, Math.ceil((p / 100) * v.length) - 1)] : NaN;
};

/** The saved work as the playground stores it: texts over 400,000 characters deflated (persistence.ts). */
function savedWork(text) {
  if (text.length <= 400_000) return JSON.stringify({ text });
  return JSON.stringify({
    deflated: deflateRawSync(Buffer.from(text, "utf8"), { level: 1 }).toString("base64url"),
  });
}

export async function measureBrowser({ root, record, log, clusterFile, tiers }) {
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
    const context = async (saved) => {
      const ctx = await browser.newContext({ viewport: { width: 1280, height: 720 } });
      await ctx.grantPermissions(["clipboard-read", "clipboard-write"], { origin: new URL(base).origin });
      await ctx.addInitScript(pageProbe);
      if (saved !== undefined)
        await ctx.addInitScript(([k, v]) => localStorage.setItem(k, v), [WORK_KEY, saved]);
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

    // A tier that fails (a crashed page) is reported as such; the other tiers' figures are kept.
    const failed = {};
    for (const [tier, loadRuns] of BROWSER_TIERS.filter(([t]) => !tiers || tiers.includes(t))) {
      try {
        await measureTier(tier, loadRuns);
      } catch (e) {
        failed[tier] = e instanceof Error ? e.message.split("\n")[0] : String(e);
        log(`browser: ${tier} failed: ${failed[tier]}`);
      }
    }
    return Object.keys(failed).length ? { failed } : {};

    async function measureTier(tier, loadRuns) {
      const { path, stats } = clusterFile(tier);
      const text = readFileSync(path, "utf8");
      const plan = planEdits(text, EDITS);
      log(`browser: ${tier} (${stats.pods} pods): ${loadRuns} loads, ${plan.length} edits ...`);
      const loads = [];
      const layouts = [];
      const edits = [];
      const parts = { worker: [], page: [] };
      const byKind = {};
      const sizes = [];
      let longest = NaN;
      const timeout = tier === "L" ? 300_000 : 120_000;
      for (let i = 0; i < loadRuns; i++) {
        const ctx = await context(savedWork(text));
        try {
          await loadAndType(ctx, i);
        } finally {
          await ctx.close().catch(() => {});
        }
      }
      async function loadAndType(ctx, i) {
        const page = await ctx.newPage();
        await page.goto(base);
        let last = await waitForDraw(page, -1, timeout);
        loads.push(last.at);
        const l = await page.evaluate(() => window.__ktlBench.layouts);
        const biggest = l.reduce((b, x) => (!b || x.nodes > b.nodes ? x : b), undefined);
        if (biggest) layouts.push(biggest.ms);
        if (i === 0) {
          const editor = page.locator('[data-testid="editor"][data-ready="true"] .monaco-editor');
          await editor.waitFor({ timeout });
          await editor.locator("textarea").first().focus();
          // Let the load's tail (validation, Monaco's first tokenizing) settle before the first edit.
          await page.waitForTimeout(1000);
          const started = await page.evaluate(() => {
            window.__ktlBench.messages.length = 0;
            return performance.now();
          });
          for (const e of plan) {
            await makeEdit(page, e);
            const drawn = await waitForDraw(page, last.revision, timeout);
            const { keydown, size, sent, received } = await page.evaluate((r) => {
              const b = window.__ktlBench;
              const size = b.messages.reduce((n, m) => n + JSON.stringify(m.data).length, 0);
              b.messages.length = 0;
              const at = (name) =>
                performance.getEntriesByName(`ktl:analysis-${name}:${r}`).at(-1)?.startTime;
              return { keydown: b.keydown, size, sent: at("sent"), received: at("received") };
            }, drawn.revision);
            edits.push(drawn.at - keydown);
            // Where the time went: the debounce before the text is sent, the worker, and the page.
            if (sent !== undefined && received !== undefined) {
              parts.worker.push(received - sent);
              parts.page.push(drawn.at - received);
            }
            (byKind[e.kind] ??= []).push(drawn.at - keydown);
            sizes.push(size / 1000);
            last = drawn;
          }
          const tasks = await page.evaluate(
            (t) => window.__ktlBench.longtasks.filter((x) => x.at >= t),
            started,
          );
          longest = tasks.reduce((m, x) => Math.max(m, x.ms), 0);
        }
      }
      const at = { browser: true, pods: stats.pods };
      record(tier, "load to drawn graph", "ms", loads, at);
      record(tier, "layout (ELK in its worker)", "ms", layouts, at);
      record(tier, "keystroke to redrawn graph", "ms", edits, {
        ...at,
        p95: Math.round(percentile(edits, 95)),
      });
      for (const [kind, xs] of Object.entries(byKind))
        record(tier, `keystroke to redrawn graph: ${kind}`, "ms", xs, at);
      record(tier, "keystroke: text sent to answer received (the worker)", "ms", parts.worker, at);
      record(tier, "keystroke: answer received to graph drawn (the page)", "ms", parts.page, at);
      record(tier, "longest main-thread task while typing", "ms", [longest], at);
      record(tier, "engine answer per edit (JSON)", "kB", sizes, {
        ...at,
        p95: Math.round(percentile(sizes, 95)),
      });
    }
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
