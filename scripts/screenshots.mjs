#!/usr/bin/env node
// Remakes the README's screenshots in docs/ from the built site, in Debian's
// Chromium, at 1440x900 and 1280x720: the default scenario, real demo apps
// (Online Boutique with its NetworkPolicies, Bookinfo: e2e/fixtures/real-apps),
// the bench's generated clusters (S, 189 pods; 291 pods; M, 2,036 pods), the
// drops of S with "Only drops", the topology lens, and presenter mode at 1280x720.
//
//   npx vite build && node scripts/screenshots.mjs [--port 4190] [--out docs]
//
// Needs playwright-core (a dev dependency) and /usr/bin/chromium (or CHROMIUM_PATH).
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { generate, TIERS } from "../bench/generate.mjs";
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
  // Any drawn edge: before a lesson's reveal, edges carry no verdict.
  await page.locator('[data-testid="flow-edge"][data-source]').first().waitFor({ timeout: 60_000 });
  return page;
}

/** The inputs pictured besides the default scenario: real apps and generated clusters. */
const INPUTS = {
  "online-boutique": () => readFileSync("e2e/fixtures/real-apps/online-boutique-netpol.yaml", "utf8"),
  bookinfo: () => readFileSync("e2e/fixtures/real-apps/bookinfo.yaml", "utf8"),
  S: () => generate("S").text,
  300: () => generate({ ...TIERS.S, teams: 6 }).text,
  M: () => generate("M").text,
};

/** Opens an input as a file (as "Open file…" does) and waits until its graph is drawn. */
async function load(page, size) {
  const dir = mkdtempSync(join(tmpdir(), "ktl-shots-"));
  const file = join(dir, `${size}.yaml`);
  writeFileSync(file, INPUTS[size]());
  const graph = page.getByTestId("graph");
  const before = await graph.getAttribute("data-revision");
  await page.getByTestId("open-file").setInputFiles(file);
  await page.waitForFunction(
    (b) => document.querySelector('[data-testid="graph"]')?.getAttribute("data-revision") !== b,
    before,
    { timeout: 240_000 },
  );
  // The notice that the file is a new scenario would take a row of the picture.
  const dismiss = page.getByRole("button", { name: "Dismiss" });
  if (await dismiss.count()) await dismiss.first().click();
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
  for (const [w, h] of [
    [1440, 900],
    [1280, 720],
  ]) {
    // The default scenario (the README's opening picture).
    {
      const page = await open(w, h);
      await fit(page);
      await shot(page, `graph-default-${w}x${h}.png`);
      await page.close();
    }
    for (const size of ["online-boutique", "bookinfo", "S", "300", "M"]) {
      const page = await open(w, h);
      await load(page, size);
      await fit(page);
      await shot(page, `graph-${size}-${w}x${h}.png`);
      await page.close();
    }
  }
  // The README's opening picture: backend-1's request to the cache traced, dropped by kube-proxy.
  {
    const page = await open(1440, 900);
    await page
      .locator(
        '[data-testid="flow-edge"][data-source="pod:shop/backend-1"][data-target="service:shop/cache"] .react-flow__edge-interaction',
      )
      .dispatchEvent("click");
    await page.getByTestId("trace-verdict").waitFor();
    await fit(page);
    await shot(page, "screenshot.png");
    await page.close();
  }
  // The drops of S: "Only drops" at the fold level in view, and the list of where they are.
  {
    const page = await open(1440, 900);
    await load(page, "S");
    await page.getByLabel("Only drops").check();
    await fit(page);
    await shot(page, "drops-S-1440x900.png");
    await page.close();
  }
  // The default scenario's namespaces folded: the drop edge between them and the loop inside one, labelled.
  {
    const page = await open(1440, 900);
    await page.getByLabel("Group by").selectOption("namespace");
    await fit(page);
    await shot(page, "drops-folded-1440x900.png");
    await page.close();
  }
  // The topology lens on a laptop: its smallest text 11 px at fit view.
  {
    const page = await open(1280, 720);
    await page.getByRole("combobox", { name: "View" }).selectOption("topology");
    await page.locator('[data-testid="zone"]').first().waitFor();
    await fit(page);
    await shot(page, "topology-1280x720.png");
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
