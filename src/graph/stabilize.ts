/**
 * Same picture, same object: between two builds of the graph, every node and
 * edge that draws what it drew before is handed back as the previous object,
 * so React Flow and the memoised components skip it. Pure: no DOM, no React.
 */
import type { EdgeFlow } from "./model.ts";
import type { EdgeData, FlowEdge, FlowNode } from "./flow.ts";

/** What a node draws, as one string: equal signature, equal picture. */
export function nodeSignature(n: FlowNode): string {
  const g = n.data.node;
  return `${n.id}|${n.parentId ?? ""}|${n.position.x},${n.position.y},${n.width},${n.height}|${n.selected ? 1 : 0}${n.data.dimmed ? 1 : 0}${n.data.lit ? 1 : 0}|${g.label}|${g.sublabel ?? ""}|${g.warning ?? ""}|${g.count ?? ""}|${g.toggle ?? ""}|${g.fold ?? ""}|${JSON.stringify(g.inbound ?? "")}`;
}

/**
 * Whether two edges draw the same picture, field by field: an edge can merge thousands of flows,
 * and comparing them in place costs no string of them all per edit.
 */
export function sameEdge(a: FlowEdge, b: FlowEdge): boolean {
  const d = a.data!;
  const e = b.data!;
  const g = d.edge;
  const h = e.edge;
  return (
    a.id === b.id &&
    a.sourceHandle === b.sourceHandle &&
    a.targetHandle === b.targetHandle &&
    !!a.selected === !!b.selected &&
    !!d.dimmed === !!e.dimmed &&
    !!d.lit === !!e.lit &&
    !!d.showLabel === !!e.showLabel &&
    d.labelAt?.x === e.labelAt?.x &&
    d.labelAt?.y === e.labelAt?.y &&
    d.width === e.width &&
    g.verdict === h.verdict &&
    g.dropCause === h.dropCause &&
    g.tier === h.tier &&
    g.label === h.label &&
    g.title === h.title &&
    sameFlows(g.flows, h.flows) &&
    (d.testFailed?.join(",") ?? "") === (e.testFailed?.join(",") ?? "") &&
    sameObserved(d, e)
  );
}

function sameFlows(a: readonly EdgeFlow[], b: readonly EdgeFlow[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.flowId !== y.flowId || x.from !== y.from || x.verdict !== y.verdict || x.reason !== y.reason)
      return false;
  }
  return true;
}

function sameObserved(d: EdgeData, e: EdgeData): boolean {
  const x = d.observed;
  const y = e.observed;
  if (!x || !y) return !x && !y;
  return (
    x.case === y.case &&
    x.forwarded === y.forwarded &&
    x.dropped === y.dropped &&
    !!d.observedCounts === !!e.observedCounts
  );
}

/**
 * Keeps the previous object for every element that draws the same picture,
 * so React Flow and the memoised node and edge components skip them: an edit
 * that turns three edges re-renders three edges. When no element changed,
 * the previous list itself comes back (`last`): React Flow then does not
 * reset its store, whose every change runs each drawn edge's own selector
 * (754 edges at 10,000 pods).
 */
export function stabilize<T extends { id: string }>(
  previous: Map<string, T>,
  next: readonly T[],
  same: (a: T, b: T) => boolean,
  last?: readonly T[],
): { list: T[]; memo: Map<string, T> } {
  const memo = new Map<string, T>();
  let unchanged = last !== undefined && last.length === next.length;
  const list = next.map((t, i) => {
    const old = previous.get(t.id);
    const value = old && same(old, t) ? old : t;
    memo.set(t.id, value);
    if (unchanged && last![i] !== value) unchanged = false;
    return value;
  });
  return { list: unchanged ? (last as T[]) : list, memo };
}

/** Remembers the last elements it returned, to hand back unchanged ones as the same objects. */
export class ElementStabilizer {
  private nodes = new Map<string, FlowNode>();
  private edges = new Map<string, FlowEdge>();
  private last: { nodes: FlowNode[]; edges: FlowEdge[] } | undefined;

  apply(el: { nodes: FlowNode[]; edges: FlowEdge[] }): { nodes: FlowNode[]; edges: FlowEdge[] } {
    const n = stabilize(
      this.nodes,
      el.nodes,
      (a, b) => nodeSignature(a) === nodeSignature(b),
      this.last?.nodes,
    );
    const e = stabilize(this.edges, el.edges, sameEdge, this.last?.edges);
    this.nodes = n.memo;
    this.edges = e.memo;
    this.last = { nodes: n.list, edges: e.list };
    return this.last;
  }
}
