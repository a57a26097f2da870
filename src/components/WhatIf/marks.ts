/**
 * A before/after comparison (engine diff, InputDiff) as marks on the graph
 * and the matrix: which edges gained or lost flows, which pods came or went,
 * which matrix cells changed. Pure: the graph and matrix components look
 * marks up by the ids they already use (`data-source`, `data-target`).
 */
import type { InputDiff } from "../../engine/index.ts";
import { graphEndpointId } from "../../engine/analysis/constants.ts";

export type Mark = "gained" | "lost" | "mixed";

export interface DiffMarks {
  /** By `source>target` graph ids. */
  edges: Map<string, Mark>;
  /** Pods added or removed, by graph id. */
  nodes: Map<string, "added" | "removed">;
  /** Matrix cells by `PORT/PROTOCOL|source pod id|destination pod id`. */
  cells: Map<string, "gained" | "lost">;
  summary: string;
}

export const edgeKey = (source: string, target: string): string => `${source}>${target}`;
export const cellKey = (port: number, protocol: string, source: string, target: string): string =>
  `${port}/${protocol}|${source}|${target}`;

function merge(m: Map<string, Mark>, key: string, mark: "gained" | "lost"): void {
  const prev = m.get(key);
  m.set(key, prev === undefined || prev === mark ? mark : "mixed");
}

export function diffMarks(d: InputDiff): DiffMarks {
  const edges = new Map<string, Mark>();
  const cells = new Map<string, "gained" | "lost">();
  const nodes = new Map<string, "added" | "removed">();
  for (const f of d.flows) {
    merge(edges, edgeKey(graphEndpointId(f.from), f.to), f.change);
    if (f.kind === "pod") cells.set(cellKey(f.port, f.protocol, f.from, f.to), f.change);
  }
  for (const e of d.endpoints)
    merge(edges, edgeKey(e.service, e.endpoint), e.change === "appears" ? "gained" : "lost");
  for (const p of d.pods.added) nodes.set(p, "added");
  for (const p of d.pods.removed) nodes.set(p, "removed");
  return { edges, nodes, cells, summary: d.summary };
}
