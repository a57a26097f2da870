/**
 * The page's deflater for saved texts: one worker (deflate.worker.ts), started on the first save and kept. A
 * worker that fails to load, or answers with an error, rejects the save's promise, and the store saves the text
 * on the page's thread instead (store/persistence.ts).
 */
import DeflateWorker from "./deflate.worker.ts?worker";
import type { DeflateAnswer, DeflateRequest } from "./deflateAnswer.ts";

export interface DeflateWorkerLike {
  postMessage(m: DeflateRequest): void;
  onmessage: ((e: MessageEvent<DeflateAnswer>) => void) | null;
  onerror: ((e: ErrorEvent) => void) | null;
  terminate(): void;
}

export function workerDeflater(
  make: () => DeflateWorkerLike = () => new DeflateWorker() as unknown as DeflateWorkerLike,
): (text: string) => Promise<Uint8Array> {
  let worker: DeflateWorkerLike | undefined;
  let next = 0;
  const pending = new Map<number, { resolve: (b: Uint8Array) => void; reject: (e: Error) => void }>();
  const start = (): DeflateWorkerLike => {
    const w = make();
    w.onmessage = (e) => {
      const p = pending.get(e.data.id);
      if (!p) return;
      pending.delete(e.data.id);
      if ("bytes" in e.data) p.resolve(e.data.bytes);
      else p.reject(new Error(e.data.error));
    };
    w.onerror = (e) => {
      // The worker could not load or run: every waiting save fails, and the next one starts a new worker.
      const list = [...pending.values()];
      pending.clear();
      w.terminate();
      if (worker === w) worker = undefined;
      for (const p of list) p.reject(new Error(e.message || "the compressing worker failed"));
    };
    return w;
  };
  return (text) =>
    new Promise((resolve, reject) => {
      const id = ++next;
      pending.set(id, { resolve, reject });
      (worker ??= start()).postMessage({ id, text });
    });
}
