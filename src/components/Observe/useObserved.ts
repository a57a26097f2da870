/** The Observed tab's rows on the graph the page draws (graph/observedMarks.ts), for the details panel. */
import { useMemo } from "react";
import { observedGraph, type ObservedGraph } from "../../graph/observedMarks.ts";
import { useApp } from "../../store/StoreProvider.tsx";
import { useGraph } from "../Graph/useGraph.ts";
import { currentObservedRows } from "./rows.ts";

export function useObservedGraph(): ObservedGraph | undefined {
  const graph = useGraph();
  const rows = useApp(currentObservedRows);
  return useMemo(() => (graph && rows?.length ? observedGraph(graph, rows) : undefined), [graph, rows]);
}
