import { useEffect, useState, type RefObject } from "react";
import type { AppStore } from "../../store/createAppStore.ts";
import { capacityOf, FIT_PADDING, LEGIBLE_ZOOM } from "./fit.ts";

export interface PaneShape {
  aspect: number;
  rows: number;
  /** The pane in graph units at the legible zoom (the layout keeps within it where it can). */
  pane: { width: number; height: number } | undefined;
  /** The canvas less fit view's padding, in screen px. */
  px: { width: number; height: number } | undefined;
}

/**
 * The graph pane's size, watched: it sets the layout's shape and how many elements the automatic
 * grouping may show (the store's graph budget).
 */
export function usePaneShape(
  wrapRef: RefObject<HTMLDivElement | null>,
  hasGraph: boolean,
  store: AppStore,
): PaneShape {
  const [shape, setShape] = useState<{
    aspect: number;
    rows: number;
    pane: { width: number; height: number } | undefined;
    /** The canvas less fit view's padding, in screen px. */
    px: { width: number; height: number } | undefined;
  }>({ aspect: 1.5, rows: 8, pane: undefined, px: undefined });
  useEffect(() => {
    const el = wrapRef.current;
    if (!el || typeof ResizeObserver === "undefined") return;
    // The canvas (the wrap less the legend) is what fit view fills.
    const canvas = el.querySelector<HTMLElement>(".graph-canvas") ?? el;
    const ro = new ResizeObserver(() => {
      const r = canvas.getBoundingClientRect();
      if (r.width < 50 || r.height < 50) return;
      const c = capacityOf(r.width, r.height);
      // The pane in graph units at the legible zoom: the layout keeps within it where it can.
      const width = Math.round((r.width - FIT_PADDING.left - FIT_PADDING.right) / LEGIBLE_ZOOM);
      const height = Math.round((r.height - FIT_PADDING.top - FIT_PADDING.bottom) / LEGIBLE_ZOOM);
      setShape((s) =>
        s.rows === c.rows &&
        Math.abs(s.aspect - r.width / r.height) < 0.01 &&
        s.pane?.width === width &&
        s.pane.height === height
          ? s
          : {
              aspect: r.width / r.height,
              rows: c.rows,
              pane: { width, height },
              px: {
                width: r.width - FIT_PADDING.left - FIT_PADDING.right,
                height: r.height - FIT_PADDING.top - FIT_PADDING.bottom,
              },
            },
      );
      store.getState().setGraphBudget(c.budget);
    });
    ro.observe(canvas);
    return () => ro.disconnect();
  }, [store, hasGraph, wrapRef]);
  return shape;
}
