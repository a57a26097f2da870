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
  const colW = used.map((c) => Math.max(1, ...c.map((i) => nodes[i]!.width)));
  const h = Math.max(...nodes.map((n) => n.height), 1);
  const rowH = h + LAYERED.rowGap;
  const tallest = Math.max(1, ...used.map((c) => c.length));
  const size = (rows: number) => {
    let width = 0;
    used.forEach((c, k) => {
      const subs = Math.ceil(c.length / rows);
      width += subs * colW[k]! + (subs - 1) * LAYERED.subColumnGap + (k > 0 ? LAYERED.columnGap : 0);
    });
    return { width, height: Math.min(rows, tallest) * rowH - LAYERED.rowGap };
  };
  // Sub-columns stack boxes at their own heights: the tallest stack at this many rows.
  const stackHeight = (rows: number) => {
    let tallestStack = 0;
    for (const c of used) {
      const subs = Math.ceil(c.length / rows);
      const perSub = Math.ceil(c.length / subs);
      for (let s = 0; s < subs; s++) {
        const part = c.slice(s * perSub, (s + 1) * perSub);
        tallestStack = Math.max(
          tallestStack,
          part.reduce((t, i) => t + nodes[i]!.height, 0) + (part.length - 1) * LAYERED.rowGap,
        );
      }
    }
    return tallestStack;
  };
  const top = Math.min(tallest, options.maxRows ?? tallest);
  let rows = top;
  let best = 0;
  // Within the pane's width first (fit view then keeps the text legible and every box in view), then the best scale.
  const over = (r: number) => {
    const s = size(r);
    return Math.max(
      1,
      options.paneWidth ? s.width / options.paneWidth : 1,
      options.paneHeight ? stackHeight(r) / options.paneHeight : 1,
    );
  };
  let least = Infinity;
  for (let r = top; r >= 1; r--) {
    const s = size(r);
    const scale = Math.min(aspect / s.width, 1 / s.height);
    const o = over(r);
    if (o < least - 1e-9 || (Math.abs(o - least) < 1e-9 && scale > best * 1.0001)) {
      least = Math.min(least, o);
      best = scale;
      rows = r;
    }
  }
  const out: Positions = {};
  // Each sub-column stacks its boxes at their own heights, centred on the tallest stack.
  const parts: { k: number; s: number; part: number[]; height: number }[] = [];
  used.forEach((c, k) => {
    const subs = Math.ceil(c.length / rows);
    const perSub = Math.ceil(c.length / subs);
    for (let s = 0; s < subs; s++) {
      const part = c.slice(s * perSub, (s + 1) * perSub);
      const height = part.reduce((t, i) => t + nodes[i]!.height, 0) + (part.length - 1) * LAYERED.rowGap;
      parts.push({ k, s, part, height });
    }
  });
  const height = Math.max(0, ...parts.map((p) => p.height));
  const colX: number[] = [];
  let x = LAYERED.padding;
  used.forEach((c, k) => {
    colX[k] = x;
    const subs = Math.ceil(c.length / rows);
    x += subs * colW[k]! + (subs - 1) * LAYERED.subColumnGap + LAYERED.columnGap;
  });
  for (const { k, s, part, height: ph } of parts) {
    let y = LAYERED.padding + (height - ph) / 2;
    for (const i of part) {
      const n = nodes[i]!;
      out[n.id] = {
        x: colX[k]! + s * (colW[k]! + LAYERED.subColumnGap),
        y,
        width: n.width,
        height: n.height,
      };
      y += n.height + LAYERED.rowGap;
    }
  }
  return options.previous ? keepPlaces(nodes, out, options.previous) : out;
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
    out[n.id] = { ...p, width: n.width, height: n.height };
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
