/**
 * What keeps the user's work safe in this browser (issue 16): safe mode after
 * a load that crashed or hung (the text opens, the engine waits to be asked),
 * the text a link, a scenario or another tab replaced (one slot, saved as
 * `ktl.previous.v1`), and a warning when another tab saved different text over
 * this tab's saved work. Written only through these actions; `start.ts` and
 * `tabs.ts` wire them to the worker and to localStorage.
 */
import type { SessionSlice, SliceCreator } from "./types.ts";

export type { SessionSlice, TabConflict } from "./types.ts";

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
