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
 * Chromium 156 builds a new window's omnibox popups, WebUI pages (chrome://omnibox-popup.top-chrome, its AI
 * mode app above all) in a renderer of their own, as the window opens, and each Playwright context is a new
 * window: seconds of one of this machine's two cores, during the playground's own load. It measured Chromium,
 * not the playground (a user's window already has its popups), and slowed every e2e test's start. Paired on
 * 2026-12-06 (one browser per flag set, a new context per load, as the bench loads): S drawn at 1.41 s median
 * with them, 0.87 s without; the default scenario 1.13 -> 0.63 s. The AI mode popup is most of it.
 */
const BROWSER_UI_FEATURES = [
  "PreloadTopChromeWebUI",
  "WebUIOmniboxPopup",
  "WebUIOmniboxAimPopup",
  "WebUIOmniboxFullPopup",
];

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
