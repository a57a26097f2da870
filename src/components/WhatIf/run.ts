/**
 * Runs a what-if against the store: the edit goes into the editor as one
 * undoable change (editText), and the comparison of before and after comes
 * back from the what-if worker into the workshop slice.
 */
import type { InputDiff, WhatIf, WhatIfResult } from "../../engine/index.ts";
import type { AppStore } from "../../store/createAppStore.ts";
import type { WhatIfRequest, WhatIfResponse, WhatIfWorkerLike } from "./protocol.ts";

type Pending = (r: WhatIfResponse) => void;

export interface WhatIfClient {
  apply(text: string, op: WhatIf): Promise<{ result: WhatIfResult; diff?: InputDiff }>;
  diff(before: string, after: string): Promise<InputDiff>;
}

export function createWhatIfClient(makeWorker: () => WhatIfWorkerLike): WhatIfClient {
  let worker: WhatIfWorkerLike | undefined;
  let next = 1;
  const pending = new Map<number, Pending>();
  type Body =
    { method: "apply"; text: string; op: WhatIf } | { method: "diff"; before: string; after: string };
  const send = (req: Body): Promise<WhatIfResponse> =>
    new Promise((resolve) => {
      if (!worker) {
        worker = makeWorker();
        worker.onmessage = (e) => {
          const p = pending.get(e.data.id);
          pending.delete(e.data.id);
          p?.(e.data);
        };
        worker.onerror = () => {
          for (const [id, p] of pending) p({ id, ok: false, error: "the what-if worker stopped" });
          pending.clear();
          worker = undefined;
        };
      }
      const id = next++;
      pending.set(id, resolve);
      worker.postMessage({ ...req, id } as WhatIfRequest);
    });
  return {
    async apply(text, op) {
      const r = await send({ method: "apply", text, op });
      if (!r.ok) throw new Error(r.error);
      if (r.method !== "apply") throw new Error("unexpected answer");
      return r.diff ? { result: r.result, diff: r.diff } : { result: r.result };
    },
    async diff(before, after) {
      const r = await send({ method: "diff", before, after });
      if (!r.ok) throw new Error(r.error);
      if (r.method !== "diff") throw new Error("unexpected answer");
      return r.diff;
    },
  };
}

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
    const { result, diff } = await client.apply(before, op);
    if (store.getState().text !== before) return;
    if (!result.changed) {
      store.getState().whatIfFailed(result.error ?? result.summary);
      return;
    }
    store.getState().whatIfApplied(result.text, result.notes);
    store.getState().editText(result.text);
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
  store.getState().editText(after);
  try {
    store.getState().whatIfCompared(after, await client.diff(before, after));
  } catch (e) {
    store.getState().whatIfFailed(e instanceof Error ? e.message : String(e));
  }
}
