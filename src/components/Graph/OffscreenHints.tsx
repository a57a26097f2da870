import { useMemo } from "react";
import { useReactFlow, useStore, type ReactFlowState } from "@xyflow/react";
import { shallow } from "zustand/shallow";
import type { FlowEdge, FlowNode } from "../../graph/flowTypes.ts";
import { hintSpot, offscreenOf, placeElements, type Side } from "../../graph/offscreen.ts";
import { textWidth } from "../../graph/textWidth.ts";

const viewOf = (s: ReactFlowState) => ({
  x: s.transform[0],
  y: s.transform[1],
  zoom: s.transform[2],
  width: s.width,
  height: s.height,
});

const ARROW: Record<Side, string> = { left: "←", right: "→", top: "↑", bottom: "↓" };
const WORD: Record<Side, string> = {
  left: "to the left",
  right: "to the right",
  top: "above",
  bottom: "below",
};
/** How far a click pans: most of the pane, so a box cut at the edge stays in view. */
const STEP = 0.8;

/**
 * At each edge of the pane past which elements lie (fit view stops at a legible zoom, so a large
 * picture runs past the pane), how many and how many of their edges drop: a click pans that way.
 */
export function OffscreenHints({ nodes, edges }: { nodes: readonly FlowNode[]; edges: readonly FlowEdge[] }) {
  const view = useStore(viewOf, shallow);
  const { setViewport } = useReactFlow();
  // Placed once per picture; a pan only moves the viewport over it.
  const placed = useMemo(() => placeElements(nodes, edges), [nodes, edges]);
  const beyond = useMemo(() => offscreenOf(placed, view), [placed, view]);
  const pan = (side: Side) => {
    const dx = side === "left" ? 1 : side === "right" ? -1 : 0;
    const dy = side === "top" ? 1 : side === "bottom" ? -1 : 0;
    void setViewport(
      { x: view.x + dx * STEP * view.width, y: view.y + dy * STEP * view.height, zoom: view.zoom },
      { duration: 200 },
    );
  };
  return (
    <>
      {(Object.keys(beyond) as Side[]).map((side) => {
        const { count, drops } = beyond[side];
        if (count === 0) return null;
        const what = `${count} more element${count === 1 ? "" : "s"} ${WORD[side]}`;
        const dropText = drops ? `${drops} edge${drops === 1 ? "" : "s"} with drops` : "";
        // Along its edge, where it covers no box (graph.css: 12 px text, 8 px padding, a 1 px border).
        const size = {
          width:
            textWidth(`${ARROW[side]} ${count} more`, 12) +
            (drops ? textWidth(` · ${dropText}`, 12, true) : 0) +
            18,
          height: 24,
        };
        const at = hintSpot(placed, view, side, size);
        const along = side === "left" || side === "right" ? { top: at } : { left: at };
        return (
          <button
            key={side}
            type="button"
            style={along}
            className={`offscreen-hint offscreen-${side}`}
            data-offscreen={side}
            aria-label={`${what}${dropText ? `, ${dropText}` : ""}: pan ${side === "top" ? "up" : side === "bottom" ? "down" : side}`}
            title={`Pan ${WORD[side]}`}
            onClick={() => pan(side)}
          >
            <span aria-hidden="true">{ARROW[side]}</span> {count} more
            {drops ? <span className="offscreen-drops"> · {dropText}</span> : null}
          </button>
        );
      })}
    </>
  );
}
