/**
 * The graph on screen, derived from the analysis and the view (src/graph buildGraph): one build per
 * change, shared by the canvas, the details panel and the drop list, so they all name the same elements.
 */
import { useEffect, useMemo, useReducer } from "react";
import { useShallow } from "zustand/react/shallow";
import { DEFER_PODS, useApp, useDrawnResult } from "../../store/StoreProvider.tsx";
import type { AppState } from "../../store/types.ts";
import { drawsAlike, graphSteps } from "../../graph/build.ts";
import { finish, NEVER, Slices, sliced, type Pace, type Steps } from "../../graph/pace.ts";
import type { PreparedDraw } from "../../store/engineSync.ts";
import { inSlices } from "../../store/tasks.ts";
import type { GraphModel, GraphOptions } from "../../graph/model.ts";
import type { Analysis } from "../../engine/analysis/index.ts";

let last: { result: Analysis; options: GraphOptions; graph: GraphModel } | undefined;

function same(a: GraphOptions, b: GraphOptions): boolean {
  return (
    a.filters === b.filters &&
    a.grouping === b.grouping &&
    a.lens === b.lens &&
    a.open === b.open &&
    a.budget === b.budget &&
    a.nsGroupBy === b.nsGroupBy
  );
}

/** The graph for this analysis and view, built once however many components ask. */
export function graphFor(result: Analysis, options: GraphOptions): GraphModel {
  return finish(graphForSteps(result, options, NEVER));
}

/** `graphFor`, built a slice at a time when `pace` says so; what it built is kept as `graphFor`'s. */
function* graphForSteps(result: Analysis, options: GraphOptions, pace: Pace): Steps<GraphModel> {
  const kept = keptGraph(result, options);
  if (kept) return kept;
  const graph = yield* graphSteps(result, options, pace);
  last = { result, options, graph };
  return graph;
}

/** What of the view the graph is built for, as the store holds it (the same objects while unchanged). */
type GraphView = Pick<
  AppState,
  "filters" | "grouping" | "graphLens" | "graphOpen" | "graphBudget" | "nsGroupBy"
>;

const graphView = (s: AppState): GraphView => ({
  filters: s.filters,
  grouping: s.grouping,
  graphLens: s.graphLens,
  graphOpen: s.graphOpen,
  graphBudget: s.graphBudget,
  nsGroupBy: s.nsGroupBy,
});

const optionsOf = (v: GraphView): GraphOptions => ({
  filters: v.filters,
  grouping: v.grouping,
  lens: v.graphLens,
  open: v.graphOpen,
  budget: v.graphBudget,
  nsGroupBy: v.nsGroupBy,
});

/** One slice of a large answer's mapping: tasks of this length leave room for a keystroke and a frame between them. */
export const MAPPING_SLICE_MS = 12;

/**
 * engineSync's prepareDraw: past DEFER_PODS a new answer's graph is mapped with the view's options before the
 * answer is shown, a slice of MAPPING_SLICE_MS per task (graph/pace.ts), so that React's render of it takes the
 * built graph from `graphFor`. The mapping in one go was the page's longest task while typing (30 to 70 ms at
 * 2,000 pods, 80 to 190 ms at 10,000 in Chromium's traces of the bench's edits).
 */
export function prepareGraph(getState: () => AppState): (result: Analysis) => PreparedDraw | undefined {
  return (result) => {
    // A new view's mapping of the older answer would end after this one and take its place as the kept graph.
    stopRemap();
    if (result.pods.length <= DEFER_PODS) return undefined;
    const pace = new Slices(MAPPING_SLICE_MS);
    return sliced(graphForSteps(result, optionsOf(graphView(getState())), pace), pace);
  };
}

/** The graph of this answer and view when built already (by `graphFor`, a prepared draw or a sliced remap). */
export function keptGraph(result: Analysis, options: GraphOptions): GraphModel | undefined {
  return last && drawsAlike(last.result, result) && same(last.options, options) ? last.graph : undefined;
}

/** A new view's mapping under way, a slice per task, shared by every component that shows the graph. */
let remap:
  { result: Analysis; options: GraphOptions; waiting: Set<() => void>; stop: () => void } | undefined;

function stopRemap(): void {
  remap?.stop();
  remap = undefined;
}

/**
 * Maps `result` for `options` a slice of MAPPING_SLICE_MS per task, then calls `done` (and every other
 * component waiting for the same view); a newer view stops it. Returns the unsubscription.
 */
export function remapInSlices(
  result: Analysis,
  options: GraphOptions,
  done: () => void,
  next?: (f: () => void) => void,
): () => void {
  if (!remap || remap.result !== result || !same(remap.options, options)) {
    stopRemap();
    const pace = new Slices(MAPPING_SLICE_MS);
    const run = sliced(graphForSteps(result, options, pace), pace);
    let stopped = false;
    const job = { result, options, waiting: new Set<() => void>(), stop: () => void (stopped = true) };
    remap = job;
    inSlices(
      () => run.step(),
      () => !stopped,
      () => {
        if (remap === job) remap = undefined;
        for (const f of job.waiting) f();
      },
      next,
    );
  }
  const job = remap;
  job.waiting.add(done);
  return () => {
    job.waiting.delete(done);
    if (job.waiting.size === 0 && remap === job) stopRemap();
  };
}

/**
 * The graph on screen. A new view of a large answer already drawn (a namespace opened, a filter, the pane's
 * budget after a banner took its room) keeps the last picture while the new one is mapped in slices, as a new
 * answer is (prepareGraph): built in the render, it held the page 200 to 300 ms at 10,000 pods (the budget's
 * change after the first answer at 1280x720, Chromium's Long Animation Frame entries of a load).
 */
export function useGraph(): GraphModel | undefined {
  return useShownGraph().graph;
}

/** The graph on screen, and whether a newer view of it is being mapped (the canvas says so until it is drawn). */
export function useShownGraph(): { graph: GraphModel | undefined; remapping: boolean } {
  const result = useDrawnResult();
  const view = useApp(useShallow(graphView));
  const [mapped, remapped] = useReducer((n: number) => n + 1, 0);
  const options = useMemo(() => optionsOf(view), [view]);
  const shown = useMemo(() => {
    if (!result) return undefined;
    const kept = keptGraph(result, options);
    if (kept) return { graph: kept, later: false };
    if (result.pods.length > DEFER_PODS && last?.result === result) return { graph: last.graph, later: true };
    return { graph: graphFor(result, options), later: false };
    // `mapped`: a remap has ended, and `last` holds its graph.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [result, options, mapped]);
  useEffect(() => {
    if (!result || !shown?.later) return;
    return remapInSlices(result, options, remapped);
  }, [result, options, shown]);
  return { graph: shown?.graph, remapping: shown?.later ?? false };
}
