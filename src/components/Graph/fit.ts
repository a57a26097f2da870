/** Fit view's limits and margins, and how many elements a pane shows at a legible zoom. */
import { NODE_FONT } from "./nodes.tsx";
import { PATH_SIZES } from "../../graph/paths.ts";
import { LAYERED } from "../../graph/layered.ts";

/** The smallest zoom at which the paths lens's smallest text is still 11 px on screen: "fit view" never goes below it. */
export const LEGIBLE_ZOOM = 11 / NODE_FONT.sub + 1e-4;
/** The topology lens's: its smallest text is 11 px (styles.css .rf-leaf .sub, node titles, edge labels). */
export const TOPOLOGY_LEGIBLE_ZOOM = 1;

/** Fit view's margins (screen px): the zoom buttons sit in the left one, so they never cover a box. */
export const FIT_PADDING = { top: 12, right: 16, bottom: 12, left: 50 };
export const FIT_PADDING_PX = {
  top: `${FIT_PADDING.top}px`,
  right: `${FIT_PADDING.right}px`,
  bottom: `${FIT_PADDING.bottom}px`,
  left: `${FIT_PADDING.left}px`,
} as const;

/** How many elements a pane of this size shows at a legible zoom (the automatic grouping stays within it). */
export function capacityOf(width: number, height: number): { budget: number; rows: number } {
  // The canvas's size, less fit view's padding.
  const w = (width - FIT_PADDING.left - FIT_PADDING.right) / LEGIBLE_ZOOM - 2 * LAYERED.padding;
  const h = (height - FIT_PADDING.top - FIT_PADDING.bottom) / LEGIBLE_ZOOM - 2 * LAYERED.padding;
  const rows = Math.max(1, Math.floor((h + LAYERED.rowGap) / (PATH_SIZES.leaf.height + LAYERED.rowGap)));
  const cols = Math.max(1, Math.floor((w + LAYERED.columnGap) / (PATH_SIZES.leaf.width + LAYERED.columnGap)));
  // About half the places: room for the edges to fan out, and a picture read at a glance.
  return { budget: Math.max(6, Math.floor(rows * cols * 0.55)), rows };
}
