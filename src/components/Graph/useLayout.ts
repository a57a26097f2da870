/**
 * Positions for a graph, computed by ELK in a worker. A graph whose
 * structure did not change (an edit that only turns verdicts) reuses the
 * positions at once; a new structure keeps the previous picture on screen
 * until its layout arrives, so nodes never jump through an empty frame.
 */
import { useEffect, useState } from "react";
import LayoutWorker from "../../graph/layout.worker.ts?worker";
import { createLayoutClient, type LayoutClient } from "../../graph/layoutClient.ts";
import { toElkGraph, type Positions } from "../../graph/layout.ts";
import type { GraphModel } from "../../graph/model.ts";

let client: LayoutClient | undefined;
const cache = new Map<string, Positions>();
const CACHE_SIZE = 12;

function layoutClient(): LayoutClient {
  client ??= createLayoutClient(() => new LayoutWorker());
  return client;
}

/** Starts the layout worker (ELK is a large script) while the engine analyses, so the first layout does not wait for it. */
export function warmLayout(): void {
  void layoutClient().layout({ id: "root", children: [{ id: "warm", width: 10, height: 10 }] });
}

function remember(key: string, p: Positions) {
  cache.delete(key);
  cache.set(key, p);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
}

export interface Displayed {
  graph: GraphModel;
  positions: Positions;
}

export function useLayout(graph: GraphModel | undefined): { displayed: Displayed | undefined; error: string | undefined; pending: boolean } {
  const [state, setState] = useState<{ displayed: Displayed | undefined; error: string | undefined }>({ displayed: undefined, error: undefined });
  const cached = graph ? cache.get(graph.structureKey) : undefined;

  useEffect(() => {
    if (!graph || cache.has(graph.structureKey)) return;
    let live = true;
    layoutClient()
      .layout(toElkGraph(graph))
      .then(
        (positions) => {
          if (!positions) return;
          remember(graph.structureKey, positions);
          if (live) setState({ displayed: { graph, positions }, error: undefined });
        },
        (e: unknown) => {
          if (live) setState((s) => ({ ...s, error: `The graph layout failed: ${e instanceof Error ? e.message : String(e)}` }));
        },
      );
    return () => {
      live = false;
    };
  }, [graph]);

  if (graph && cached) return { displayed: { graph, positions: cached }, error: undefined, pending: false };
  return { displayed: state.displayed, error: state.error, pending: graph !== undefined };
}
