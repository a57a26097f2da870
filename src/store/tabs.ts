/**
 * Two tabs of the playground share one saved text (`ktl.work.v1`). Neither may
 * overwrite the other's in silence (issue 16): when another tab saves
 * different text over this tab's, the storage event says so; this tab stops
 * saving and asks which text to keep, and the one not chosen is kept as the
 * previous text. A tab that opens while another is open is told at once
 * (BroadcastChannel), before either edits. Until the user chooses, the tab
 * keeps its text in its own sessionStorage (`UNSAVED_KEY`), so a reload opens
 * it again and asks again, and the page asks before it is closed.
 */
import type { AppStore, InitialState } from "./createAppStore.ts";
import { parseWork, WORK_KEY, type Persistence, type SavedWork } from "./persistence.ts";

/**
 * A tab reloaded before the user chose between its text and another tab's: its own copy opens, and the
 * saved text (the other tab's) is what the question offers. A link opened in the reload is the user's new
 * choice and wins; a copy equal to the saved text needs no question.
 */
export function reopenUnsaved(
  initial: InitialState,
  unsaved: SavedWork | undefined,
): { initial: InitialState; otherText: string | undefined } {
  if (!unsaved || initial.origin === "share" || unsaved.text === initial.text)
    return { initial, otherText: undefined };
  return {
    initial: { ...initial, text: unsaved.text, scenarioId: unsaved.scenarioId, origin: "storage" },
    otherText: initial.text,
  };
}

/** The parts of a storage event this needs (`StorageEvent` in the browser). */
export interface StorageChange {
  key: string | null;
  newValue: string | null;
}

/** The parts of a BroadcastChannel this needs. */
export interface ChannelLike {
  postMessage(message: unknown): void;
  onmessage: ((e: MessageEvent) => void) | null;
  close(): void;
}

export interface TabsEnv {
  /** Subscribes to storage changes made by other tabs; returns the unsubscribe. */
  onStorage(listener: (e: StorageChange) => void): () => void;
  channel: ChannelLike | undefined;
}

export const TABS_CHANNEL = "ktl.tabs.v1";

type TabMessage = { type: "hello" } | { type: "here" };

const isTabMessage = (m: unknown): m is TabMessage =>
  typeof m === "object" &&
  m !== null &&
  ((m as TabMessage).type === "hello" || (m as TabMessage).type === "here");

export function watchOtherTabs(store: AppStore, persistence: Persistence, env: TabsEnv): () => void {
  const offStorage = env.onStorage((e) => {
    if (e.key !== WORK_KEY) return;
    const other = parseWork(e.newValue);
    store.getState().setOtherTab(true);
    if (!other || other.text === store.getState().text) return;
    persistence.pause();
    store.getState().tabConflicted(other.text);
  });

  // The user chose: the chosen text is saved and this tab saves again.
  const offConflict = store.subscribe(
    (s) => s.tabConflict,
    (now, before) => {
      if (before && !now) persistence.resume();
    },
  );

  const channel = env.channel;
  if (channel) {
    channel.onmessage = (e) => {
      if (!isTabMessage(e.data)) return;
      const first = !store.getState().otherTab;
      store.getState().setOtherTab(true);
      if (e.data.type === "hello") channel.postMessage({ type: "here" } satisfies TabMessage);
      else if (first)
        store.getState().notify({
          kind: "info",
          text: "The playground is also open in another tab. Both save to the same place in this browser: if one tab saves over the other's text, that tab is told and asked which text to keep.",
        });
    };
    channel.postMessage({ type: "hello" } satisfies TabMessage);
  }
  return () => {
    offStorage();
    offConflict();
    if (channel) {
      channel.onmessage = null;
      channel.close();
    }
  };
}
