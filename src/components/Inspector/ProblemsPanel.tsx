import { useApp, useAppStore } from "../../store/StoreProvider.tsx";
import { selectShownDiagnostics, veiledDiagnostics } from "../Lessons/Veil.tsx";
import { ruleHelpUri } from "../../engine/analysis/constants.ts";

const ICON = { error: "✕", warning: "!", info: "i" } as const;

/** Parse, model and validation diagnostics; each moves the editor to its line. */
export function ProblemsPanel() {
  const store = useAppStore();
  const diagnostics = useApp(selectShownDiagnostics);
  const veiled = useApp(veiledDiagnostics);
  if (!diagnostics) return <p className="empty">Analysing…</p>;
  // Before a lesson's reveal, warnings wait: one can name the answer.
  const veil = veiled ? (
    <p className="empty ws-veil" data-testid="veil" role="note">
      {veiled} warning{veiled === 1 ? "" : "s"} wait{veiled === 1 ? "s" : ""} for the lesson&apos;s reveal:
      one can name the answer.
    </p>
  ) : null;
  if (diagnostics.length === 0)
    return veil ?? <p className="empty">No problems: every document parsed and passed the checks.</p>;
  return (
    <>
      {veil}
      <ul className="problems" data-testid="problems">
        {diagnostics.map((d, i) => (
          <li key={i} data-code={d.code} data-line={d.line}>
            <span className={`sev-${d.severity}`} aria-label={d.severity}>
              {ICON[d.severity]}
            </span>
            <button
              type="button"
              className="link mono"
              onClick={() => store.getState().revealLine(d.line)}
              disabled={!d.line}
            >
              {d.line ? `line ${d.line}` : "—"}
            </button>
            <span>
              {d.object ? <strong>{d.object}: </strong> : null}
              {d.message}
              {d.hint ? <span className="muted"> {d.hint}</span> : null}{" "}
              {/* What the code means, why, and how to fix it: the rules page (docs/rules.md), as SARIF's helpUri. */}
              <a
                className="muted mono"
                href={ruleHelpUri(d.code)}
                target="_blank"
                rel="noopener noreferrer"
                title={`What ${d.code} means and how to fix it`}
                data-testid="rule-link"
              >
                {d.code}
              </a>
            </span>
          </li>
        ))}
      </ul>
    </>
  );
}
