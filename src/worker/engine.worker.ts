/** The engine's Web Worker: a thin handler map over the analysis facade. It keeps one session (the model) per editor text, and the previous one (sessionCache.ts). */
import { openAnalysis, type AnalysisSession } from "../engine/analysis/index.ts";
import type { EngineHandlers, EngineRequest, EngineResponse } from "./protocol.ts";
import { createSessionCache } from "./sessionCache.ts";

const sessions = createSessionCache<AnalysisSession>((text, file) => openAnalysis([{ name: file, text }]));
let generation = 0;

function current(): AnalysisSession {
  const session = sessions.current;
  if (!session) throw new Error("no scenario has been analysed yet");
  return session;
}

const handlers: EngineHandlers = {
  analyze({ text, file, generation: g }) {
    const session = sessions.open(text, file);
    generation = g;
    return session.analysis;
  },
  validate: () => current().validate(),
  trace: (q) => current().trace(q),
  matrix: (q) => current().matrix(q),
  rules: (q) => current().rules(q),
  connlist: ({ format }) => current().connlist(format),
};

/** The worker global, typed without the WebWorker lib (which clashes with the DOM lib of the app build). */
const scope = self as unknown as {
  onmessage: ((e: MessageEvent<EngineRequest>) => void) | null;
  postMessage(m: EngineResponse): void;
};

scope.onmessage = (e: MessageEvent<EngineRequest>) => {
  const { id, method, params } = e.data;
  let response: EngineResponse;
  try {
    const handler = handlers[method] as (p: typeof params) => unknown;
    const result = handler(params);
    response = { id, ok: true, result, generation };
  } catch (err) {
    response = { id, ok: false, error: err instanceof Error ? err.message : String(err), generation };
  }
  scope.postMessage(response);
};
