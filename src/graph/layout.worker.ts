/**
 * ELK runs here, off the main thread: a graph of 2,000 pods never freezes the page.
 * elk.bundled.js installs its own message handler on a worker's `self` when
 * the ELK object is made, so it is made first and ours is set after it.
 */
import ELK from "elkjs/lib/elk.bundled.js";
import type { ElkNode } from "elkjs/lib/elk-api.js";
import { positionsOf, type Positions } from "./layout.ts";

export interface LayoutRequest {
  id: number;
  graph: ElkNode;
}

export type LayoutResponse =
  { id: number; ok: true; positions: Positions } | { id: number; ok: false; error: string };

const elk = new ELK();

const scope = self as unknown as {
  onmessage: ((e: MessageEvent<LayoutRequest>) => void) | null;
  postMessage(m: LayoutResponse): void;
};

scope.onmessage = (e) => {
  const { id, graph } = e.data;
  elk.layout(graph).then(
    (root) => scope.postMessage({ id, ok: true, positions: positionsOf(root) }),
    (err: unknown) =>
      scope.postMessage({ id, ok: false, error: err instanceof Error ? err.message : String(err) }),
  );
};
