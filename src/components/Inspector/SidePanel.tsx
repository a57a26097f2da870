import { useApp, useAppStore } from "../../store/StoreProvider.tsx";
import { selectShownDiagnostics, UntilReveal, useVerdictsHidden } from "../Lessons/Veil.tsx";
import { DetailsPanel } from "./DetailsPanel.tsx";
import { ProblemsPanel } from "./ProblemsPanel.tsx";
import { ErrorBoundary } from "../ErrorBoundary.tsx";
import { TestsPanel } from "../Tests/TestsPanel.tsx";
import { currentTestResults } from "../Tests/results.ts";
import { ObservePanel } from "../Observe/ObservePanel.tsx";

export function SidePanel() {
  const store = useAppStore();
  const side = useApp((s) => s.side);
  const problems = useApp((s) => selectShownDiagnostics(s)?.filter((d) => d.severity !== "info").length ?? 0);
  const errors = useApp((s) => selectShownDiagnostics(s)?.some((d) => d.severity === "error") ?? false);
  // Before a lesson's reveal, the count of failing tests would tell verdicts.
  const verdictsHidden = useVerdictsHidden();
  const failing = useApp((s) => currentTestResults(s)?.filter((r) => !r.pass).length);
  const disagreements = useApp((s) =>
    s.observeText && s.observeRun.text === s.observeText
      ? s.observeRun.result?.report?.disagreements
      : undefined,
  );
  return (
    <div className="panel">
      <div className="panel-head">
        <div className="tabs" role="tablist" aria-label="Details, problems, tests and observed flows">
          <button
            type="button"
            role="tab"
            id="tab-details"
            className="tab"
            aria-selected={side === "details"}
            aria-controls="side-panel"
            onClick={() => store.getState().setSide("details")}
          >
            Details
          </button>
          <button
            type="button"
            role="tab"
            id="tab-problems"
            className="tab"
            aria-selected={side === "problems"}
            aria-controls="side-panel"
            onClick={() => store.getState().setSide("problems")}
          >
            Problems <span className={`badge ${errors ? "error" : ""}`}>{problems}</span>
          </button>
          <button
            type="button"
            role="tab"
            id="tab-tests"
            className="tab"
            aria-selected={side === "tests"}
            aria-controls="side-panel"
            onClick={() => store.getState().setSide("tests")}
          >
            Tests
            {failing !== undefined && !verdictsHidden ? (
              <span className={`badge ${failing ? "error" : ""}`} title={`${failing} failing`}>
                {failing ? `${failing} ✗` : "✓"}
              </span>
            ) : null}
          </button>
          <button
            type="button"
            role="tab"
            id="tab-observed"
            className="tab"
            aria-selected={side === "observed"}
            aria-controls="side-panel"
            onClick={() => store.getState().setSide("observed")}
          >
            Observed
            {disagreements !== undefined && !verdictsHidden ? (
              <span
                className={`badge ${disagreements ? "error" : ""}`}
                title={`${disagreements} disagreeing`}
              >
                {disagreements ? `${disagreements} ≠` : "="}
              </span>
            ) : null}
          </button>
        </div>
      </div>
      <div className="panel-body" id="side-panel" role="tabpanel" aria-labelledby={`tab-${side}`}>
        <ErrorBoundary area="the details panel">
          {side === "details" ? (
            <DetailsPanel />
          ) : side === "tests" ? (
            <UntilReveal what="The tests' results">
              <TestsPanel />
            </UntilReveal>
          ) : side === "observed" ? (
            <ObservePanel />
          ) : (
            <ProblemsPanel />
          )}
        </ErrorBoundary>
      </div>
    </div>
  );
}
