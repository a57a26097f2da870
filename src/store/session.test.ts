/**
 * Issue 16, no lost work in the browser: safe mode after a load that never
 * drew, the previous text kept and swapped back, and two tabs that never
 * overwrite each other's saved text in silence.
 */
import { describe, expect, it } from "vitest";
import { createAppStore } from "./createAppStore.ts";
import {
  loadPrevious,
  loadUnsaved,
  loadWork,
  persistWork,
  PREVIOUS_KEY,
  UNSAVED_KEY,
  WORK_KEY,
  type StorageLike,
} from "./persistence.ts";
import {
  leftEarly,
  LOADING_KEY,
  markLoaded,
  markLoading,
  previousLoadUnfinished,
  QUICK_LEAVE_MS,
} from "./loading.ts";
import { reopenUnsaved, watchOtherTabs, type ChannelLike, type StorageChange } from "./tabs.ts";

function storage(init: Record<string, string> = {}): StorageLike & { map: Map<string, string> } {
  const map = new Map(Object.entries(init));
  return {
    map,
    getItem: (k) => map.get(k) ?? null,
    setItem: (k, v) => void map.set(k, v),
    removeItem: (k) => void map.delete(k),
  };
}

/** Timers run only when asked, so a test says when the debounced save happens. */
function manualTimers() {
  const pending = new Set<() => void>();
  return {
    schedule: (f: () => void) => {
      pending.add(f);
      return f;
    },
    cancel: (h: unknown) => void pending.delete(h as () => void),
    run: () => {
      for (const f of [...pending]) {
        pending.delete(f);
        f();
      }
    },
  };
}

/** One browser: a shared localStorage, storage events to every other tab, and a BroadcastChannel. */
function browser() {
  const shared = storage();
  const tabs: { listeners: ((e: StorageChange) => void)[]; channel: ChannelLike }[] = [];
  /** A tab as start.ts opens one: its text, or its own unsaved copy (kept in `session`, its sessionStorage) after a reload. */
  const open = (text: string, session = storage()) => {
    const timers = manualTimers();
    const me = {
      listeners: [] as ((e: StorageChange) => void)[],
      channel: undefined as unknown as ChannelLike,
    };
    const tabStorage: StorageLike = {
      getItem: shared.getItem,
      removeItem: shared.removeItem,
      setItem: (k, v) => {
        shared.setItem(k, v);
        for (const t of tabs) if (t !== me) for (const l of t.listeners) l({ key: k, newValue: v });
      },
    };
    me.channel = {
      onmessage: null,
      postMessage: (data) => {
        for (const t of tabs) if (t !== me) t.channel.onmessage?.({ data } as MessageEvent);
      },
      close: () => {},
    };
    tabs.push(me);
    const reopened = reopenUnsaved({ text, scenarioId: undefined, origin: "storage" }, loadUnsaved(session));
    const store = createAppStore(reopened.initial);
    const persistence = persistWork(store, tabStorage, { ...timers, tabStorage: session });
    watchOtherTabs(store, persistence, {
      onStorage: (l) => {
        me.listeners.push(l);
        return () => {};
      },
      channel: me.channel,
    });
    if (reopened.otherText !== undefined) {
      persistence.pause();
      store.getState().tabConflicted(reopened.otherText);
    }
    const type = (t: string) => {
      store.getState().editText(t);
      timers.run();
    };
    /** A reload: the page goes (its listeners with it) and opens again from this browser's saved work. */
    const reload = () => {
      persistence.flush();
      tabs.splice(tabs.indexOf(me), 1);
      return open(loadWork(shared)?.text ?? "", session);
    };
    return { store, persistence, type, reload, session };
  };
  return { shared, open, saved: () => loadWork(shared)?.text };
}

describe("safe mode: a load that never drew does not repeat", () => {
  it("reports an unfinished load until the first drawing removes the flag", () => {
    const s = storage();
    expect(previousLoadUnfinished(s)).toBe(false);
    markLoading(s, 1000);
    expect(previousLoadUnfinished(s)).toBe(true);
    markLoaded(s);
    expect(previousLoadUnfinished(s)).toBe(false);
  });

  it("a quick reload is no crash, a tab left hanging longer is", () => {
    const quick = storage();
    markLoading(quick, 1000);
    leftEarly(quick, 1000 + QUICK_LEAVE_MS - 1);
    expect(previousLoadUnfinished(quick)).toBe(false);
    const hung = storage();
    markLoading(hung, 1000);
    leftEarly(hung, 1000 + QUICK_LEAVE_MS + 1);
    expect(previousLoadUnfinished(hung)).toBe(true);
  });

  it("a damaged flag is no crash", () => {
    expect(previousLoadUnfinished(storage({ [LOADING_KEY]: "{" }))).toBe(false);
  });

  it("opens paused with the text intact, and resumes on request", () => {
    const store = createAppStore({
      text: "# work\n",
      scenarioId: undefined,
      origin: "storage",
      paused: true,
    });
    expect(store.getState().paused).toBe(true);
    expect(store.getState().text).toBe("# work\n");
    store.getState().resumeAnalysis();
    expect(store.getState().paused).toBe(false);
  });
});

describe("the previous text", () => {
  it("is saved as it is kept, and Previous text swaps it with the editor's, so the swap is undoable", () => {
    const s = storage();
    const store = createAppStore({ text: "# mine\n", scenarioId: undefined, origin: "storage" });
    persistWork(store, s, manualTimers());
    store.getState().keepPreviousText("# mine\n");
    store.getState().replaceText("# link\n", "share");
    expect(loadPrevious(s)).toBe("# mine\n");
    store.getState().restorePrevious();
    expect(store.getState().text).toBe("# mine\n");
    expect(store.getState().previous).toBe("# link\n");
    expect(loadPrevious(s)).toBe("# link\n");
    expect(s.map.has(PREVIOUS_KEY)).toBe(true);
  });
});

describe("two tabs editing the same saved work", () => {
  it("the tab that opens second is told at once", () => {
    const b = browser();
    const one = b.open("# a\n");
    const two = b.open("# a\n");
    expect(two.store.getState().notice?.text).toContain("also open in another tab");
    expect(one.store.getState().otherTab).toBe(true);
  });

  it("the tab whose saved text is overwritten is told, stops saving, and nothing is lost whichever it keeps", () => {
    const b = browser();
    const one = b.open("# base\n");
    const two = b.open("# base\n");
    two.type("# base\n# two's edit\n");
    expect(b.saved()).toBe("# base\n# two's edit\n");
    expect(one.store.getState().tabConflict?.otherText).toBe("# base\n# two's edit\n");
    expect(two.store.getState().tabConflict).toBeUndefined();

    // Tab one keeps typing: it does not save over tab two's text while the question is open.
    one.type("# base\n# one's edit\n");
    one.persistence.flush();
    expect(b.saved()).toBe("# base\n# two's edit\n");

    // Tab one keeps its own: saved now, tab two's text is the previous text, and tab two is told in turn.
    one.store.getState().resolveTabConflict("mine");
    expect(b.saved()).toBe("# base\n# one's edit\n");
    expect(loadPrevious(b.shared)).toBe("# base\n# two's edit\n");
    expect(two.store.getState().tabConflict?.otherText).toBe("# base\n# one's edit\n");

    // Tab two opens tab one's: its own becomes the previous text, and tab one is not told again.
    two.store.getState().resolveTabConflict("theirs");
    expect(two.store.getState().text).toBe("# base\n# one's edit\n");
    expect(loadPrevious(b.shared)).toBe("# base\n# two's edit\n");
    expect(b.saved()).toBe("# base\n# one's edit\n");
    expect(one.store.getState().tabConflict).toBeUndefined();
  });

  it("a save of the same text is no conflict", () => {
    const b = browser();
    const one = b.open("# same\n");
    const two = b.open("# other\n");
    two.type("# same\n");
    expect(b.shared.map.get(WORK_KEY)).toContain("# same");
    expect(one.store.getState().tabConflict).toBeUndefined();
  });

  it("a tab that stopped saving keeps its text in its own storage: a reload opens it and asks again (issue 31)", () => {
    const b = browser();
    const one = b.open("# base\n");
    const two = b.open("# base\n");
    one.type("# base\n# one's edit\n");
    two.type("# base\n# two's edit\n");
    expect(two.store.getState().tabConflict?.otherText).toBe("# base\n# one's edit\n");
    expect(two.persistence.holdsUnsaved()).toBe(true);
    expect(loadUnsaved(two.session)?.text).toBe("# base\n# two's edit\n");
    expect(b.saved()).toBe("# base\n# one's edit\n");

    // Reloaded before choosing: its own text is back, it still does not save, and the question is asked again.
    const again = two.reload();
    expect(again.store.getState().text).toBe("# base\n# two's edit\n");
    expect(again.store.getState().tabConflict?.otherText).toBe("# base\n# one's edit\n");
    expect(b.saved()).toBe("# base\n# one's edit\n");
    again.type("# base\n# two's edit\n# more\n");
    expect(b.saved()).toBe("# base\n# one's edit\n");
    expect(loadUnsaved(again.session)?.text).toBe("# base\n# two's edit\n# more\n");

    // Choosing ends it: the chosen text is saved, the tab's copy is gone, and nothing is held unsaved.
    again.store.getState().resolveTabConflict("mine");
    expect(b.saved()).toBe("# base\n# two's edit\n# more\n");
    expect(again.session.map.has(UNSAVED_KEY)).toBe(false);
    expect(again.persistence.holdsUnsaved()).toBe(false);
    expect(again.reload().store.getState().tabConflict).toBeUndefined();
  });
});
