import { ReactFlowProvider } from "@xyflow/react";
import { useShallow } from "zustand/react/shallow";
import { useApp, useAppStore } from "../../store/StoreProvider.tsx";
import { portKey } from "../../graph/model.ts";
import { LAYER_FILTERS, type LayerFilter } from "../../graph/verdicts.ts";
import type { GraphLens, Grouping } from "../../store/types.ts";
import { GraphCanvas, useGraph } from "./GraphCanvas.tsx";
import { QuestionBar } from "./QuestionBar.tsx";
import { MatrixPane } from "../Matrix/MatrixPane.tsx";
import { NodeRulesPane } from "../NodeRules/NodeRulesPane.tsx";
import { ErrorBoundary } from "../ErrorBoundary.tsx";
import { EngineAlert } from "../EngineAlert/EngineAlert.tsx";

function Filters() {
  const store = useAppStore();
  const result = useApp((s) => s.analysis.result);
  const { filters, grouping, graphLens } = useApp(
    useShallow((s) => ({ filters: s.filters, grouping: s.grouping, graphLens: s.graphLens })),
  );
  const namespaces = result
    ? [
        ...new Set([...result.pods.map((p) => p.namespace), ...result.services.map((s) => s.namespace)]),
      ].sort()
    : [];
  // "Decided by": offered when a layer besides NetworkPolicy can decide (a cluster tier, a CNI dialect).
  const tiered = !!result && result.tiers.length > 0;
  const cni = !!result && result.flows.some((f) => f.layer !== undefined);
  const layers = LAYER_FILTERS.filter(
    (l) => (l.id !== "Admin" && l.id !== "Baseline") || tiered || filters.layer === l.id,
  ).filter((l) => l.id !== "CNI" || cni || filters.layer === "CNI");
  const flowPorts = result
    ? [...new Map(result.flows.map((f) => [portKey(f.port, f.protocol), f])).values()].sort(
        (a, b) => a.port - b.port,
      )
    : [];
  return (
    <div className="filters" role="group" aria-label="Graph filters">
      {namespaces.length > 1 && namespaces.length <= 6 ? (
        <span role="group" aria-label="Namespaces shown">
          {namespaces.map((ns) => {
            const shown = !filters.hiddenNamespaces.includes(ns);
            return (
              <button
                key={ns}
                type="button"
                className="btn small ns-chip"
                aria-pressed={shown}
                title={shown ? `Hide namespace ${ns}` : `Show namespace ${ns}`}
                onClick={() => store.getState().toggleNamespace(ns)}
              >
                {ns}
              </button>
            );
          })}
        </span>
      ) : null}
      {namespaces.length > 6 ? (
        <label>
          Hide namespace
          <select
            value=""
            onChange={(e) => e.target.value && store.getState().toggleNamespace(e.target.value)}
          >
            <option value="">
              {filters.hiddenNamespaces.length ? `${filters.hiddenNamespaces.length} hidden…` : "choose…"}
            </option>
            {namespaces.map((ns) => (
              <option key={ns} value={ns}>
                {filters.hiddenNamespaces.includes(ns) ? `show ${ns}` : ns}
              </option>
            ))}
          </select>
        </label>
      ) : null}
      <label>
        Port
        <select value={filters.port} onChange={(e) => store.getState().setFilters({ port: e.target.value })}>
          <option value="all">all</option>
          {flowPorts.map((f) => (
            <option key={portKey(f.port, f.protocol)} value={portKey(f.port, f.protocol)}>
              {f.port}/{f.protocol}
            </option>
          ))}
        </select>
      </label>
      {tiered || cni || (filters.layer && filters.layer !== "all") ? (
        // One select, no visible caption (it names itself: "all layers", "Admin tier"), so the filters keep one row at 1280.
        <label title="Only the edges that this policy layer decided (the details name its policy and rule)">
          <select
            aria-label="Decided by"
            value={filters.layer ?? "all"}
            onChange={(e) => store.getState().setFilters({ layer: e.target.value as LayerFilter })}
          >
            {layers.map((l) => (
              <option key={l.id} value={l.id}>
                {l.label}
              </option>
            ))}
          </select>
        </label>
      ) : null}
      <label>
        <input
          type="checkbox"
          checked={filters.onlyDrops}
          onChange={(e) => store.getState().setFilters({ onlyDrops: e.target.checked })}
        />
        Only drops
      </label>
      <label>
        Group by
        <select value={grouping} onChange={(e) => store.getState().setGrouping(e.target.value as Grouping)}>
          <option value="auto">auto</option>
          <option value="pod">pod</option>
          <option value="workload">workload</option>
          <option value="namespace">namespace</option>
        </select>
      </label>
      <label title="Topology draws zones and nodes around the pods; paths draws clients, Services and backends left to right. Auto shows topology when a zone or node decides a verdict.">
        View
        <select
          value={graphLens}
          onChange={(e) => store.getState().setGraphLens(e.target.value as GraphLens)}
        >
          <option value="auto">auto</option>
          <option value="paths">paths</option>
          <option value="topology">topology</option>
        </select>
      </label>
    </div>
  );
}

export function GraphPane() {
  const store = useAppStore();
  const tab = useApp((s) => s.tab);
  const graph = useGraph();
  return (
    <div className="panel" aria-label="Traffic">
      <div className="panel-head">
        <div className="tabs" role="tablist" aria-label="View">
          <button
            type="button"
            role="tab"
            id="tab-graph"
            className="tab"
            aria-selected={tab === "graph"}
            aria-controls="view-main"
            onClick={() => store.getState().setTab("graph")}
          >
            Graph
          </button>
          <button
            type="button"
            role="tab"
            id="tab-matrix"
            className="tab"
            aria-selected={tab === "matrix"}
            aria-controls="view-main"
            onClick={() => store.getState().setTab("matrix")}
          >
            Matrix
          </button>
          <button
            type="button"
            role="tab"
            id="tab-rules"
            className="tab"
            aria-selected={tab === "rules"}
            aria-controls="view-main"
            onClick={() => store.getState().setTab("rules")}
          >
            Node rules
          </button>
        </div>
        {tab === "graph" ? <Filters /> : null}
      </div>
      <QuestionBar />
      <EngineAlert />
      <div
        id="view-main"
        role="tabpanel"
        aria-labelledby={`tab-${tab}`}
        style={{ flex: 1, minHeight: 0, display: "flex", flexDirection: "column" }}
      >
        {tab === "graph" ? (
          <ErrorBoundary area="the graph">
            <ReactFlowProvider>
              <GraphCanvas graph={graph} />
            </ReactFlowProvider>
          </ErrorBoundary>
        ) : tab === "matrix" ? (
          <ErrorBoundary area="the matrix">
            <MatrixPane />
          </ErrorBoundary>
        ) : (
          <ErrorBoundary area="the node rules">
            <NodeRulesPane />
          </ErrorBoundary>
        )}
      </div>
    </div>
  );
}
