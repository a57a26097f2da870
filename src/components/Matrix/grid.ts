/**
 * Keyboard navigation of the matrix as a WAI-ARIA grid (APG "Data Grid"
 * pattern): one tab stop, the active cell moved by arrows, Home/End in its
 * row, Ctrl+Home/Ctrl+End to the grid's corners, PageUp/PageDown by a page of
 * rows. Enter (and Space) are the cell button's own click: they open the trace.
 */

export interface Cell {
  row: number;
  col: number;
}

export interface GridSize {
  rows: number;
  cols: number;
  /** Rows in one page (PageUp/PageDown), at least 1. */
  page: number;
}

export interface GridKey {
  key: string;
  ctrlKey?: boolean;
  metaKey?: boolean;
}

const clamp = (v: number, lo: number, hi: number) => Math.max(lo, Math.min(hi, v));

/** The cell a key moves to, or undefined when the key is not a grid key (the event is left alone). Never wraps. */
export function moveCell(at: Cell, e: GridKey, size: GridSize): Cell | undefined {
  if (size.rows <= 0 || size.cols <= 0) return undefined;
  const lastRow = size.rows - 1;
  const lastCol = size.cols - 1;
  const ctrl = !!(e.ctrlKey || e.metaKey);
  const row = clamp(at.row, 0, lastRow);
  const col = clamp(at.col, 0, lastCol);
  const page = Math.max(1, size.page);
  switch (e.key) {
    case "ArrowUp":
      return { row: Math.max(0, row - 1), col };
    case "ArrowDown":
      return { row: Math.min(lastRow, row + 1), col };
    case "ArrowLeft":
      return { row, col: Math.max(0, col - 1) };
    case "ArrowRight":
      return { row, col: Math.min(lastCol, col + 1) };
    case "Home":
      return ctrl ? { row: 0, col: 0 } : { row, col: 0 };
    case "End":
      return ctrl ? { row: lastRow, col: lastCol } : { row, col: lastCol };
    case "PageUp":
      return { row: Math.max(0, row - page), col };
    case "PageDown":
      return { row: Math.min(lastRow, row + page), col };
    default:
      return undefined;
  }
}

/**
 * The scroll offset (along one axis) that shows item `index` of size `cell`
 * whole, in a viewport of `viewport` px whose first `head` px are covered by a
 * sticky header; the current offset when it already shows it.
 * Content coordinates: the header occupies [0, head), item k [head + k*cell, head + (k+1)*cell).
 */
export function scrollToShow(
  current: number,
  index: number,
  cell: number,
  head: number,
  viewport: number,
): number {
  const start = index * cell; // scroll offset at which the item sits just under the header
  const end = head + (index + 1) * cell - viewport; // offset at which it sits at the bottom edge
  if (current > start) return start;
  if (current < end) return Math.min(start, end);
  return current;
}

/** Rows that fit in a page of the viewport under the header. */
export function pageRows(viewport: number, head: number, cell: number): number {
  return Math.max(1, Math.floor((viewport - head) / cell));
}
