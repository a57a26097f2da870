/**
 * Positions for a graph, computed by ELK in a worker. A graph whose
 * structure did not change (an edit that only turns verdicts) reuses the
 * positions at once; a new structure keeps the previous picture on screen
 * until its layout arrives, so nodes never jump through an empty frame.
 */
import { useEffect, useMemo, useState } from "react";
import { layeredLayout } from "../../graph/layered.ts";
import LayoutWorker from "../../graph/layout.worker.ts?worker";
import { createLayoutClient, type LayoutClient } from "../../graph/layoutClient.ts";
import { toElkGraph, type Positions } from "../../graph/layout.ts";
import type { GraphModel } from "../../graph/model.ts";
import { firstDraw } from "../../store/firstDraw.ts";

let client: LayoutClient | undefined;
const cache = new Map<string, Positions>();
const CACHE_SIZE = 12;

function layoutClient(): LayoutClient {
  client ??= createLayoutClient(() => new LayoutWorker());
  return client;
}

/** Past this many characters, ELK starts only when the topology lens asks for it. */
const WARM_BELOW = 200_000;

/**
 * Starts the layout worker (ELK is a large script) before the topology lens asks for a layout. With the
 * topology lens on, at once, so that its first layout does not wait for ELK; with the paths lens (the
 * default, laid out here), after the first draw, and for a large text not at all: on a two-core machine
 * ELK's start took a core from the engine's first analysis (S load to drawn graph about 0.2 s later).
 */
export function warmLayout(textLength = 0, topology = false): void {
  const warm = () =>
    void layoutClient().layout({ id: "root", children: [{ id: "warm", width: 10, height: 10 }] });
  if (topology) warm();
  else if (textLength < WARM_BELOW) void firstDraw.then(warm);
}

function remember(key: string, p: Positions) {
  cache.delete(key);
  cache.set(key, p);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
}

/**
 * The paths lens's last places: a new structure is laid out keeping them; the same structure (a verdict
 * edit) keeps the picture as it is. A new pane size (the panel dragged, a notice bar shown) lays the picture
 * out afresh for it: a layout made for the old pane may run past the new one's edge at a legible zoom.
 */
class PathPlaces {
  private last: { key: string; pane: string; positions: Positions; budget: number | undefined } | undefined;

  layout(
    g: GraphModel,
    aspect: number,
    maxRows: number | undefined,
    pane: { width: number; height: number } | undefined,
  ): Positions {
    const paneKey = pane ? `${pane.width}x${pane.height}` : "";
    if (this.last?.key === g.structureKey && this.last.pane === paneKey) return this.last.positions;
    // Places are kept across edits, not across a new pane size (nor a new budget, which follows it).
    const last = this.last;
    const previous = last && last.budget === g.budget && last.pane === paneKey ? last.positions : undefined;
    const positions = layeredLayout(g, {
      aspect,
      maxRows,
      previous,
      ...(pane ? { paneWidth: pane.width, paneHeight: pane.height } : {}),
    });
    this.last = { key: g.structureKey, pane: paneKey, positions, budget: g.budget };
    return positions;
  }
}

export interface Displayed {
  graph: GraphModel;
  positions: Positions;
}

/**
 * The paths lens lays out synchronously (a few elements, by budget), keeping
 * the previous picture's places; the topology lens asks ELK in its worker.
 */
export function useLayout(
  graph: GraphModel | undefined,
  aspect = 1.5,
  maxRows?: number,
  pane?: { width: number; height: number },
): { displayed: Displayed | undefined; error: string | undefined; pending: boolean } {
  const [state, setState] = useState<{ displayed: Displayed | undefined; error: string | undefined }>({
    displayed: undefined,
    error: undefined,
  });
  const paths = graph?.lens === "paths" ? graph : undefined;
  const [memory] = useState(() => new PathPlaces());
  const pathPositions = useMemo(
    () => (paths ? memory.layout(paths, aspect, maxRows, pane) : undefined),
    [memory, paths, aspect, maxRows, pane],
  );
  // The topology lens's layout takes the pane's shape (its cluster block): one per structure and shape.
  const elkKey = graph ? `${graph.structureKey}@${aspect.toFixed(1)}` : "";
  const cached = graph ? (paths ? pathPositions : cache.get(elkKey)) : undefined;

  useEffect(() => {
    if (!graph || graph.lens === "paths" || cache.has(elkKey)) return;
    let live = true;
    layoutClient()
      .layout(toElkGraph(graph, Number(elkKey.slice(elkKey.lastIndexOf("@") + 1))))
      .then(
        (positions) => {
          if (!positions) return;
          remember(elkKey, positions);
          if (live) setState({ displayed: { graph, positions }, error: undefined });
        },
        (e: unknown) => {
          if (live)
            setState((s) => ({
              ...s,
              error: `The graph layout failed: ${e instanceof Error ? e.message : String(e)}`,
            }));
        },
      );
    return () => {
      live = false;
    };
  }, [graph, elkKey]);

  if (graph && cached) return { displayed: { graph, positions: cached }, error: undefined, pending: false };
  return { displayed: state.displayed, error: state.error, pending: graph !== undefined };
}
