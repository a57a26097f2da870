/**
 * Safe mode (issue 16): a load that crashed the tab (the engine ran out of
 * memory) or hung must not repeat on every visit. A flag is written before
 * the saved text is analysed and removed once the first graph is drawn (or
 * the engine answered with an error, which leaves the tab usable). A flag
 * still present at the next start means that load never finished: the
 * playground opens with the text intact and the engine paused.
 */
import type { StorageLike } from "./persistence.ts";

export const LOADING_KEY = "ktl.loading.v1";

/**
 * Leaving this soon after the start is a reload or a closed tab, not a hang:
 * the flag is removed so the next visit analyses as usual. A tab killed by the
 * browser (out of memory) never gets to say it is leaving.
 */
export const QUICK_LEAVE_MS = 4000;

interface LoadingFlag {
  at: number;
}

/** Did the previous load start without reaching its first drawing? */
export function previousLoadUnfinished(storage: StorageLike | undefined): boolean {
  try {
    const raw = storage?.getItem(LOADING_KEY);
    if (!raw) return false;
    const v = JSON.parse(raw) as Partial<LoadingFlag> | null;
    return typeof v?.at === "number";
  } catch {
    return false;
  }
}

export function markLoading(storage: StorageLike | undefined, now: number): void {
  try {
    storage?.setItem(LOADING_KEY, JSON.stringify({ at: now } satisfies LoadingFlag));
  } catch {
    /* without storage there is no saved text to protect */
  }
}

export function markLoaded(storage: StorageLike | undefined): void {
  try {
    storage?.removeItem(LOADING_KEY);
  } catch {
    /* nothing to undo */
  }
}

/** The page is being left (pagehide) before its first drawing: a quick leave is no crash. */
export function leftEarly(storage: StorageLike | undefined, now: number): void {
  try {
    const raw = storage?.getItem(LOADING_KEY);
    if (!raw) return;
    const v = JSON.parse(raw) as Partial<LoadingFlag> | null;
    if (typeof v?.at !== "number" || now - v.at < QUICK_LEAVE_MS) storage?.removeItem(LOADING_KEY);
  } catch {
    /* keep the flag: safe mode is the careful side */
  }
}
