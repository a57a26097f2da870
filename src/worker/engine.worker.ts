/**
 * The engine's Web Worker: answers the page's requests with the handler map
 * of handlers.ts (one session per editor text, kept here), one response per
 * request, paired by id; an analysis also posts its steps as they start.
 */
import type { EngineMessage, EngineRequest, EngineResponse } from "./protocol.ts";
import { createEngineHandlers } from "./handlers.ts";

/** The worker global, typed without the WebWorker lib (which clashes with the DOM lib of the app build). */
const scope = self as unknown as {
  onmessage: ((e: MessageEvent<EngineRequest>) => void) | null;
  postMessage(m: EngineMessage): void;
};

// An analysis's steps go to the page as they start: the page is free meanwhile, and shows a long load's progress.
const engine = createEngineHandlers({
  onProgress: (progress, generation) => scope.postMessage({ progress, generation }),
});

scope.onmessage = (e: MessageEvent<EngineRequest>) => {
  const { id, method, params } = e.data;
  let response: EngineResponse;
  try {
    const handler = engine.handlers[method] as (p: typeof params) => unknown;
    const result = handler(params);
    response = { id, ok: true, result, generation: engine.generation };
  } catch (err) {
    response = {
      id,
      ok: false,
      error: err instanceof Error ? err.message : String(err),
      generation: engine.generation,
    };
  }
  scope.postMessage(response);
};
