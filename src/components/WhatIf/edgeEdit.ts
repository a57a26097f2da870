/**
 * "Allow this edge" / "Deny this edge": the engine writes the smallest edit
 * and proves it (engine/observe/edge.ts, through the worker); this applies it
 * as a what-if (one undoable change, before against after), with the proof
 * in the what-if's notes. The page decides nothing.
 */
import type { EdgeEdit, EdgeEditQuery, InputDiff } from "../../engine/index.ts";
import type { AppStore } from "../../store/createAppStore.ts";
import type { EngineClient } from "../../worker/engineClient.ts";
import { engineClient } from "../../worker/client.ts";

export type EdgeEditClient = Pick<EngineClient, "edgeEdit">;

export const edgeEditClient: EdgeEditClient = { edgeEdit: (q) => engineClient().edgeEdit(q) };

/** The proof in words, for the what-if's notes and the details panel. */
export function proofLines(r: EdgeEdit): string[] {
  const p = r.proof;
  if (!p) return [];
  const word = (allowed: boolean) => (allowed ? "allowed" : "dropped");
  const lines = [
    `${p.holds ? "Proved" : "Not proved"}: the decider gives ${word(p.after.allowed)} (was ${word(p.before.allowed)}). ${p.after.reason}`,
  ];
  if (p.alsoChanged.length === 0) lines.push("Nothing else on this port changes.");
  else
    lines.push(
      `Also changes: ${p.alsoChanged.map((c) => `${c.src} → ${c.dst} now ${word(c.allowed)}`).join("; ")}${p.more ? ` and ${p.more} more` : ""}.`,
    );
  return lines;
}

/**
 * An edit the engine wrote and proved, into the text as a what-if: applied with its notes and
 * compared before against after; one that changed nothing fails the what-if with its reason.
 * Stale (the text moved on while the engine worked): nothing happens.
 */
export function applyEngineEdit(
  store: AppStore,
  before: string,
  edit: { changed: boolean; text: string; notes: string[]; failure: string },
  diff: InputDiff | undefined,
): boolean {
  if (store.getState().text !== before) return false;
  if (!edit.changed) {
    store.getState().whatIfFailed(edit.failure);
    return true;
  }
  store.getState().whatIfApplied(edit.text, edit.notes);
  store.getState().editText(edit.text, "whatif");
  if (diff) store.getState().whatIfCompared(edit.text, diff);
  return true;
}

export async function runEdgeEdit(
  store: AppStore,
  client: EdgeEditClient,
  query: EdgeEditQuery,
): Promise<EdgeEdit | undefined> {
  const before = store.getState().text;
  const label = `${query.want === "allow" ? "Allow" : "Deny"} ${query.from} → ${query.to}`;
  store.getState().whatIfStarted(label, before);
  try {
    const { result, diff } = await client.edgeEdit({ text: before, file: store.getState().file, query });
    const edit = {
      changed: result.changed,
      text: result.text,
      notes: [result.summary, ...proofLines(result)],
      failure: result.error ?? result.summary,
    };
    return applyEngineEdit(store, before, edit, diff) ? result : undefined;
  } catch (e) {
    store.getState().whatIfFailed(e instanceof Error ? e.message : String(e));
    return undefined;
  }
}
