/** Download of the workload connectivity list (what `ktl connlist --format txt|json` prints), computed in the engine worker. */
import type { ConnlistDownload } from "../../engine/analysis/index.ts";
import type { AppStore } from "../../store/createAppStore.ts";
import type { ConnlistRequest } from "../../store/types.ts";
import { fileName } from "./format.ts";
import { downloadBlob } from "./graphSvg.ts";

const TYPES: Record<ConnlistDownload, string> = { txt: "text/plain", json: "application/json" };

/** The engine's answer to this request: the text, or its error. */
function answered(store: AppStore, q: ConnlistRequest, ms = 60_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const check = (): boolean => {
      const c = store.getState().connlist;
      if (c.query !== q) return false;
      if (c.status === "ready" && c.result !== undefined) resolve(c.result);
      else if (c.status === "error") reject(new Error(c.error ?? "the engine failed"));
      else return false;
      return true;
    };
    if (check()) return;
    const timer = setTimeout(() => {
      off();
      reject(new Error("the engine took too long"));
    }, ms);
    const off = store.subscribe(() => {
      if (!check()) return;
      clearTimeout(timer);
      off();
    });
  });
}

export async function downloadConnlist(store: AppStore, format: ConnlistDownload): Promise<void> {
  const body = await answered(store, store.getState().requestConnlist(format));
  const s = store.getState();
  const base = (s.scenarioId ?? s.file.replace(/\.ya?ml$/, "")) || "scenario";
  downloadBlob(new Blob([body], { type: TYPES[format] }), fileName([base, "connlist"], format));
}
