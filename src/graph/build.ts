/**
 * The graph to draw: the paths lens (paths.ts) or the topology lens
 * (model.ts). Apart from both, so that neither imports the other's builder.
 */
import type { Analysis } from "../engine/analysis/index.ts";
import { lensOf, type GraphModel, type GraphOptions } from "./model.ts";
import { buildTopologyGraph } from "./topology.ts";
import { pathGraphSteps } from "./paths.ts";
import { TooManyEdges } from "./pathEdges.ts";
import { finish, NEVER, type Pace, type Steps } from "./pace.ts";

export function buildGraph(a: Analysis, options: GraphOptions): GraphModel {
  return finish(graphSteps(a, options, NEVER));
}

/** The same graph, built a slice at a time when `pace` says so (the paths lens pauses; the topology's is small). */
export function* graphSteps(a: Analysis, options: GraphOptions, pace: Pace): Steps<GraphModel> {
  if (lensOf(a, options.lens) !== "paths") return buildTopologyGraph(a, options);
  if (options.grouping === "auto") return yield* pathGraphSteps(a, options, pace);
  try {
    return yield* pathGraphSteps(a, options, pace);
  } catch (e) {
    // The grouping chosen has more edges than the canvas draws: the picture folds to fit, and says so.
    if (!(e instanceof TooManyEdges)) throw e;
    const folded = yield* pathGraphSteps(a, { ...options, grouping: "auto" }, pace);
    return { ...folded, declined: { grouping: options.grouping, limit: e.limit } };
  }
}

/** Fields of an analysis that no graph reads: its timing, its diagnostics, what it left out. */
const NOT_DRAWN: ReadonlySet<string> = new Set(["stats", "diagnostics", "omissions"]);

/**
 * Whether two analyses draw the same graph: every field a graph reads is the same object in
 * both. The playground rebuilds an answer from a delta that keeps unchanged parts as the very
 * objects it had (worker/delta.ts), so an edit that turns no flow (an image tag, a comment, an
 * annotation) answers with new timing only, and the graph and its drop list are not remapped.
 */
export function drawsAlike(a: Analysis, b: Analysis): boolean {
  if (a === b) return true;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys)
    if (
      !NOT_DRAWN.has(k) &&
      (a as unknown as Record<string, unknown>)[k] !== (b as unknown as Record<string, unknown>)[k]
    )
      return false;
  return true;
}
