import { useCallback, useLayoutEffect, useRef } from "react";
import type { EdgeChange, EdgeMouseHandler, NodeChange, NodeMouseHandler } from "@xyflow/react";
import type { AppStore } from "../../store/createAppStore.ts";
import type { FlowEdge, FlowNode } from "../../graph/flow.ts";
import { askEdge } from "./ask.ts";
import { selectionOf } from "./selectionOf.ts";

/** Clicks, keyboard selection and edge-label clicks on the graph: what each selects or asks. */
export function useElementEvents(elements: { nodes: FlowNode[]; edges: FlowEdge[] }, store: AppStore) {
  // The handlers read the newest elements through a ref and stay the same functions: React Flow puts each
  // handler that changes into its store, and each change of its store runs every drawn edge's selector (754
  // edges at 10,000 pods), twice per answer for the two handlers that read the elements.
  const current = useRef(elements);
  useLayoutEffect(() => {
    current.current = elements;
  }, [elements]);
  const onNodeClick: NodeMouseHandler<FlowNode> = useCallback(
    (_, node) => {
      const sel = selectionOf(node.type, node.id);
      if (sel) store.getState().select(sel);
    },
    [store],
  );
  const onEdgeClick: EdgeMouseHandler<FlowEdge> = useCallback(
    (_, edge) => {
      if (edge.data) askEdge(store, edge.data.edge);
    },
    [store],
  );
  // Keyboard selection (Tab to an element, Enter) arrives as selection changes.
  const onNodesChange = useCallback(
    (changes: NodeChange<FlowNode>[]) => {
      for (const c of changes) {
        if (c.type !== "select" || !c.selected) continue;
        const n = current.current.nodes.find((x) => x.id === c.id);
        const sel = selectionOf(n?.type, c.id);
        if (sel && (store.getState().selection as { id?: string } | undefined)?.id !== c.id)
          store.getState().select(sel);
      }
    },
    [store],
  );
  const onEdgesChange = useCallback(
    (changes: EdgeChange<FlowEdge>[]) => {
      for (const c of changes) {
        if (c.type !== "select" || !c.selected) continue;
        const e = current.current.edges.find((x) => x.id === c.id);
        const cur = store.getState().selection;
        if (e?.data && !(cur?.kind === "edge" && cur.id === c.id)) askEdge(store, e.data.edge);
      }
    },
    [store],
  );

  // Edge labels are HTML outside the SVG: a click on one opens its edge.
  const onLabelClick = useCallback(
    (ev: React.MouseEvent) => {
      const id = (ev.target as HTMLElement).closest<HTMLElement>("[data-edge-label]")?.dataset.edgeLabel;
      const e = id ? current.current.edges.find((x) => x.id === id) : undefined;
      if (e?.data) askEdge(store, e.data.edge);
    },
    [store],
  );
  return { onNodeClick, onEdgeClick, onNodesChange, onEdgesChange, onLabelClick };
}
