/**
 * `ktl observe` in the playground: a flow file (Hubble JSON, Calico flow
 * logs, ktl's CSV) opened beside the editor's text and compared with it as
 * `ktl observe` compares (engine/observe decides every row), plus what the
 * page needs to show it: each row's pair as graph ids, so that the edges it
 * crosses can carry the observation.
 */
import type { BuildOptions } from "../load/index.ts";
import type { Model } from "../model/types.ts";
import type { ParseResult } from "../parse/manifests.ts";
import { compareObserved } from "../observe/compare.ts";
import { parseFlows } from "../observe/parse.ts";
import type { ObserveReport, ObservedRow } from "../observe/report.ts";
import type { FlowError } from "../observe/types.ts";

export interface ObserveQuery {
  /** The flow file's text. */
  text: string;
  /** Its name (a `.csv` name reads as CSV). */
  file: string;
}

/** One compared row, with the drawn pair it stands for (graph ids: `pod:NS/NAME`, `service:NS/NAME`). */
export interface ObservedRowView extends ObservedRow {
  mark: { source: string; target: string };
}

export interface ObserveView {
  file: string;
  /** Records that could not be read: nothing is compared while there is one (as `ktl observe` exits 2). */
  errors: FlowError[];
  report?: Omit<ObserveReport, "flows"> & { flows: ObservedRowView[] };
}

/** The asked pair's ends as graph ids: the port of the destination dropped. */
function markOf(row: ObservedRow): { source: string; target: string } {
  return { source: row.asked.src, target: row.asked.dst.replace(/:\d+$/, "") };
}

export function observeFlows(
  input: { parsed: ParseResult; options: BuildOptions; model: Model },
  q: ObserveQuery,
): ObserveView {
  const set = parseFlows([{ name: q.file, text: q.text }]);
  if (set.errors.length) return { file: q.file, errors: set.errors };
  const report = compareObserved(input, set);
  return {
    file: q.file,
    errors: [],
    report: { ...report, flows: report.flows.map((r) => ({ ...r, mark: markOf(r) })) },
  };
}
