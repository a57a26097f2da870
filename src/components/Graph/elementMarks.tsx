/**
 * What the workshop and the lessons mark on the drawn elements (a what-if's changes, presenter mode's
 * current hop, verdicts hidden before a lesson's reveal), read from the store once for the whole graph.
 *
 * Each edge and box subscribed to the store for these itself until 2026-12-07: three subscriptions an
 * edge, so every change of the store (several per keystroke: the text, the analysis's steps, its answer)
 * ran about 2,300 selectors at 10,000 pods (754 edges drawn), 25 to 50 ms of the page's thread per
 * keystroke in Chromium profiles. Now the canvas subscribes and hands the marks down; an element renders
 * again only when a mark changes.
 */
import { createContext, useContext, useMemo, type ReactNode } from "react";
import { useApp } from "../../store/StoreProvider.tsx";
import { marksOf } from "../WhatIf/useDiffMarks.ts";
import type { DiffMarks } from "../WhatIf/marks.ts";
import { focusListOf } from "../Presenter/usePresenter.ts";
import { verdictsHidden } from "../Lessons/predict.ts";

export interface ElementMarks {
  /** The what-if's marks, while the editor still shows the text right after it. */
  diff: DiffMarks | undefined;
  /** The elements presenter mode lights now; undefined when it lights nothing. */
  focused: ReadonlySet<string> | undefined;
  /** A lesson before its reveal: verdicts are not shown. */
  hidden: boolean;
}

const NONE: ElementMarks = { diff: undefined, focused: undefined, hidden: false };
const Marks = createContext<ElementMarks>(NONE);

export function ElementMarksProvider({ children }: { children: ReactNode }) {
  const diff = useApp(marksOf);
  const focus = useApp(focusListOf);
  const hidden = useApp(verdictsHidden);
  const focused = useMemo(() => (focus ? new Set(focus) : undefined), [focus]);
  const value = useMemo(() => ({ diff, focused, hidden }), [diff, focused, hidden]);
  return <Marks.Provider value={value}>{children}</Marks.Provider>;
}

export function useElementMarks(): ElementMarks {
  return useContext(Marks);
}
