/**
 * The Tests tab: a `ktl test` file (ktl's `tests:` list or netassert v2's)
 * pasted or opened here, run by the engine against the editor's text (the
 * same checks as `ktl test`), one line per expectation. The engine decides
 * every pass and fail; this panel only shows them. Selecting an expectation
 * lights its path on the graph; failing ones are marked there too.
 */
import { useRef } from "react";
import { useApp, useAppStore } from "../../store/StoreProvider.tsx";
import type { TestResultView } from "../../engine/analysis/index.ts";
import { RefLink } from "../Inspector/RefLink.tsx";
import { lineRange, testRunCurrent } from "./results.ts";
import example from "../../../docs/examples/shop-tests.yaml?raw";
import "./tests.css";

/** Larger files are not test files: refused with a message rather than frozen on. */
const MAX_FILE_BYTES = 1_000_000;

export function TestsPanel() {
  const store = useAppStore();
  const text = useApp((s) => s.testsText);
  const file = useApp((s) => s.testsFile);
  const on = useApp((s) => s.testsOn);
  const run = useApp((s) => s.testRun);
  const current = useApp(testRunCurrent);
  const selected = useApp((s) => s.testSelected);
  const analysed = useApp((s) => s.analysis.result !== undefined);
  const area = useRef<HTMLTextAreaElement>(null);
  const picker = useRef<HTMLInputElement>(null);

  const showLine = (line: number) => {
    const el = area.current;
    if (!el || !line) return;
    const { start, end } = lineRange(el.value, line);
    el.focus();
    el.setSelectionRange(start, end);
    const lh = parseFloat(getComputedStyle(el).lineHeight) || 18;
    el.scrollTop = Math.max(0, (line - 3) * lh);
  };

  const open = (f: File | undefined) => {
    if (!f) return;
    if (f.size > MAX_FILE_BYTES) {
      store.getState().notify({
        kind: "error",
        text: `${f.name} is ${Math.round(f.size / 1000)} kB: a test file is at most ${MAX_FILE_BYTES / 1_000_000} MB.`,
      });
      return;
    }
    void f.text().then((t) => {
      store.getState().setTestsText(t, f.name);
      store.getState().runTests();
    });
  };

  const result = on ? run.result : undefined;
  const status = !on
    ? text.trim()
      ? "Not run: press Run tests."
      : "Paste a test file, open one, or load the example."
    : run.status === "error"
      ? `The tests could not run: ${run.error ?? "unknown error"}`
      : !result
        ? "Running…"
        : result.diagnostics.some((d) => d.severity === "error")
          ? `${file} has problems: fix them to run the tests.`
          : result.results.length === 0
            ? `No test in ${file}: write a tests: list.`
            : `${result.passed} passed, ${result.failed} failed${current ? "" : " (updating…)"}`;

  return (
    <div className="tests-panel" data-testid="tests-panel">
      <div className="tests-head">
        <label htmlFor="tests-text" className="tests-label">
          Test file <span className="muted mono">{file}</span>
        </label>
        <span className="tests-actions">
          <button
            type="button"
            className="btn small primary"
            disabled={!text.trim()}
            onClick={() => store.getState().runTests()}
            data-testid="tests-run"
          >
            Run tests
          </button>
          {on ? (
            <button type="button" className="btn small" onClick={() => store.getState().stopTests()}>
              Stop
            </button>
          ) : null}
          <button type="button" className="btn small" onClick={() => picker.current?.click()}>
            Open…
          </button>
          <button
            type="button"
            className="btn small"
            title="The example for the default scenario (docs/examples/shop-tests.yaml)"
            onClick={() => store.getState().setTestsText(example, "shop-tests.yaml")}
          >
            Example
          </button>
          <input
            ref={picker}
            type="file"
            accept=".yaml,.yml,.json,text/yaml"
            hidden
            onChange={(e) => {
              open(e.target.files?.[0]);
              e.target.value = "";
            }}
          />
        </span>
      </div>
      <textarea
        id="tests-text"
        ref={area}
        className="tests-text mono"
        spellCheck={false}
        // Shorter once there are results to read (it can be pulled taller).
        rows={result?.results.length ? 4 : 9}
        value={text}
        placeholder={
          "tests:\n  - name: the storefront reaches the backend\n    from: shop/frontend\n    to: service:shop/backend:80\n    expect: allow"
        }
        onChange={(e) => store.getState().setTestsText(e.target.value)}
        data-testid="tests-text"
      />
      <p className="tests-status" role="status" data-testid="tests-status">
        {status}
      </p>
      {!analysed && on ? <p className="muted">Waiting for the analysis of the editor's text…</p> : null}
      {result?.diagnostics.length ? (
        <ul className="problems" data-testid="tests-problems">
          {result.diagnostics.map((d, i) => (
            <li key={i} data-line={d.line}>
              <span className={`sev-${d.severity}`} aria-label={d.severity}>
                {d.severity === "error" ? "✕" : "!"}
              </span>
              <button type="button" className="link mono" disabled={!d.line} onClick={() => showLine(d.line)}>
                {d.line ? `${file} line ${d.line}` : file}
              </button>
              <span>
                {d.message}
                {d.hint ? <span className="muted"> e.g. {d.hint}</span> : null}
              </span>
            </li>
          ))}
        </ul>
      ) : null}
      {result?.results.length ? (
        <ul className="tests-results" aria-label="Expectations">
          {result.results.map((r, i) => (
            <TestLine
              key={`${i}:${r.name}`}
              r={r}
              file={file}
              selected={selected === i}
              onSelect={() => store.getState().selectTest(i, r.question)}
              onLine={() => showLine(r.line)}
            />
          ))}
        </ul>
      ) : null}
    </div>
  );
}

function TestLine({
  r,
  file,
  selected,
  onSelect,
  onLine,
}: {
  r: TestResultView;
  file: string;
  selected: boolean;
  onSelect: () => void;
  onLine: () => void;
}) {
  return (
    <li
      className={`test-result ${r.pass ? "pass" : "fail"}${selected ? " selected" : ""}`}
      data-testid="test-result"
      data-pass={r.pass ? "true" : "false"}
      data-name={r.name}
    >
      <span className="test-verdict" aria-hidden="true">
        {r.pass ? "✓" : "✗"}
      </span>
      <div className="test-body">
        <div className="test-title">
          <strong className="test-word">{r.pass ? "PASS" : "FAIL"}</strong>{" "}
          <button
            type="button"
            className="link test-name"
            aria-pressed={selected}
            disabled={!r.question}
            title={r.question ? "Light this expectation's path on the graph" : undefined}
            onClick={onSelect}
          >
            {r.name}
          </button>{" "}
          <button type="button" className="link mono muted" onClick={onLine} title={`Show it in ${file}`}>
            line {r.line}
          </button>
        </div>
        <div className="muted mono test-asked">
          {r.from} → {r.to}: expect {r.expect}
        </div>
        {r.pass ? (
          <div className="test-summary">{r.summary}</div>
        ) : (
          <ul className="test-failures">
            {r.failures.map((f, j) => (
              <li key={j}>{f}</li>
            ))}
          </ul>
        )}
        {r.decidedBy.length ? (
          <div className="test-refs">
            Decided by{" "}
            {r.decidedBy.map((ref, j) => (
              <span key={j}>
                {j ? ", " : ""}
                <RefLink refView={ref} />
              </span>
            ))}
          </div>
        ) : null}
      </div>
    </li>
  );
}
