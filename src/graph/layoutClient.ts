/** Asks the layout worker for positions; only the newest request's answer is used. */
import type { ElkNode } from "elkjs/lib/elk-api.js";
import type { Positions } from "./layout.ts";
import type { LayoutRequest, LayoutResponse } from "./layout.worker.ts";

export interface LayoutWorkerLike {
  postMessage(m: LayoutRequest): void;
  onmessage: ((e: MessageEvent<LayoutResponse>) => void) | null;
  terminate(): void;
}

export interface LayoutClient {
  /** Resolves with positions, or undefined when a newer layout was asked for meanwhile. */
  layout(graph: ElkNode): Promise<Positions | undefined>;
  dispose(): void;
}

export function createLayoutClient(makeWorker: () => LayoutWorkerLike): LayoutClient {
  let worker: LayoutWorkerLike | undefined;
  let latest = 0;
  const pending = new Map<number, { resolve(p: Positions | undefined): void; reject(e: Error): void }>();
  const ensure = () => {
    if (worker) return worker;
    worker = makeWorker();
    worker.onmessage = (e) => {
      const p = pending.get(e.data.id);
      if (!p) return;
      pending.delete(e.data.id);
      if (e.data.id !== latest) p.resolve(undefined);
      else if (e.data.ok) p.resolve(e.data.positions);
      else p.reject(new Error(e.data.error));
    };
    return worker;
  };
  return {
    layout(graph) {
      const id = ++latest;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        ensure().postMessage({ id, graph });
      });
    },
    dispose() {
      worker?.terminate();
      worker = undefined;
      for (const p of pending.values()) p.resolve(undefined);
      pending.clear();
    },
  };
}
