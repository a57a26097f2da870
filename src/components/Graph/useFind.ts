import { useCallback, useEffect, useRef } from "react";
import { useReactFlow } from "@xyflow/react";
import type { AppStore } from "../../store/createAppStore.ts";
import { drawnAs, type Match } from "../../graph/search.ts";
import type { Displayed } from "./useLayout.ts";
import { selectionOf } from "./selectionOf.ts";

/** Find: the element (or what folds it) is centred and selected; when its fold had to open, once the new graph is drawn. */
export function useFind(displayed: Displayed | undefined, store: AppStore): (m: Match) => void {
  const { getViewport, setCenter } = useReactFlow();
  const seek = useRef<string[] | undefined>(undefined);
  const centre = useCallback(
    (ids: readonly string[]): boolean => {
      if (!displayed) return false;
      const byId = new Map(displayed.graph.nodes.map((n) => [n.id, n]));
      const id = drawnAs(displayed.graph, ids);
      if (!id) return false;
      const sel = selectionOf(byId.get(id)!.kind, id);
      if (sel) store.getState().select(sel);
      const p = displayed.positions[id];
      // After the fit a new structure gets (next frame).
      if (p)
        setTimeout(
          () =>
            void setCenter(p.x + p.width / 2, p.y + p.height / 2, {
              zoom: Math.max(getViewport().zoom, 1),
              duration: 200,
            }),
          80,
        );
      return true;
    },
    [displayed, store, setCenter, getViewport],
  );
  const onFind = useCallback(
    (m: Match) => {
      const closed = m.opens.filter((k) => store.getState().graphOpen[k] !== true);
      for (const k of closed) store.getState().setGraphOpen(k, true);
      if (closed.length === 0 && centre(m.ids)) return;
      seek.current = m.ids;
    },
    [store, centre],
  );
  useEffect(() => {
    if (seek.current && centre(seek.current)) seek.current = undefined;
  }, [centre]);
  return onFind;
}
