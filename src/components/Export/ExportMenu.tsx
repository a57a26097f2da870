/** Exports (graph as PNG or SVG, trace and matrix as Markdown or JSON, the scenario as YAML) and imports (file picker, drag and drop). */
import { useCallback, useEffect, useRef, useState, type ChangeEvent } from "react";
import { useVerdictsHidden } from "../Lessons/Veil.tsx";
import { useDismiss } from "../Lessons/useDismiss.ts";
import { useApp, useAppStore } from "../../store/StoreProvider.tsx";
import type { AppStore } from "../../store/createAppStore.ts";
import type { AppState } from "../../store/types.ts";
import { sameQuestion } from "../../store/viewSlice.ts";
import { asJSON, fileName, matrixMarkdown, traceMarkdown } from "./format.ts";
import { downloadBlob, graphSvg, svgToPng } from "./graphSvg.ts";
import { downloadConnlist } from "./connlist.ts";
import { scenarioName } from "../../share/name.ts";

const MAX_IMPORT = 50 * 1024 * 1024;

/** Exports are named after what the editor holds: its catalogue scenario, or a name from its namespaces ("Untitled" without). */
function baseName(s: AppState): string {
  return scenarioName(s.text, s.scenarioId).slug;
}

const VERDICT_WORD: Record<string, string> = { allow: "allowed", drop: "dropped", partial: "partly allowed" };

/** A slide's title: the scenario, and the question asked with the engine's verdict. */
export function slideTitle(s: AppState): { title: string; subtitle?: string } {
  const name = scenarioName(s.text, s.scenarioId);
  const title = name.edited ? `${name.title} (edited)` : name.title;
  const q = s.question;
  if (!q) return { title };
  const asked = `${q.from} → ${q.to} (${q.protocol})`;
  const t = s.trace.status === "ready" && sameQuestion(s.trace.query, q) ? s.trace.result : undefined;
  if (!t || t.error) return { title, subtitle: asked };
  const word = VERDICT_WORD[t.verdict] ?? t.verdict;
  // The engine's reason often starts with its verdict ("dropped: ..."): say it once.
  const said = t.reason.toLowerCase().startsWith(word);
  return { title, subtitle: `${asked}: ${said ? t.reason : `${word}. ${t.reason}`}` };
}

function text(body: string, name: string, type: string) {
  downloadBlob(new Blob([body], { type }), name);
}

/** Waits until `ready` holds (the matrix is computed only while its tab is open). */
function when<T>(store: AppStore, pick: (s: AppState) => T | undefined, ms = 15000): Promise<T> {
  return new Promise((resolve, reject) => {
    const now = pick(store.getState());
    if (now !== undefined) return resolve(now);
    const timer = setTimeout(() => {
      off();
      reject(new Error("timed out"));
    }, ms);
    const off = store.subscribe((s) => {
      const v = pick(s);
      if (v === undefined) return;
      clearTimeout(timer);
      off();
      resolve(v);
    });
  });
}

function readyMatrix(s: AppState) {
  const m = s.matrix.result;
  const q = s.matrixQuery;
  return s.matrix.status === "ready" && m && m.port === q.port && m.protocol === q.protocol && m.by === q.by
    ? m
    : undefined;
}

async function openFile(store: AppStore, file: File) {
  if (file.size > MAX_IMPORT) {
    store.getState().notify({
      kind: "error",
      text: `${file.name} is ${Math.round(file.size / 1048576)} MB: files up to 50 MB can be opened.`,
    });
    return;
  }
  let body: string;
  try {
    body = await file.text();
  } catch {
    store.getState().notify({ kind: "error", text: `${file.name} could not be read.` });
    return;
  }
  const previous = store.getState().text;
  if (previous === body) return;
  // A new scenario: the question, the lesson and the opened boxes reset, undoably (store/scenarioSlice.ts).
  store.getState().newScenario(body, "file", `Opened ${file.name} (it stays in this browser). It`);
}

/** What the Export menu offers: each item's download, whether it states verdicts, and whether it needs a question. */
function exportItems(store: AppStore, tab: string, hasTrace: boolean): ExportItem[] {
  const svg = () => {
    const root = document.querySelector<HTMLElement>('[data-testid="graph"]');
    const out = root ? graphSvg(root, slideTitle(store.getState())) : undefined;
    if (!out)
      throw new Error(tab === "graph" ? "there is no graph to export yet" : "open the Graph tab first");
    return out;
  };
  const trace = () => {
    const s = store.getState();
    if (!s.question || !s.trace.result) throw new Error("ask a question first");
    return { q: s.question, t: s.trace.result };
  };
  const matrix = async () => {
    if (store.getState().tab !== "matrix") store.getState().setTab("matrix");
    return when(store, readyMatrix);
  };

  return [
    {
      label: "Graph as PNG",
      action: async () =>
        downloadBlob(await svgToPng(svg()), fileName([baseName(store.getState()), "graph"], "png")),
    },
    {
      label: "Graph as SVG",
      action: () => text(svg(), fileName([baseName(store.getState()), "graph"], "svg"), "image/svg+xml"),
    },
    {
      label: "Trace as Markdown",
      verdicts: true,
      disabled: !hasTrace,
      action: () => {
        const { q, t } = trace();
        text(traceMarkdown(q, t), fileName(["trace", q.from, q.to], "md"), "text/markdown");
      },
    },
    {
      label: "Trace as JSON",
      verdicts: true,
      disabled: !hasTrace,
      action: () => {
        const { q, t } = trace();
        text(asJSON({ query: q, trace: t }), fileName(["trace", q.from, q.to], "json"), "application/json");
      },
    },
    {
      label: "Matrix as Markdown",
      verdicts: true,
      action: async () => {
        const m = await matrix();
        text(
          matrixMarkdown(m),
          fileName([baseName(store.getState()), "matrix", `${m.port}-${m.protocol}`, m.by], "md"),
          "text/markdown",
        );
      },
    },
    {
      label: "Matrix as JSON",
      verdicts: true,
      action: async () => {
        const m = await matrix();
        text(
          asJSON(m),
          fileName([baseName(store.getState()), "matrix", `${m.port}-${m.protocol}`, m.by], "json"),
          "application/json",
        );
      },
    },
    {
      label: "Connectivity list (netpol-analyzer text)",
      verdicts: true,
      action: () => downloadConnlist(store, "txt"),
    },
    { label: "Connectivity list as JSON", verdicts: true, action: () => downloadConnlist(store, "json") },
    {
      label: "Scenario as YAML",
      action: () =>
        text(store.getState().text, fileName([baseName(store.getState())], "yaml"), "application/yaml"),
    },
  ];
}

interface ExportItem {
  label: string;
  disabled?: boolean;
  verdicts?: boolean;
  action: () => void | Promise<void>;
}

export function ExportMenu() {
  const store = useAppStore();
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  useDismiss(
    open,
    useCallback(() => setOpen(false), []),
    box,
  );
  const hasTrace = useApp(
    (s) =>
      s.trace.status === "ready" &&
      !!s.question &&
      sameQuestion(s.trace.query, s.question) &&
      !!s.trace.result,
  );
  const tab = useApp((s) => s.tab);
  // Before a lesson's reveal, exports that state verdicts wait (the graph exports are as neutral as the graph).
  const verdictsHidden = useVerdictsHidden();

  const run = (f: () => void | Promise<void>) => async () => {
    setOpen(false);
    try {
      await f();
    } catch (e) {
      store
        .getState()
        .notify({ kind: "error", text: `The export failed: ${e instanceof Error ? e.message : String(e)}.` });
    }
  };
  const items = exportItems(store, tab, hasTrace);

  return (
    <div className="ws-menu" ref={box}>
      <button
        type="button"
        className="btn small"
        aria-expanded={open}
        aria-haspopup="menu"
        onClick={() => setOpen(!open)}
      >
        Export
      </button>
      {open ? (
        <div className="ws-popover" role="menu" aria-label="Export">
          {items.map((i) => (
            <button
              key={i.label}
              type="button"
              role="menuitem"
              className="ws-item"
              disabled={i.disabled || (i.verdicts && verdictsHidden)}
              onClick={() => void run(i.action)()}
              title={
                i.verdicts && verdictsHidden
                  ? "Reveal the lesson's answer first"
                  : i.disabled
                    ? "Ask a question first"
                    : undefined
              }
            >
              {i.label}
            </button>
          ))}
        </div>
      ) : null}
    </div>
  );
}

/** "Open file…" and dropping a file anywhere on the page. */
export function OpenFile() {
  const store = useAppStore();
  const input = useRef<HTMLInputElement>(null);
  const [dragging, setDragging] = useState(false);
  useEffect(() => {
    const hasFiles = (e: DragEvent) => !!e.dataTransfer && [...e.dataTransfer.types].includes("Files");
    const over = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      setDragging(true);
    };
    const leave = (e: DragEvent) => {
      if (e.relatedTarget === null) setDragging(false);
    };
    const drop = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      setDragging(false);
      const f = e.dataTransfer?.files[0];
      if (f) void openFile(store, f);
    };
    addEventListener("dragover", over);
    addEventListener("dragleave", leave);
    addEventListener("drop", drop);
    return () => {
      removeEventListener("dragover", over);
      removeEventListener("dragleave", leave);
      removeEventListener("drop", drop);
    };
  }, [store]);
  const onPick = (e: ChangeEvent<HTMLInputElement>) => {
    const f = e.target.files?.[0];
    if (f) void openFile(store, f);
    e.target.value = "";
  };
  return (
    <>
      <button
        type="button"
        className="btn small"
        onClick={() => input.current?.click()}
        title="Open a YAML or JSON file (or drop one on the page); it stays in this browser"
      >
        Open file…
      </button>
      <input
        ref={input}
        type="file"
        accept=".yaml,.yml,.json,application/yaml,application/json,text/yaml"
        hidden
        onChange={onPick}
        data-testid="open-file"
        aria-label="Open a manifest file"
      />
      {dragging ? (
        <div className="ws-drop" role="status">
          Drop a YAML or JSON file to open it
        </div>
      ) : null}
    </>
  );
}
