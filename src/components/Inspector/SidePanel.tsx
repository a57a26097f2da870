import { useApp, useAppStore } from "../../store/StoreProvider.tsx";
import { selectDiagnostics } from "../../store/selectors.ts";
import { DetailsPanel } from "./DetailsPanel.tsx";
import { ProblemsPanel } from "./ProblemsPanel.tsx";
import { ErrorBoundary } from "../ErrorBoundary.tsx";

export function SidePanel() {
  const store = useAppStore();
  const side = useApp((s) => s.side);
  const problems = useApp((s) => selectDiagnostics(s)?.filter((d) => d.severity !== "info").length ?? 0);
  const errors = useApp((s) => selectDiagnostics(s)?.some((d) => d.severity === "error") ?? false);
  return (
    <div className="panel">
      <div className="panel-head">
        <div className="tabs" role="tablist" aria-label="Details and problems">
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
        </div>
      </div>
      <div
        className="panel-body"
        id="side-panel"
        role="tabpanel"
        aria-labelledby={side === "details" ? "tab-details" : "tab-problems"}
      >
        <ErrorBoundary area="the details panel">
          {side === "details" ? <DetailsPanel /> : <ProblemsPanel />}
        </ErrorBoundary>
      </div>
    </div>
  );
}
