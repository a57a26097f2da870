/**
 * One edge, drawn from its verdict category (src/graph/verdicts.ts): colour,
 * dash pattern, arrowhead and a glyph at its middle, so colour is never the
 * only cue. The element carries the playground's stable test hooks:
 * data-verdict (allow|drop|partial), data-source and data-target
 * (pod:NS/NAME, service:NS/NAME, node:NAME, external:IP, group:...); before a
 * lesson's reveal, data-category="hidden" and no data-verdict.
 */
import { memo } from "react";
import { BaseEdge, EdgeLabelRenderer, getBezierPath, type EdgeProps } from "@xyflow/react";
import { edgeLines, edgeText, labelBox, loopCurve, loopPoint } from "../../graph/edgeLabels.ts";
import type { FlowEdge } from "../../graph/flowTypes.ts";
import { ARROW_PATHS, CATEGORIES, GLYPH_PATHS, categoryOf } from "../../graph/verdicts.ts";
import { edgeKey } from "../WhatIf/marks.ts";
import { useElementMarks } from "./elementMarks.tsx";
import { observedCase, observedText, type ObservedMark } from "../../graph/observedMarks.ts";

export const VerdictEdge = memo(function VerdictEdge(props: EdgeProps<FlowEdge>) {
  const { id, source, target, sourceX, sourceY, targetX, targetY, sourcePosition, targetPosition, data } =
    props;
  // A loop: flows between members of one folded element (src/graph/paths.ts), drawn on its right side.
  const loop = source === target;
  const [path, midX, midY] = loop
    ? loopPath(sourceX, sourceY)
    : getBezierPath({
        sourceX,
        sourceY,
        sourcePosition,
        targetX,
        targetY,
        targetPosition,
        curvature: 0.3,
      });
  // Workshop marks: what a what-if changed on this edge, and whether presenter mode's current hop is about it.
  // A lesson before its reveal: every edge neutral, no glyph, no label (the learner predicts first).
  const marks = useElementMarks();
  const diff = marks.diff?.edges.get(edgeKey(source, target));
  const focus = marks.focused?.has(source) === true && marks.focused.has(target);
  const hidden = marks.hidden;
  if (!data) return null;
  const e = data.edge;
  if (hidden)
    return (
      <g
        className={`ktl-edge hidden-verdict${data.dimmed ? " dimmed" : ""}${data.lit ? " lit" : ""}`}
        data-testid="flow-edge"
        data-edge-id={id}
        data-category="hidden"
        data-source={source}
        data-target={target}
        data-kind={e.kind}
      >
        <title>{`${source} → ${target}`}</title>
        <BaseEdge
          id={id}
          path={path}
          markerEnd="url(#ktl-arrow-hidden)"
          className="edge-line"
          interactionWidth={14}
          style={{ stroke: "var(--muted)", strokeWidth: data.lit ? 3.2 : data.width }}
        />
      </g>
    );
  const cat = categoryOf(e.verdict, e.dropCause, e.tier);
  const cls = [
    "ktl-edge",
    e.verdict,
    e.dropCause ?? "",
    e.kind === "question" ? "question" : "",
    data.dimmed ? "dimmed" : "",
    data.lit ? "lit" : "",
    diff ? `diff-${diff}` : "",
    focus ? "focus" : "",
    data.testFailed ? "test-failed" : "",
    e.quiet ? "quiet" : "",
  ]
    .filter(Boolean)
    .join(" ");
  const colour = `var(${cat.colour})`;
  const width = data.lit || focus ? Math.max(3.2, data.width + 1) : data.width;
  return (
    <>
      <g
        className={cls}
        data-testid="flow-edge"
        data-edge-id={id}
        data-verdict={e.verdict}
        data-category={cat.id}
        data-source={source}
        data-target={target}
        data-cause={e.dropCause ?? ""}
        data-tier={e.tier ?? ""}
        data-kind={e.kind}
        data-note={e.note ?? ""}
        data-diff={diff ?? ""}
        data-focus={focus ? "true" : "false"}
        data-test-failed={data.testFailed ? "true" : undefined}
        data-observed={data.observed?.case}
        data-quiet={e.quiet ? "true" : undefined}
      >
        <title>{`${source} → ${target}\n${cat.label}${e.count && e.count > 1 ? ` (${e.count} connections)` : ""}\n${e.title}`}</title>
        {data.testFailed ? (
          // A failing test's mark is a shape too (a wide hatched band under the line), beside its "test failed" tag.
          <path d={path} className="edge-test-band" aria-hidden="true" />
        ) : null}
        <BaseEdge
          id={id}
          path={path}
          markerEnd={`url(#ktl-arrow-${cat.id})`}
          className="edge-line"
          interactionWidth={14}
          style={{ stroke: colour, strokeDasharray: cat.dash || undefined, strokeWidth: width }}
        />
        <g className="edge-glyph" transform={`translate(${midX} ${midY})`} aria-hidden="true">
          <circle r="7.5" className="edge-glyph-bg" style={{ stroke: colour }} />
          <path
            d={GLYPH_PATHS[cat.glyph]}
            className={`glyph-${cat.glyph}`}
            style={{ stroke: colour, fill: cat.glyph === "half" ? colour : "none" }}
          />
        </g>
        {data.observed ? (
          <ObservedGlyph observed={data.observed} counts={!!data.observedCounts} x={midX + 20} y={midY} />
        ) : null}
      </g>
      {data.showLabel && e.label && data.labelAt && Math.abs(data.labelAt.y - data.labelAt.ay) > 30 ? (
        // A label moved away from its line (to keep clear of the boxes) is joined to it by a thin leader.
        <line
          className="edge-leader"
          x1={data.labelAt.ax}
          y1={data.labelAt.ay}
          x2={data.labelAt.x}
          y2={data.labelAt.y > data.labelAt.ay ? data.labelAt.y : data.labelAt.y + labelBox(e).height}
          style={{ stroke: colour }}
        />
      ) : null}
      {data.showLabel && e.label ? (
        <EdgeLabelRenderer>
          <div
            className={`ktl-edge-label nodrag nopan ${e.verdict} ${e.dropCause ?? ""} ${data.dimmed ? "dimmed" : ""}`}
            style={{
              transform: `translate(-50%, 0) translate(${data.labelAt?.x ?? midX}px, ${data.labelAt?.y ?? midY + 10}px)`,
              borderColor: colour,
            }}
            data-edge-label={id}
            data-note={e.note ?? ""}
            aria-label={edgeText(e)}
            title={e.title}
          >
            {edgeLines(data.edge).map((line, i) => (
              <div key={i}>{line}</div>
            ))}
          </div>
        </EdgeLabelRenderer>
      ) : null}
    </>
  );
});

/** What a flow file saw on an edge, beside the engine's verdict: the case's glyph and, asked, the counts. */
function ObservedGlyph({
  observed,
  counts,
  x,
  y,
}: {
  observed: ObservedMark;
  counts: boolean;
  x: number;
  y: number;
}) {
  return (
    // What a flow file saw, beside the engine's verdict: the case's glyph and the counts (observedMarks.ts).
    <g
      className={`edge-observed ${observed.case}`}
      transform={`translate(${x} ${y})`}
      data-testid="edge-observed"
      data-case={observed.case}
      data-forwarded={observed.forwarded}
      data-dropped={observed.dropped}
    >
      <title>{`${observedCase(observed.case).label}: ${observedText(observed)}`}</title>
      <path d={observedCase(observed.case).frame} className="edge-observed-frame" />
      <path d={observedCase(observed.case).inner} className="edge-observed-inner" />
      {counts ? (
        <text x="11" y="5" className="edge-observed-text">
          {`${observed.forwarded} fwd · ${observed.dropped} drop`}
        </text>
      ) : null}
    </g>
  );
}

function loopPath(x: number, y: number): [string, number, number] {
  const [p0, p1, p2, p3] = loopCurve(x, y) as [number, number][];
  const mid = loopPoint(x, y, 0.5);
  return [
    `M ${p0![0]} ${p0![1]} C ${p1![0]} ${p1![1]}, ${p2![0]} ${p2![1]}, ${p3![0]} ${p3![1]}`,
    mid.x,
    mid.y,
  ];
}

export const edgeTypes = { verdict: VerdictEdge };

/** Arrowheads for each category, referenced by the edges: a triangle for allowed, a bar (blocked) for drops, an open head for partial. */
export function EdgeMarkers() {
  return (
    <svg width="0" height="0" style={{ position: "absolute" }} aria-hidden="true">
      <defs>
        {CATEGORIES.map((c) => {
          const a = ARROW_PATHS[c.arrow];
          return (
            <marker
              key={c.id}
              id={`ktl-arrow-${c.id}`}
              viewBox="-1 -1 12 12"
              refX="9"
              refY="5"
              markerWidth="13"
              markerHeight="13"
              markerUnits="userSpaceOnUse"
              orient="auto-start-reverse"
            >
              <path
                d={a.d}
                style={{
                  fill: a.fill ? `var(${c.colour})` : "none",
                  stroke: `var(${c.colour})`,
                  strokeWidth: 2,
                }}
              />
            </marker>
          );
        })}
        <marker
          id="ktl-arrow-hidden"
          viewBox="-1 -1 12 12"
          refX="9"
          refY="5"
          markerWidth="13"
          markerHeight="13"
          markerUnits="userSpaceOnUse"
          orient="auto-start-reverse"
        >
          <path d="M 0 0 L 10 5 L 0 10" style={{ fill: "none", stroke: "var(--muted)", strokeWidth: 2 }} />
        </marker>
      </defs>
    </svg>
  );
}
