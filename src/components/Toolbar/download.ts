// The Download button's action, shared by the toolbar and the session bars (a leaf, so they do not import each other).
import type { AppStore } from "../../store/createAppStore.ts";
import { scenarioName } from "../../share/name.ts";

/** The editor text as a file named after the scenario ("payments-web.yaml"). */
export function downloadText(store: AppStore) {
  const { text, scenarioId } = store.getState();
  download(text, `${scenarioName(text, scenarioId).slug}.yaml`);
}

function download(text: string, name: string) {
  const url = URL.createObjectURL(new Blob([text], { type: "application/yaml" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
