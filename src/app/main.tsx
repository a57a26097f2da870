/**
 * The page's entry: starts the engine worker first, then loads the app. The worker's own load and compile
 * overlap the app bundle's instead of following it (bench/notes.md, the S load's timeline).
 */
import { startEngineWorker } from "../worker/client.ts";

try {
  startEngineWorker();
} catch {
  // No worker here (blocked, or unsupported): the app starts one on first use and says so if that fails too.
}
void import("./boot.tsx");
