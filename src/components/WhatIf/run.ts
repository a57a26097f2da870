/**
 * Runs a what-if against the store: the edit goes into the editor as one
 * undoable change (editText), and the comparison of before and after comes
 * back from the engine worker into the workshop slice.
 */
import type { WhatIf } from "../../engine/index.ts";
import type { AppStore } from "../../store/createAppStore.ts";
import type { EngineClient } from "../../worker/engineClient.ts";

/** The part of the engine client that what-if uses (the engine worker rewrites and compares). */
export type WhatIfClient = Pick<EngineClient, "whatIf" | "diff">;

/** Applies a what-if control to the editor text. */
export async function runWhatIf(
  store: AppStore,
  client: WhatIfClient,
  label: string,
  op: WhatIf,
): Promise<void> {
  const before = store.getState().text;
  store.getState().whatIfStarted(label, before);
  try {
    const { result, diff } = await client.whatIf({ text: before, op });
    if (store.getState().text !== before) return;
    if (!result.changed) {
      store.getState().whatIfFailed(result.error ?? result.summary);
      return;
    }
    store.getState().whatIfApplied(result.text, result.notes);
    store.getState().editText(result.text, "whatif");
    if (diff) store.getState().whatIfCompared(result.text, diff);
  } catch (e) {
    store.getState().whatIfFailed(e instanceof Error ? e.message : String(e));
  }
}

/** Applies a text change made elsewhere (a lesson's suggested edit) and compares it the same way. */
export async function runTextChange(
  store: AppStore,
  client: WhatIfClient,
  label: string,
  after: string,
): Promise<void> {
  const before = store.getState().text;
  store.getState().whatIfStarted(label, before);
  store.getState().whatIfApplied(after, []);
  store.getState().editText(after, "whatif");
  try {
    store.getState().whatIfCompared(after, await client.diff({ before, after }));
  } catch (e) {
    store.getState().whatIfFailed(e instanceof Error ? e.message : String(e));
  }
}

/** What the label of a link's comparison says (the GitHub Action's links compare with the pull request's base). */
export const LINK_COMPARISON = "The link's change, against its before-state";

/**
 * Marks what the open text changes against `before` (a link's base: a pull request's), as a
 * what-if's changes are marked; the text itself is not touched.
 */
export async function compareWith(
  store: AppStore,
  client: Pick<EngineClient, "diff">,
  before: string,
  label = LINK_COMPARISON,
): Promise<void> {
  const after = store.getState().text;
  store.getState().whatIfStarted(label, before);
  store.getState().whatIfApplied(after, []);
  try {
    store.getState().whatIfCompared(after, await client.diff({ before, after }));
  } catch (e) {
    store.getState().whatIfFailed(e instanceof Error ? e.message : String(e));
  }
}
