// Debian's Chromium for every browser run (Playwright cannot download browsers here): its path and the
// flags the playground's e2e tests, screenshots and benchmarks all launch it with.
export const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";

export const CHROMIUM_FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
