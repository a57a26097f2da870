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
import("./boot.tsx").catch((e: unknown) => {
  // The app's chunk did not arrive (the network, or a new version of the site while this page was open):
  // say so rather than leave the page blank. boot.tsx shows its own message for a failure to start.
  console.error("Kube Traffic Lab could not load", e);
  const box = document.createElement("div");
  box.className = "crash";
  box.setAttribute("role", "alert");
  const title = document.createElement("h2");
  title.textContent = "Kube Traffic Lab could not load.";
  const hint = document.createElement("p");
  hint.textContent = "Reload the page: part of the app did not arrive.";
  box.append(title, hint);
  document.getElementById("root")?.replaceChildren(box);
});
