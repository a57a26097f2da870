/**
 * The graph on screen, derived from the analysis and the view (src/graph buildGraph): one build per
 * change, shared by the canvas, the details panel and the drop list, so they all name the same elements.
 */
import { useMemo } from "react";
import { useShallow } from "zustand/react/shallow";
import { DEFER_PODS, useApp, useDrawnResult } from "../../store/StoreProvider.tsx";
import type { AppState } from "../../store/types.ts";
import { drawsAlike, graphSteps } from "../../graph/build.ts";
import { finish, NEVER, Slices, sliced, type Pace, type Steps } from "../../graph/pace.ts";
import type { PreparedDraw } from "../../store/engineSync.ts";
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
  return finish(graphForSteps(result, options, NEVER));
}

/** `graphFor`, built a slice at a time when `pace` says so; what it built is kept as `graphFor`'s. */
function* graphForSteps(result: Analysis, options: GraphOptions, pace: Pace): Steps<GraphModel> {
  if (last && drawsAlike(last.result, result) && same(last.options, options)) return last.graph;
  const graph = yield* graphSteps(result, options, pace);
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

/** One slice of a large answer's mapping: tasks of this length leave room for a keystroke and a frame between them. */
export const MAPPING_SLICE_MS = 12;

/**
 * engineSync's prepareDraw: past DEFER_PODS a new answer's graph is mapped with the view's options before the
 * answer is shown, a slice of MAPPING_SLICE_MS per task (graph/pace.ts), so that React's render of it takes the
 * built graph from `graphFor`. The mapping in one go was the page's longest task while typing (30 to 70 ms at
 * 2,000 pods, 80 to 190 ms at 10,000 in Chromium's traces of the bench's edits).
 */
export function prepareGraph(getState: () => AppState): (result: Analysis) => PreparedDraw | undefined {
  return (result) => {
    if (result.pods.length <= DEFER_PODS) return undefined;
    const pace = new Slices(MAPPING_SLICE_MS);
    return sliced(graphForSteps(result, optionsOf(graphView(getState())), pace), pace);
  };
}

export function useGraph(): GraphModel | undefined {
  const result = useDrawnResult();
  const view = useApp(useShallow(graphView));
  return useMemo(() => (result ? graphFor(result, optionsOf(view)) : undefined), [result, view]);
}
