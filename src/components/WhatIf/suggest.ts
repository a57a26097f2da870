/**
 * "Write policies from these flows": the engine writes least-privilege
 * policies in the profile's dialect from the Observed tab's flow file and
 * proves them (engine/observe suggest.ts, through the worker); a proved set
 * goes into the text as a what-if (one undoable change, before against
 * after), with the proof in the what-if's notes. Unproved, nothing changes
 * and the proof's lines say what failed. The page decides nothing.
 */
import type { TextSuggestion } from "../../engine/index.ts";
import type { AppStore } from "../../store/createAppStore.ts";
import type { EngineClient } from "../../worker/engineClient.ts";
import { engineClient } from "../../worker/client.ts";
import { applyEngineEdit } from "./edgeEdit.ts";

export type SuggestClient = Pick<EngineClient, "suggest">;

export const suggestClient: SuggestClient = { suggest: (q) => engineClient().suggest(q) };

export async function runSuggest(
  store: AppStore,
  client: SuggestClient,
): Promise<TextSuggestion | undefined> {
  const s = store.getState();
  const before = s.text;
  store.getState().whatIfStarted(`Policies from ${s.observeFile || "the observed flows"}`, before);
  try {
    const { result, diff } = await client.suggest({
      text: before,
      file: s.file,
      flows: { name: s.observeFile || "flows", text: s.observeText },
    });
    const edit = {
      changed: result.changed,
      text: result.text,
      notes: [result.summary, ...result.lines],
      failure: result.summary,
    };
    return applyEngineEdit(store, before, edit, diff) ? result : undefined;
  } catch (e) {
    store.getState().whatIfFailed(e instanceof Error ? e.message : String(e));
    return undefined;
  }
}
