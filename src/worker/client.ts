/** The page's one engine client and worker, started on first use (the store's sync, what-if, lessons). */
import EngineWorker from "./engine.worker.ts?worker";
import { createEngineClient, type EngineClient, type WorkerLike } from "./engineClient.ts";

let client: EngineClient | undefined;

export function engineClient(): EngineClient {
  return (client ??= createEngineClient(() => new EngineWorker() as unknown as WorkerLike));
}
