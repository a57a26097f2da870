import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import {
  ReactFlow,
  MiniMap,
  Controls,
  ControlButton,
  useReactFlow,
  type NodeChange,
  type EdgeChange,
  type NodeMouseHandler,
  type EdgeMouseHandler,
} from "@xyflow/react";
import { useShallow } from "zustand/react/shallow";
import { useApp, useAppStore } from "../../store/StoreProvider.tsx";
import { buildGraph, CONTAINER_KINDS, type GraphEdge, type GraphModel } from "../../graph/model.ts";
import { ElementStabilizer, toFlowElements, type FlowEdge, type FlowNode } from "../../graph/flow.ts";
import type { AppStore } from "../../store/createAppStore.ts";
import type { Selection } from "../../store/types.ts";
import { sameQuestion } from "../../store/viewSlice.ts";
import { nodeTypes } from "./nodes.tsx";
import { edgeTypes, EdgeMarkers } from "./VerdictEdge.tsx";
import { Legend } from "./Legend.tsx";
import { useLayout } from "./useLayout.ts";
import { markFirstDraw } from "../../app/firstDraw.ts";

/** The trace that explains an edge: its first dropped flow, else its first flow. */
export function askEdge(store: AppStore, e: GraphEdge) {
  const f = e.flows.find((x) => x.verdict !== "allow") ?? e.flows[0];
  const selection: Selection = { kind: "edge", id: e.id };
  if (f) store.getState().ask({ from: f.from, to: f.traceTo, protocol: f.protocol }, selection);
  else store.getState().select(selection);
}

function selectionOf(kind: string | undefined, id: string): Selection | undefined {
  switch (kind) {
    case "pod":
    case "service":
    case "group":
    case "external":
      return { kind, id };
    case "node":
      // A cluster node (not the "unscheduled" bucket) selects it, and picks it for the Node rules tab.
      return id === "node:(unscheduled)" ? undefined : { kind, id };
    default:
      return undefined;
  }
}

export function useGraph(): GraphModel | undefined {
  const result = useApp((s) => s.analysis.result);
  const { filters, grouping } = useApp(useShallow((s) => ({ filters: s.filters, grouping: s.grouping })));
  return useMemo(
    () => (result ? buildGraph(result, { filters, grouping }) : undefined),
    [result, filters, grouping],
  );
}

export function GraphCanvas({ graph }: { graph: GraphModel | undefined }) {
  const store = useAppStore();
  const { displayed, error } = useLayout(graph);
  const theme = useApp((s) => s.theme);
  const revision = useApp((s) => s.analysis.revision);
  const selection = useApp((s) => s.selection);
  const question = useApp((s) => s.question);
  const trace = useApp((s) =>
    s.trace.status === "ready" && s.question && sameQuestion(s.trace.query, s.question) ? s.trace.result : undefined,
  );
  const { fitView } = useReactFlow();
  // The minimap helps in large graphs; in small ones it would hide part of the picture. The user can toggle it.
  const leaves = displayed
    ? displayed.graph.nodes.filter((n) => !CONTAINER_KINDS.has(n.kind)).length
    : 0;
  const [miniMapChoice, setMiniMap] = useState<boolean | undefined>(undefined);
  const showMiniMap = miniMapChoice ?? leaves > 30;

  const elements = useMemo(() => {
    if (!displayed) return { nodes: [] as FlowNode[], edges: [] as FlowEdge[] };
    const selectedEdge = selection?.kind === "edge" ? selection.id : undefined;
    const el = toFlowElements(displayed.graph, displayed.positions, {
      trace: question ? trace : undefined,
      selectedEdge,
    });
    const selectedNode =
      selection && selection.kind !== "edge" && selection.kind !== "question" ? selection.id : undefined;
    if (selectedNode) for (const n of el.nodes) if (n.id === selectedNode) n.selected = true;
    return el;
  }, [displayed, selection, trace, question]);

  // Unchanged elements keep their objects, so only what an edit changed re-renders.
  const [stabilizer] = useState(() => new ElementStabilizer());
  const stable = useMemo(() => stabilizer.apply(elements), [stabilizer, elements]);

  // A User Timing mark once a revision is on screen, for benchmarks.
  const drawnRevision = displayed && displayed.graph === graph ? revision : undefined;
  useEffect(() => {
    if (drawnRevision === undefined) return;
    performance.mark(`ktl:graph-drawn:${drawnRevision}`);
    markFirstDraw();
  }, [drawnRevision, elements]);

  // Fit the view when the structure changes (a new layout), not on every verdict change.
  const fitted = useRef<string | undefined>(undefined);
  useEffect(() => {
    if (!displayed || fitted.current === displayed.graph.structureKey) return;
    fitted.current = displayed.graph.structureKey;
    requestAnimationFrame(() => void fitView({ padding: 0.08, duration: 0 }));
  }, [displayed, fitView]);

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
        const n = elements.nodes.find((x) => x.id === c.id);
        const sel = selectionOf(n?.type, c.id);
        if (sel && (store.getState().selection as { id?: string } | undefined)?.id !== c.id)
          store.getState().select(sel);
      }
    },
    [elements, store],
  );
  const onEdgesChange = useCallback(
    (changes: EdgeChange<FlowEdge>[]) => {
      for (const c of changes) {
        if (c.type !== "select" || !c.selected) continue;
        const e = elements.edges.find((x) => x.id === c.id);
        const cur = store.getState().selection;
        if (e?.data && !(cur?.kind === "edge" && cur.id === c.id)) askEdge(store, e.data.edge);
      }
    },
    [elements, store],
  );

  // Edge labels are HTML outside the SVG: a click on one opens its edge.
  const onLabelClick = useCallback(
    (ev: React.MouseEvent) => {
      const id = (ev.target as HTMLElement).closest<HTMLElement>("[data-edge-label]")?.dataset.edgeLabel;
      const e = id ? elements.edges.find((x) => x.id === id) : undefined;
      if (e?.data) askEdge(store, e.data.edge);
    },
    [elements, store],
  );

  if (!graph) return <div className="graph-empty">Analysing…</div>;
  return (
    <div
      className="graph-wrap"
      onClick={onLabelClick}
      data-testid="graph"
      data-level={displayed?.graph.level ?? ""}
      data-edges={elements.edges.length}
      // The input revision the drawn graph shows ("" while a new layout is on its way): benchmarks and tests wait on it.
      data-revision={drawnRevision ?? ""}
    >
      <EdgeMarkers />
      <div className="graph-canvas">
        <ReactFlow<FlowNode, FlowEdge>
          nodes={stable.nodes}
          edges={stable.edges}
          nodeTypes={nodeTypes}
          edgeTypes={edgeTypes}
          onNodeClick={onNodeClick}
          onEdgeClick={onEdgeClick}
          onNodesChange={onNodesChange}
          onEdgesChange={onEdgesChange}
          onPaneClick={() => store.getState().select(undefined)}
          colorMode={theme}
          minZoom={0.05}
          maxZoom={2.5}
          nodesDraggable={false}
          nodesConnectable={false}
          elementsSelectable
          nodesFocusable
          edgesFocusable
          onlyRenderVisibleElements={elements.nodes.length > 600}
          fitView
          fitViewOptions={{ padding: 0.08 }}
          aria-label="Traffic graph"
        >
          {showMiniMap ? (
            <MiniMap
              pannable
              zoomable
              ariaLabel="Minimap"
              nodeStrokeWidth={2}
              style={{ width: 150, height: 96 }}
              maskColor={theme === "dark" ? "rgba(0,0,0,0.55)" : "rgba(240,242,246,0.6)"}
            />
          ) : null}
          <Controls showInteractive={false} fitViewOptions={{ padding: 0.08 }}>
            <ControlButton
              onClick={() => setMiniMap(!showMiniMap)}
              title={showMiniMap ? "Hide the minimap" : "Show the minimap"}
              aria-label={showMiniMap ? "Hide the minimap" : "Show the minimap"}
              aria-pressed={showMiniMap}
            >
              <svg viewBox="0 0 16 16" aria-hidden="true">
                <rect
                  x="1.5"
                  y="3"
                  width="13"
                  height="10"
                  rx="1.5"
                  fill="none"
                  stroke="currentColor"
                  strokeWidth="1.4"
                />
                <rect x="8" y="8" width="5" height="3.5" fill="currentColor" />
              </svg>
            </ControlButton>
          </Controls>
        </ReactFlow>
      </div>
      <Legend note={displayed && displayed.graph.level !== "pod" ? `Pods grouped by ${displayed.graph.level} (large scenario): choose “Group by: pod” to see each one.` : undefined} />
      {error ? (
        <div className="graph-info" role="alert">
          {error}
        </div>
      ) : null}
      {displayed && displayed.graph.nodes.length === 0 ? (
        <div className="graph-empty">Nothing to draw yet: add Pods, workloads or Services in the editor.</div>
      ) : null}
    </div>
  );
}
