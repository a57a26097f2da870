/** The reachability matrix for one port and protocol, by pod or by workload; each cell opens its trace. */
import { useEffect, useLayoutEffect, useRef, useState } from "react";
import { useShallow } from "zustand/react/shallow";
import { useApp, useAppStore } from "../../store/StoreProvider.tsx";
import type { MatrixGranularity, MatrixQuery, MatrixView, Protocol } from "../../engine/analysis/index.ts";
import type { PortView } from "../../engine/analysis/types.ts";
import { useDiffMarks } from "../WhatIf/useDiffMarks.ts";
import { cellKey } from "../WhatIf/marks.ts";
import { downloadConnlist } from "../Export/connlist.ts";
import { moveCell, pageRows, scrollToShow, type Cell } from "./grid.ts";
import { markFirstDraw } from "../../store/firstDraw.ts";

const WORDS: Record<string, string> = { a: "allowed", d: "dropped", p: "partly allowed" };
const TIERS: Record<string, string> = { A: "Admin", B: "Baseline" };

/** A cell's verdict in words, with the tier whose rule dropped it when one did (the engine's `tiers`). */
function cellWords(m: MatrixView, i: number, j: number): string {
  const c = m.cells[i]![j]!;
  const tier = TIERS[m.tiers?.[i]?.[j] ?? "."];
  if (!tier || c === "a") return WORDS[c]!;
  return c === "d" ? `dropped by the ${tier} tier` : `partly allowed (dropped by the ${tier} tier)`;
}

/** A dropped cell that a tier dropped: drawn in the tier's colour, as the graph's tier edges. */
function tierDrop(m: MatrixView, i: number, j: number): boolean {
  const t = m.tiers?.[i]?.[j];
  return m.cells[i]![j] === "d" && !!t && t !== ".";
}

/** A cell's text: its glyph, and the tier's initial after a drop's cross (not colour alone). */
function cellText(m: MatrixView, i: number, j: number): React.ReactNode {
  const c = m.cells[i]![j]!;
  const glyph = c === "a" ? "✓" : c === "d" ? "✕" : "~";
  const t = m.tiers?.[i]?.[j];
  return c !== "a" && t && t !== "." ? (
    <>
      {glyph}
      <span className="cell-tier">{t}</span>
    </>
  ) : (
    glyph
  );
}

/** Past this many rows, the matrix draws only the cells in view (300 pods would be 90,000 buttons). */
export const VIRTUAL_FROM = 60;
const CELL = { w: 26, h: 24 };
const HEAD = { w: 200, h: 150 };

type CellProps = React.ButtonHTMLAttributes<HTMLButtonElement> & Record<string, unknown>;

/** The active cell's button, focused after a key moved it (the window scrolled already: no native scroll there). */
function useFocusActive(box: React.RefObject<HTMLElement | null>, at: Cell, preventScroll: boolean) {
  const pending = useRef(false);
  useLayoutEffect(() => {
    if (!pending.current) return;
    pending.current = false;
    box.current
      ?.querySelector<HTMLElement>(`button.cell[data-row="${at.row}"][data-col="${at.col}"]`)
      ?.focus({ preventScroll });
  }, [box, at.row, at.col, preventScroll]);
  return pending;
}

/**
 * The matrix as a window: a scroll area of the full size, with only the visible rows, columns and cells drawn
 * (and the active cell, which keeps the grid's one tab stop). A WAI-ARIA grid: rows and cells carry their
 * indexes (aria-rowindex, aria-colindex) since most are not in the DOM; keys move the active cell and scroll
 * the window so it is drawn under the sticky headers.
 */
function VirtualMatrix({
  m,
  cellProps,
  active,
  setActive,
}: {
  m: MatrixView;
  cellProps: (i: number, j: number) => CellProps;
  active: Cell;
  setActive(c: Cell): void;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const [view, setView] = useState({ top: 0, left: 0, width: 900, height: 500 });
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const update = () =>
      setView((v) =>
        v.top === el.scrollTop &&
        v.left === el.scrollLeft &&
        v.width === el.clientWidth &&
        v.height === el.clientHeight
          ? v
          : { top: el.scrollTop, left: el.scrollLeft, width: el.clientWidth, height: el.clientHeight },
      );
    update();
    el.addEventListener("scroll", update, { passive: true });
    const ro = typeof ResizeObserver === "undefined" ? undefined : new ResizeObserver(update);
    ro?.observe(el);
    return () => {
      el.removeEventListener("scroll", update);
      ro?.disconnect();
    };
  }, []);
  const n = m.ids.length;
  const focusPendingRef = useFocusActive(ref, active, true);
  const r0 = Math.max(0, Math.floor(view.top / CELL.h) - 2);
  const r1 = Math.min(n, Math.ceil((view.top + view.height - HEAD.h) / CELL.h) + 2);
  const c0 = Math.max(0, Math.floor(view.left / CELL.w) - 2);
  const c1 = Math.min(n, Math.ceil((view.left + view.width - HEAD.w) / CELL.w) + 2);
  const rows: number[] = [];
  for (let i = r0; i < r1; i++) rows.push(i);
  const cols: number[] = [];
  for (let j = c0; j < c1; j++) cols.push(j);
  // The active cell is always drawn, scrolled away or not: it is the grid's tab stop.
  if (active.row < r0 || active.row >= r1) rows.push(active.row);
  const colsOf = (i: number) =>
    i === active.row && (active.col < c0 || active.col >= c1) ? [...cols, active.col] : cols;
  const onKeyDown = (e: React.KeyboardEvent<HTMLDivElement>) => {
    const el = ref.current;
    if (!el || e.altKey || e.shiftKey) return;
    const next = moveCell(active, e, { rows: n, cols: n, page: pageRows(el.clientHeight, HEAD.h, CELL.h) });
    if (!next) return;
    e.preventDefault();
    el.scrollTop = scrollToShow(el.scrollTop, next.row, CELL.h, HEAD.h, el.clientHeight);
    el.scrollLeft = scrollToShow(el.scrollLeft, next.col, CELL.w, HEAD.w, el.clientWidth);
    focusPendingRef.current = true;
    setActive(next);
  };
  return (
    <div
      ref={ref}
      className="matrix-virtual"
      role="grid"
      aria-label={`Reachability on ${m.protocol}/${m.port} by ${m.by}: ${n} × ${n}; arrow keys, Home, End, Page Up and Page Down move between cells, Enter traces one`}
      aria-rowcount={n + 1}
      aria-colcount={n + 1}
      data-rows={n}
      data-drawn-rows={rows.length}
      onKeyDown={onKeyDown}
    >
      <div
        className="mv-space"
        role="presentation"
        style={{ width: HEAD.w + n * CELL.w, height: HEAD.h + n * CELL.h }}
      >
        {rows.map((i) => (
          <div
            key={`r${i}`}
            role="row"
            aria-rowindex={i + 2}
            className="mv-line"
            style={{ top: HEAD.h + i * CELL.h, width: HEAD.w + n * CELL.w, height: CELL.h }}
          >
            <div
              role="rowheader"
              aria-colindex={1}
              className="mv-row"
              title={m.labels[i]}
              style={{ left: view.left, width: HEAD.w, height: CELL.h }}
            >
              {m.labels[i]}
            </div>
            {colsOf(i).map((j) => (
              <div
                key={j}
                role="gridcell"
                aria-colindex={j + 2}
                className="mv-cell"
                style={{ left: HEAD.w + j * CELL.w }}
              >
                <button type="button" {...cellProps(i, j)} />
              </div>
            ))}
          </div>
        ))}
        <div
          role="row"
          aria-rowindex={1}
          className="mv-line"
          style={{ top: view.top, width: HEAD.w + n * CELL.w, height: HEAD.h }}
        >
          <div
            role="columnheader"
            aria-colindex={1}
            className="mv-corner"
            style={{ left: view.left, width: HEAD.w, height: HEAD.h }}
          >
            <span className="visually-hidden">from \ to</span>
          </div>
          {cols.map((j) => (
            <div
              key={`c${j}`}
              role="columnheader"
              aria-colindex={j + 2}
              className="mv-col"
              title={m.labels[j]}
              style={{ left: HEAD.w + j * CELL.w, width: CELL.w, height: HEAD.h }}
            >
              <span>{m.labels[j]}</span>
            </div>
          ))}
        </div>
      </div>
    </div>
  );
}

/** The matrix's question (port, protocol, rows by pod or workload) and the connectivity list's downloads. */
function MatrixControls({
  mq,
  ports,
  tiers,
}: {
  mq: MatrixQuery;
  ports: readonly PortView[] | undefined;
  tiers: boolean;
}) {
  const store = useAppStore();
  const download = async (format: "txt" | "json") => {
    try {
      await downloadConnlist(store, format);
    } catch (e) {
      store.getState().notify({
        kind: "error",
        text: `The download failed: ${e instanceof Error ? e.message : String(e)}.`,
      });
    }
  };

  return (
    <div className="panel-head">
      <label className="filters">
        Port
        <input
          type="number"
          min={1}
          max={65535}
          value={mq.port}
          aria-label="Matrix port"
          style={{ width: 80 }}
          onChange={(e) => {
            const v = Number(e.target.value);
            if (Number.isInteger(v) && v >= 1 && v <= 65535) store.getState().setMatrixQuery({ port: v });
          }}
        />
      </label>
      {ports && ports.length ? (
        <span className="filters" role="group" aria-label="Declared ports">
          {ports.slice(0, 8).map((p) => (
            <button
              key={`${p.port}/${p.protocol}`}
              type="button"
              className="btn small"
              aria-pressed={p.port === mq.port && p.protocol === mq.protocol}
              onClick={() => store.getState().setMatrixQuery({ port: p.port, protocol: p.protocol })}
            >
              {p.port}/{p.protocol}
              {p.name ? ` ${p.name}` : ""}
            </button>
          ))}
        </span>
      ) : null}
      <label className="filters">
        Protocol
        <select
          aria-label="Matrix protocol"
          value={mq.protocol}
          onChange={(e) => store.getState().setMatrixQuery({ protocol: e.target.value as Protocol })}
        >
          <option>TCP</option>
          <option>UDP</option>
          <option>SCTP</option>
        </select>
      </label>
      <label className="filters">
        By
        <select
          aria-label="Matrix rows"
          value={mq.by}
          onChange={(e) => store.getState().setMatrixQuery({ by: e.target.value as MatrixGranularity })}
        >
          <option value="pod">pod</option>
          <option value="workload">workload</option>
        </select>
      </label>
      {mq.by === "workload" ? (
        <span className="filters" role="group" aria-label="Download the connectivity list">
          <span
            className="muted"
            title="Every pair of workloads with the ports they may use, as ktl connlist and netpol-analyzer print it"
          >
            Download connectivity list
          </span>
          <button
            type="button"
            className="btn small"
            aria-label="Download the connectivity list as text"
            onClick={() => void download("txt")}
          >
            .txt
          </button>
          <button
            type="button"
            className="btn small"
            aria-label="Download the connectivity list as JSON"
            onClick={() => void download("json")}
          >
            .json
          </button>
        </span>
      ) : null}
      <span className="muted">Rows send, columns receive, by pod IP. Click a cell to trace it.</span>
      {tiers ? (
        <span className="muted" data-testid="matrix-tier-key">
          ✕A: dropped by the Admin tier, ✕B: by the Baseline tier (no NetworkPolicy decided).
        </span>
      ) : null}
    </div>
  );
}

export function MatrixPane() {
  const store = useAppStore();
  const mq = useApp((s) => s.matrixQuery);
  const ports = useApp((s) => s.analysis.result?.ports);
  const { status, result, error } = useApp(
    useShallow((s) => ({ status: s.matrix.status, result: s.matrix.result, error: s.matrix.error })),
  );
  const question = useApp((s) => s.question);
  const marks = useDiffMarks();
  const m =
    result && result.port === mq.port && result.protocol === mq.protocol && result.by === mq.by
      ? result
      : undefined;

  // A load that opens on this tab is finished when the matrix (or its error) is shown: no graph is drawn to say so.
  useEffect(() => {
    if (m || status === "error") markFirstDraw();
  }, [m, status]);

  // The grid's one tab stop: the cell the keys move (kept inside the matrix when it shrinks).
  const [activeCell, setActive] = useState<Cell>({ row: 0, col: 0 });
  const n = m?.ids.length ?? 0;
  const active = {
    row: Math.max(0, Math.min(n - 1, activeCell.row)),
    col: Math.max(0, Math.min(n - 1, activeCell.col)),
  };
  const tableRef = useRef<HTMLTableElement>(null);
  const tableFocusRef = useFocusActive(tableRef, active, false);

  const open = (pair: [string, string]) => {
    store.getState().ask({ from: pair[0], to: `${pair[1]}:${mq.port}`, protocol: mq.protocol });
  };

  /** One cell's button: verdict, what-if mark, its trace on click (and Enter), and the grid's roving tab stop. */
  const cellProps = (mv: MatrixView, i: number, j: number): CellProps => {
    const c = mv.cells[i]![j]!;
    const pair = mv.pairs[i]![j]!;
    const pressed = question?.from === pair[0] && question.to === `${pair[1]}:${mv.port}`;
    const change = marks?.cells.get(cellKey(mv.port, mv.protocol, mv.ids[i]!, mv.ids[j]!));
    return {
      className: `cell ${c}${tierDrop(mv, i, j) ? " tier" : ""}${change ? ` diff-${change}` : ""}`,
      "data-diff": change ?? "",
      "data-from": mv.ids[i],
      "data-to": mv.ids[j],
      "data-verdict": c === "a" ? "allow" : c === "d" ? "drop" : "partial",
      "aria-pressed": pressed,
      "data-tier": mv.tiers?.[i]?.[j] ?? "",
      "aria-label": `${mv.labels[i]} to ${mv.labels[j]}: ${cellWords(mv, i, j)}${change ? ` (${change} by the what-if)` : ""}`,
      title: `${mv.labels[i]} → ${mv.labels[j]}: ${cellWords(mv, i, j)}`,
      onClick: () => open(pair),
      onFocus: () => (active.row === i && active.col === j ? undefined : setActive({ row: i, col: j })),
      tabIndex: active.row === i && active.col === j ? 0 : -1,
      "data-row": i,
      "data-col": j,
      children: cellText(mv, i, j),
    };
  };

  return (
    <div className="panel" style={{ flex: 1 }}>
      <MatrixControls mq={mq} ports={ports} tiers={!!m?.tiers} />
      <div className="matrix-wrap" data-testid="matrix" data-status={status}>
        {error ? <p role="alert">{error}</p> : null}
        {!m && !error ? <p className="muted">Computing…</p> : null}
        {m?.tooLarge ? <p role="status">{m.tooLarge}</p> : null}
        {m && !m.tooLarge && m.ids.length > VIRTUAL_FROM ? (
          <VirtualMatrix
            m={m}
            cellProps={(i, j) => cellProps(m, i, j)}
            active={active}
            setActive={setActive}
          />
        ) : null}
        {m && !m.tooLarge && m.ids.length <= VIRTUAL_FROM ? (
          <table
            ref={tableRef}
            className="matrix"
            role="grid"
            aria-label={`Reachability on ${m.protocol}/${m.port} by ${m.by}; arrow keys, Home, End, Page Up and Page Down move between cells, Enter traces one`}
            onKeyDown={(e) => {
              if (e.altKey || e.shiftKey) return;
              const next = moveCell(active, e, { rows: n, cols: n, page: 10 });
              if (!next) return;
              e.preventDefault();
              tableFocusRef.current = true;
              setActive(next);
            }}
          >
            <thead>
              <tr>
                <th scope="col">
                  <span className="visually-hidden">from \ to</span>
                </th>
                {m.labels.map((l, j) => (
                  <th key={m.ids[j]} scope="col" title={l}>
                    {l}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {m.cells.map((_row, i) => (
                <tr key={m.ids[i]}>
                  <th scope="row" title={m.labels[i]}>
                    {m.labels[i]}
                  </th>
                  {m.ids.map((id, j) => (
                    <td key={id}>
                      <button type="button" {...cellProps(m, i, j)} />
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
      </div>
    </div>
  );
}
