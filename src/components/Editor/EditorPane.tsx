/**
 * The YAML editor. A plain textarea paints at once; Monaco replaces it when
 * its chunk has loaded (and the textarea stays if Monaco cannot load).
 * Typing goes to the store (input slice); text from elsewhere (a scenario, a
 * share link) goes into the editor as one undoable edit; engine diagnostics
 * become markers; `reveal` moves the editor to a line and highlights it.
 */
import { useEffect, useRef, useState } from "react";
import { useShallow } from "zustand/react/shallow";
import type * as MonacoApi from "monaco-editor";
import { useApp, useAppStore } from "../../store/StoreProvider.tsx";
import { selectShownDiagnostics } from "../Lessons/Veil.tsx";
import { afterFirstDraw } from "../../store/firstDraw.ts";
import type { DiagnosticView } from "../../engine/analysis/index.ts";
import { LARGE, mountEditor } from "./mount.ts";

type Monaco = typeof MonacoApi;

function markersOf(
  monaco: Monaco,
  model: MonacoApi.editor.ITextModel,
  diagnostics: readonly DiagnosticView[],
): MonacoApi.editor.IMarkerData[] {
  const lines = model.getLineCount();
  return diagnostics.map((d) => {
    const line = Math.min(Math.max(d.line, 1), lines);
    const severity =
      d.severity === "error"
        ? monaco.MarkerSeverity.Error
        : d.severity === "warning"
          ? monaco.MarkerSeverity.Warning
          : monaco.MarkerSeverity.Info;
    const startColumn = Math.max(
      1,
      Math.min(d.column || model.getLineFirstNonWhitespaceColumn(line) || 1, model.getLineMaxColumn(line)),
    );
    return {
      severity,
      message: `${d.object ? `${d.object}: ` : ""}${d.message}${d.hint ? `\n${d.hint}` : ""}`,
      code: d.code,
      source: "ktl",
      startLineNumber: line,
      startColumn,
      endLineNumber: line,
      endColumn: Math.max(startColumn + 1, model.getLineMaxColumn(line)),
    };
  });
}

/** Above this many characters the editor waits for the first picture, however long (an analysis of seconds). */
const EDITOR_AFTER_DRAW_CHARS = 2_000_000;

/** Lines the read-only box shows while Monaco loads: more than any pane is tall. */
const PREVIEW_LINES = 200;

function firstLines(text: string, lines: number): string {
  let at = -1;
  for (let i = 0; i < lines; i++) {
    at = text.indexOf("\n", at + 1);
    if (at < 0) return text;
  }
  return text.slice(0, at + 1);
}

export function EditorPane() {
  const store = useAppStore();
  const host = useRef<HTMLDivElement>(null);
  const editorRef = useRef<MonacoApi.editor.IStandaloneCodeEditor | null>(null);
  const monacoRef = useRef<Monaco | null>(null);
  const [ready, setReady] = useState(false);
  const [failed, setFailed] = useState(false);
  const [cursor, setCursor] = useState({ line: 1, column: 1 });
  // Only the plain-text fallback (before Monaco is ready) renders the text; Monaco holds its own copy.
  // While Monaco loads, the box is read-only and shows the text's first lines: laying out the whole text in
  // a textarea took a quarter of a second at 200 pods, on the first draw's path. Should Monaco fail, it
  // holds the whole text, editable.
  const text = useApp((s) => (ready ? "" : failed ? s.text : firstLines(s.text, PREVIEW_LINES)));
  const origin = useApp((s) => s.origin);
  const theme = useApp((s) => s.theme);
  const diagnostics = useApp(selectShownDiagnostics);
  const reveal = useApp((s) => s.reveal);
  const { file, revision } = useApp(useShallow((s) => ({ file: s.file, revision: s.revision })));

  // Load Monaco once, after the first graph is drawn (its chunk is large; the textarea shows the text meanwhile).
  useEffect(() => {
    let disposed = false;
    let cleanup: (() => void) | undefined;
    // Nothing will be drawn (safe mode, or the analysis failed): the editor loads at once.
    let stopWaiting = () => {};
    const nothingToDraw = new Promise<void>((resolve) => {
      const settled = (s: { paused: boolean; analysis: { status: string } }) =>
        s.paused || s.analysis.status === "error";
      if (settled(store.getState())) return resolve();
      stopWaiting = store.subscribe(settled, (yes) => yes && resolve());
    });
    // A small text's first picture comes within a second or two: the editor waits for it, 2.5 s at most. A
    // large one's analysis takes seconds of this machine's cores, and Monaco's chunk and a model of the
    // whole text built meanwhile delayed the picture (L, paired loads: first picture 4.5 -> 3.8 s with the
    // editor ready as soon as before): the editor waits for the picture.
    const wait = store.getState().text.length > EDITOR_AFTER_DRAW_CHARS ? 30_000 : 2500;
    Promise.race([afterFirstDraw(wait), nothingToDraw])
      .finally(() => stopWaiting())
      .then(() => import("./monaco.ts"))
      .then(
        (m) => {
          if (disposed || !host.current) return;
          monacoRef.current = m.monaco;
          const mounted = mountEditor(m, host.current, store, setCursor);
          editorRef.current = mounted.editor;
          cleanup = () => {
            mounted.dispose();
            editorRef.current = null;
          };
          setReady(true);
        },
        (err: unknown) => {
          console.error("Kube Traffic Lab: the code editor could not load", err);
          if (!disposed) setFailed(true);
        },
      );
    return () => {
      disposed = true;
      stopWaiting();
      cleanup?.();
    };
  }, [store]);

  // Text from elsewhere: one undoable edit, so Ctrl+Z brings the user's text back. The editor's own edits
  // (origin "edit") are already in it: comparing a large document on every keystroke would make typing stutter.
  useEffect(() => {
    const editor = editorRef.current;
    const model = editor?.getModel();
    if (!ready || !editor || !model || origin === "edit") return;
    const text = store.getState().text;
    if (model.getValue() === text) return;
    if (text.length > LARGE || model.getValueLength() > LARGE) model.setValue(text);
    else {
      editor.pushUndoStop();
      editor.executeEdits("ktl", [{ range: model.getFullModelRange(), text, forceMoveMarkers: true }]);
      editor.pushUndoStop();
    }
  }, [ready, revision, origin, store]);

  useEffect(() => {
    monacoRef.current?.editor.setTheme(theme === "dark" ? "vs-dark" : "vs");
  }, [theme, ready]);

  useEffect(() => {
    const monaco = monacoRef.current;
    const model = editorRef.current?.getModel();
    if (!ready || !monaco || !model) return;
    monaco.editor.setModelMarkers(model, "ktl", markersOf(monaco, model, diagnostics ?? []));
  }, [ready, diagnostics]);

  // Reveal a line: centre it, put the cursor there and highlight it until the next reveal.
  const decorations = useRef<MonacoApi.editor.IEditorDecorationsCollection | null>(null);
  useEffect(() => {
    const editor = editorRef.current;
    const model = editor?.getModel();
    if (!ready || !editor || !model || !reveal) return;
    const line = Math.min(Math.max(reveal.line, 1), model.getLineCount());
    editor.revealLineInCenter(line);
    editor.setPosition({ lineNumber: line, column: model.getLineFirstNonWhitespaceColumn(line) || 1 });
    decorations.current?.clear();
    decorations.current = editor.createDecorationsCollection([
      {
        range: { startLineNumber: line, startColumn: 1, endLineNumber: line, endColumn: 1 },
        options: {
          isWholeLine: true,
          className: "ktl-reveal-line",
          linesDecorationsClassName: "ktl-reveal-gutter",
        },
      },
    ]);
    setCursor({ line, column: 1 });
  }, [ready, reveal]);

  const problems = diagnostics?.filter((d) => d.severity !== "info").length ?? 0;

  return (
    <div className="panel" aria-label="Editor">
      <div className="panel-head">
        <h2 id="editor-title">Manifests</h2>
        <span className="muted mono">{file}</span>
        {/* Monaco's Tab indents, which traps keyboard users: its own toggle (Ctrl+M) makes Tab move focus. */}
        <span className="muted tab-hint" id="editor-tab-hint">
          Tab indents · <kbd>Ctrl</kbd>+<kbd>M</kbd>: Tab leaves the editor
        </span>
      </div>
      <div className="editor-host" ref={host} data-testid="editor" data-ready={ready ? "true" : "false"}>
        {!ready && (
          <textarea
            className="editor-fallback"
            aria-labelledby="editor-title"
            spellCheck={false}
            value={text}
            readOnly={!failed}
            onChange={(e) => store.getState().editText(e.target.value)}
          />
        )}
      </div>
      <div className="editor-foot">
        <span data-testid="cursor-position">
          Line {cursor.line}, Column {cursor.column}
        </span>
        <span className="spacer" />
        {failed && (
          <span role="status">The code editor could not load; a plain text box is in its place.</span>
        )}
        <span>{problems ? `${problems} problem${problems === 1 ? "" : "s"}` : "No problems"}</span>
      </div>
    </div>
  );
}
