/** React Flow node renderers. Every name is rendered as text (React escapes it): labels that look like HTML stay text. */
import { memo } from "react";
import { Handle, Position, type NodeProps } from "@xyflow/react";
import type { FlowNode } from "../../graph/flow.ts";

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
  const classes = ["rf-leaf", n.kind, n.warning ? "warn" : "", data.dimmed ? "dimmed" : "", data.lit ? "lit" : ""].filter(Boolean).join(" ");
  return (
    <div className={classes} data-testid={`${n.kind}-node`} data-id={n.id} title={n.warning ? `${n.label}: ${n.warning}` : n.label}>
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

export const nodeTypes = { bucket: BucketNode, zone: ZoneNode, node: ClusterNode, pod: LeafNode, group: LeafNode, service: LeafNode, external: LeafNode };
