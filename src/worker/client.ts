/**
 * The page's one engine client and worker. The worker is started by the page's entry (app/main.tsx),
 * so that it loads and compiles while the app's bundle does; the client adopts it on first use (the
 * store's sync, what-if, lessons), or starts one then.
 */
import EngineWorker from "./engine.worker.ts?worker";
import { createEngineClient, type EngineClient, type WorkerLike } from "./engineClient.ts";

let client: EngineClient | undefined;
/** The worker started before the client, and whether it failed to load meanwhile (no listener saw it). */
let early: { worker: Worker; failed: boolean } | undefined;

/** Starts the engine worker now, for the client to adopt later. */
export function startEngineWorker(): void {
  if (early || client) return;
  const started = { worker: new EngineWorker(), failed: false };
  started.worker.addEventListener("error", () => (started.failed = true));
  early = started;
}

function makeWorker(): WorkerLike {
  const started = early;
  early = undefined;
  if (started && !started.failed) return started.worker as unknown as WorkerLike;
  started?.worker.terminate();
  return new EngineWorker() as unknown as WorkerLike;
}

export function engineClient(): EngineClient {
  return (client ??= createEngineClient(makeWorker));
}
