// Debian's Chromium for every browser run (Playwright cannot download browsers here): its path and the
// flags the playground's e2e tests, screenshots and benchmarks all launch it with.
export const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";

/**
 * The features Playwright disables itself (playwright-core's chromiumSwitches.ts). Chromium reads only the
 * last --disable-features switch, so a launch that disables more must name these too, or they come back
 * on (chromium.test.ts checks the installed Playwright's list is here).
 */
export const PLAYWRIGHT_DISABLED_FEATURES = [
  "AvoidUnnecessaryBeforeUnloadCheckSync",
  "DestroyProfileOnBrowserClose",
  "HttpsUpgrades",
  "HttpsFirstBalancedModeAutoEnable",
  "LensOverlay",
  "MediaRouter",
  "PaintHolding",
  "ThirdPartyStoragePartitioning",
  "AvoidCorsURLLoaderRestartOnRedirect",
  "TcpPortRandomizationWin",
  "OptimizationHints",
  "NetworkTimeServiceQuerying",
  "AimEnabled",
  "PreconnectToSearch",
  "msForceBrowserSignIn",
  "msEdgeUpdateLaunchServicesPreferredVersion",
];

/**
 * Chromium 156 builds a new window's omnibox popup, a WebUI page (chrome://omnibox-popup.top-chrome) in a
 * renderer of its own, as the window opens, and each Playwright context is a new window: about 3 s of one
 * of this machine's two cores, during the playground's own load (Chromium trace of a bench load, 2026-12-06:
 * the S cluster drawn at 1.8 to 1.95 s with it, 0.95 s without). It measured Chromium, not the playground,
 * and slowed every e2e test's start.
 */
const BROWSER_UI_FEATURES = ["PreloadTopChromeWebUI", "WebUIOmniboxPopup"];

export const CHROMIUM_FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, ...BROWSER_UI_FEATURES].join(",")}`,
];
