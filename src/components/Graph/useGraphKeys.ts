import { useCallback, type RefObject } from "react";
import { useReactFlow } from "@xyflow/react";
import type { AppStore } from "../../store/createAppStore.ts";
import { CONTAINER_KINDS } from "../../graph/model.ts";
import { graphKeyAction, nextByArrow } from "../../graph/keyboard.ts";
import type { Displayed } from "./useLayout.ts";
import { askEdge } from "./ask.ts";
import { selectionOf } from "./selectionOf.ts";

/** The graph is one tab stop: arrow keys move between elements, + and − open and fold, [ and ] step through the selected element's edges. */
export function useGraphKeys(
  displayed: Displayed | undefined,
  store: AppStore,
  wrapRef: RefObject<HTMLDivElement | null>,
  setHoveredEdge: (id: string | undefined) => void,
): (ev: React.KeyboardEvent) => void {
  const { getViewport, setCenter } = useReactFlow();
  return useCallback(
    (ev: React.KeyboardEvent) => {
      if (!displayed || (ev.target as HTMLElement).closest("input, select, textarea")) return;
      const action = graphKeyAction(ev.key);
      if (!action) return;
      const g = displayed.graph;
      const cur = store.getState().selection;
      const curId = cur && cur.kind !== "question" ? cur.id : undefined;
      const leaves = g.nodes.filter((n) => !CONTAINER_KINDS.has(n.kind));
      const absolute = (id: string) => {
        let x = 0;
        let y = 0;
        const byId = new Map(g.nodes.map((n) => [n.id, n]));
        for (let n = byId.get(id); n; n = n.parent ? byId.get(n.parent) : undefined) {
          const p = displayed.positions[n.id];
          x += p?.x ?? 0;
          y += p?.y ?? 0;
        }
        const p = displayed.positions[id];
        return { x, y, width: p?.width ?? 0, height: p?.height ?? 0 };
      };
      ev.preventDefault();
      if (action.kind === "clear") {
        store.getState().select(undefined);
        return;
      }
      const node = curId ? g.nodes.find((n) => n.id === curId) : undefined;
      if (action.kind === "move") {
        const boxes = leaves.map((n) => ({ id: n.id, ...absolute(n.id) }));
        const next = nextByArrow(boxes, node?.id, action.dir);
        if (!next) return;
        const sel = selectionOf(g.nodes.find((n) => n.id === next)?.kind, next);
        if (sel) store.getState().select(sel);
        const b = absolute(next);
        const vp = getViewport();
        const r = wrapRef.current?.getBoundingClientRect();
        const sx = b.x * vp.zoom + vp.x;
        const sy = b.y * vp.zoom + vp.y;
        if (
          r &&
          (sx < 0 || sy < 0 || sx + b.width * vp.zoom > r.width || sy + b.height * vp.zoom > r.height - 40)
        )
          void setCenter(b.x + b.width / 2, b.y + b.height / 2, { zoom: vp.zoom, duration: 150 });
        return;
      }
      if (action.kind === "open" || action.kind === "fold" || action.kind === "toggle") {
        if (!node) return;
        const key =
          action.kind === "fold"
            ? node.fold
            : action.kind === "open"
              ? node.toggle
              : (node.toggle ?? node.fold);
        if (key) store.getState().setGraphOpen(key, key === node.toggle);
        return;
      }
      if (action.kind === "edge" && node) {
        const own = g.edges.filter((e) => e.source === node.id || e.target === node.id);
        if (!own.length) return;
        const at = cur?.kind === "edge" ? own.findIndex((e) => e.id === cur.id) : -1;
        const e = own[(at + action.step + own.length) % own.length]!;
        askEdge(store, e);
        store.getState().select({ kind: "edge", id: e.id });
        setHoveredEdge(e.id);
      }
    },
    [displayed, store, getViewport, setCenter, wrapRef, setHoveredEdge],
  );
}
