/** A fresh store per app, and per test (zustand's testing guide). */
import { createStore, type StoreApi } from "zustand/vanilla";
import { subscribeWithSelector } from "zustand/middleware";
import { createInputSlice } from "./inputSlice.ts";
import { createAnalysisSlice } from "./analysisSlice.ts";
import { createViewSlice } from "./viewSlice.ts";
import { createWorkshopSlice } from "./workshopSlice.ts";
import { createSessionSlice } from "./sessionSlice.ts";
import { createTestsSlice } from "./testsSlice.ts";
import { createScenarioSlice } from "./scenarioSlice.ts";
import { createObserveSlice } from "./observeSlice.ts";
import type { AppState, TextOrigin, Theme } from "./types.ts";
import type { SharedView } from "../share/view.ts";

export interface InitialState {
  text: string;
  scenarioId: string | undefined;
  origin: Exclude<TextOrigin, "edit">;
  theme?: Theme;
  /** The view to open with (from a share link or the saved work). */
  view?: SharedView;
  /** Safe mode: open without analysing (the previous load crashed or hung). */
  paused?: boolean;
  /** The text kept before a link, a scenario or another tab replaced it (`ktl.previous.v1`). */
  previous?: string | undefined;
  /** The Tests tab's file, saved in this browser (`ktl.tests.v1`). */
  tests?: { text: string; file?: string; on?: boolean };
}

export type AppStore = StoreApi<AppState> & {
  subscribe: {
    (listener: (state: AppState, prev: AppState) => void): () => void;
    <U>(
      selector: (state: AppState) => U,
      listener: (selected: U, previous: U) => void,
      options?: { equalityFn?: (a: U, b: U) => boolean; fireImmediately?: boolean },
    ): () => void;
  };
};

export function createAppStore(initial: InitialState): AppStore {
  const store = createStore<AppState>()(
    subscribeWithSelector((...a) => ({
      ...createInputSlice(initial)(...a),
      ...createAnalysisSlice(...a),
      ...createViewSlice({ theme: initial.theme ?? "light" })(...a),
      ...createWorkshopSlice(...a),
      ...createSessionSlice({ paused: initial.paused ?? false, previous: initial.previous })(...a),
      ...createTestsSlice(initial.tests)(...a),
      ...createScenarioSlice(...a),
      ...createObserveSlice(...a),
    })),
  ) as AppStore;
  if (initial.view) store.getState().restoreView(initial.view);
  return store;
}
