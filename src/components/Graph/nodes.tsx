/** React Flow node renderers. Every name is rendered as text (React escapes it): labels that look like HTML stay text. */
import { memo } from "react";
import { Handle, Position, type NodeProps } from "@xyflow/react";
import type { FlowNode } from "../../graph/flow.ts";
import type { GraphNode } from "../../graph/model.ts";
import { useAppStore } from "../../store/StoreProvider.tsx";
import { useElementMarks } from "./elementMarks.tsx";

/** Font sizes of the paths lens's elements (graph units), kept in step with graph.css. */
export const NODE_FONT = { name: 15, sub: 13.5 };

function summaryOf(n: GraphNode): string {
  const i = n.inbound;
  if (!i) return "";
  const parts = [
    i.allow ? `${i.allow} allowed` : "",
    i.drop ? `${i.drop} dropped` : "",
    i.partial ? `${i.partial} partly allowed` : "",
  ];
  return `inbound: ${parts.filter(Boolean).join(", ")}`;
}

/** A thin bar of inbound connections by verdict (the counts are in the element's title). */
function InboundBar({ n }: { n: GraphNode }) {
  const i = n.inbound;
  if (!i) return null;
  const total = i.allow + i.drop + i.partial;
  if (!total) return null;
  return (
    <div className="inbound" aria-hidden="true">
      {(["allow", "partial", "drop"] as const).map((v) =>
        i[v] ? <span key={v} className={`seg ${v}`} style={{ flexGrow: i[v] }} /> : null,
      )}
    </div>
  );
}

/** The paths lens's element: a namespace, workload, pod, Service or external client, with its open/close toggle. */
export const PathNode = memo(function PathNode({ data }: NodeProps<FlowNode>) {
  const store = useAppStore();
  // Before a lesson's reveal, the inbound verdict summary (bar and hover text) is not shown.
  const hidden = useElementMarks().hidden;
  const n = data.node;
  const classes = [
    "rf-path",
    n.kind,
    n.warning ? "warn" : "",
    data.dimmed ? "dimmed" : "",
    data.lit ? "lit" : "",
  ]
    .filter(Boolean)
    .join(" ");
  // The text as src/graph sized the box to it (text.ts boxText): whole names, wrapped, never cut.
  const text = n.text ?? { name: [n.label], sub: n.sublabel ? [n.sublabel] : [] };
  // Replicas on a workload: the count starts its first line.
  const countText = n.kind === "group" ? `${n.count}× ` : "";
  const full = [
    n.id.startsWith("group:idle:")
      ? `Idle in namespace ${n.namespace}`
      : n.kind === "namespace"
        ? n.nsCount
          ? `Namespaces ${n.label}`
          : `Namespace ${n.label}`
        : n.label,
    n.sublabel,
    n.warning,
    hidden ? "" : summaryOf(n),
    hidden || !n.refuses
      ? ""
      : `its Services' endpoints refuse some or all callers: ${n.refuses.refuse} of ${n.refuses.of} endpoint flows`,
  ]
    .filter(Boolean)
    .join("\n");
  const key = n.toggle ?? n.fold;
  const opening = n.toggle !== undefined;
  return (
    <div className={classes} data-testid={`${n.kind}-node`} data-id={n.id} title={full}>
      <Handles />
      <div className="name">
        {text.name.map((line, i) =>
          i === 0 && countText && line.startsWith(countText) ? (
            <div key={i} className="line">
              <span className="count">{countText}</span>
              {line.slice(countText.length)}
            </div>
          ) : (
            <div key={i} className="line">
              {line}
            </div>
          ),
        )}
      </div>
      <div className={n.warning ? "sub warn-text" : "sub"}>
        {text.sub.map((line, i) => (
          <div key={i} className="line">
            {line}
          </div>
        ))}
      </div>
      {hidden ? null : <InboundBar n={n} />}
      {key ? (
        <button
          type="button"
          className="toggle nodrag"
          tabIndex={-1}
          data-toggle={key}
          aria-label={
            opening
              ? `Open ${n.label}`
              : `Close ${n.fold?.startsWith("ns:") ? `namespace ${n.namespace}` : "the workload"}`
          }
          title={
            opening
              ? n.kind === "namespace"
                ? n.nsCount
                  ? "Show its namespaces (+)"
                  : "Show its workloads (+)"
                : "Show its pods (+)"
              : "Fold back (−)"
          }
          onClick={(ev) => {
            ev.stopPropagation();
            store.getState().setGraphOpen(key, opening);
          }}
        >
          {opening ? "+" : "−"}
        </button>
      ) : null}
    </div>
  );
});

function Handles() {
  return (
    <>
      <Handle type="target" id="in-left" position={Position.Left} isConnectable={false} />
      <Handle type="source" id="out-left" position={Position.Left} isConnectable={false} />
      <Handle type="target" id="in-right" position={Position.Right} isConnectable={false} />
      <Handle type="source" id="out-right" position={Position.Right} isConnectable={false} />
    </>
  );
}

export const ZoneNode = memo(function ZoneNode({ data }: NodeProps<FlowNode>) {
  return (
    <div className="rf-zone" data-testid="zone" data-id={data.node.id}>
      <div className="title">
        <span className="kind">zone</span>
        <span>{data.node.label}</span>
      </div>
    </div>
  );
});

export const ClusterNode = memo(function ClusterNode({ data }: NodeProps<FlowNode>) {
  const n = data.node;
  return (
    <div className="rf-node" data-testid="cluster-node" data-id={n.id}>
      <div className="title">
        <span className="kind">node</span>
        <span>{n.label}</span>
      </div>
      <div className="sub">
        {n.sublabel}
        {n.warning ? <span className="warn-text"> · {n.warning}</span> : null}
      </div>
    </div>
  );
});

export const LeafNode = memo(function LeafNode({ data }: NodeProps<FlowNode>) {
  const n = data.node;
  const classes = [
    "rf-leaf",
    n.kind,
    n.warning ? "warn" : "",
    data.dimmed ? "dimmed" : "",
    data.lit ? "lit" : "",
  ]
    .filter(Boolean)
    .join(" ");
  return (
    <div
      className={classes}
      data-testid={`${n.kind}-node`}
      data-id={n.id}
      title={n.warning ? `${n.label}: ${n.warning}` : n.label}
    >
      <Handles />
      <div className="name">
        {n.kind === "group" ? <span className="count">{n.count}× </span> : null}
        {n.label}
      </div>
      <div className="sub">{n.warning ? <span className="warn-text">{n.warning}</span> : n.sublabel}</div>
    </div>
  );
});

export const BucketNode = memo(function BucketNode({ data }: NodeProps<FlowNode>) {
  return (
    <div className="rf-bucket" data-testid="bucket" data-id={data.node.id}>
      <div className="title">
        <span>{data.node.label}</span>
        <span className="kind">{data.node.sublabel}</span>
      </div>
    </div>
  );
});

export const nodeTypes = {
  bucket: BucketNode,
  zone: ZoneNode,
  node: ClusterNode,
  pod: LeafNode,
  group: LeafNode,
  service: LeafNode,
  external: LeafNode,
};
export const allNodeTypes = {
  ...nodeTypes,
  "p-pod": PathNode,
  "p-group": PathNode,
  "p-namespace": PathNode,
  "p-service": PathNode,
  "p-external": PathNode,
  "p-router": PathNode,
};
