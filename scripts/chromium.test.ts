/**
 * Our --disable-features replaces Playwright's own (Chromium reads the last such switch): every feature the
 * installed Playwright disables must be in ours, and the last --disable-features Chromium sees is ours.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { CHROMIUM_FLAGS, PLAYWRIGHT_DISABLED_FEATURES } from "./chromium.mjs";

/** The features playwright-core's chromiumSwitches.ts disables, read from the installed bundle. */
function playwrightDisabled(): string[] {
  const dir = dirname(createRequire(import.meta.url).resolve("playwright-core/package.json"));
  const bundle = readFileSync(join(dir, "lib", "coreBundle.js"), "utf8");
  const list = /disabledFeatures = \[([\s\S]*?)\]\.filter\(Boolean\)/.exec(bundle);
  if (!list)
    throw new Error("playwright-core's disabled features were not found: read chromiumSwitches.ts again");
  return [...list[1]!.replace(/\/\/.*$/gm, "").matchAll(/"([^"]+)"/g)].map((m) => m[1]!);
}

describe("Chromium's flags", () => {
  it("disable every feature the installed Playwright disables", () => {
    const theirs = playwrightDisabled();
    expect(theirs.length).toBeGreaterThan(5);
    expect(PLAYWRIGHT_DISABLED_FEATURES).toEqual(expect.arrayContaining(theirs));
  });

  it("name one --disable-features holding Playwright's and the browser UI's", () => {
    const switches = CHROMIUM_FLAGS.filter((f) => f.startsWith("--disable-features="));
    expect(switches).toHaveLength(1);
    const ours = switches[0]!.slice("--disable-features=".length).split(",");
    expect(ours).toEqual(
      expect.arrayContaining([
        ...PLAYWRIGHT_DISABLED_FEATURES,
        "PreloadTopChromeWebUI",
        "WebUIOmniboxAimPopup",
      ]),
    );
  });
});
