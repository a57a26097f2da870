/**
 * The graph to draw: the paths lens (paths.ts) or the topology lens
 * (model.ts). Apart from both, so that neither imports the other's builder.
 */
import type { Analysis } from "../engine/analysis/index.ts";
import { buildTopologyGraph, lensOf, type GraphModel, type GraphOptions } from "./model.ts";
import { buildPathGraph } from "./paths.ts";

export function buildGraph(a: Analysis, options: GraphOptions): GraphModel {
  return lensOf(a, options.lens) === "paths" ? buildPathGraph(a, options) : buildTopologyGraph(a, options);
}
