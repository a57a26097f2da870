/**
 * Graph + positions + the highlighted path -> React Flow nodes and edges.
 * Pure: the components only render what this returns.
 */
import type { ObservedGraph } from "./observedMarks.ts";
import type { NodeHandle, Position } from "@xyflow/react";
import type { TraceView } from "../engine/analysis/index.ts";
import {
  CONTAINER_KINDS,
  edgeRefs,
  leafResolver,
  type GraphEdge,
  type GraphModel,
  type GraphNode,
} from "./model.ts";
import type { Positions } from "./layout.ts";
import type { TestFailures } from "./testMarks.ts";
import type { FlowEdge, FlowNode } from "./flowTypes.ts";
import { placeLabels } from "./edgeLabels.ts";
import { TEST_FAILED_TAG, tierTag } from "./verdicts.ts";

export type { EdgeData, FlowEdge, FlowNode, NodeData } from "./flowTypes.ts";

/**
 * Stroke width grows with the connections that get through (allowed, or allowed at some endpoints): a
 * drop's count says what is refused, and thousands of refused pairs must not outweigh one open path.
 */
function strokeWidth(e: GraphEdge): number {
  const through = e.mix ? e.mix.allow + e.mix.partial : (e.count ?? 0);
  return through > 1 ? Math.min(6, 1.8 + Math.log2(through) * 0.7) : 1.8;
}

/** Edge ends: pods and groups send and receive on their right; Services receive from pods on the left and from outside on the right. */
function handles(
  e: GraphEdge,
  kindOf: (id: string) => GraphNode["kind"] | undefined,
): { sourceHandle: string; targetHandle: string } {
  const s = kindOf(e.source);
  const t = kindOf(e.target);
  if (s === "external") return { sourceHandle: "out-left", targetHandle: "in-right" };
  if (s === "service") return { sourceHandle: "out-left", targetHandle: "in-right" };
  if (t === "service") return { sourceHandle: "out-right", targetHandle: "in-left" };
  return { sourceHandle: "out-right", targetHandle: "in-right" };
}

/** Paths lens: an edge leaves the side facing its target and enters the side facing its source. */
function pathHandles(
  s: { x: number; width: number } | undefined,
  t: { x: number; width: number } | undefined,
): { sourceHandle: string; targetHandle: string } {
  if (!s || !t || s.x + s.width <= t.x) return { sourceHandle: "out-right", targetHandle: "in-left" };
  if (t.x + t.width <= s.x) return { sourceHandle: "out-left", targetHandle: "in-right" };
  return { sourceHandle: "out-right", targetHandle: "in-right" };
}

/**
 * Edges a traced question lights up; pairs with no drawn edge become
 * temporary question edges. A lit edge shows the trace's verdict and deciding
 * objects for its part of the path (`trace.edges`, from the engine), not its
 * aggregate over every source: the graph never says "partly allowed" where
 * the answer on screen says "dropped".
 */
export function questionEdges(
  g: GraphModel,
  trace: TraceView | undefined,
): { lit: Set<string>; extra: GraphEdge[]; asked: Map<string, GraphEdge> } {
  const lit = new Set<string>();
  const extra: GraphEdge[] = [];
  const asked = new Map<string, GraphEdge>();
  if (!trace || trace.error || trace.edges.length === 0) return { lit, extra, asked };
  const resolve = leafResolver(g);
  const existing = new Map(g.edges.map((e) => [`${e.source}->${e.target}`, e]));
  const ids = new Set(g.nodes.map((n) => n.id));
  const seen = new Set<string>();
  for (const part of trace.edges) {
    const s = resolve(part.source) ?? part.source;
    const t = resolve(part.target) ?? part.target;
    const key = `${s}->${t}`;
    if (s === t || seen.has(key)) continue;
    seen.add(key);
    const e = existing.get(key);
    const { verdict } = part;
    if (e) {
      const byRef = edgeRefs(verdict, {
        refs: part.decidedBy,
        dropRefs: verdict === "allow" ? [] : part.decidedBy,
        kind: e.kind === "question" || e.kind === "observed" ? "pod" : e.kind,
      }).label;
      const shown: GraphEdge = {
        ...e,
        verdict,
        label: part.tier && verdict !== "allow" ? `${tierTag(part.tier)} · ${byRef}` : byRef,
        title: part.reason,
        decidedBy: part.decidedBy,
      };
      if (part.dropCause) shown.dropCause = part.dropCause;
      else delete shown.dropCause;
      if (part.tier && verdict === "drop") shown.tier = part.tier;
      else delete shown.tier;
      asked.set(e.id, shown);
      lit.add(e.id);
      continue;
    }
    if (!ids.has(s) || !ids.has(t)) continue;
    const q: GraphEdge = {
      id: `q:${key}`,
      source: s,
      target: t,
      kind: "question",
      verdict,
      label:
        verdict === "allow" ? "asked: allowed" : verdict === "drop" ? "asked: dropped" : "asked: partial",
      title: part.reason,
      decidedBy: part.decidedBy,
      flows: [],
    };
    if (part.dropCause) q.dropCause = part.dropCause;
    if (part.tier && verdict === "drop") q.tier = part.tier;
    extra.push(q);
    lit.add(q.id);
  }
  return { lit, extra, asked };
}

export interface FlowOptions {
  trace?: TraceView | undefined;
  selectedEdge?: string | undefined;
  /** A selected element: what is not connected to it is dimmed. */
  selectedNode?: string | undefined;
  /** The edge under the pointer or keyboard focus: its label shows. */
  hoveredEdge?: string | undefined;
  /** Show every edge's label (small graphs); otherwise only drops, partials and lit edges. */
  allLabels?: boolean;
  /** Edges on which an expectation of the Tests tab fails: tagged, and their label always shown. */
  testFailed?: TestFailures;
  /** The Observed tab's rows on the edges, and edges of their own for traffic no flow draws. */
  observed?: ObservedGraph;
  /** The pane fit view fills (screen px) and its zoom limits: labels shown unasked keep within what it shows. */
  viewport?: { width: number; height: number; minZoom: number; maxZoom: number } | undefined;
}

/** At most this many drop edges between folded elements show their labels unasked (more would crowd the picture). */
export const DROP_LABELS = 8;

export function toFlowElements(
  g: GraphModel,
  positions: Positions | undefined,
  options: FlowOptions = {},
): { nodes: FlowNode[]; edges: FlowEdge[] } {
  const { lit, extra, asked } = questionEdges(g, options.trace);
  const tracing = lit.size > 0;
  const litNodes = new Set<string>();
  const failed = options.testFailed;
  const seen = options.observed;
  const all = [
    ...g.edges.map((e) => tested(asked.get(e.id) ?? e, failed?.get(e.id))),
    ...extra,
    ...(seen?.extra ?? []),
  ];
  for (const e of all) {
    if (lit.has(e.id)) {
      litNodes.add(e.source);
      litNodes.add(e.target);
    }
  }
  // A selected element (not a container) dims everything it is not connected to, in both lenses (when no trace is lit).
  const paths = g.lens === "paths";
  const focus =
    !tracing &&
    options.selectedNode &&
    g.nodes.some((n) => n.id === options.selectedNode && !CONTAINER_KINDS.has(n.kind))
      ? options.selectedNode
      : undefined;
  const near = new Set<string>();
  if (focus) {
    near.add(focus);
    for (const e of all)
      if (e.source === focus || e.target === focus) {
        near.add(e.source);
        near.add(e.target);
      }
  }
  const kinds = new Map(g.nodes.map((n) => [n.id, n.kind]));
  const nodes: FlowNode[] = g.nodes.map((n) => {
    const p = positions?.[n.id];
    const container = CONTAINER_KINDS.has(n.kind);
    const rf: FlowNode = {
      id: n.id,
      type: paths ? `p-${n.kind}` : n.kind,
      position: { x: p?.x ?? 0, y: p?.y ?? 0 },
      data: {
        // The layout may have re-wrapped the box narrower (layered.ts): the node is drawn with that text.
        node: p?.text ? { ...n, text: p.text, width: p.width, height: p.height } : n,
        dimmed: (tracing && !container && !litNodes.has(n.id)) || (focus !== undefined && !near.has(n.id)),
        lit: litNodes.has(n.id),
      },
      width: p?.width ?? n.width,
      height: p?.height ?? n.height,
      draggable: false,
      connectable: false,
      selectable: !container,
      focusable: !container,
      ariaLabel: ariaLabelOf(n),
    };
    // Where the edges attach, known before React Flow measures the node: a node it re-creates (its counts
    // changed) would otherwise have no handles until measured, and its edges would vanish for a frame.
    if (!container) rf.handles = sideHandles(rf.width!, rf.height!);
    if (n.parent) {
      rf.parentId = n.parent;
      rf.extent = "parent";
    }
    if (container) rf.zIndex = n.kind === "bucket" ? -3 : n.kind === "zone" ? -2 : -1;
    // Elements sit above the edges (both lenses), so a line never runs through a name.
    else rf.zIndex = 20;
    return rf;
  });
  // Paths lens: labels on demand (hover, focus, selection, a trace); the glyph and line style carry the verdict meanwhile.
  const allLabels = paths ? false : (options.allLabels ?? all.length <= 12);
  const position = (id: string) => positions?.[id];
  // One label per target and deciding object: ten edges dropped by one policy into one Service show it once.
  const labelled = new Set<string>();
  // Paths lens, folded elements: a few drop edges between boxes (and loops) show their count and layers unasked.
  const boxKinds = new Set(["group", "namespace"]);
  const boxDrops = paths
    ? all.filter(
        (e) =>
          e.verdict !== "allow" &&
          e.kind !== "question" &&
          !e.quiet &&
          (boxKinds.has(kinds.get(e.source) ?? "") || boxKinds.has(kinds.get(e.target) ?? "")),
      )
    : [];
  const dropLabels = new Set(
    !tracing && !focus && boxDrops.length <= DROP_LABELS ? boxDrops.map((e) => e.id) : [],
  );
  const edges: FlowEdge[] = all.map((e) => {
    const isLit = lit.has(e.id);
    const selected = options.selectedEdge === e.id;
    const key = `${e.target}|${e.verdict}|${e.dropCause ?? ""}|${e.label}`;
    const first = !paths && !labelled.has(key);
    if (first && (allLabels || e.verdict !== "allow")) labelled.add(key);
    const hovered = options.hoveredEdge === e.id;
    const touchesFocus = focus !== undefined && (e.source === focus || e.target === focus);
    return {
      id: e.id,
      source: e.source,
      target: e.target,
      type: "verdict",
      ...(paths ? pathHandles(position(e.source), position(e.target)) : handles(e, (id) => kinds.get(id))),
      data: {
        edge: e,
        dimmed: (tracing && !isLit) || (focus !== undefined && !touchesFocus),
        lit: isLit,
        ...(failed?.has(e.id) ? { testFailed: failed.get(e.id)! } : {}),
        ...(seen?.marks.has(e.id)
          ? { observed: seen.marks.get(e.id)!, observedCounts: isLit || selected || hovered }
          : {}),
        // A note (a router's share, an L7 restriction) is what the edge is there to say: shown in both lenses.
        showLabel:
          isLit ||
          selected ||
          failed?.has(e.id) === true ||
          hovered ||
          (e.note !== undefined && (paths || first)) ||
          dropLabels.has(e.id) ||
          (first && (allLabels || e.verdict !== "allow")),
        // An isolation edge (refused on both sides) is a hairline: it is there, and it is not the news.
        width: e.quiet ? 1.2 : strokeWidth(e),
        ...(dropLabels.has(e.id) && !(isLit || selected || hovered || failed?.has(e.id))
          ? { optionalLabel: true }
          : {}),
      },
      selected,
      // One layer for every edge: React Flow draws each zIndex in its own SVG, so an edge whose zIndex changed
      // (a verdict turned, a trace lit it) was unmounted and drawn anew, a flicker. Order puts drops and lit
      // edges on top instead (below).
      zIndex: 1,
      focusable: true,
      ariaLabel: `${e.source} to ${e.target}: ${e.verdict === "allow" ? "allowed" : e.verdict === "drop" ? "dropped" : "partly allowed"}${e.label ? ` by ${e.label}` : ""}${failed?.has(e.id) ? ` (test failed: ${failed.get(e.id)!.join("; ")})` : ""}`,
    };
  });
  if (paths && positions) placeLabels(edges, positions, options.viewport);
  // Drawn in this order, later on top: isolation hairlines, allowed, then partial and dropped, then selected and lit.
  const rank = (e: FlowEdge) =>
    e.data!.lit || e.selected ? 2 : e.data!.edge.quiet ? -1 : e.data!.edge.verdict === "allow" ? 0 : 1;
  edges.sort((x, y) => rank(x) - rank(y));
  return { nodes, edges };
}

/** The four handles every element has (nodes.tsx Handles): in and out at the middle of its left and right sides. */
export function sideHandles(width: number, height: number): NodeHandle[] {
  const at = (id: string, type: "source" | "target", side: "left" | "right"): NodeHandle => ({
    id,
    type,
    position: side as Position,
    x: side === "left" ? -2 : width - 2,
    y: height / 2 - 2,
    width: 4,
    height: 4,
  });
  return [
    at("in-left", "target", "left"),
    at("out-left", "source", "left"),
    at("in-right", "target", "right"),
    at("out-right", "source", "right"),
  ];
}

/** An edge on which tests fail: the "test failed" note's tag before its label, and their names first in its tooltip. */
function tested(e: GraphEdge, names: readonly string[] | undefined): GraphEdge {
  if (!names) return e;
  return {
    ...e,
    label: e.label ? `${TEST_FAILED_TAG} · ${e.label}` : TEST_FAILED_TAG,
    title: `Test failed: ${names.join("; ")}\n${e.title}`,
  };
}

function ariaLabelOf(n: GraphNode): string {
  switch (n.kind) {
    case "pod":
      return `Pod ${n.namespace}/${n.label}`;
    case "group":
      return `Workload ${n.namespace}/${n.label}, ${n.count} pods`;
    case "namespace":
      return n.id.startsWith("group:idle:")
        ? `Idle in namespace ${n.namespace}: ${n.parts?.slice(1).join(", ") ?? ""}`
        : `Namespace ${n.label}: ${n.sublabel ?? ""}`;
    case "service":
      return `Service ${n.namespace}/${n.label}`;
    case "external":
      return `External client ${n.label}`;
    case "node":
      return `Node ${n.label}`;
    case "zone":
      return `Zone ${n.label}`;
    case "bucket":
      return `${n.label}: ${n.sublabel ?? ""}`;
    case "router":
      return `${n.sublabel?.split(" · ")[0] ?? "Router"} ${n.namespace}/${n.label}`;
  }
}
