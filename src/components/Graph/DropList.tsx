/**
 * "Where the drops are": the engine's dropped flows ranked by namespace pair
 * and deciding object (src/graph/drops.ts). A spot opens the boxes that show
 * its namespaces and selects the edge that carries it, whose first dropped
 * flow is traced.
 */
import { useEffect, useReducer } from "react";
import { useShallow } from "zustand/react/shallow";
import { DEFER_PODS, useApp, useAppStore, useSettledResult } from "../../store/StoreProvider.tsx";
import { inSlices } from "../../store/tasks.ts";
import { Slices, sliced } from "../../graph/pace.ts";
import { MAPPING_SLICE_MS } from "./useGraph.ts";
import {
  focusDropSpot,
  spotDecider,
  spotTitle,
  whereDropsAre,
  dropSpotsSteps,
  type DropSpot,
  type DropSummary,
} from "../../graph/drops.ts";
import { drawsAlike } from "../../graph/build.ts";
import type { Analysis } from "../../engine/analysis/index.ts";
import { thousands } from "../../engine/trace/format.ts";
import { askEdge } from "./ask.ts";

let last: { result: Analysis; summary: DropSummary } | undefined;

/** The drops of an answer when ranked already, for every answer that draws alike (graph/build.ts drawsAlike). */
function rankedFor(result: Analysis): DropSummary | undefined {
  return last && drawsAlike(last.result, result) ? last.summary : undefined;
}

/** Keeps an answer's ranking, and gives it. */
function keep(result: Analysis, summary: DropSummary): DropSummary {
  last = { result, summary };
  return summary;
}

/** The last ranking kept, of whichever answer. */
const lastRanked = (): DropSummary | undefined => last?.summary;

/**
 * The drops of the answer: ranked at once for a small answer; past DEFER_PODS a slice of MAPPING_SLICE_MS per
 * task (graph/pace.ts), the list showing the last answer's ranking meanwhile. Ranked in one render, the drops of
 * 10,000 pods held the page for about 100 ms after each keystroke (Chromium profile of the bench's edits).
 */
function useDrops(result: Analysis | undefined): DropSummary | undefined {
  const [, ranked] = useReducer((n: number) => n + 1, 0);
  const ready = result ? rankedFor(result) : undefined;
  const large = (result?.pods.length ?? 0) > DEFER_PODS;
  useEffect(() => {
    if (!result || ready || !large) return;
    const pace = new Slices(MAPPING_SLICE_MS);
    const run = sliced(dropSpotsSteps(result, pace), pace);
    let stopped = false;
    inSlices(
      () => run.step(),
      () => !stopped,
      () => {
        keep(result, run.result()!);
        ranked();
      },
    );
    return () => void (stopped = true);
  }, [result, ready, large]);
  if (!result || ready) return ready;
  return large ? lastRanked() : keep(result, whereDropsAre(result));
}

const plural = (n: number, one: string, many = `${one}s`) => `${thousands(n)} ${n === 1 ? one : many}`;

export function DropList({ limit = 6 }: { limit?: number }) {
  const store = useAppStore();
  const result = useSettledResult();
  const summary = useDrops(result);
  const view = useApp(
    useShallow((s) => ({
      filters: s.filters,
      grouping: s.grouping,
      open: s.graphOpen,
      budget: s.graphBudget,
      nsGroupBy: s.nsGroupBy,
    })),
  );
  if (!result || !summary || summary.spots.length === 0) return null;
  const go = (spot: DropSpot) => {
    const st = store.getState();
    const f = focusDropSpot(result, { ...view, lens: "paths" }, spot);
    if (st.graphLens === "topology") st.setGraphLens("paths");
    st.setTab("graph");
    for (const [k, v] of Object.entries(f.open)) if (st.graphOpen[k] !== v) st.setGraphOpen(k, v);
    if (f.edge) askEdge(store, f.edge);
    else if (f.element)
      st.select({ kind: f.element.startsWith("service:") ? "service" : "group", id: f.element });
  };
  const shown = summary.spots.slice(0, limit);
  const more = summary.spots.length - shown.length;
  return (
    <section aria-label="Where the drops are" className="drop-list" data-testid="drop-list">
      <h4>Where the drops are</h4>
      {shown.length ? (
        <ol>
          {shown.map((s) => (
            <li key={s.key} data-spot={s.key}>
              <button
                type="button"
                className="link"
                onClick={() => go(s)}
                title="Open these boxes and select the edge"
              >
                {spotTitle(s)}
              </button>{" "}
              <span className="mono">{spotDecider(s)}</span>{" "}
              <span className="muted">
                {plural(s.connections, "connection")}
                {s.partly ? ` (${s.partly} refused at some endpoints only)` : ""}
                {s.from === undefined && !s.external ? ", at the Service's endpoints" : ""}
              </span>
            </li>
          ))}
        </ol>
      ) : null}
      {more > 0 ? (
        <p className="muted">and {plural(more, "more place")} (the matrix lists every pair).</p>
      ) : null}
    </section>
  );
}
