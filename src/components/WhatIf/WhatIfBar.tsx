/** The last what-if and what it changed: the summary, the flows and endpoints, and an undo. */
import { useState } from "react";
import { useShallow } from "zustand/react/shallow";
import { useApp, useAppStore } from "../../store/StoreProvider.tsx";
import { useVerdictsHidden } from "../Lessons/Veil.tsx";

export function WhatIfBar() {
  const store = useAppStore();
  const { whatIf, text } = useApp(useShallow((s) => ({ whatIf: s.whatIf, text: s.text })));
  const [details, setDetails] = useState(false);
  // Before a lesson's reveal, the comparison (flows gained and lost) waits: it states verdicts.
  const verdictsHidden = useVerdictsHidden();
  if (whatIf.status === "idle") return null;
  const stale = whatIf.status === "ready" && text !== whatIf.after;
  const d = verdictsHidden ? undefined : whatIf.diff;
  return (
    <section
      className="ws-bar whatif"
      aria-label="What changed"
      data-testid="whatif"
      data-status={stale ? "stale" : whatIf.status}
    >
      <strong>What if:</strong> <span>{whatIf.label}</span>
      {whatIf.status === "running" ? <span className="muted"> · comparing…</span> : null}
      {whatIf.status === "ready" && verdictsHidden ? (
        <span className="muted ws-veil" data-testid="veil">
          {" "}
          · what it changed waits for the lesson&apos;s reveal
        </span>
      ) : null}
      {whatIf.status === "error" ? (
        <span role="alert" className="ws-error">
          {" "}
          · {whatIf.error}
        </span>
      ) : null}
      {whatIf.status === "ready" && d ? (
        <>
          {" · "}
          <span data-testid="diff-summary" className={stale ? "muted" : "ws-summary"}>
            {d.summary}
          </span>
          {stale ? (
            <span className="muted"> (the text has changed since; the graph no longer marks it)</span>
          ) : null}
        </>
      ) : null}
      <span className="spacer" />
      {whatIf.status === "ready" &&
      d &&
      (d.flows.length ||
        d.endpoints.length ||
        d.pods.added.length ||
        d.pods.removed.length ||
        d.pods.moved.length) ? (
        <button
          type="button"
          className="btn small"
          aria-expanded={details}
          onClick={() => setDetails(!details)}
        >
          {details ? "Hide changes" : "Show changes"}
        </button>
      ) : null}
      {whatIf.status !== "running" && whatIf.before && text !== whatIf.before ? (
        <button
          type="button"
          className="btn small"
          onClick={() => {
            store.getState().editText(whatIf.before, "whatif");
            store.getState().clearWhatIf();
          }}
        >
          Undo what-if
        </button>
      ) : null}
      <button
        type="button"
        className="btn small"
        aria-label="Dismiss the comparison"
        onClick={() => store.getState().clearWhatIf()}
      >
        ✕
      </button>
      {whatIf.notes.length ? (
        <ul className="ws-notes">
          {whatIf.notes.map((n, i) => (
            <li key={i}>{n}</li>
          ))}
        </ul>
      ) : null}
      {details && d ? (
        <div className="ws-changes" data-testid="diff-details">
          {d.pods.added.length || d.pods.removed.length || d.pods.moved.length ? (
            <p>
              {d.pods.added
                .map((p) => `added ${p}`)
                .concat(
                  d.pods.removed.map((p) => `removed ${p}`),
                  d.pods.moved.map((m) => `${m.pod} moved ${m.from} → ${m.to}`),
                )
                .join("; ")}
            </p>
          ) : null}
          {d.flows.length ? (
            <table className="endpoints">
              <thead>
                <tr>
                  <th>Change</th>
                  <th>From</th>
                  <th>To</th>
                  <th>Port</th>
                  <th>Before → after</th>
                  <th>Why</th>
                </tr>
              </thead>
              <tbody>
                {d.flows.slice(0, 200).map((f, i) => (
                  <tr key={i} data-change={f.change}>
                    <td className={`ws-${f.change}`}>{f.change}</td>
                    <td className="mono">{f.from}</td>
                    <td className="mono">{f.to}</td>
                    <td>
                      {f.port}/{f.protocol}
                    </td>
                    <td>
                      {f.before} → {f.after}
                    </td>
                    <td className="muted">{f.reason}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
          {d.endpoints.length ? (
            <ul>
              {d.endpoints.slice(0, 200).map((e, i) => (
                <li key={i} data-change={e.change}>
                  <span className={e.change === "appears" ? "ws-gained" : "ws-lost"}>{e.change}</span>{" "}
                  {e.endpoint} behind {e.service}:{e.port} for {e.traffic} traffic on {e.node}
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}
