/**
 * Monaco in the editor's host: a model holding the store's text, the editor, and the store following
 * its edits (typing, a paste that is a new scenario, Undo of one). Loaded with Monaco's chunk.
 */
import type * as MonacoApi from "monaco-editor";
import type { AppStore } from "../../store/createAppStore.ts";
import { sameScenario } from "../../store/scenarioSlice.ts";
import { SCENARIOS } from "../../../scenarios/index.ts";
import { yamlServiceSafe } from "./aliases.ts";
import type * as MonacoModule from "./monaco.ts";

/** Above this size the editor hands its text to the store after a short pause rather than per keystroke. */
export const LARGE = 200_000;
/** The pause: a frame, and a longer one for texts whose every copy costs (engineSync's debounce follows it). */
const pushDelay = (n: number) => (n > 2_000_000 ? 60 : 16);

/**
 * Sticky scroll and folding as the text's size allows: above LARGE, Monaco's indentation models (both
 * recomputed over the whole text after each edit, with a decoration per foldable region) were the
 * longest main-thread tasks while typing at 2,000 pods (bench, Chromium profile); sticky scroll is off
 * there and folding keeps its first regions only.
 */
const sizeOptions = (n: number): MonacoApi.editor.IEditorOptions => ({
  stickyScroll: { enabled: n <= LARGE, defaultModel: "indentationModel" },
  foldingMaximumRegions: n <= LARGE ? 5000 : 500,
  folding: n <= NO_FOLDING,
});
/**
 * Above this size the editor folds nothing: its folding ranges are recomputed over every line after each edit
 * (even when it keeps the first 500), in one task, the page's longest while typing at 10,000 pods (7.7 MB,
 * 240,000 lines: 80 to 270 ms in Chromium, Long Animation Frame entries of the bench's edits).
 */
const NO_FOLDING = 2_000_000;
/** Which of sizeOptions' sizes a text is: the options change only when this does. */
const sizeClass = (n: number): number => (n > NO_FOLDING ? 2 : n > LARGE ? 1 : 0);
/**
 * Above this size monaco-yaml's services are off, YAML colouring stays (the engine still reports every
 * problem). Its worker reads the whole text again after each edit; on a two-core machine it took a core
 * from the engine's worker and the page while typing: at 2,000 pods (0.67 MB) the keystroke to redrawn
 * graph went from about 930 to 640 ms without it (bench, M, 2026-12-06). Until then the limit was 1 MB.
 */
const SCHEMA_LIMIT = LARGE;

export function mountEditor(
  { monaco, yamlServices, LARGE_YAML }: typeof MonacoModule,
  host: HTMLElement,
  store: AppStore,
  setCursor: (c: { line: number; column: number }) => void,
): { editor: MonacoApi.editor.IStandaloneCodeEditor; dispose: () => void } {
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
  const editor = monaco.editor.create(host, {
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
    // Code lenses, links and the code-action light bulb each asked monaco-yaml's worker to read the whole
    // text again after every keystroke, on a core the engine's worker needs: over eight traced edits at 200
    // pods its messages went from 28 (618 ms of its thread) to 12 (171 ms) without them. Quick fixes stay
    // on Ctrl+. and the engine's own diagnostics are unchanged.
    codeLens: false,
    links: false,
    lightbulb: { enabled: monaco.editor.ShowLightbulbIconMode.Off },
    ...sizeOptions(model.getValueLength()),
  });
  let size = sizeClass(model.getValueLength());
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
    if (size !== sizeClass(model.getValueLength())) {
      size = sizeClass(model.getValueLength());
      editor.updateOptions(sizeOptions(model.getValueLength()));
    }
    if (e.isFlush && model.getValue() === store.getState().text) return;
    // A paste (or a drop) over the whole text is a new scenario (store/scenarioSlice.ts): one change that
    // leaves only its own text, several lines of it, that the store does not hold yet.
    const change = e.changes[0];
    const before = store.getState().text;
    // Ctrl+Z over such a paste is its Undo: the old scenario comes back with its view.
    if ((e.isUndoing || e.isRedoing) && change && store.getState().scenarioUndo?.text === model.getValue()) {
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
      timer = setTimeout(push, pushDelay(model.getValueLength()));
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
  const dispose = () => {
    if (timer) {
      clearTimeout(timer);
      push();
    }
    sub.dispose();
    cur.dispose();
    layout.dispose();
    editor.dispose();
    model.dispose();
  };
  return { editor, dispose };
}
