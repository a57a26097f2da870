/**
 * Predict, then reveal, beyond the graph: every surface that would state or
 * count a verdict (the trace and edge details, the matrix, a node's
 * kube-proxy rules, the Problems' warnings, test results, what-if
 * comparisons, verdict exports) asks `useVerdictsHidden` and, while an open
 * lesson's answer is not revealed, shows `Veil` in its place. The lesson bar's
 * reveal lifts every veil at once.
 */
import type { ReactNode } from "react";
import { useApp } from "../../store/StoreProvider.tsx";
import { selectDiagnostics } from "../../store/selectors.ts";
import type { AppState } from "../../store/types.ts";
import type { DiagnosticView } from "../../engine/analysis/index.ts";
import { verdictsHidden } from "./predict.ts";

export function useVerdictsHidden(): boolean {
  return useApp(verdictsHidden);
}

/** In place of a surface that would give the lesson's answer away. */
export function Veil({ what }: { what: string }) {
  return (
    <p className="empty ws-veil" data-testid="veil" role="note">
      {what} would give the lesson&apos;s answer away: predict its questions, then reveal the answer.
    </p>
  );
}

/** `children` once the answer is revealed (or outside a lesson); a veil naming `what` before. */
export function UntilReveal({ what, children }: { what: string; children: ReactNode }) {
  return useVerdictsHidden() ? <Veil what={what} /> : <>{children}</>;
}

let lastAll: DiagnosticView[] | undefined;
let lastShown: DiagnosticView[] | undefined;

/**
 * The diagnostics to show (Problems tab, its badge, the editor's markers):
 * before a lesson's reveal only errors, since a warning can name the answer
 * ("node-b has no endpoint of web-gw-istio"); every one after. Memoised, so
 * that selectors return the same array while nothing changed.
 */
export function selectShownDiagnostics(s: AppState): DiagnosticView[] | undefined {
  const all = selectDiagnostics(s);
  if (!all || !verdictsHidden(s)) return all;
  if (all !== lastAll) {
    lastAll = all;
    lastShown = all.filter((d) => d.severity === "error");
  }
  return lastShown;
}

/** How many diagnostics the veil holds back. */
export function veiledDiagnostics(s: AppState): number {
  return (selectDiagnostics(s)?.length ?? 0) - (selectShownDiagnostics(s)?.length ?? 0);
}
