/**
 * The fetched text replaces the editor's as a link's does (issue 31, item 5): the user's text is kept as the
 * previous text first (saved under `ktl.previous.v1` at once, so a reload or a crash still has it), and the
 * notice's Restore previous text brings it back.
 */
import type { AppStore } from "../../store/createAppStore.ts";

export function openFetchedText(
  store: AppStore,
  fetched: { text: string; name: string },
  host: string,
): void {
  const previous = store.getState().text;
  const replaced = previous !== fetched.text;
  if (replaced) store.getState().keepPreviousText(previous);
  store.getState().replaceText(fetched.text, "file", undefined);
  store.getState().clearWhatIf();
  store.getState().notify(
    replaced
      ? {
          kind: "info",
          text: `Opened ${fetched.name} from ${host}. It stays in this browser. Your text is kept: Restore previous text brings it back.`,
          undoText: previous,
          undoLabel: "Restore previous text",
        }
      : { kind: "info", text: `Opened ${fetched.name} from ${host}. It stays in this browser.` },
  );
}
