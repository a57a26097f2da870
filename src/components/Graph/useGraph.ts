/**
 * The graph on screen, derived from the analysis and the view (src/graph buildGraph): one build per
 * change, shared by the canvas, the details panel and the drop list, so they all name the same elements.
 */
import { useMemo } from "react";
import { useShallow } from "zustand/react/shallow";
import { DEFER_PODS, useApp, useDrawnResult } from "../../store/StoreProvider.tsx";
import type { AppState } from "../../store/types.ts";
import { buildGraph, drawsAlike } from "../../graph/build.ts";
import type { GraphModel, GraphOptions } from "../../graph/model.ts";
import type { Analysis } from "../../engine/analysis/index.ts";

let last: { result: Analysis; options: GraphOptions; graph: GraphModel } | undefined;

function same(a: GraphOptions, b: GraphOptions): boolean {
  return (
    a.filters === b.filters &&
    a.grouping === b.grouping &&
    a.lens === b.lens &&
    a.open === b.open &&
    a.budget === b.budget &&
    a.nsGroupBy === b.nsGroupBy
  );
}

/** The graph for this analysis and view, built once however many components ask. */
export function graphFor(result: Analysis, options: GraphOptions): GraphModel {
  if (last && drawsAlike(last.result, result) && same(last.options, options)) return last.graph;
  const graph = buildGraph(result, options);
  last = { result, options, graph };
  return graph;
}

/** What of the view the graph is built for, as the store holds it (the same objects while unchanged). */
type GraphView = Pick<
  AppState,
  "filters" | "grouping" | "graphLens" | "graphOpen" | "graphBudget" | "nsGroupBy"
>;

const graphView = (s: AppState): GraphView => ({
  filters: s.filters,
  grouping: s.grouping,
  graphLens: s.graphLens,
  graphOpen: s.graphOpen,
  graphBudget: s.graphBudget,
  nsGroupBy: s.nsGroupBy,
});

const optionsOf = (v: GraphView): GraphOptions => ({
  filters: v.filters,
  grouping: v.grouping,
  lens: v.graphLens,
  open: v.graphOpen,
  budget: v.graphBudget,
  nsGroupBy: v.nsGroupBy,
});

/**
 * engineSync's prepareDraw: past DEFER_PODS a new answer's graph is mapped with the view's options in a task
 * of its own before the answer is shown, so that React's render of it takes the built graph from `graphFor`
 * (the mapping was the longest part of that render: tens of milliseconds at 2,000 pods).
 */
export function prepareGraph(getState: () => AppState): (result: Analysis) => (() => void) | undefined {
  return (result) =>
    result.pods.length > DEFER_PODS
      ? () => void graphFor(result, optionsOf(graphView(getState())))
      : undefined;
}

export function useGraph(): GraphModel | undefined {
  const result = useDrawnResult();
  const view = useApp(useShallow(graphView));
  return useMemo(() => (result ? graphFor(result, optionsOf(view)) : undefined), [result, view]);
}
