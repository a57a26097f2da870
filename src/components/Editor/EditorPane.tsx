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
import { yamlServiceSafe } from "./aliases.ts";
import type { DiagnosticView } from "../../engine/analysis/index.ts";
import { sameScenario } from "../../store/scenarioSlice.ts";
import { SCENARIOS } from "../../../scenarios/index.ts";

type Monaco = typeof MonacoApi;

/** Above this size the editor hands its text to the store after a short pause rather than per keystroke. */
const LARGE = 200_000;
/** Above this size monaco-yaml's services are off, YAML colouring stays (the engine still reports every problem). */
const SCHEMA_LIMIT = 1_000_000;

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

export function EditorPane() {
  const store = useAppStore();
  const host = useRef<HTMLDivElement>(null);
  const editorRef = useRef<MonacoApi.editor.IStandaloneCodeEditor | null>(null);
  const monacoRef = useRef<Monaco | null>(null);
  const [ready, setReady] = useState(false);
  const [failed, setFailed] = useState(false);
  const [cursor, setCursor] = useState({ line: 1, column: 1 });
  // Only the plain-text fallback (before Monaco is ready) renders the text; Monaco holds its own copy.
  const text = useApp((s) => (ready ? "" : s.text));
  const origin = useApp((s) => s.origin);
  const theme = useApp((s) => s.theme);
  const diagnostics = useApp(selectShownDiagnostics);
  const reveal = useApp((s) => s.reveal);
  const { file, revision } = useApp(useShallow((s) => ({ file: s.file, revision: s.revision })));

  // Load Monaco once, after the first graph is drawn (its chunk is large; the textarea shows the text meanwhile).
  useEffect(() => {
    let disposed = false;
    let cleanup: (() => void) | undefined;
    afterFirstDraw(2500)
      .then(() => import("./monaco.ts"))
      .then(
        ({ monaco, yamlServices, LARGE_YAML }) => {
          if (disposed || !host.current) return;
          monacoRef.current = monaco;
          const uri = monaco.Uri.parse(`file:///${store.getState().file}`);
          const model =
            monaco.editor.getModel(uri) ??
            // A large text, or one with a cyclic alias, never reaches monaco-yaml's worker (yamlServices below).
            monaco.editor.createModel(
              store.getState().text,
              store.getState().text.length <= SCHEMA_LIMIT && yamlServiceSafe(store.getState().text)
                ? "yaml"
                : LARGE_YAML,
              uri,
            );
          model.setValue(store.getState().text);
          model.updateOptions({ tabSize: 2, insertSpaces: true });
          const editor = monaco.editor.create(host.current, {
            model,
            automaticLayout: true,
            minimap: { enabled: false },
            fontSize: 13,
            lineHeight: 19,
            scrollBeyondLastLine: false,
            renderLineHighlight: "line",
            tabSize: 2,
            theme: store.getState().theme === "dark" ? "vs-dark" : "vs",
            ariaLabel: "YAML manifests editor. Tab indents; Ctrl+M makes Tab move the focus instead.",
            quickSuggestions: { other: true, comments: false, strings: true },
            // Completions come from the schemas (monaco-yaml); words from elsewhere in the file only add noise.
            wordBasedSuggestions: "off",
            fixedOverflowWidgets: true,
            // Folding and sticky scroll from indentation, computed here: the YAML worker's folding ranges and
            // document symbols (the outline model) are recomputed and cloned over for the whole text on every
            // keystroke, the largest main-thread cost of an edit in a 3,000-line file (bench, Chromium profile).
            foldingStrategy: "indentation",
            stickyScroll: { enabled: true, defaultModel: "indentationModel" },
          });
          editorRef.current = editor;
          let timer: ReturnType<typeof setTimeout> | undefined;
          const push = () => {
            timer = undefined;
            store.getState().editText(model.getValue());
          };
          // monaco-yaml's services for a text its worker can read: not too large, no alias it would recurse into forever.
          const services = () => model.getValueLength() <= SCHEMA_LIMIT && yamlServiceSafe(model.getValue());
          yamlServices(model, services());
          const sub = model.onDidChangeContent((e) => {
            yamlServices(model, services());
            if (e.isFlush && model.getValue() === store.getState().text) return;
            // A paste (or a drop) over the whole text is a new scenario (store/scenarioSlice.ts): one change that
            // leaves only its own text, several lines of it, that the store does not hold yet.
            const change = e.changes[0];
            const before = store.getState().text;
            // Ctrl+Z over such a paste is its Undo: the old scenario comes back with its view.
            if (
              (e.isUndoing || e.isRedoing) &&
              change &&
              store.getState().scenarioUndo?.text === model.getValue()
            ) {
              if (timer) clearTimeout(timer);
              timer = undefined;
              store.getState().undoNewScenario();
              return;
            }
            if (
              !e.isUndoing &&
              !e.isRedoing &&
              e.changes.length === 1 &&
              change &&
              change.rangeOffset === 0 &&
              change.rangeLength > 0 &&
              change.text.length === model.getValueLength() &&
              change.text.includes("\n") &&
              change.text !== before &&
              !sameScenario(before, change.text)
            ) {
              if (timer) clearTimeout(timer);
              timer = undefined;
              const s = store.getState();
              // The user's own text (not an untouched catalogue scenario) stays under Previous text too.
              if (!SCENARIOS.some((c) => c.manifests === s.text)) s.keepPreviousText(s.text);
              s.newScenario(model.getValue(), "edit", "The pasted text");
              return;
            }
            if (model.getValueLength() > LARGE) {
              if (timer) clearTimeout(timer);
              timer = setTimeout(push, 60);
            } else push();
          });
          const cur = editor.onDidChangeCursorPosition((e) =>
            setCursor({ line: e.position.lineNumber, column: e.position.column }),
          );
          // A banner that appears while one types (a document left out) shortens the editor: keep the line
          // being typed in view, as an editor does when its window shrinks.
          const layout = editor.onDidLayoutChange(() => {
            const at = editor.getPosition();
            if (at && editor.hasTextFocus()) editor.revealPositionInCenterIfOutsideViewport(at);
          });
          cleanup = () => {
            if (timer) {
              clearTimeout(timer);
              push();
            }
            sub.dispose();
            cur.dispose();
            layout.dispose();
            editor.dispose();
            model.dispose();
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
