/**
 * The React Flow elements the graph is drawn as: a box carries its graph
 * node, an edge its graph edge and how it is shown (flow.ts builds them,
 * edgeLabels.ts places their labels, the components render them).
 */
import type { Edge, Node } from "@xyflow/react";
import type { ObservedMark } from "./observedMarks.ts";
import type { GraphEdge, GraphNode } from "./model.ts";

export interface NodeData extends Record<string, unknown> {
  node: GraphNode;
  dimmed: boolean;
  lit: boolean;
}

export interface EdgeData extends Record<string, unknown> {
  edge: GraphEdge;
  dimmed: boolean;
  lit: boolean;
  showLabel: boolean;
  /** Stroke width: grows with the connections behind an aggregated edge. */
  width: number;
  /** The Tests tab's expectations that fail on this edge (testMarks.ts). */
  testFailed?: readonly string[];
  /** What a flow file saw on this edge beside the engine's verdict (observedMarks.ts). */
  observed?: ObservedMark;
  /**
   * The observed counts in words beside the mark: on the edge the reader points at (lit, selected, hovered).
   * Unasked, only the mark's glyph shows: edges that meet at one box would pile their counts on each other.
   */
  observedCounts?: boolean;
  /** Shown unasked (a drop between folded boxes): shown only where it fits near its line, within the picture. */
  optionalLabel?: boolean;
  /** Paths lens: where a shown label's top centre goes (graph units), clear of every box and earlier label. */
  labelAt?: { x: number; y: number; ax: number; ay: number };
}

export type FlowNode = Node<NodeData>;
export type FlowEdge = Edge<EdgeData>;
