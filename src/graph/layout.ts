/**
 * The graph -> an ELK graph, and ELK's answer -> positions. Pure (the ELK
 * run itself happens in layout.worker.ts, off the main thread).
 *
 * Shape: zones and cluster nodes are compound nodes whose children ELK packs;
 * at the top level a left-to-right layered layout puts the cluster (its
 * zones) first, Services next and external clients last, using the
 * top-level links between them so that Services sit beside the pods they
 * serve.
 */
import type { ElkExtendedEdge, ElkNode } from "elkjs/lib/elk-api.js";
import { CONTAINER_KINDS, topLevelOf, type GraphModel, type GraphNode } from "./model.ts";
import type { BoxText } from "./text.ts";

/** Where each element sits; `text` when the layout re-wrapped a box narrower than the model's (layered.ts). */
export type Positions = Record<
  string,
  { x: number; y: number; width: number; height: number; text?: BoxText | undefined }
>;

// Compact, so that the smallest text (11 px) is 11 px on screen at fit view in a laptop's pane.
const PADDING_NODE = "[top=36,left=8,bottom=8,right=8]";
const PADDING_ZONE = "[top=30,left=10,bottom=10,right=10]";

function containerOptions(
  kind: GraphNode["kind"],
  children: number,
  large: boolean,
  aspect: number,
): Record<string, string> {
  // In small graphs a short column reads best beside the Services; otherwise children pack into a box.
  const column = !large && kind !== "bucket" && children <= (kind === "zone" ? 2 : 6);
  return {
    "elk.algorithm": column ? "layered" : kind === "bucket" ? "rectpacking" : "box",
    "elk.direction": kind === "zone" ? "DOWN" : "RIGHT",
    "elk.padding": kind === "node" ? PADDING_NODE : PADDING_ZONE,
    "elk.spacing.nodeNode": kind === "node" ? "8" : "16",
    "elk.layered.spacing.nodeNodeBetweenLayers": "16",
    "elk.box.packingMode": "GROUP_DEC",
    // The cluster block takes the pane's shape (its zones side by side in a wide pane); the others stay squarish.
    "elk.aspectRatio": kind === "bucket" ? String(Math.max(1, aspect * 0.7)) : "1.4",
    "elk.nodeSize.minimum": "(180, 80)",
    "elk.nodeSize.constraints": "MINIMUM_SIZE",
  };
}

export function toElkGraph(g: GraphModel, aspect = 1.5): ElkNode {
  const children = new Map<string | undefined, GraphNode[]>();
  for (const n of g.nodes) {
    const l = children.get(n.parent);
    if (l) l.push(n);
    else children.set(n.parent, [n]);
  }
  const large = g.nodes.some((n) => n.kind === "bucket");
  const build = (n: GraphNode): ElkNode => {
    const kids = children.get(n.id);
    if (CONTAINER_KINDS.has(n.kind)) {
      return {
        id: n.id,
        layoutOptions: containerOptions(n.kind, kids?.length ?? 0, large, aspect),
        children: (kids ?? []).map(build),
      };
    }
    return { id: n.id, width: n.width, height: n.height };
  };
  const top = topLevelOf(g.nodes);
  const kindOf = new Map(g.nodes.map((n) => [n.id, n.kind]));
  const links = new Map<string, ElkExtendedEdge>();
  for (const e of g.edges) {
    let s = top(e.source);
    let t = top(e.target);
    if (s === t) continue;
    // Layout direction: cluster -> Service -> external client, whichever way the traffic goes.
    const rank = (id: string) =>
      kindOf.get(id) === "external" ? 2 : kindOf.get(id) === "service" || id === "bucket:services" ? 1 : 0;
    if (rank(s) > rank(t)) [s, t] = [t, s];
    const id = `${s}>${t}`;
    if (!links.has(id)) links.set(id, { id, sources: [s], targets: [t] });
  }
  return {
    id: "root",
    layoutOptions: {
      "elk.algorithm": "layered",
      "elk.direction": "RIGHT",
      "elk.spacing.nodeNode": "18",
      "elk.layered.spacing.nodeNodeBetweenLayers": "80",
      "elk.layered.considerModelOrder.strategy": "NODES_AND_EDGES",
      "elk.separateConnectedComponents": "false",
      "elk.padding": "[top=10,left=10,bottom=10,right=10]",
    },
    children: (children.get(undefined) ?? []).map(build),
    edges: [...links.values()],
  };
}

/** ELK positions are relative to the parent, as React Flow's are for child nodes. */
export function positionsOf(root: ElkNode): Positions {
  const out: Positions = {};
  const walk = (n: ElkNode) => {
    for (const c of n.children ?? []) {
      out[c.id] = { x: c.x ?? 0, y: c.y ?? 0, width: c.width ?? 0, height: c.height ?? 0 };
      walk(c);
    }
  };
  walk(root);
  return out;
}
