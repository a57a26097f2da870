import {
  createContext,
  startTransition,
  useContext,
  useDeferredValue,
  useEffect,
  useState,
  type ReactNode,
} from "react";
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

/**
 * The drawn analysis for the panels beside the graph (the question bar's choices, the drop list, find,
 * the filters): past DEFER_PODS they take a new answer only once the graph has committed it, in a render
 * of their own, so their mapping (tens of milliseconds each at 2,000 pods) is not on the way from a
 * keystroke to the redrawn graph. Below it, the drawn analysis itself.
 */
export function useSettledResult(): Analysis | undefined {
  const drawn = useDrawnResult();
  const [settled, setSettled] = useState(drawn);
  const large = (drawn?.pods.length ?? 0) > DEFER_PODS;
  useEffect(() => {
    if (!large || settled === drawn) return;
    // A task after the commit that drew the graph, at transition priority (a newer keystroke goes first).
    const id = setTimeout(() => startTransition(() => setSettled(drawn)), 0);
    return () => clearTimeout(id);
  }, [drawn, large, settled]);
  return large ? settled : drawn;
}
