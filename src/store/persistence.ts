/**
 * The editor text is saved in this browser as the user types (debounced, and
 * flushed when the page hides), so a reload never loses work. Only the input
 * is saved: analysis and view are derived again.
 */
import { deflate, deflateSync, inflateSync, strFromU8, strToU8 } from "fflate";
import type { AppStore } from "./createAppStore.ts";
import type { Theme } from "./types.ts";
import { fromBase64Url, toBase64Url } from "../share/codec.ts";
import { sanitizeView, viewOf, type SharedView } from "../share/view.ts";

/**
 * Texts longer than this are stored deflated (base64url): a browser keeps
 * about 5 MB per site, and Kubernetes YAML compresses about tenfold.
 */
export const COMPRESS_ABOVE = 400_000;

export const WORK_KEY = "ktl.work.v1";
export const THEME_KEY = "ktl.theme";
/** The view (question, filters, tabs, lesson step) beside the saved work, so a reload keeps it; small, so saved apart from the text. */
export const VIEW_KEY = "ktl.view.v1";

/** The Tests tab's file and whether it is on (small, and not part of a share link). */
export const TESTS_KEY = "ktl.tests.v1";

export interface SavedTests {
  text: string;
  file?: string;
  on?: boolean;
}

export function loadTests(storage: StorageLike | undefined): SavedTests | undefined {
  try {
    const raw = storage?.getItem(TESTS_KEY);
    const v = raw ? (JSON.parse(raw) as Partial<SavedTests> | null) : undefined;
    if (!v || typeof v.text !== "string") return undefined;
    const t: SavedTests = { text: v.text };
    if (typeof v.file === "string") t.file = v.file;
    if (typeof v.on === "boolean") t.on = v.on;
    return t;
  } catch {
    return undefined;
  }
}

/**
 * The text a link (or a pasted link) replaced, kept before the link's text is
 * saved over it: "Restore previous text" brings it back even after the notice
 * is gone, a reload, or a crash of the tab.
 */
export const PREVIOUS_KEY = "ktl.previous.v1";

export function keepPrevious(storage: StorageLike | undefined, text: string): boolean {
  try {
    const body =
      text.length > COMPRESS_ABOVE ? { deflated: toBase64Url(deflateSync(strToU8(text))) } : { text };
    storage?.setItem(PREVIOUS_KEY, JSON.stringify(body));
    return storage !== undefined;
  } catch {
    return false;
  }
}

export function loadPrevious(storage: StorageLike | undefined): string | undefined {
  try {
    const raw = storage?.getItem(PREVIOUS_KEY);
    if (!raw) return undefined;
    const v = JSON.parse(raw) as StoredWork;
    if (typeof v.text === "string") return v.text;
    const bytes = typeof v.deflated === "string" ? fromBase64Url(v.deflated) : undefined;
    return bytes ? strFromU8(inflateSync(bytes)) : undefined;
  } catch {
    return undefined;
  }
}

export function loadView(storage: StorageLike | undefined): SharedView | undefined {
  try {
    const raw = storage?.getItem(VIEW_KEY);
    return raw ? sanitizeView(JSON.parse(raw)) : undefined;
  } catch {
    return undefined;
  }
}

export interface SavedWork {
  text: string;
  scenarioId?: string;
}

export type StorageLike = Pick<Storage, "getItem" | "setItem" | "removeItem">;

/** What is stored: the text as is, or deflated for large texts. */
interface StoredWork {
  text?: string;
  deflated?: string;
  scenarioId?: string;
}

export function loadWork(storage: StorageLike | undefined): SavedWork | undefined {
  try {
    return parseWork(storage?.getItem(WORK_KEY));
  } catch {
    return undefined;
  }
}

/** The saved work in its stored form (as a storage event from another tab carries it). */
export function parseWork(raw: string | null | undefined): SavedWork | undefined {
  try {
    if (!raw) return undefined;
    const v = JSON.parse(raw) as unknown;
    if (v === null || typeof v !== "object") return undefined;
    const w = v as StoredWork;
    let text = typeof w.text === "string" ? w.text : undefined;
    if (text === undefined && typeof w.deflated === "string") {
      const bytes = fromBase64Url(w.deflated);
      if (bytes) text = strFromU8(inflateSync(bytes));
    }
    if (text === undefined) return undefined;
    return typeof w.scenarioId === "string" ? { text, scenarioId: w.scenarioId } : { text };
  } catch {
    return undefined;
  }
}

function stored(work: SavedWork, deflated?: Uint8Array): string {
  const body: StoredWork = deflated ? { deflated: toBase64Url(deflated) } : { text: work.text };
  if (work.scenarioId) body.scenarioId = work.scenarioId;
  return JSON.stringify(body);
}

function put(storage: StorageLike | undefined, value: () => string): string | undefined {
  if (!storage) return "this browser does not let the page store data";
  try {
    storage.setItem(WORK_KEY, value());
    return undefined;
  } catch {
    return "the browser's storage for this page is full or blocked";
  }
}

/** Saves at once (large texts deflated synchronously). undefined when saved, else why not. */
export function saveWork(storage: StorageLike | undefined, work: SavedWork): string | undefined {
  return put(storage, () =>
    stored(
      work,
      work.text.length > COMPRESS_ABOVE ? deflateSync(strToU8(work.text), { level: 1 }) : undefined,
    ),
  );
}

/** Deflates a text off the page's thread: the app's worker (worker/deflateClient.ts), else fflate's own. */
export type Deflater = (text: string) => Promise<Uint8Array>;

/** fflate's worker deflates; the text's UTF-8 encoding stays on the page's thread. */
const fflateDeflater: Deflater = (text) =>
  new Promise((resolve, reject) =>
    deflate(strToU8(text), { level: 1 }, (err, data) => (err ? reject(err) : resolve(data))),
  );

/**
 * Saves large texts deflated off the main thread where the browser can, so typing in a large file does not
 * stutter; `current` says whether this save is still the newest when its bytes come back (an older one
 * finishing last must not write over a newer text).
 */
function saveWorkAsync(
  storage: StorageLike | undefined,
  work: SavedWork,
  deflater: Deflater | undefined,
  current: () => boolean,
  done: (error: string | undefined) => void,
): void {
  if (work.text.length <= COMPRESS_ABOVE || (!deflater && typeof Worker === "undefined")) {
    done(saveWork(storage, work));
    return;
  }
  (deflater ?? fflateDeflater)(work.text).then(
    (data) => {
      if (current()) done(put(storage, () => stored(work, data)));
    },
    () => {
      // The worker could not start or run (a blocked worker, memory): the text is saved the slow way, on this thread.
      if (current()) done(saveWork(storage, work));
    },
  );
}

/**
 * This tab's own copy of its text while it does not save to `WORK_KEY` (another tab saved over it and the
 * user has not chosen yet): in sessionStorage, which belongs to the tab and survives its reload, so a reload
 * before choosing opens this tab's text again and asks again (issue 31, item 5).
 */
export const UNSAVED_KEY = "ktl.unsaved.v1";

export function loadUnsaved(tabStorage: StorageLike | undefined): SavedWork | undefined {
  try {
    return parseWork(tabStorage?.getItem(UNSAVED_KEY));
  } catch {
    return undefined;
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
  /** Stops writing the text (another tab saved over it: writing again would overwrite that tab's work in silence). */
  pause(): void;
  /** Writes again, at once (the user chose which text to keep). */
  resume(): void;
  /** Paused with text that is not in `WORK_KEY`: closing the tab would lose it (a reload keeps the tab's copy). */
  holdsUnsaved(): boolean;
  dispose(): void;
}

export function persistWork(
  store: AppStore,
  storage: StorageLike | undefined,
  options: {
    /** The tab's own storage (sessionStorage): the text goes there while saving is paused. */
    tabStorage?: StorageLike | undefined;
    delayMs?: number;
    schedule?: (f: () => void, ms: number) => unknown;
    cancel?: (h: unknown) => void;
    /** Deflates a large text off the page's thread (worker/deflateClient.ts in the browser). */
    deflate?: Deflater;
  } = {},
): Persistence {
  const delay = options.delayMs ?? 300;
  const schedule = options.schedule ?? ((f, ms) => setTimeout(f, ms));
  const cancel = options.cancel ?? ((h) => clearTimeout(h as ReturnType<typeof setTimeout>));
  let timer: unknown;
  let dirty = false;
  let warned = false;
  let paused = false;
  // Saves begun: a save whose bytes come back after a newer one began writes nothing.
  let saves = 0;

  const report = (error: string | undefined) => {
    if (error && !warned) {
      warned = true;
      store.getState().notify({
        kind: "error",
        text: `Your edits are not saved in this browser: ${error}. Use Share or Download to keep them.`,
      });
    }
  };
  const work = (): SavedWork => {
    const { text, scenarioId } = store.getState();
    return scenarioId ? { text, scenarioId } : { text };
  };
  const tabStorage = options.tabStorage;
  const keepInTab = () => {
    const w = work();
    try {
      tabStorage?.setItem(
        UNSAVED_KEY,
        stored(w, w.text.length > COMPRESS_ABOVE ? deflateSync(strToU8(w.text), { level: 1 }) : undefined),
      );
    } catch {
      /* the prompt before unload still guards it */
    }
  };
  const dropTabCopy = () => {
    try {
      tabStorage?.removeItem(UNSAVED_KEY);
    } catch {
      /* nothing to remove */
    }
  };
  const write = (sync: boolean) => {
    timer = undefined;
    if (!dirty) return;
    if (paused) {
      keepInTab();
      return;
    }
    dirty = false;
    const save = ++saves;
    if (sync) report(saveWork(storage, work()));
    else saveWorkAsync(storage, work(), options.deflate, () => save === saves, report);
  };

  const offText = store.subscribe(
    (s) => s.revision,
    () => {
      dirty = true;
      if (timer !== undefined) cancel(timer);
      const large = store.getState().text.length > COMPRESS_ABOVE;
      timer = schedule(() => write(false), large ? delay * 4 : delay);
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
  const offView = store.subscribe(
    (s) => JSON.stringify(viewOf(s)),
    (view) => {
      try {
        storage?.setItem(VIEW_KEY, view);
      } catch {
        /* the view is a nicety: the text is what must be kept */
      }
    },
  );
  const offTests = store.subscribe(
    (s) => JSON.stringify({ text: s.testsText, file: s.testsFile, on: s.testsOn } satisfies SavedTests),
    (tests) => {
      try {
        storage?.setItem(TESTS_KEY, tests);
      } catch {
        /* the test file is small; a full storage is already reported for the text */
      }
    },
  );
  // The kept previous text follows the store (a link, a scenario or another tab replaced the text; a restore swapped them).
  const offPrevious = store.subscribe(
    (s) => s.previous,
    (previous) => {
      if (previous !== undefined) keepPrevious(storage, previous);
    },
  );
  return {
    flush() {
      if (timer !== undefined) cancel(timer);
      write(true);
    },
    pause() {
      paused = true;
      keepInTab();
    },
    resume() {
      paused = false;
      dropTabCopy();
      dirty = true;
      if (timer !== undefined) cancel(timer);
      write(true);
    },
    holdsUnsaved() {
      return paused;
    },
    dispose() {
      if (timer !== undefined) cancel(timer);
      offText();
      offTheme();
      offView();
      offTests();
      offPrevious();
    },
  };
}
