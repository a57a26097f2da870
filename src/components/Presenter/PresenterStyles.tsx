/**
 * Marks on graph nodes by id, without touching the node renderers: the
 * presenter's current hop (lit, the rest dimmed) and pods a what-if added.
 * Rules select `.react-flow__node[data-id="…"]`, the ids the graph already carries.
 */
import { useApp } from "../../store/StoreProvider.tsx";
import { stepsOf } from "./usePresenter.ts";
import { useDiffMarks } from "../WhatIf/useDiffMarks.ts";

const sel = (id: string) => `.react-flow__node[data-id="${id.replace(/["\\]/g, "\\$&")}"]`;

export function PresenterStyles() {
  const presenting = useApp((s) => s.presenting);
  const step = useApp((s) => s.presenterStep);
  const steps = useApp(stepsOf);
  const marks = useDiffMarks();
  const rules: string[] = [];
  const focus = presenting && step >= 0 ? steps[step]?.focus : undefined;
  if (focus) {
    rules.push(".app.presenting .react-flow__node .rf-leaf { opacity: 0.3; }");
    for (const id of focus)
      rules.push(
        `.app.presenting ${sel(id)} .rf-leaf { opacity: 1; outline: 3px solid var(--accent); outline-offset: 3px; }`,
        `.app.presenting ${sel(id)} .rf-node { outline: 3px solid var(--accent); }`,
      );
  }
  if (marks)
    for (const [id, kind] of marks.nodes)
      if (kind === "added") rules.push(`${sel(id)} .rf-leaf { box-shadow: 0 0 0 3px var(--allow); }`);
  if (rules.length === 0) return null;
  return (
    <style data-testid="workshop-styles" data-focus={focus ? focus.join(" ") : ""}>
      {rules.join("\n")}
    </style>
  );
}
