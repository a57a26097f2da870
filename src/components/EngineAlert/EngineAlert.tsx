/**
 * Says why the graph is not up to date when the engine failed: a worker that
 * stopped, an answer that could not be read, or an analysis past its time
 * budget (worker/engineClient.ts). Never a blank pane, never "Analysing…"
 * forever: the message names what happened and that the text is kept.
 */
import { useApp } from "../../store/StoreProvider.tsx";

export function EngineAlert() {
  const error = useApp((s) => (s.analysis.status === "error" ? s.analysis.error : undefined));
  if (!error) return null;
  return (
    <div className="notice" data-kind="error" role="alert" data-testid="engine-alert">
      <p>{error}</p>
    </div>
  );
}
