/**
 * One edge, coloured by the engine's verdict. The element carries the
 * playground's stable test hooks: data-verdict (allow|drop|partial),
 * data-source and data-target (pod:NS/NAME, service:NS/NAME, node:NAME,
 * external:IP).
 */
import { memo } from "react";
import { BaseEdge, EdgeLabelRenderer, getBezierPath, type EdgeProps } from "@xyflow/react";
import type { FlowEdge } from "../../graph/flow.ts";
import { useApp } from "../../store/StoreProvider.tsx";
import { marksOf } from "../WhatIf/useDiffMarks.ts";
import { edgeKey } from "../WhatIf/marks.ts";
import { focusOf } from "../Presenter/usePresenter.ts";

export const VerdictEdge = memo(function VerdictEdge(props: EdgeProps<FlowEdge>) {
  const { id, source, target, sourceX, sourceY, targetX, targetY, sourcePosition, targetPosition, data } = props;
  const [path] = getBezierPath({ sourceX, sourceY, sourcePosition, targetX, targetY, targetPosition, curvature: 0.3 });
  // Workshop marks: what a what-if changed on this edge, and whether presenter mode's current hop is about it.
  const diff = useApp((st) => marksOf(st)?.edges.get(edgeKey(source, target)));
  const focus = useApp((st) => focusOf(st, source) === true && focusOf(st, target) === true);
  // Labels sit near the target, where edges into one Service or pod meet and share a label.
  const labelX = sourceX + (targetX - sourceX) * 0.7;
  const labelY = sourceY + (targetY - sourceY) * 0.7;
  if (!data) return null;
  const e = data.edge;
  const cls = ["ktl-edge", e.verdict, e.dropCause ?? "", e.kind === "question" ? "question" : "", data.dimmed ? "dimmed" : "", data.lit ? "lit" : "", diff ? `diff-${diff}` : "", focus ? "focus" : ""].filter(Boolean).join(" ");
  const marker = `url(#ktl-arrow-${e.verdict === "drop" && e.dropCause === "traffic-policy" ? "traffic" : e.verdict})`;
  return (
    <>
      <g className={cls} data-testid="flow-edge" data-edge-id={id} data-verdict={e.verdict} data-source={source} data-target={target} data-cause={e.dropCause ?? ""} data-kind={e.kind} data-diff={diff ?? ""} data-focus={focus ? "true" : "false"}>
        <title>{`${source} → ${target}\n${e.title}`}</title>
        <BaseEdge id={id} path={path} markerEnd={marker} className="edge-line" interactionWidth={14} />
      </g>
      {data.showLabel && e.label ? (
        <EdgeLabelRenderer>
          <div
            className={`ktl-edge-label nodrag nopan ${e.verdict} ${e.dropCause ?? ""} ${data.dimmed ? "dimmed" : ""}`}
            style={{ transform: `translate(-50%, -50%) translate(${labelX}px, ${labelY}px)` }}
            data-edge-label={id}
            title={e.title}
          >
            {e.label}
          </div>
        </EdgeLabelRenderer>
      ) : null}
    </>
  );
});

export const edgeTypes = { verdict: VerdictEdge };

/** Arrowheads for each verdict, referenced by the edges. */
export function EdgeMarkers() {
  const marker = (name: string, color: string) => (
    <marker key={name} id={`ktl-arrow-${name}`} viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
      <path d="M 0 0 L 10 5 L 0 10 z" style={{ fill: color }} />
    </marker>
  );
  return (
    <svg width="0" height="0" style={{ position: "absolute" }} aria-hidden="true">
      <defs>
        {marker("allow", "var(--allow)")}
        {marker("drop", "var(--drop)")}
        {marker("traffic", "var(--traffic)")}
        {marker("partial", "var(--partial)")}
      </defs>
    </svg>
  );
}
