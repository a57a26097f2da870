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

export const LAYERED = { columnGap: 110, subColumnGap: 28, rowGap: 16, padding: 10 };

export interface LayeredOptions {
  /** Width / height of the pane the picture should fit. */
  aspect?: number;
  previous?: Positions | undefined;
  /** Most elements in one column before it wraps (what the pane shows at a legible zoom). */
  maxRows?: number | undefined;
}

export function columnOf(n: GraphNode, ins: number, outs: number): number {
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
  const cols: number[][] = [[], [], [], [], []];
  nodes.forEach((n, i) => cols[columnOf(n, ins[i]!, outs[i]!)]!.push(i));
  const used = cols.filter((c) => c.length > 0);
  // Initial order: namespace, then name; then two barycentre sweeps.
  const key = (i: number) => `${nodes[i]!.namespace ?? ""}\u0000${nodes[i]!.id}`;
  for (const c of used) c.sort((x, y) => (key(x) < key(y) ? -1 : 1));
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
      c.sort((x, y) => bary.get(x)! - bary.get(y)! || (key(x) < key(y) ? -1 : 1));
      c.forEach((i, r) => (rank[i] = r / Math.max(1, c.length - 1)));
    }
  }
  setRanks();

  // Rows per sub-column: the count that lets the whole picture fit the pane's shape at the largest scale.
  const w = Math.max(...nodes.map((n) => n.width), 1);
  const h = Math.max(...nodes.map((n) => n.height), 1);
  const rowH = h + LAYERED.rowGap;
  const tallest = Math.max(1, ...used.map((c) => c.length));
  const size = (rows: number) => {
    let width = 0;
    used.forEach((c, k) => {
      const subs = Math.ceil(c.length / rows);
      width += subs * w + (subs - 1) * LAYERED.subColumnGap + (k > 0 ? LAYERED.columnGap : 0);
    });
    return { width, height: Math.min(rows, tallest) * rowH - LAYERED.rowGap };
  };
  const top = Math.min(tallest, options.maxRows ?? tallest);
  let rows = top;
  let best = 0;
  for (let r = top; r >= 1; r--) {
    const s = size(r);
    const scale = Math.min(aspect / s.width, 1 / s.height);
    if (scale > best * 1.0001) {
      best = scale;
      rows = r;
    }
  }
  const height = size(rows).height;
  const out: Positions = {};
  let x = LAYERED.padding;
  for (const c of used) {
    const subs = Math.ceil(c.length / rows);
    const perSub = Math.ceil(c.length / subs);
    for (let s = 0; s < subs; s++) {
      const part = c.slice(s * perSub, (s + 1) * perSub);
      const top = LAYERED.padding + (height - (part.length * rowH - LAYERED.rowGap)) / 2;
      part.forEach((i, r) => {
        const n = nodes[i]!;
        out[n.id] = {
          x: x + s * (w + LAYERED.subColumnGap),
          y: top + r * rowH,
          width: n.width,
          height: n.height,
        };
      });
    }
    x += subs * w + (subs - 1) * LAYERED.subColumnGap + LAYERED.columnGap;
  }
  return options.previous ? keepPlaces(nodes, out, options.previous) : out;
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
