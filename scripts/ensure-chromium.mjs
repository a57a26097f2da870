// Makes sure Debian's Chromium is present for the browser tests (Playwright cannot download browsers here).
// As root it installs the `chromium` package; otherwise it stops with one line saying what to install.
import { existsSync } from "node:fs";
import { execSync } from "node:child_process";

import { CHROMIUM } from "./chromium.mjs";

if (!existsSync(CHROMIUM)) {
  const root = typeof process.getuid === "function" && process.getuid() === 0;
  if (!root) {
    console.error(
      `Chromium is missing at ${CHROMIUM}: install Debian's package (sudo apt-get install -y chromium) or set CHROMIUM_PATH, then run npm test again.`,
    );
    process.exit(1);
  }
  console.log("Installing Debian's chromium for the browser tests (apt-get)...");
  execSync(
    "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium > /dev/null",
    { stdio: "inherit", shell: "/bin/bash" },
  );
  if (!existsSync(CHROMIUM)) {
    console.error(`apt-get finished but ${CHROMIUM} is still missing.`);
    process.exit(1);
  }
}
