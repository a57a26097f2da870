/**
 * Marks on graph nodes by id, without touching the node renderers: the
 * presenter's current hop (lit, the rest dimmed) and pods a what-if added.
 * Rules select `.react-flow__node[data-id="…"]`, the ids the graph already carries.
 * A hop about a pod that the paths view folds into its workload or namespace
 * lights that element instead (the graph's own leaf resolver).
 */
import { useApp } from "../../store/StoreProvider.tsx";
import { stepsOf } from "./usePresenter.ts";
import { useDiffMarks } from "../WhatIf/useDiffMarks.ts";
import { useGraph } from "../Graph/GraphCanvas.tsx";
import { leafResolver } from "../../graph/model.ts";

const q = (id: string) => `"${id.replace(/["\\]/g, "\\$&")}"`;
const sel = (id: string) => `.react-flow__node[data-id=${q(id)}]`;

/** The presenter's focus, resolved to the elements the graph draws (mounted only while a hop is shown). */
function FocusStyles({ focus }: { focus: readonly string[] }) {
  const graph = useGraph();
  const resolve = graph ? leafResolver(graph) : (id: string) => id;
  const shown = [...new Set(focus.map((id) => resolve(id) ?? id))];
  const rules = [
    ".app.presenting .react-flow__node .rf-leaf, .app.presenting .react-flow__node .rf-path:not(.namespace) { opacity: 0.3; }",
  ];
  for (const id of shown)
    rules.push(
      `.app.presenting ${sel(id)} .rf-leaf, .app.presenting ${sel(id)} .rf-path { opacity: 1; outline: 4px solid var(--accent); outline-offset: 3px; box-shadow: 0 0 0 10px color-mix(in srgb, var(--accent) 30%, transparent); }`,
      `.app.presenting ${sel(id)} .rf-node { outline: 3px solid var(--accent); }`,
    );
  for (const a of shown)
    for (const b of shown)
      if (a !== b)
        rules.push(
          `.app.presenting .ktl-edge[data-source=${q(a)}][data-target=${q(b)}] path.edge-line { stroke-width: 4.5; }`,
        );
  return (
    <style data-testid="presenter-focus" data-shown={shown.join(" ")}>
      {rules.join("\n")}
    </style>
  );
}

export function PresenterStyles() {
  const presenting = useApp((s) => s.presenting);
  const step = useApp((s) => s.presenterStep);
  const steps = useApp(stepsOf);
  const marks = useDiffMarks();
  const rules: string[] = [];
  const focus = presenting && step >= 0 ? steps[step]?.focus : undefined;
  if (marks)
    for (const [id, kind] of marks.nodes)
      if (kind === "added") rules.push(`${sel(id)} .rf-leaf { box-shadow: 0 0 0 3px var(--allow); }`);
  if (rules.length === 0 && !focus) return null;
  return (
    <>
      <style data-testid="workshop-styles" data-focus={focus ? focus.join(" ") : ""}>
        {rules.join("\n")}
      </style>
      {focus ? <FocusStyles focus={focus} /> : null}
    </>
  );
}
