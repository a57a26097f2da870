import { createContext, useContext, useDeferredValue, type ReactNode } from "react";
import { useStore } from "zustand";
import { useShallow } from "zustand/react/shallow";
import type { AppStore } from "./createAppStore.ts";
import type { AppState } from "./types.ts";
import type { Analysis } from "../engine/analysis/index.ts";

const StoreContext = createContext<AppStore | null>(null);

export function StoreProvider({ store, children }: { store: AppStore; children: ReactNode }) {
  return <StoreContext.Provider value={store}>{children}</StoreContext.Provider>;
}

export function useAppStore(): AppStore {
  const store = useContext(StoreContext);
  if (!store) throw new Error("useAppStore outside StoreProvider");
  return store;
}

/** Select from the store; wrap object-returning selectors in useShallow. */
export function useApp<T>(selector: (s: AppState) => T): T {
  return useStore(useAppStore(), selector);
}

/**
 * The analysis the graph and its panels draw, deferred at scale: a new answer is rendered at
 * transition priority, which React splits into slices between components and drops for a newer
 * keystroke, so typing is never behind one long task. Views that draw together read it together.
 */
export function useDrawnResult(): Analysis | undefined {
  return useDrawnAnalysis().result;
}

/** Pods past which a new answer is drawn deferred: below, one render of the graph is short, and deferring only delays it. */
export const DEFER_PODS = 500;

/** The analysis with its revision, deferred when large: the revision a drawn picture is of. */
export function useDrawnAnalysis(): { result: Analysis | undefined; revision: number } {
  // The answer and its revision only: the status and progress of the next one change more often.
  const now = useApp(useShallow((s) => ({ result: s.analysis.result, revision: s.analysis.revision })));
  const deferred = useDeferredValue(now);
  return (now.result?.pods.length ?? 0) > DEFER_PODS ? deferred : now;
}
