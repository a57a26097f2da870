#!/usr/bin/env node
// Remakes the README's screenshots in docs/ from the built site, in Debian's
// Chromium: the default scenario, the bench's generated S (189 pods) and M
// (2,036 pods) clusters at 1440x900, and presenter mode at 1280x720.
//
//   npx vite build && node scripts/screenshots.mjs [--port 4190] [--out docs]
//
// Needs playwright-core (a dev dependency) and /usr/bin/chromium (or CHROMIUM_PATH).
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { generate } from "../bench/generate.mjs";
import { CHROMIUM, CHROMIUM_FLAGS } from "./chromium.mjs";

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const port = Number(opt("--port", "4190"));
const out = opt("--out", "docs");
const base = `http://127.0.0.1:${port}/`;

const server = spawn(
  "npx",
  ["vite", "preview", "--host", "127.0.0.1", "--port", String(port), "--strictPort"],
  {
    stdio: "ignore",
  },
);
const stop = () => server.kill();
process.on("exit", stop);

async function waitForServer() {
  for (let i = 0; i < 120; i++) {
    try {
      if ((await fetch(base)).ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`vite preview did not answer on ${base}`);
}

const browser = await (async () => {
  await waitForServer();
  return chromium.launch({
    executablePath: CHROMIUM,
    args: CHROMIUM_FLAGS,
  });
})();

/** A fresh page at this size, the default scenario drawn. */
async function open(width, height, hash = "") {
  const page = await browser.newPage({ viewport: { width, height } });
  await page.goto(base + hash);
  await page.locator("[data-verdict][data-source]").first().waitFor({ timeout: 60_000 });
  return page;
}

/** Opens a generated cluster as a file (as "Open file…" does) and waits until its graph is drawn. */
async function load(page, size) {
  const dir = mkdtempSync(join(tmpdir(), "ktl-shots-"));
  const file = join(dir, `${size}.yaml`);
  writeFileSync(file, generate(size).text);
  const graph = page.getByTestId("graph");
  const before = await graph.getAttribute("data-revision");
  await page.getByTestId("open-file").setInputFiles(file);
  await page.waitForFunction(
    (b) => document.querySelector('[data-testid="graph"]')?.getAttribute("data-revision") !== b,
    before,
    { timeout: 240_000 },
  );
}

/** Fit view, then let the layout settle. */
async function fit(page) {
  await page.waitForTimeout(1500);
  const button = page.locator(".react-flow__controls-fitview");
  if (await button.count()) await button.click();
  await page.waitForTimeout(800);
}

async function shot(page, name) {
  const path = join(out, name);
  await page.screenshot({ path });
  console.log(`wrote ${path}`);
}

try {
  // The default scenario, a dropped request traced (the README's opening picture).
  {
    const page = await open(1440, 900);
    await fit(page);
    await shot(page, "graph-default-1440x900.png");
    await page.close();
  }
  for (const size of ["S", "M"]) {
    const page = await open(1440, 900);
    await load(page, size);
    await fit(page);
    await shot(page, `graph-${size}-1440x900.png`);
    await page.close();
  }
  // Presenter mode on a 1280x720 projector: lesson 12, its question traced to the second hop.
  {
    const page = await open(1280, 720, "#lesson=12");
    await page.getByRole("button", { name: "Present" }).click();
    await page.getByTestId("presenter-question").first().click();
    await page.keyboard.press("ArrowRight");
    await page.keyboard.press("ArrowRight");
    await fit(page);
    await shot(page, "presenter-1280x720.png");
    await page.close();
  }
} finally {
  await browser.close();
  stop();
}
