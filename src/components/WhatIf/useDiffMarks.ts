/** The current comparison's marks, while the editor still shows the text right after the what-if. */
import { useApp } from "../../store/StoreProvider.tsx";
import type { AppState } from "../../store/types.ts";
import type { InputDiff } from "../../engine/index.ts";
import { diffMarks, type DiffMarks } from "./marks.ts";

const cache = new WeakMap<InputDiff, DiffMarks>();

export function marksOf(s: AppState): DiffMarks | undefined {
  const w = s.whatIf;
  if (w.status !== "ready" || !w.diff || s.text !== w.after) return undefined;
  let m = cache.get(w.diff);
  if (!m) cache.set(w.diff, (m = diffMarks(w.diff)));
  return m;
}

export function useDiffMarks(): DiffMarks | undefined {
  return useApp(marksOf);
}
