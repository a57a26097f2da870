import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
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
import { useApp, useAppStore, useDrawnAnalysis, useDrawnResult } from "../../store/StoreProvider.tsx";
import { topologyDecides, CONTAINER_KINDS, type GraphModel } from "../../graph/model.ts";
import { ElementStabilizer } from "../../graph/stabilize.ts";
import { pictureBounds, toFlowElements, type FlowEdge, type FlowNode } from "../../graph/flow.ts";
import { sameQuestion } from "../../store/viewSlice.ts";
import { allNodeTypes } from "./nodes.tsx";
import "./graph.css";
import { FIT_PADDING, FIT_PADDING_PX, LEGIBLE_ZOOM, TOPOLOGY_LEGIBLE_ZOOM } from "./fit.ts";
import { GraphFind } from "./GraphFind.tsx";
import { selectionOf } from "./selectionOf.ts";
import { useFind } from "./useFind.ts";
import { useGraphKeys } from "./useGraphKeys.ts";
import { usePaneShape } from "./usePaneShape.ts";

import { edgeTypes, EdgeMarkers } from "./VerdictEdge.tsx";
import { Legend } from "./Legend.tsx";
import { LoadProgress } from "./LoadProgress.tsx";
import { useLayout } from "./useLayout.ts";
import type { Positions } from "../../graph/layout.ts";
import { markFirstDraw } from "../../store/firstDraw.ts";
import { testFailedEdges } from "../../graph/testMarks.ts";
import { observedGraph } from "../../graph/observedMarks.ts";
import { currentObservedRows } from "../Observe/rows.ts";
import { currentTestResults } from "../Tests/results.ts";
import { askEdge } from "./ask.ts";

export { useGraph } from "./useGraph.ts";

export function GraphCanvas({ graph }: { graph: GraphModel | undefined }) {
  const store = useAppStore();
  const failed = useApp((s) => s.analysis.status === "error");
  const paused = useApp((s) => s.paused);
  // The pane's size sets the layout's shape and how many elements the automatic grouping may show.
  const wrapRef = useRef<HTMLDivElement>(null);
  const shape = usePaneShape(wrapRef, graph !== undefined, store);
  const { displayed, error } = useLayout(graph, shape.aspect, shape.rows, shape.pane);
  const [hoveredEdge, setHoveredEdge] = useState<string | undefined>(undefined);
  const theme = useApp((s) => s.theme);
  // The revision of the analysis drawn (deferred with it), not the newest one received.
  const revision = useDrawnAnalysis().revision;
  const selection = useApp((s) => s.selection);
  const question = useApp((s) => s.question);
  const trace = useApp((s) =>
    s.trace.status === "ready" && s.question && sameQuestion(s.trace.query, s.question)
      ? s.trace.result
      : undefined,
  );
  const { fitView, setViewport } = useReactFlow();
  const paths = displayed?.graph.lens === "paths";
  const result = useDrawnResult();
  const onlyDrops = useApp((s) => s.filters.onlyDrops);
  const decides = useMemo(() => (result ? topologyDecides(result) : false), [result]);
  // Presenter mode lets a small graph grow to fill the projector (text scales with it).
  const presenting = useApp((s) => s.presenting);
  const fitOptions = useMemo(
    () => ({
      padding: FIT_PADDING_PX,
      minZoom: paths ? LEGIBLE_ZOOM : TOPOLOGY_LEGIBLE_ZOOM,
      maxZoom: presenting ? 2.2 : 1.25,
    }),
    [paths, presenting],
  );
  // The minimap helps in large graphs; in small ones it would hide part of the picture. The user can toggle it.
  const leaves = displayed ? displayed.graph.nodes.filter((n) => !CONTAINER_KINDS.has(n.kind)).length : 0;
  const [miniMapChoice, setMiniMap] = useState<boolean | undefined>(undefined);
  const showMiniMap = miniMapChoice ?? leaves > 30;

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
      viewport: shape.px
        ? {
            width: shape.px.width,
            height: shape.px.height,
            minZoom: fitOptions.minZoom,
            maxZoom: fitOptions.maxZoom,
          }
        : undefined,
      ...(testFailed?.size ? { testFailed } : {}),
      ...(observed ? { observed } : {}),
    });
    if (selectedNode) for (const n of el.nodes) if (n.id === selectedNode) n.selected = true;
    return el;
  }, [displayed, selection, trace, question, hoveredEdge, testFailed, observed, shape.px, fitOptions]);

  // Unchanged elements keep their objects, so only what an edit changed re-renders.
  const [stabilizer] = useState(() => new ElementStabilizer());
  const stable = useMemo(() => stabilizer.apply(elements), [stabilizer, elements]);

  // A User Timing mark once a revision is on screen, for benchmarks: in the commit that puts it in the
  // DOM (a layout effect; a passive one waits for the next frame after a deferred render).
  const drawnRevision = displayed && displayed.graph === graph ? revision : undefined;
  useLayoutEffect(() => {
    if (drawnRevision === undefined) return;
    performance.mark(`ktl:graph-drawn:${drawnRevision}`);
    markFirstDraw();
  }, [drawnRevision, elements]);

  const onFind = useFind(displayed, store);

  // Fit view, paths lens: every element and every shown label (a label kept clear of the boxes may sit past them).
  const fitPicture = useCallback(
    (duration = 0) => {
      const canvas = wrapRef.current?.querySelector(".graph-canvas")?.getBoundingClientRect();
      const b = pictureBounds(stable.nodes, stable.edges);
      if (!b || !canvas || b.width <= 0 || b.height <= 0) return void fitView({ ...fitOptions, duration });
      const w = canvas.width - FIT_PADDING.left - FIT_PADDING.right;
      const h = canvas.height - FIT_PADDING.top - FIT_PADDING.bottom;
      const zoom = Math.min(
        fitOptions.maxZoom,
        Math.max(fitOptions.minZoom, Math.min(w / b.width, h / b.height)),
      );
      // A picture larger than the pane at the legible zoom starts at its top left (the first zone's and
      // namespace's titles), where a reader starts, instead of being cut on both sides.
      const spareW = w - b.width * zoom;
      const spareH = h - b.height * zoom;
      void setViewport(
        {
          x: FIT_PADDING.left + Math.max(0, spareW / 2) - b.x * zoom,
          y: FIT_PADDING.top + Math.max(0, spareH / 2) - b.y * zoom,
          zoom,
        },
        { duration },
      );
    },
    [stable, fitView, fitOptions, setViewport],
  );
  // Fit the view when there is a new layout (a new structure, or the pane resized), not on every verdict change.
  const fitted = useRef<Positions | undefined>(undefined);
  useEffect(() => {
    if (!displayed || fitted.current === displayed.positions) return;
    fitted.current = displayed.positions;
    requestAnimationFrame(() => fitPicture());
  }, [displayed, fitPicture]);

  const onKeyDown = useGraphKeys(displayed, store, wrapRef, setHoveredEdge);

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

  if (!graph)
    return (
      // Its own positioned box: the absolutely placed message would otherwise cover, and take the clicks of, the whole app.
      <div style={{ position: "relative", flex: 1 }}>
        <div className="graph-empty">
          {paused
            ? "Analysis paused (safe mode)."
            : failed
              ? "No graph: the engine could not analyse this text (the message above says why)."
              : "Analysing…"}
        </div>
      </div>
    );
  return (
    <div
      ref={wrapRef}
      className="graph-wrap"
      onClick={onLabelClick}
      data-lens={displayed?.graph.lens ?? ""}
      data-testid="graph"
      data-level={displayed?.graph.level ?? ""}
      data-edges={elements.edges.length}
      data-rows={shape.rows}
      // The input revision the drawn graph shows ("" while a new layout is on its way): benchmarks and tests wait on it.
      data-revision={drawnRevision ?? ""}
    >
      <EdgeMarkers />
      <div
        className="graph-canvas"
        id="graph-canvas"
        tabIndex={0}
        role="group"
        aria-roledescription="traffic graph"
        aria-label="Traffic graph: arrow keys move between elements, plus and minus open and fold, brackets step through the selected element's edges, Escape clears"
        aria-keyshortcuts="ArrowUp ArrowDown ArrowLeft ArrowRight + - [ ] Escape"
        onKeyDown={onKeyDown}
      >
        <div className="graph-kbd-hint" aria-hidden="true">
          ← ↑ → ↓ move · + − open/fold · [ ] edges · Esc clear
        </div>
        <ReactFlow<FlowNode, FlowEdge>
          nodes={stable.nodes}
          edges={stable.edges}
          nodeTypes={allNodeTypes}
          edgeTypes={edgeTypes}
          onNodeClick={onNodeClick}
          onEdgeClick={onEdgeClick}
          onEdgeMouseEnter={(_, e) => setHoveredEdge(e.id)}
          onEdgeMouseLeave={() => setHoveredEdge(undefined)}
          onNodesChange={onNodesChange}
          onEdgesChange={onEdgesChange}
          onPaneClick={() => store.getState().select(undefined)}
          colorMode={theme}
          minZoom={0.05}
          maxZoom={2.5}
          nodesDraggable={false}
          nodesConnectable={false}
          elementsSelectable
          nodesFocusable={false}
          edgesFocusable={false}
          disableKeyboardA11y
          onlyRenderVisibleElements={elements.nodes.length > 600}
          fitView
          fitViewOptions={fitOptions}
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
          <Controls showInteractive={false} showFitView={false}>
            <ControlButton
              onClick={() => fitPicture(150)}
              className="react-flow__controls-fitview"
              title="Fit view"
              aria-label="Fit view"
            >
              <svg viewBox="0 0 16 16" aria-hidden="true">
                <path
                  d="M2 6V2h4M10 2h4v4M14 10v4h-4M6 14H2v-4"
                  fill="none"
                  stroke="currentColor"
                  strokeWidth="1.6"
                />
              </svg>
            </ControlButton>
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
      <Legend
        find={<GraphFind onFind={onFind} />}
        loops={!!displayed?.graph.edges.some((e) => e.source === e.target)}
        quiet={!!displayed?.graph.edges.some((e) => e.quiet)}
        observed={observed ? [...new Set([...observed.marks.values()].map((m) => m.case))] : []}
        notes={
          displayed
            ? [
                ...new Set(displayed.graph.edges.flatMap((e) => (e.note ? [e.note] : []))),
                ...(testFailed?.size ? (["test"] as const) : []),
              ]
            : []
        }
        note={
          displayed && displayed.graph.level !== "pod"
            ? paths
              ? "Namespaces and workloads folded to fit: + opens one, or choose “Group by: pod”."
              : `Pods grouped by ${displayed.graph.level} (large scenario): choose “Group by: pod” to see each one.`
            : paths && decides
              ? "Zones or nodes decide some verdicts here (a Local traffic policy): View → topology shows them."
              : undefined
        }
      />
      <LoadProgress />
      {error ? (
        <div className="graph-info" role="alert">
          {error}
        </div>
      ) : null}
      {displayed && onlyDrops && displayed.graph.edges.length === 0 && displayed.graph.nodes.length > 0 ? (
        <div className="graph-note" role="status" data-testid="drops-none">
          No dropped connection at this fold level
          {result?.flows.some((f) => f.verdict !== "allow") ||
          result?.reach?.flows.some((f) => f.verdict !== "allow") ||
          result?.reach?.dropped
            ? " with the port, layer or namespace filter chosen."
            : ": the engine found every listed flow allowed."}
        </div>
      ) : null}
      {displayed && displayed.graph.nodes.length === 0 ? (
        <div className="graph-empty">Nothing to draw yet: add Pods, workloads or Services in the editor.</div>
      ) : null}
    </div>
  );
}
