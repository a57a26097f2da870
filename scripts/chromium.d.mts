/** Debian's Chromium: its path (CHROMIUM_PATH, else /usr/bin/chromium). */
export declare const CHROMIUM: string;
/** The features Playwright disables itself, repeated in our own --disable-features. */
export declare const PLAYWRIGHT_DISABLED_FEATURES: string[];
/** The flags every browser run launches it with. */
export declare const CHROMIUM_FLAGS: string[];
