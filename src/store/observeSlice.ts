/**
 * The Observed tab: a flow file (Hubble's `hubble observe -o json`, Calico
 * flow logs, ktl's CSV) opened beside the manifests, and the engine's
 * comparison of it with them, as `ktl observe` compares. The comparison is
 * written only by the engine sync (engineSync.ts); the view reads it.
 */
import type { ObserveSlice, SliceCreator } from "./types.ts";

const IDLE = { status: "idle", revision: -1, text: "", result: undefined, error: undefined } as const;

export const createObserveSlice: SliceCreator<ObserveSlice> = (set) => ({
  observeText: "",
  observeFile: "",
  observeRun: { ...IDLE },
  openFlows: (observeText, observeFile) => set({ observeText, observeFile, side: "observed" }),
  closeFlows: () => set({ observeText: "", observeFile: "", observeRun: { ...IDLE } }),
  observeStarted: (revision, text) =>
    set((s) => ({ observeRun: { ...s.observeRun, status: "running", revision, text, error: undefined } })),
  observeReceived: (revision, text, result) =>
    set({ observeRun: { status: "ready", revision, text, result, error: undefined } }),
  observeFailed: (revision, text, error) =>
    set({ observeRun: { status: "error", revision, text, result: undefined, error } }),
});
