/** The Observed tab's rows as the graph shows them: the engine's last comparison of the open flow file, none before a lesson's reveal (they state verdicts). */
import type { ObservedRowView } from "../../engine/analysis/index.ts";
import type { AppState } from "../../store/types.ts";
import { verdictsHidden } from "../Lessons/predict.ts";

export function currentObservedRows(s: AppState): readonly ObservedRowView[] | undefined {
  if (!s.observeText || s.observeRun.text !== s.observeText || verdictsHidden(s)) return undefined;
  return s.observeRun.result?.report?.flows;
}
