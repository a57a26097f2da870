/** A `#url=` import keeps the user's text as the previous text before replacing it, saved where a reload finds it. */
import { describe, expect, it } from "vitest";
import { createAppStore } from "../../store/createAppStore.ts";
import { loadPrevious, persistWork, type StorageLike } from "../../store/persistence.ts";
import { openFetchedText } from "./open.ts";

function storage(): StorageLike {
  const map = new Map<string, string>();
  return {
    getItem: (k) => map.get(k) ?? null,
    setItem: (k, v) => void map.set(k, v),
    removeItem: (k) => void map.delete(k),
  };
}

describe("opening a fetched scenario", () => {
  it("keeps the user's text as the previous text, saved at once, with Restore previous text", () => {
    const store = createAppStore({ text: "# my own work\n", scenarioId: undefined, origin: "storage" });
    const s = storage();
    persistWork(store, s, { schedule: () => 0, cancel: () => {} });
    openFetchedText(store, { text: "kind: Namespace\n", name: "shop.yaml" }, "files.example");
    expect(store.getState().text).toBe("kind: Namespace\n");
    expect(store.getState().previous).toBe("# my own work\n");
    expect(loadPrevious(s)).toBe("# my own work\n");
    expect(store.getState().notice).toMatchObject({
      undoText: "# my own work\n",
      undoLabel: "Restore previous text",
    });
    store.getState().restorePrevious();
    expect(store.getState().text).toBe("# my own work\n");
  });

  it("the same text replaces nothing and keeps no copy", () => {
    const store = createAppStore({ text: "x: 1\n", scenarioId: undefined, origin: "storage" });
    openFetchedText(store, { text: "x: 1\n", name: "x.yaml" }, "files.example");
    expect(store.getState().previous).toBeUndefined();
  });
});
