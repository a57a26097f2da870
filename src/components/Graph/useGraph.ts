/**
 * The graph on screen, derived from the analysis and the view (src/graph buildGraph): one build per
 * change, shared by the canvas, the details panel and the drop list, so they all name the same elements.
 */
import { useMemo } from "react";
import { useShallow } from "zustand/react/shallow";
import { useApp, useDrawnResult } from "../../store/StoreProvider.tsx";
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

export function useGraph(): GraphModel | undefined {
  const result = useDrawnResult();
  const { filters, grouping, graphLens, graphOpen, graphBudget, nsGroupBy } = useApp(
    useShallow((s) => ({
      filters: s.filters,
      grouping: s.grouping,
      graphLens: s.graphLens,
      graphOpen: s.graphOpen,
      graphBudget: s.graphBudget,
      nsGroupBy: s.nsGroupBy,
    })),
  );
  return useMemo(
    () =>
      result
        ? graphFor(result, {
            filters,
            grouping,
            lens: graphLens,
            open: graphOpen,
            budget: graphBudget,
            nsGroupBy,
          })
        : undefined,
    [result, filters, grouping, graphLens, graphOpen, graphBudget, nsGroupBy],
  );
}
