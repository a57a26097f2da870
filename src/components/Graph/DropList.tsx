/**
 * "Where the drops are": the engine's dropped flows ranked by namespace pair
 * and deciding object (src/graph/drops.ts). A spot opens the boxes that show
 * its namespaces and selects the edge that carries it, whose first dropped
 * flow is traced.
 */
import { useMemo } from "react";
import { useShallow } from "zustand/react/shallow";
import { useApp, useAppStore, useSettledResult } from "../../store/StoreProvider.tsx";
import {
  focusDropSpot,
  spotDecider,
  spotTitle,
  whereDropsAre,
  type DropSpot,
  type DropSummary,
} from "../../graph/drops.ts";
import { drawsAlike } from "../../graph/build.ts";
import type { Analysis } from "../../engine/analysis/index.ts";
import { thousands } from "../../engine/trace/format.ts";
import { askEdge } from "./ask.ts";

let last: { result: Analysis; summary: DropSummary } | undefined;

/** The drops of an answer, ranked once for every answer that draws alike (graph/build.ts drawsAlike). */
function dropsOf(result: Analysis): DropSummary {
  if (last && drawsAlike(last.result, result)) return last.summary;
  last = { result, summary: whereDropsAre(result) };
  return last.summary;
}

const plural = (n: number, one: string, many = `${one}s`) => `${thousands(n)} ${n === 1 ? one : many}`;

export function DropList({ limit = 6 }: { limit?: number }) {
  const store = useAppStore();
  const result = useSettledResult();
  const summary = useMemo(() => (result ? dropsOf(result) : undefined), [result]);
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
