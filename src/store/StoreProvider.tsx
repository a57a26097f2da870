import { createContext, useContext, type ReactNode } from "react";
import { useStore } from "zustand";
import type { AppStore } from "./createAppStore.ts";
import type { AppState } from "./types.ts";

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
