/**
 * `#url=https://...` asks before it fetches: the one request that leaves the
 * browser is made only when the user says so. The fetched text then opens as
 * a file does, the editor's text kept as the previous text. The import has a
 * time limit, and Cancel stays available while it runs.
 */
import { useEffect, useRef, useState } from "react";
import { useAppStore } from "../../store/StoreProvider.tsx";
import { checkImportUrl, fetchScenario, hashWithoutUrl, urlFromHash } from "../../share/urlImport.ts";
import { openFetchedText } from "./open.ts";

function clearUrlFromHash(): void {
  const next = hashWithoutUrl(window.location.hash);
  history.replaceState(null, "", `${window.location.pathname}${window.location.search}${next}`);
}

export function UrlImportPrompt() {
  const store = useAppStore();
  const [url, setUrl] = useState<URL | undefined>();
  const [busy, setBusy] = useState(false);
  const running = useRef<AbortController | undefined>(undefined);

  useEffect(() => {
    const read = () => {
      const text = urlFromHash(window.location.hash);
      if (text === undefined) return;
      const checked = checkImportUrl(text);
      if (!checked.ok) {
        clearUrlFromHash();
        store.getState().notify({
          kind: "error",
          text: `The link asks to open a scenario from a URL, but ${checked.error}`,
        });
        return;
      }
      setUrl(checked.url);
    };
    read();
    window.addEventListener("hashchange", read);
    return () => window.removeEventListener("hashchange", read);
  }, [store]);

  if (!url) return null;

  const cancel = () => {
    // While it runs, Cancel stops the import; fetchScenario then answers "cancelled" and open() closes the dialog.
    if (running.current) {
      running.current.abort();
      return;
    }
    clearUrlFromHash();
    setUrl(undefined);
  };
  const open = async () => {
    const ctl = new AbortController();
    running.current = ctl;
    setBusy(true);
    const r = await fetchScenario(url, window.fetch.bind(window), undefined, { signal: ctl.signal });
    running.current = undefined;
    setBusy(false);
    clearUrlFromHash();
    setUrl(undefined);
    if (!r.ok) {
      store
        .getState()
        .notify({ kind: "error", text: `Could not open ${url.href}: ${r.error} Your text is unchanged.` });
      return;
    }
    openFetchedText(store, r, url.host);
  };

  return (
    <div
      className="notice"
      data-kind="info"
      role="dialog"
      aria-label="Open a scenario from a URL"
      data-testid="url-import"
    >
      <p>
        Open the scenario at <code>{url.href}</code>? This fetches that one file from{" "}
        <strong>{url.host}</strong>: the only request Kube Traffic Lab makes outside your browser. Your
        current text is kept as the previous text.
      </p>
      <button type="button" className="btn small" disabled={busy} onClick={() => void open()}>
        {busy ? "Opening…" : "Open"}
      </button>
      <button type="button" className="btn small" onClick={cancel}>
        Cancel
      </button>
    </div>
  );
}
