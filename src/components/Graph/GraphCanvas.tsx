import { useCallback, useLayoutEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { ReactFlow, MiniMap } from "@xyflow/react";
import { useApp, useAppStore, useDrawnAnalysis, useDrawnResult } from "../../store/StoreProvider.tsx";
import { topologyDecides, CHOSEN_MAX_EDGES, CONTAINER_KINDS, type GraphModel } from "../../graph/model.ts";
import { ElementStabilizer } from "../../graph/stabilize.ts";
import { type FlowEdge, type FlowNode } from "../../graph/flow.ts";
import { allNodeTypes } from "./nodes.tsx";
import "./graph.css";
import { FIT_PADDING_PX, LEGIBLE_ZOOM, TOPOLOGY_LEGIBLE_ZOOM } from "./fit.ts";
import { GraphFind } from "./GraphFind.tsx";
import { useFind } from "./useFind.ts";
import { useGraphKeys } from "./useGraphKeys.ts";
import { usePaneShape } from "./usePaneShape.ts";
import { useFitPicture } from "./useFitPicture.ts";
import { useElementEvents } from "./useElementEvents.ts";
import { OffscreenHints } from "./OffscreenHints.tsx";
import { ElementMarksProvider } from "./elementMarks.tsx";
import { GraphControls } from "./GraphControls.tsx";
import { useFlowElements } from "./useFlowElements.ts";
import type { Displayed } from "./useLayout.ts";
import type { ObservedGraph } from "../../graph/observedMarks.ts";

import { edgeTypes, EdgeMarkers } from "./VerdictEdge.tsx";
import { Legend } from "./Legend.tsx";
import { LoadProgress } from "./LoadProgress.tsx";
import { useLayout } from "./useLayout.ts";
import { markFirstDraw } from "../../store/firstDraw.ts";
import { thousands } from "../../engine/trace/format.ts";
import { LAYER_FILTERS, unplacedByLayer } from "../../graph/verdicts.ts";

export { useGraph } from "./useGraph.ts";

/** The legend of what is drawn: edge styles present, notes, what is folded and why. */
function GraphLegend({
  displayed,
  find,
  observed,
  testFailed,
  decides,
}: {
  displayed: Displayed | undefined;
  find: ReactNode;
  observed: ObservedGraph | undefined;
  testFailed: boolean;
  decides: boolean;
}) {
  const paths = displayed?.graph.lens === "paths";
  // What a layer filter leaves undrawn because the answer does not say which layer decided it (compact records).
  const result = useDrawnResult();
  const layer = useApp((s) => s.filters.layer);
  const unplaced = useMemo(() => unplacedByLayer(result, layer), [result, layer]);
  return (
    <Legend
      warning={
        unplaced
          ? `Not drawn under “${LAYER_FILTERS.find((l) => l.id === layer)?.label ?? layer}”: ${[
              unplaced.dropped ? `${thousands(unplaced.dropped)} dropped` : "",
              unplaced.admitted ? `${thousands(unplaced.admitted)} admitted` : "",
            ]
              .filter(Boolean)
              .join(
                " and ",
              )} workload-to-Service pairs, grouped at this scale without the layer that decided them: under “all layers”, click one of their edges and trace an example to see its layer.`
          : undefined
      }
      find={find}
      loops={!!displayed?.graph.edges.some((e) => e.source === e.target)}
      quiet={!!displayed?.graph.edges.some((e) => e.quiet)}
      observed={observed ? [...new Set([...observed.marks.values()].map((m) => m.case))] : []}
      notes={
        displayed
          ? [
              ...new Set(displayed.graph.edges.flatMap((e) => (e.note ? [e.note] : []))),
              ...(testFailed ? (["test"] as const) : []),
            ]
          : []
      }
      note={
        displayed?.graph.declined
          ? `“Group by: ${displayed.graph.declined.grouping}” would draw more than ${thousands(displayed.graph.declined.limit)} edges here, more than a picture can show: folded to fit instead. + opens a namespace; hiding namespaces or a port draws fewer.`
          : displayed && displayed.graph.level !== "pod"
            ? paths
              ? `Namespaces and workloads folded to fit: + opens one, or choose “Group by: pod” (drawn up to ${thousands(CHOSEN_MAX_EDGES)} edges).`
              : `Pods grouped by ${displayed.graph.level} (large scenario): choose “Group by: pod” to see each one.`
            : paths && decides
              ? "Zones or nodes decide some verdicts here (a Local traffic policy): View → topology shows them."
              : undefined
      }
    />
  );
}

/** What the picture cannot say itself: a layout error, no drop to show, nothing to draw. */
function GraphNotes({ displayed, error }: { displayed: Displayed | undefined; error: string | undefined }) {
  const result = useDrawnResult();
  const onlyDrops = useApp((s) => s.filters.onlyDrops);
  return (
    <>
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
          result?.reach?.allowed?.some((d) => d.verdict !== "allow") ||
          result?.reach?.dropped
            ? " with the port, layer or namespace filter chosen."
            : ": the engine found every listed flow allowed."}
        </div>
      ) : null}
      {displayed && displayed.graph.nodes.length === 0 ? (
        <div className="graph-empty">Nothing to draw yet: add Pods, workloads or Services in the editor.</div>
      ) : null}
    </>
  );
}

export function GraphCanvas({
  graph,
  remapping = false,
}: {
  graph: GraphModel | undefined;
  remapping?: boolean;
}) {
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
  const paths = displayed?.graph.lens === "paths";
  const result = useDrawnResult();
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

  const { elements, testFailed, observed } = useFlowElements(displayed, hoveredEdge, shape.px, fitOptions);

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

  const fitPicture = useFitPicture(wrapRef, stable, fitOptions, displayed);

  const onKeyDown = useGraphKeys(displayed, store, wrapRef, setHoveredEdge);

  const { onNodeClick, onEdgeClick, onNodesChange, onEdgesChange, onLabelClick } = useElementEvents(
    elements,
    store,
  );
  // The same functions on every render: React Flow hands its handlers to every edge, and a new one re-rendered
  // each edge whenever this component did (twice per answer past DEFER_PODS: the answer, then its deferred draw).
  const onEdgeMouseEnter = useCallback((_: unknown, e: FlowEdge) => setHoveredEdge(e.id), []);
  const onEdgeMouseLeave = useCallback(() => setHoveredEdge(undefined), []);
  const onPaneClick = useCallback(() => store.getState().select(undefined), [store]);

  if (!graph)
    return (
      // Its own positioned box: the absolutely placed message would otherwise cover, and take the clicks of, the whole app.
      // The pane's box already, so that its size (the graph budget) is measured before the first answer.
      <div ref={wrapRef} className="graph-wrap">
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
      data-declined={displayed?.graph.declined?.grouping ?? ""}
      data-edges={elements.edges.length}
      data-rows={shape.rows}
      // The input revision the drawn graph shows ("" while a new layout, or a new view's mapping, is on its way):
      // benchmarks and tests wait on it.
      data-revision={remapping ? "" : (drawnRevision ?? "")}
      aria-busy={remapping}
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
        <ElementMarksProvider>
          <ReactFlow<FlowNode, FlowEdge>
            nodes={stable.nodes}
            edges={stable.edges}
            nodeTypes={allNodeTypes}
            edgeTypes={edgeTypes}
            onNodeClick={onNodeClick}
            onEdgeClick={onEdgeClick}
            onEdgeMouseEnter={onEdgeMouseEnter}
            onEdgeMouseLeave={onEdgeMouseLeave}
            onNodesChange={onNodesChange}
            onEdgesChange={onEdgesChange}
            onPaneClick={onPaneClick}
            colorMode={theme}
            minZoom={0.05}
            maxZoom={2.5}
            nodesDraggable={false}
            nodesConnectable={false}
            elementsSelectable
            nodesFocusable={false}
            edgesFocusable={false}
            disableKeyboardA11y
            // No key of React Flow's own: the graph has its keys (useGraphKeys), and each of these watched every
            // Shift and Control press, in the editor too, and changed React Flow's store, which runs every drawn
            // edge's selector (754 edges at 10,000 pods) twice per press.
            selectionKeyCode={null}
            multiSelectionKeyCode={null}
            deleteKeyCode={null}
            zoomActivationKeyCode={null}
            panActivationKeyCode={null}
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
            <GraphControls fit={() => fitPicture(150)} miniMap={showMiniMap} setMiniMap={setMiniMap} />
            <OffscreenHints nodes={stable.nodes} edges={stable.edges} />
          </ReactFlow>
        </ElementMarksProvider>
      </div>
      <GraphLegend
        displayed={displayed}
        find={<GraphFind onFind={onFind} />}
        observed={observed}
        testFailed={!!testFailed?.size}
        decides={decides}
      />
      <LoadProgress />
      <GraphNotes displayed={displayed} error={error} />
    </div>
  );
}
