import { useMemo } from "react";
import { ReactFlowProvider } from "@xyflow/react";
import { useShallow } from "zustand/react/shallow";
import { useApp, useAppStore, useSettledResult } from "../../store/StoreProvider.tsx";
import { graphPorts } from "../../graph/model.ts";
import { LAYER_FILTERS, type LayerFilter } from "../../graph/verdicts.ts";
import type { GraphLens, Grouping } from "../../store/types.ts";
import { groupingKeys, resolveNsGrouping, type NsGroupBy } from "../../graph/nsGroups.ts";
import { GraphCanvas } from "./GraphCanvas.tsx";
import { useShownGraph } from "./useGraph.ts";
import { QuestionBar } from "./QuestionBar.tsx";
import { MatrixPane } from "../Matrix/MatrixPane.tsx";
import { NodeRulesPane } from "../NodeRules/NodeRulesPane.tsx";
import { ErrorBoundary } from "../ErrorBoundary.tsx";
import { EngineAlert } from "../EngineAlert/EngineAlert.tsx";
import { UntilReveal, useVerdictsHidden } from "../Lessons/Veil.tsx";

/** Past the pane's budget, namespaces fold into families: by name prefix or by a namespace label. */
function FoldBy({
  value,
  namespaces,
}: {
  value: NsGroupBy;
  namespaces: { name: string; labels: Record<string, string> }[];
}) {
  const store = useAppStore();
  const keys = useMemo(() => groupingKeys(namespaces).slice(0, 8), [namespaces]);
  const auto = resolveNsGrouping("auto", namespaces);
  return (
    <label title="When folded namespaces do not fit, namespaces of one family fold into one element: the part of the name before the first dash, or the value of a namespace label. Auto takes an owner label (team, owner, tenant, project, part-of) when one groups them.">
      Fold namespaces by
      <select
        aria-label="Fold namespaces by"
        value={value}
        onChange={(e) => store.getState().setNsGroupBy(e.target.value as NsGroupBy)}
      >
        <option value="auto">auto ({auto.by === "label" ? `label ${auto.key}` : "name prefix"})</option>
        <option value="prefix">name prefix</option>
        {keys.map((k) => (
          <option key={k} value={`label:${k}`}>
            label {k}
          </option>
        ))}
      </select>
    </label>
  );
}

function Filters() {
  const store = useAppStore();
  // The first answer at once (later ones once the graph has drawn them): the controls it adds wrap this row,
  // which changes the graph pane's size, and so the picture's budget, before the first picture is built.
  const settled = useSettledResult();
  const first = useApp((s) => (settled ? undefined : s.analysis.result));
  const result = settled ?? first;
  // Before a lesson's reveal, filtering by verdict or deciding layer would tell the answer.
  const verdictsHidden = useVerdictsHidden();
  const { filters, grouping, graphLens, nsGroupBy } = useApp(
    useShallow((s) => ({
      filters: s.filters,
      grouping: s.grouping,
      graphLens: s.graphLens,
      nsGroupBy: s.nsGroupBy,
    })),
  );
  const namespaces = useMemo(
    () =>
      result
        ? [
            ...new Set([...result.pods.map((p) => p.namespace), ...result.services.map((s) => s.namespace)]),
          ].sort()
        : [],
    [result],
  );
  // "Decided by": offered when a layer besides NetworkPolicy can decide (a cluster tier, a CNI dialect).
  const tiered = !!result && result.tiers.length > 0;
  const cni = useMemo(() => !!result && result.flows.some((f) => f.layer !== undefined), [result]);
  const layers = LAYER_FILTERS.filter(
    (l) => (l.id !== "Admin" && l.id !== "Baseline") || tiered || filters.layer === l.id,
  ).filter((l) => l.id !== "CNI" || cni || filters.layer === "CNI");
  // The ports the graph draws edges on (listed flows and compact records): the same list filtersFor keeps a choice by.
  const flowPorts = useMemo(() => (result ? graphPorts(result) : []), [result]);
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
            <option key={f.key} value={f.key}>
              {f.key}
            </option>
          ))}
        </select>
      </label>
      {tiered || cni || (filters.layer && filters.layer !== "all") ? (
        // One select, no visible caption (it names itself: "all layers", "Admin tier"), so the filters keep one row at 1280.
        <label title="Only the edges that this policy layer decided (the details name its policy and rule)">
          <select
            aria-label="Decided by"
            disabled={verdictsHidden}
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
          disabled={verdictsHidden}
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
      {namespaces.length > 6 && result ? <FoldBy value={nsGroupBy} namespaces={result.namespaces} /> : null}
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
  const { graph, remapping } = useShownGraph();
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
              <GraphCanvas graph={graph} remapping={remapping} />
            </ReactFlowProvider>
          </ErrorBoundary>
        ) : tab === "matrix" ? (
          <ErrorBoundary area="the matrix">
            <UntilReveal what="The matrix">
              <MatrixPane />
            </UntilReveal>
          </ErrorBoundary>
        ) : (
          <ErrorBoundary area="the node rules">
            <UntilReveal what="A node's kube-proxy rules">
              <NodeRulesPane />
            </UntilReveal>
          </ErrorBoundary>
        )}
      </div>
    </div>
  );
}
