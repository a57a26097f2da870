/**
 * Wiring: the store from what the page opens with (a link, saved work, the
 * default scenario), saving as the user types, the engine worker, and the
 * URL's share hash.
 */
import { engineClient } from "../worker/client.ts";
import { workerDeflater } from "../worker/deflateClient.ts";
import { createAppStore, type AppStore } from "../store/createAppStore.ts";
import { bootstrap } from "../store/bootstrap.ts";
import { loadPrevious, loadUnsaved, persistWork, type StorageLike } from "../store/persistence.ts";
import { connectEngine } from "../store/engineSync.ts";
import { nextTask } from "../store/tasks.ts";
import { prepareGraph } from "../components/Graph/useGraph.ts";
import { leftEarly, markLoaded, markLoading, previousLoadUnfinished } from "../store/loading.ts";
import { reopenUnsaved, TABS_CHANNEL, watchOtherTabs, type StorageChange } from "../store/tabs.ts";
import { decodeShare, payloadFromHash } from "../share/codec.ts";
import { firstDraw } from "../store/firstDraw.ts";
import { compareWith } from "../components/WhatIf/run.ts";

function storageOrNothing(which: "localStorage" | "sessionStorage"): StorageLike | undefined {
  try {
    const s = window[which];
    s.getItem("ktl.probe");
    return s;
  } catch {
    return undefined;
  }
}

const dropHash = () => history.replaceState(null, "", location.pathname + location.search);

export function startPlayground(): AppStore {
  const storage = storageOrNothing("localStorage");
  // This tab's own: its text while another tab's saved text waits for the user's choice (tabs.ts).
  const tabStorage = storageOrNothing("sessionStorage");
  const prefersDark = typeof matchMedia === "function" && matchMedia("(prefers-color-scheme: dark)").matches;
  const boot = bootstrap(location.hash, storage, prefersDark ? "dark" : "light");
  // Safe mode: the last load never drew (the tab crashed or hung), so this one opens the text without analysing it.
  const paused = previousLoadUnfinished(storage);
  const reopened = reopenUnsaved(boot.initial, loadUnsaved(tabStorage));
  const store = createAppStore({ ...reopened.initial, paused, previous: loadPrevious(storage) });
  if (boot.notice) store.getState().notify(boot.notice);
  if (boot.consumedHash) dropHash();
  if (boot.before !== undefined) void compareWith(store, engineClient(), boot.before);

  const persistence = persistWork(store, storage, { tabStorage, deflate: workerDeflater() });
  if (reopened.otherText !== undefined) {
    persistence.pause();
    store.getState().tabConflicted(reopened.otherText);
  }
  // Text that is only in this tab (saving stopped for another tab's) is lost if the tab closes: the browser asks first.
  addEventListener("beforeunload", (e) => {
    if (!persistence.holdsUnsaved()) return;
    e.preventDefault();
    e.returnValue = "";
  });
  addEventListener("pagehide", () => {
    persistence.flush();
    leftEarly(storage, Date.now());
  });
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") persistence.flush();
  });

  // Once the user edits, a share hash in the URL no longer describes the text: drop it so a reload keeps the edits.
  store.subscribe(
    (s) => s.revision,
    () => {
      if (
        ["edit", "whatif"].includes(store.getState().origin) &&
        payloadFromHash(location.hash) !== undefined
      )
        dropHash();
    },
  );

  // A link pasted into this tab's address bar.
  addEventListener("hashchange", () => {
    const payload = payloadFromHash(location.hash);
    if (payload === undefined) return;
    const r = decodeShare(payload);
    if (!r.ok) {
      dropHash();
      store.getState().notify({ kind: "error", text: `${r.error} Your text is unchanged.` });
      return;
    }
    const previous = store.getState().text;
    if (previous === r.input.text) {
      if (r.input.view) store.getState().restoreView(r.input.view);
      if (r.input.before !== undefined) void compareWith(store, engineClient(), r.input.before);
      return;
    }
    persistence.flush();
    store.getState().keepPreviousText(previous);
    store.getState().replaceText(r.input.text, "share", r.input.scenario);
    if (r.input.view) store.getState().restoreView(r.input.view);
    if (r.input.before !== undefined) void compareWith(store, engineClient(), r.input.before);
    store.getState().notify({
      kind: "info",
      text: "Opened the scenario from the link. Your text is kept: Restore previous text brings it back.",
      undoText: previous,
      undoLabel: "Restore previous text",
    });
  });

  store.subscribe(
    (s) => s.theme,
    (t) => {
      document.documentElement.dataset.theme = t;
    },
    { fireImmediately: true },
  );

  watchOtherTabs(store, persistence, {
    onStorage(listener: (e: StorageChange) => void) {
      addEventListener("storage", listener);
      return () => removeEventListener("storage", listener);
    },
    channel: typeof BroadcastChannel === "function" ? new BroadcastChannel(TABS_CHANNEL) : undefined,
  });

  const connect = () => {
    markLoading(storage, Date.now());
    void firstDraw.then(() => markLoaded(storage));
    // An engine error leaves the tab usable: that load finished too.
    const offError = store.subscribe(
      (s) => s.analysis.status,
      (status) => {
        if (status !== "error") return;
        offError();
        markLoaded(storage);
      },
    );
    connectEngine(store, engineClient(), {
      prepareDraw: prepareGraph(store.getState),
      nextTask,
    });
  };
  if (!paused) connect();
  else {
    const offPaused = store.subscribe(
      (s) => s.paused,
      (p) => {
        if (p) return;
        offPaused();
        connect();
      },
    );
  }
  return store;
}
