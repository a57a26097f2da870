/**
 * The editor text is saved in this browser as the user types (debounced, and
 * flushed when the page hides), so a reload never loses work. Only the input
 * is saved: analysis and view are derived again.
 */
import type { AppStore } from "./createAppStore.ts";
import type { Theme } from "./types.ts";

export const WORK_KEY = "ktl.work.v1";
export const THEME_KEY = "ktl.theme";

export interface SavedWork {
  text: string;
  scenarioId?: string;
}

export type StorageLike = Pick<Storage, "getItem" | "setItem" | "removeItem">;

export function loadWork(storage: StorageLike | undefined): SavedWork | undefined {
  try {
    const raw = storage?.getItem(WORK_KEY);
    if (!raw) return undefined;
    const v = JSON.parse(raw) as unknown;
    if (v === null || typeof v !== "object" || typeof (v as SavedWork).text !== "string") return undefined;
    const w = v as SavedWork;
    return typeof w.scenarioId === "string" ? { text: w.text, scenarioId: w.scenarioId } : { text: w.text };
  } catch {
    return undefined;
  }
}

/** undefined when saved, else why not (storage full or blocked). */
export function saveWork(storage: StorageLike | undefined, work: SavedWork): string | undefined {
  if (!storage) return "this browser does not let the page store data";
  try {
    storage.setItem(WORK_KEY, JSON.stringify(work));
    return undefined;
  } catch {
    return "the browser's storage for this page is full or blocked";
  }
}

export function loadTheme(storage: StorageLike | undefined): Theme | undefined {
  try {
    const t = storage?.getItem(THEME_KEY);
    return t === "light" || t === "dark" ? t : undefined;
  } catch {
    return undefined;
  }
}

export interface Persistence {
  /** Writes pending changes now (page hide, before a share link replaces the text). */
  flush(): void;
  dispose(): void;
}

export function persistWork(
  store: AppStore,
  storage: StorageLike | undefined,
  options: { delayMs?: number; schedule?: (f: () => void, ms: number) => unknown; cancel?: (h: unknown) => void } = {},
): Persistence {
  const delay = options.delayMs ?? 300;
  const schedule = options.schedule ?? ((f, ms) => setTimeout(f, ms));
  const cancel = options.cancel ?? ((h) => clearTimeout(h as ReturnType<typeof setTimeout>));
  let timer: unknown;
  let dirty = false;
  let warned = false;

  const write = () => {
    timer = undefined;
    if (!dirty) return;
    dirty = false;
    const { text, scenarioId } = store.getState();
    const error = saveWork(storage, scenarioId ? { text, scenarioId } : { text });
    if (error && !warned) {
      warned = true;
      store.getState().notify({ kind: "error", text: `Your edits are not saved in this browser: ${error}. Use Share or Download to keep them.` });
    }
  };

  const offText = store.subscribe(
    (s) => s.revision,
    () => {
      dirty = true;
      if (timer !== undefined) cancel(timer);
      timer = schedule(write, delay);
    },
  );
  const offTheme = store.subscribe(
    (s) => s.theme,
    (theme) => {
      try {
        storage?.setItem(THEME_KEY, theme);
      } catch {
        /* the theme is a nicety: nothing to tell the user */
      }
    },
  );
  return {
    flush() {
      if (timer !== undefined) cancel(timer);
      write();
    },
    dispose() {
      if (timer !== undefined) cancel(timer);
      offText();
      offTheme();
    },
  };
}
