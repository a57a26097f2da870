/**
 * What the engine is doing, for an analysis that takes over a second (issue
 * 33: a large paste answers in seconds). The steps come from the engine as
 * each starts (openAnalysis onProgress, posted by the worker); the graph of
 * the last answer stays below, so nothing blanks while it runs.
 */
import { useEffect, useState } from "react";
import { useApp } from "../../store/StoreProvider.tsx";

/** A load shorter than this shows nothing: a progress bar that flashes is noise. */
export const PROGRESS_AFTER_MS = 1000;

export function LoadProgress() {
  // The text's revision while its analysis runs, else -1: the second starts over with each new text.
  const running = useApp((s) => (s.analysis.status === "running" ? s.revision : -1));
  const progress = useApp((s) => s.analysis.progress);
  const [lateFor, setLateFor] = useState(-1);
  useEffect(() => {
    if (running < 0) return;
    const t = setTimeout(() => setLateFor(running), PROGRESS_AFTER_MS);
    return () => clearTimeout(t);
  }, [running]);
  const late = running >= 0 && lateFor === running;
  if (!late || !progress) return null;
  return (
    <div className="graph-note load-progress" role="status" data-testid="analysis-progress">
      <span>{progress.what}…</span>
      <progress max={progress.steps} value={progress.step} aria-label="Analysis progress" />
      <span className="muted">
        step {progress.step} of {progress.steps}
      </span>
    </div>
  );
}
