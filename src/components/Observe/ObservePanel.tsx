/**
 * The Observed tab: a flow file (Hubble's `hubble observe -o json`, Calico
 * flow logs, ktl's CSV) opened or dropped here is compared with the editor's
 * text as `ktl observe` compares it: one row per source, destination, port
 * and protocol, in four cases, each disagreement with the cause the engine
 * tested. The engine decides every row; this panel only shows them.
 * Choosing a row asks its pair, so the graph lights its path.
 */
import { useRef, useState } from "react";
import { useApp, useAppStore } from "../../store/StoreProvider.tsx";
import type { ObserveView, ObservedRowView } from "../../engine/analysis/index.ts";
import type { AppState } from "../../store/types.ts";
import { UntilReveal } from "../Lessons/Veil.tsx";
import type { TextSuggestion } from "../../engine/index.ts";
import { runSuggest, suggestClient } from "../WhatIf/suggest.ts";
import "./observe.css";

/** Larger files are refused with a message rather than frozen on (ktl observe reads up to 256 MiB). */
const MAX_FILE_BYTES = 20_000_000;

const CASE_WORDS: Record<ObservedRowView["case"], string> = {
  "agree-allowed": "agree: allowed",
  "agree-dropped": "agree: dropped",
  "observed-forwarded-but-predicted-dropped": "seen forwarded, predicted dropped",
  "observed-dropped-but-predicted-allowed": "seen dropped, predicted allowed",
  partial: "partial: backends differ",
};

export function ObservePanel() {
  const store = useAppStore();
  const file = useApp((s) => s.observeFile);
  const text = useApp((s) => s.observeText);
  const run = useApp((s) => s.observeRun);
  const revision = useApp((s) => s.analysis.revision);
  const picker = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);

  const open = (f: File | undefined) => {
    if (!f) return;
    if (f.size > MAX_FILE_BYTES) {
      store.getState().notify({
        kind: "error",
        text: `${f.name} is ${Math.round(f.size / 1_000_000)} MB: the playground compares flow files up to ${MAX_FILE_BYTES / 1_000_000} MB (ktl observe reads larger ones).`,
      });
      return;
    }
    void f.text().then((t) => store.getState().openFlows(t, f.name));
  };

  const view = text && run.text === text ? run.result : undefined;
  const status = observeStatus({ file, text, run, revision });
  const writing = useApp((s) => s.whatIf.status === "running");
  const [written, setWritten] = useState<TextSuggestion | undefined>(undefined);
  const canWrite = !!view?.report && view.errors.length === 0 && view.report.flows.length > 0;

  return (
    <div
      className={`observe-panel${over ? " drop-over" : ""}`}
      data-testid="observe-panel"
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        e.preventDefault();
        setOver(false);
        open(e.dataTransfer.files[0]);
      }}
    >
      <div className="observe-head">
        <span className="observe-label">
          Observed flows {file ? <span className="muted mono">{file}</span> : null}
        </span>
        <span className="observe-actions">
          <button type="button" className="btn small" onClick={() => picker.current?.click()}>
            Open flows…
          </button>
          {canWrite ? (
            <button
              type="button"
              className="btn small"
              data-testid="observe-suggest"
              disabled={writing}
              title="Least-privilege policies in the cluster profile's dialect, proved by the engine before they go into the text"
              onClick={() => void runSuggest(store, suggestClient).then(setWritten)}
            >
              Write policies from these flows
            </button>
          ) : null}
          {text ? (
            <button type="button" className="btn small" onClick={() => store.getState().closeFlows()}>
              Close
            </button>
          ) : null}
          <input
            ref={picker}
            type="file"
            accept=".json,.jsonl,.log,.csv,text/csv,application/json"
            hidden
            data-testid="observe-file"
            onChange={(e) => {
              open(e.target.files?.[0]);
              e.target.value = "";
            }}
          />
        </span>
      </div>
      {written ? (
        <div
          role="status"
          className="observe-suggest"
          data-testid="observe-suggest-proof"
          data-holds={written.holds ? "true" : "false"}
        >
          <p>{written.summary}</p>
          {written.lines.map((l, i) => (
            <p key={i} className="mono">
              {l}
            </p>
          ))}
          {written.added ? <pre className="mono">{written.added}</pre> : null}
        </div>
      ) : null}
      {/* The rows state verdicts: before a lesson's reveal they stay veiled; opening a file does not. */}
      <UntilReveal what="The comparison with the observed flows">
        <ObserveResult
          status={status}
          view={view}
          onAsk={(r) =>
            store
              .getState()
              .ask({ from: r.mark.source, to: `${r.mark.target}:${r.port}`, protocol: r.protocol })
          }
        />
      </UntilReveal>
    </div>
  );
}

/** The status line: what is open, whether it is compared, and the counts. */
export function observeStatus({
  file,
  text,
  run,
  revision,
}: {
  file: string;
  text: string;
  run: AppState["observeRun"];
  revision: number;
}): string {
  const view = text && run.text === text ? run.result : undefined;
  const report = view?.report;
  if (!text)
    return "Open or drop a flow file: Hubble's hubble observe -o json, Calico flow logs, or a CSV (source,destination,port,protocol,verdict,count).";
  if (run.status === "error" && run.text === text)
    return `The flows could not be compared: ${run.error ?? "unknown error"}`;
  if (!view) return "Comparing…";
  if (view.errors.length)
    return `${file} has ${view.errors.length} unreadable record${view.errors.length === 1 ? "" : "s"}: nothing is compared.`;
  if (!report) return "";
  return `${report.records} records: ${report.matched} matched, ${report.records - report.matched} unmatched. ${report.disagreements ? `${report.disagreements} of ${report.flows.length} rows disagree with the manifests.` : "Every matched flow agrees with the manifests."}${run.revision === revision ? "" : " (updating…)"}`;
}

/** The engine's comparison as it is: rows, unreadable records, what did not match, what was skipped. */
export function ObserveResult({
  status,
  view,
  onAsk,
}: {
  status: string;
  view: ObserveView | undefined;
  onAsk: (r: ObservedRowView) => void;
}) {
  return (
    <>
      <p className="observe-status" role="status" data-testid="observe-status">
        {status}
      </p>
      {view?.errors.length ? (
        <ul className="problems" aria-label="Unreadable records">
          {view.errors.slice(0, 50).map((e, i) => (
            <li key={i}>
              <span className="sev-error" aria-label="error">
                ✕
              </span>
              <span className="mono">
                {e.file}:{e.line}
              </span>{" "}
              <span>{e.message}</span>
            </li>
          ))}
        </ul>
      ) : null}
      {view?.report?.flows.length ? (
        <ul className="observe-rows" aria-label="Observed against predicted">
          {view.report.flows.map((r, i) => (
            <li
              key={i}
              className={`observe-row ${r.case.startsWith("observed-") ? "disagree" : "agree"}`}
              data-testid="observe-row"
              data-case={r.case}
              data-source={r.mark.source}
              data-target={r.mark.target}
            >
              <button
                type="button"
                className="link"
                title="Light this pair's path on the graph"
                onClick={() => onAsk(r)}
              >
                <strong>{CASE_WORDS[r.case]}</strong>
              </button>
              <div className="mono observe-pair">
                {r.src} → {r.dst} {r.protocol}/{r.port}
              </div>
              <div className="muted">
                seen {r.observed.forwarded} forwarded, {r.observed.dropped} dropped; predicted {r.predicted}
                {r.decidedBy?.name
                  ? ` by ${r.decidedBy.kind ?? r.decidedBy.layer} ${r.decidedBy.namespace ? `${r.decidedBy.namespace}/` : ""}${r.decidedBy.name}`
                  : ""}
              </div>
              {r.explanation ? <div className="observe-why">{r.explanation}</div> : null}
            </li>
          ))}
        </ul>
      ) : null}
      {view?.report?.unmatched.length ? (
        <details className="observe-unmatched">
          <summary>
            Not matched to the manifests ({view.report.unmatched.reduce((a, u) => a + u.records, 0)} records)
          </summary>
          <ul>
            {view.report.unmatched.map((u, i) => (
              <li key={i}>
                <span className="mono">
                  {u.src} → {u.dst} {u.protocol}/{u.port}
                </span>{" "}
                {u.verdict} ×{u.count} (line {u.first.line}): {u.reason}
              </li>
            ))}
          </ul>
        </details>
      ) : null}
      {view?.report?.skippedFlows.length ? (
        <details className="observe-skipped">
          <summary>Skipped ({view.report.skippedFlows.reduce((a, s) => a + s.records, 0)} records)</summary>
          <ul>
            {view.report.skippedFlows.map((s, i) => (
              <li key={i}>
                {s.records} × {s.reason}
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </>
  );
}
