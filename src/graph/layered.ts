/**
 * The paths lens's layout: left to right, clients, then Services (entry
 * points), then workloads that both receive and call, then backends that
 * only receive, then what nothing connects. Tall columns wrap into
 * sub-columns so the picture keeps the pane's shape; within a column,
 * elements follow their neighbours (barycentre sweeps), ties by name.
 *
 * Stable: given the previous positions, every element that is still there
 * keeps its place (an edit or a what-if does not move what it did not
 * change); new elements take their computed place, moved down past any
 * element already there. Pure and synchronous: O(elements + links) plus sorts.
 */
import type { Positions } from "./layout.ts";
import type { GraphModel, GraphNode } from "./model.ts";
import { nodeBoxText, type BoxText } from "./text.ts";

export const LAYERED = { columnGap: 78, subColumnGap: 22, rowGap: 14, padding: 10 };

export interface LayeredOptions {
  /** Width / height of the pane the picture should fit. */
  aspect?: number;
  previous?: Positions | undefined;
  /** Most elements in one column before it wraps (what the pane shows at a legible zoom). */
  maxRows?: number | undefined;
  /** The pane's size at a legible zoom (graph units): a picture that fits it is preferred to one that fills its shape. */
  paneWidth?: number | undefined;
  paneHeight?: number | undefined;
}

/** Column 5 is drawn between 0 and 1: L7 routers sit between their clients and the Services they route to. */
export const COLUMN_ORDER = [0, 5, 1, 2, 3, 4] as const;

export function columnOf(n: GraphNode, ins: number, outs: number): number {
  if (n.kind === "router") return 5;
  if (n.kind === "external") return 0;
  if (n.kind === "service") return 1;
  if (ins === 0 && outs > 0) return 0;
  if (ins > 0 && outs > 0) return 2;
  if (ins > 0) return 3;
  return 4;
}

export function layeredLayout(g: GraphModel, options: LayeredOptions = {}): Positions {
  const aspect = options.aspect ?? 1.5;
  const nodes = g.nodes;
  const index = new Map(nodes.map((n, i) => [n.id, i]));
  const ins = new Array<number>(nodes.length).fill(0);
  const outs = new Array<number>(nodes.length).fill(0);
  const nbrs: number[][] = nodes.map(() => []);
  const links = g.links ?? g.edges.map((e) => `${e.source}>${e.target}`);
  for (const l of links) {
    const [s, t] = l.split(">") as [string, string];
    const si = index.get(s);
    const ti = index.get(t);
    if (si === undefined || ti === undefined || si === ti) continue;
    outs[si]!++;
    ins[ti]!++;
    nbrs[si]!.push(ti);
    nbrs[ti]!.push(si);
  }
  const cols: number[][] = [[], [], [], [], [], []];
  nodes.forEach((n, i) => cols[columnOf(n, ins[i]!, outs[i]!)]!.push(i));
  // Rank by flows inside the middle column: an element that calls another middle element goes left of it (an ingress controller, then the namespaces it calls, then the DNS they all call).
  const middle = splitByFlows(cols[2]!, links, index);
  // Column 5 (L7 routers) sits between the clients (0) and the Services (1).
  const layers = [cols[0]!, cols[5]!, cols[1]!, ...middle, cols[3]!, cols[4]!].filter((c) => c.length > 0);
  // Packed to the rows a pane shows at a legible zoom, when the pane is known.
  const used =
    options.maxRows === undefined
      ? layers
      : packLayers(layers, options.maxRows, aspect, {
          width: Math.max(...nodes.map((n) => n.width), 1),
          height: Math.max(...nodes.map((n) => n.height), 1),
        });
  // A packed column keeps its layers in order (segments); elements are ordered within their segment.
  const segment = new Map<number, number>();
  layers.forEach((l, k) => l.forEach((i) => segment.set(i, k)));
  const seg = (x: number, y: number) => segment.get(x)! - segment.get(y)!;
  // Initial order: namespace, then name; then two barycentre sweeps.
  const key = (i: number) => `${nodes[i]!.namespace ?? ""}\u0000${nodes[i]!.id}`;
  for (const c of used) c.sort((x, y) => seg(x, y) || (key(x) < key(y) ? -1 : 1));
  const rank = new Float64Array(nodes.length);
  const setRanks = () => used.forEach((c) => c.forEach((i, r) => (rank[i] = r / Math.max(1, c.length - 1))));
  setRanks();
  for (let sweep = 0; sweep < 2; sweep++) {
    for (const c of used) {
      const bary = new Map<number, number>();
      for (const i of c) {
        const ns = nbrs[i]!;
        bary.set(i, ns.length ? ns.reduce((s, j) => s + rank[j]!, 0) / ns.length : rank[i]!);
      }
      c.sort((x, y) => seg(x, y) || bary.get(x)! - bary.get(y)! || (key(x) < key(y) ? -1 : 1));
      c.forEach((i, r) => (rank[i] = r / Math.max(1, c.length - 1)));
    }
  }
  setRanks();

  // Rows per sub-column: the count that lets the whole picture fit the pane's shape at the largest scale.
  // Boxes are sized to their names (text.ts): a column is as wide as its widest box, a box as tall as its lines.
  const box = nodes.map((n) => ({
    width: n.width,
    height: n.height,
    text: undefined as BoxText | undefined,
  }));
  let gap: number = LAYERED.columnGap;
  let rows = bestRows(used, box, gap, aspect, options);
  // Wider than the pane at a legible zoom (three columns of long pod names): the widest boxes are re-wrapped
  // narrower (names break after separators only), down to about a typical box, then the gaps between columns
  // close a little, so fit view shows every column whole instead of cutting the last at the pane's edge. Only
  // a shape that fits the pane's width is taken: one that would still be cut keeps the boxes as their names
  // want them.
  const wide = (g: number) => pictureFit(used, box, rows, g, options.paneWidth, options.paneHeight);
  if (options.paneWidth && options.paneHeight && wide(gap).width > 1) {
    const model = box.map((b) => ({ ...b }));
    const texts = new Map<string, BoxText>();
    const reshape = (cap: number) =>
      nodes.forEach((n, i) => {
        if (model[i]!.width <= cap) return void (box[i] = model[i]!);
        const key = `${i} ${cap}`;
        const text = texts.get(key) ?? nodeBoxText(n, cap);
        texts.set(key, text);
        box[i] = { width: text.width, height: text.height, text };
      });
    const widest = Math.max(...model.map((b) => b.width));
    const shapes: [number, number][] = [];
    for (let cap = widest - NARROW_STEP; cap >= NARROWEST; cap -= NARROW_STEP) shapes.push([cap, gap]);
    for (const g of NARROW_GAPS) shapes.push([NARROWEST, g]);
    // Taller than the pane already, it may stay as tall, no taller.
    const tall = Math.max(1, wide(gap).height);
    const fits = shapes.find(([cap, g]) => {
      reshape(cap);
      const f = wide(g);
      return f.width <= 1 && f.height <= tall;
    });
    if (fits) {
      reshape(fits[0]);
      gap = fits[1];
      rows = bestRows(used, box, gap, aspect, options);
    } else reshape(widest);
  }
  const colW = used.map((c) => Math.max(1, ...c.map((i) => box[i]!.width)));
  const out: Positions = {};
  // Each sub-column stacks its boxes at their own heights, centred on the tallest stack.
  const parts: { k: number; s: number; part: number[]; height: number }[] = [];
  used.forEach((c, k) => {
    const subs = Math.ceil(c.length / rows);
    const perSub = Math.ceil(c.length / subs);
    for (let s = 0; s < subs; s++) {
      const part = c.slice(s * perSub, (s + 1) * perSub);
      const height = part.reduce((t, i) => t + box[i]!.height, 0) + (part.length - 1) * LAYERED.rowGap;
      parts.push({ k, s, part, height });
    }
  });
  const height = Math.max(0, ...parts.map((p) => p.height));
  const colX: number[] = [];
  let x = LAYERED.padding;
  used.forEach((c, k) => {
    colX[k] = x;
    const subs = Math.ceil(c.length / rows);
    x += subs * colW[k]! + (subs - 1) * LAYERED.subColumnGap + gap;
  });
  for (const { k, s, part, height: ph } of parts) {
    let y = LAYERED.padding + (height - ph) / 2;
    for (const i of part) {
      const b = box[i]!;
      out[nodes[i]!.id] = {
        x: colX[k]! + s * (colW[k]! + LAYERED.subColumnGap),
        y,
        width: b.width,
        height: b.height,
        ...(b.text ? { text: b.text } : {}),
      };
      y += b.height + LAYERED.rowGap;
    }
  }
  return options.previous ? keepPlaces(nodes, out, options.previous) : out;
}

/** Re-wrapped boxes are narrowed in steps of this many units, down to about a typical box (paths.ts PATH_SIZES.leaf). */
const NARROW_STEP = 10;
const NARROWEST = 210;
/** Then the gaps between columns, down to room for an edge's verdict mark and its fan. */
const NARROW_GAPS = [70, 62, 56];

type Box = { width: number; height: number };

/** The picture's width and tallest stack (graph units) at this many rows per sub-column. */
function extent(
  used: readonly number[][],
  box: readonly Box[],
  rows: number,
  gap: number,
): { width: number; stack: number } {
  let width = 0;
  let stack = 0;
  used.forEach((c, k) => {
    const subs = Math.ceil(c.length / rows);
    const perSub = Math.ceil(c.length / subs);
    const colW = Math.max(1, ...c.map((i) => box[i]!.width));
    width += subs * colW + (subs - 1) * LAYERED.subColumnGap + (k > 0 ? gap : 0);
    // Sub-columns stack boxes at their own heights: the tallest stack.
    for (let s = 0; s < subs; s++) {
      const part = c.slice(s * perSub, (s + 1) * perSub);
      stack = Math.max(
        stack,
        part.reduce((t, i) => t + box[i]!.height, 0) + (part.length - 1) * LAYERED.rowGap,
      );
    }
  });
  return { width, stack };
}

/** The picture's width and height at this many rows, over the pane's (1 when the pane is unknown). */
function pictureFit(
  used: readonly number[][],
  box: readonly Box[],
  rows: number,
  gap: number,
  paneWidth: number | undefined,
  paneHeight: number | undefined,
): { width: number; height: number } {
  const e = extent(used, box, rows, gap);
  return { width: paneWidth ? e.width / paneWidth : 1, height: paneHeight ? e.stack / paneHeight : 1 };
}

/** Rows per sub-column: within the pane first (fit view then keeps the text legible and every box in view), then the best scale for its shape. */
function bestRows(
  used: readonly number[][],
  box: readonly Box[],
  gap: number,
  aspect: number,
  options: LayeredOptions,
): number {
  const rowH = Math.max(1, ...box.map((b) => b.height)) + LAYERED.rowGap;
  const tallest = Math.max(1, ...used.map((c) => c.length));
  const top = Math.min(tallest, options.maxRows ?? tallest);
  let rows = top;
  let best = 0;
  let least = Infinity;
  for (let r = top; r >= 1; r--) {
    const e = extent(used, box, r, gap);
    // The scale for the pane's shape counts rows of the tallest box; the fit, the stacks as drawn.
    const scale = Math.min(aspect / e.width, 1 / (Math.min(r, tallest) * rowH - LAYERED.rowGap));
    const o = Math.max(
      1,
      options.paneWidth ? e.width / options.paneWidth : 1,
      options.paneHeight ? e.stack / options.paneHeight : 1,
    );
    if (o < least - 1e-9 || (Math.abs(o - least) < 1e-9 && scale > best * 1.0001)) {
      least = Math.min(least, o);
      best = scale;
      rows = r;
    }
  }
  return rows;
}

/** Longest-path layers of the elements of one column over the links among them. */
export function splitByFlows(
  col: number[],
  links: readonly string[],
  index: Map<string, number>,
): number[][] {
  if (col.length < 2) return [col];
  const inCol = new Set(col);
  const out = new Map<number, number[]>();
  for (const l of links) {
    const [s, t] = l.split(">") as [string, string];
    const si = index.get(s);
    const ti = index.get(t);
    if (si === undefined || ti === undefined || si === ti || !inCol.has(si) || !inCol.has(ti)) continue;
    out.set(si, [...(out.get(si) ?? []), ti]);
  }
  if (out.size === 0) return [col];
  // Cycles are broken the greedy way (Eades et al.): elements that call more than they are called come first, and a link against that order is ignored.
  const score = new Map<number, number>(col.map((i) => [i, 0]));
  for (const [si, ts] of out) {
    score.set(si, score.get(si)! + ts.length);
    for (const t of ts) score.set(t, score.get(t)! - 1);
  }
  const order = [...col].sort((x, y) => score.get(y)! - score.get(x)!);
  const at = new Map(order.map((i, k) => [i, k]));
  const rank = new Map<number, number>(col.map((i) => [i, 0]));
  for (const i of order)
    for (const t of out.get(i) ?? [])
      if (at.get(t)! > at.get(i)!) rank.set(t, Math.max(rank.get(t)!, rank.get(i)! + 1));
  const layers: number[][] = [];
  for (const i of col) (layers[rank.get(i)!] ??= []).push(i);
  return layers.filter((l) => l !== undefined && l.length > 0);
}

/** While the picture is wider than the pane's shape, two neighbouring short layers share a column (the first above the second). */
export function packLayers(
  layers: number[][],
  rows: number,
  aspect: number,
  box: { width: number; height: number },
): number[][] {
  const out = layers.map((l) => [...l]);
  const width = () =>
    out.reduce((w, l) => {
      const subs = Math.ceil(l.length / rows);
      return w + subs * box.width + (subs - 1) * LAYERED.subColumnGap;
    }, 0) +
    (out.length - 1) * LAYERED.columnGap;
  const height = rows * (box.height + LAYERED.rowGap) - LAYERED.rowGap;
  for (;;) {
    if (width() <= aspect * height) break;
    // The pair that saves a column with the fewest elements: two short layers, or a short one in a wrapped layer's free places.
    let best = -1;
    const subs = (n: number) => Math.ceil(n / rows);
    for (let k = 0; k + 1 < out.length; k++) {
      const a = out[k]!.length;
      const b = out[k + 1]!.length;
      if (subs(a + b) < subs(a) + subs(b) && (best < 0 || a + b < out[best]!.length + out[best + 1]!.length))
        best = k;
    }
    if (best < 0) break;
    out.splice(best, 2, [...out[best]!, ...out[best + 1]!]);
  }
  return out;
}

/** Elements still there keep their previous place when most of the picture is the same; new ones move down past any overlap. */
function keepPlaces(nodes: readonly GraphNode[], fresh: Positions, previous: Positions): Positions {
  const kept = nodes.filter((n) => previous[n.id]);
  if (kept.length === 0 || kept.length < nodes.length / 2 || nodes.length > 3000) return fresh;
  const out: Positions = {};
  const boxes: { x: number; y: number; width: number; height: number }[] = [];
  for (const n of kept) {
    const p = previous[n.id]!;
    const { width, height, text } = fresh[n.id]!;
    out[n.id] = { x: p.x, y: p.y, width, height, ...(text ? { text } : {}) };
    boxes.push(out[n.id]!);
  }
  for (const n of nodes) {
    if (out[n.id]) continue;
    const p = { ...fresh[n.id]! };
    for (let moved = true; moved;) {
      moved = false;
      for (const b of boxes)
        if (
          p.x < b.x + b.width &&
          b.x < p.x + p.width &&
          p.y < b.y + b.height + LAYERED.rowGap &&
          b.y < p.y + p.height + LAYERED.rowGap
        ) {
          p.y = b.y + b.height + LAYERED.rowGap;
          moved = true;
        }
    }
    out[n.id] = p;
    boxes.push(p);
  }
  return out;
}
