import { useMemo } from "react";
import { useApp } from "../../store/StoreProvider.tsx";
import { sameQuestion } from "../../store/viewSlice.ts";
import { toFlowElements, type FlowEdge, type FlowNode } from "../../graph/flow.ts";
import { testFailedEdges } from "../../graph/testMarks.ts";
import { observedGraph } from "../../graph/observedMarks.ts";
import { currentObservedRows } from "../Observe/rows.ts";
import { currentTestResults } from "../Tests/results.ts";
import type { Displayed } from "./useLayout.ts";

/**
 * The drawn graph as React Flow's nodes and edges: the selection, the traced question's path, the
 * hovered edge, the Tests tab's failures and the Observed tab's marks on it.
 */
export function useFlowElements(
  displayed: Displayed | undefined,
  hoveredEdge: string | undefined,
  px: { width: number; height: number } | undefined,
  fitOptions: { minZoom: number; maxZoom: number },
) {
  const selection = useApp((s) => s.selection);
  const question = useApp((s) => s.question);
  const trace = useApp((s) =>
    s.trace.status === "ready" && s.question && sameQuestion(s.trace.query, s.question)
      ? s.trace.result
      : undefined,
  );
  // The Tests tab's failing expectations, for the text on screen: marked on the edges of their paths.
  const testResults = useApp(currentTestResults);
  const testFailed = useMemo(
    () => (displayed ? testFailedEdges(displayed.graph, testResults) : undefined),
    [displayed, testResults],
  );
  // The Observed tab's rows: what was seen, beside the engine's verdict on each edge (observedMarks.ts).
  const observedRows = useApp(currentObservedRows);
  const observed = useMemo(
    () => (displayed && observedRows?.length ? observedGraph(displayed.graph, observedRows) : undefined),
    [displayed, observedRows],
  );
  const elements = useMemo(() => {
    if (!displayed) return { nodes: [] as FlowNode[], edges: [] as FlowEdge[] };
    const selectedEdge = selection?.kind === "edge" ? selection.id : undefined;
    const selectedNode =
      selection && selection.kind !== "edge" && selection.kind !== "question" ? selection.id : undefined;
    const el = toFlowElements(displayed.graph, displayed.positions, {
      trace: question ? trace : undefined,
      selectedEdge,
      selectedNode,
      hoveredEdge,
      viewport: px
        ? {
            width: px.width,
            height: px.height,
            minZoom: fitOptions.minZoom,
            maxZoom: fitOptions.maxZoom,
          }
        : undefined,
      ...(testFailed?.size ? { testFailed } : {}),
      ...(observed ? { observed } : {}),
    });
    if (selectedNode) for (const n of el.nodes) if (n.id === selectedNode) n.selected = true;
    return el;
  }, [displayed, selection, trace, question, hoveredEdge, testFailed, observed, px, fitOptions]);
  return { elements, testFailed, observed };
}
