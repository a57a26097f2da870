import { useEffect, useLayoutEffect, useState, type RefObject } from "react";
import { useApp } from "../../store/StoreProvider.tsx";
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
 * The legend's room under the canvas, as the graph budget counts it: three lines of the legend (its entries,
 * the tiers' and the "folded to fit" line). The budget reads the pane less this, not the canvas, whose height
 * follows the legend's lines as the picture fills them in: a budget that followed it built the picture again.
 */
export const LEGEND_ROOM = 60;

/** The store's graph budget from the pane's size, less the legend's room. */
function budgetOf(el: HTMLElement, store: AppStore): void {
  const whole = el.getBoundingClientRect();
  if (whole.width >= 50 && whole.height - LEGEND_ROOM >= 50)
    store.getState().setGraphBudget(capacityOf(whole.width, whole.height - LEGEND_ROOM).budget);
}

/**
 * The graph pane's size, watched from the first render (while the first answer is still being analysed):
 * it sets the layout's shape (the canvas's) and how many elements the automatic grouping may show (the
 * store's graph budget, from the pane's own size, so that it is right for the first picture).
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
  // The first answer changes what sits above the pane (the filters take its namespaces and layers at once): the
  // budget is read again in the commit that shows it, before a deferred render builds the first picture. Later
  // answers reach the filters after the graph has drawn them, so the observer below sees what they change, and an
  // edit's commit is not made to lay the page out early.
  const answered = useApp((s) => s.analysis.result !== undefined);
  useLayoutEffect(() => {
    const el = wrapRef.current;
    if (el && answered) budgetOf(el, store);
  }, [answered, store, wrapRef]);
  useEffect(() => {
    const el = wrapRef.current;
    if (!el || typeof ResizeObserver === "undefined") return;
    // The canvas (the wrap less the legend) is what fit view fills; before the first picture, the wrap alone.
    const canvas = el.querySelector<HTMLElement>(".graph-canvas") ?? el;
    const ro = new ResizeObserver(() => {
      budgetOf(el, store);
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
    });
    ro.observe(el);
    if (canvas !== el) ro.observe(canvas);
    return () => ro.disconnect();
  }, [store, hasGraph, wrapRef]);
  return shape;
}
