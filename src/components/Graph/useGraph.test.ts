import { describe, expect, it } from "vitest";
import { analyzeText } from "../../engine/analysis/index.ts";
import { defaultScenario } from "../../../scenarios/index.ts";
import { buildGraph } from "../../graph/build.ts";
import type { GraphOptions } from "../../graph/model.ts";
import type { Filters } from "../../store/types.ts";
import type { AppState } from "../../store/types.ts";
import { graphFor, keptGraph, prepareGraph, remapInSlices } from "./useGraph.ts";

const all: Filters = { hiddenNamespaces: [], port: "all", onlyDrops: false };
const shop = analyzeText(defaultScenario().manifests);
const view = (o: Partial<GraphOptions> = {}): GraphOptions => ({ filters: all, grouping: "auto", ...o });

/** A task queue run by hand: each `run()` runs the tasks queued so far, one task each. */
function tasks() {
  const queue: (() => void)[] = [];
  return {
    next: (f: () => void) => void queue.push(f),
    run: () => queue.splice(0).forEach((f) => f()),
    get size() {
      return queue.length;
    },
  };
}

describe("a new view mapped in slices while the last picture stays (useGraph remapInSlices)", () => {
  it("maps in tasks of its own, then keeps the graph for the view and tells every waiting component", () => {
    graphFor(shop, view());
    const drops = view({ filters: { ...all, onlyDrops: true } });
    expect(keptGraph(shop, drops)).toBeUndefined();
    const q = tasks();
    let told = 0;
    remapInSlices(shop, drops, () => told++, q.next);
    // A second component waiting for the same view joins the job rather than starting another.
    remapInSlices(shop, drops, () => told++, q.next);
    expect(told).toBe(0);
    expect(keptGraph(shop, drops)).toBeUndefined();
    let ran = 0;
    while (q.size > 0 && ran < 10_000) {
      q.run();
      ran++;
    }
    expect(told).toBe(2);
    const kept = keptGraph(shop, drops);
    expect(kept).toBeDefined();
    expect(kept!.edges.map((e) => [e.source, e.target, e.verdict])).toEqual(
      buildGraph(shop, drops).edges.map((e) => [e.source, e.target, e.verdict]),
    );
  });

  it("a newer view stops the older one's mapping; one left by every component stops too", () => {
    graphFor(shop, view());
    const q = tasks();
    let older = 0;
    let newer = 0;
    const a = view({ grouping: "namespace" });
    const b = view({ grouping: "pod" });
    remapInSlices(shop, a, () => older++, q.next);
    remapInSlices(shop, b, () => newer++, q.next);
    for (let i = 0; i < 10_000 && q.size > 0; i++) q.run();
    expect(older).toBe(0);
    expect(newer).toBe(1);
    expect(keptGraph(shop, b)).toBeDefined();
    // Left before it ended: nothing is told, and the view is not kept.
    const c = view({ grouping: "workload" });
    let left = 0;
    const leave = remapInSlices(shop, c, () => left++, q.next);
    leave();
    for (let i = 0; i < 10_000 && q.size > 0; i++) q.run();
    expect(left).toBe(0);
    expect(keptGraph(shop, c)).toBeUndefined();
  });

  it("a new answer stops a new view's mapping of the older one, which would end later and be kept instead", () => {
    graphFor(shop, view());
    const q = tasks();
    let told = 0;
    const byNamespace = view({ grouping: "namespace" });
    remapInSlices(shop, byNamespace, () => told++, q.next);
    prepareGraph(() => ({}) as AppState)(analyzeText(defaultScenario().manifests));
    for (let i = 0; i < 10_000 && q.size > 0; i++) q.run();
    expect(told).toBe(0);
    expect(keptGraph(shop, byNamespace)).toBeUndefined();
  });
});
