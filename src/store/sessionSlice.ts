/**
 * What keeps the user's work safe in this browser (issue 16): safe mode after
 * a load that crashed or hung (the text opens, the engine waits to be asked),
 * the text a link, a scenario or another tab replaced (one slot, saved as
 * `ktl.previous.v1`), and a warning when another tab saved different text over
 * this tab's saved work. Written only through these actions; `start.ts` and
 * `tabs.ts` wire them to the worker and to localStorage.
 */
import type { SliceCreator } from "./types.ts";

export interface TabConflict {
  /** The text the other tab saved. */
  otherText: string;
}

export interface SessionSlice {
  /** Safe mode: the previous load did not reach its first drawing, so this one does not analyse until asked. */
  paused: boolean;
  /** The text kept before something replaced the editor's text; undefined when none is kept. */
  previous: string | undefined;
  /** Another tab saved different text over this tab's; this tab stops saving until the user chooses. */
  tabConflict: TabConflict | undefined;
  /** Another tab of the playground is open in this browser. */
  otherTab: boolean;
  resumeAnalysis(): void;
  keepPreviousText(text: string): void;
  /** Swaps the editor's text and the kept one, so restoring is itself undoable. */
  restorePrevious(): void;
  tabConflicted(otherText: string): void;
  /** The user chose: "mine" keeps this tab's text (the other's becomes the previous text), "theirs" opens the other's (this tab's becomes the previous text). */
  resolveTabConflict(choice: "mine" | "theirs"): void;
  setOtherTab(open: boolean): void;
}

export const createSessionSlice =
  (initial: { paused: boolean; previous: string | undefined }): SliceCreator<SessionSlice> =>
  (set, get) => ({
    paused: initial.paused,
    previous: initial.previous,
    tabConflict: undefined,
    otherTab: false,
    resumeAnalysis: () => set({ paused: false }),
    keepPreviousText: (text) => set({ previous: text }),
    restorePrevious: () => {
      const { previous, text } = get();
      if (previous === undefined || previous === text) return;
      set({ previous: text });
      get().replaceText(previous, "restore", undefined);
    },
    tabConflicted: (otherText) => set({ tabConflict: { otherText } }),
    resolveTabConflict: (choice) => {
      const conflict = get().tabConflict;
      if (!conflict) return;
      const mine = get().text;
      if (choice === "theirs") {
        // The text first: the conflict's end resumes saving, which must save the other tab's text, not this one's.
        if (conflict.otherText !== mine) {
          get().replaceText(conflict.otherText, "restore", undefined);
          set({ previous: mine });
        }
        set({ tabConflict: undefined });
      } else {
        set({
          previous: conflict.otherText !== mine ? conflict.otherText : get().previous,
          tabConflict: undefined,
        });
      }
    },
    setOtherTab: (otherTab) => set({ otherTab }),
  });
