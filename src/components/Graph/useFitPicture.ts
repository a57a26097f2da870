import { useCallback, useEffect, useRef, type RefObject } from "react";
import { useReactFlow, type FitViewOptions } from "@xyflow/react";
import { pictureBounds } from "../../graph/edgeLabels.ts";
import type { FlowEdge, FlowNode } from "../../graph/flowTypes.ts";
import type { Positions } from "../../graph/layout.ts";
import { FIT_PADDING } from "./fit.ts";
import type { Displayed } from "./useLayout.ts";

/** Fit view, and fitting again whenever a new layout arrives (a new structure, or the pane resized). */
export function useFitPicture(
  wrapRef: RefObject<HTMLDivElement | null>,
  stable: { nodes: FlowNode[]; edges: FlowEdge[] },
  fitOptions: FitViewOptions & { minZoom: number; maxZoom: number },
  displayed: Displayed | undefined,
): (duration?: number) => void {
  const { fitView, setViewport, getViewport } = useReactFlow();
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
      const x = FIT_PADDING.left + Math.max(0, spareW / 2) - b.x * zoom;
      const y = FIT_PADDING.top + Math.max(0, spareH / 2) - b.y * zoom;
      // The view already there (an edit that kept the picture's bounds): no change of React Flow's store,
      // each of which runs every drawn edge's selector.
      const now = getViewport();
      if (Math.abs(now.x - x) < 0.5 && Math.abs(now.y - y) < 0.5 && Math.abs(now.zoom - zoom) < 1e-4) return;
      void setViewport({ x, y, zoom }, { duration });
    },
    [stable, fitView, fitOptions, setViewport, getViewport, wrapRef],
  );
  // Fit the view when there is a new layout (a new structure, or the pane resized), not on every verdict change.
  const fitted = useRef<Positions | undefined>(undefined);
  useEffect(() => {
    if (!displayed || fitted.current === displayed.positions) return;
    fitted.current = displayed.positions;
    requestAnimationFrame(() => fitPicture());
  }, [displayed, fitPicture]);
  return fitPicture;
}
