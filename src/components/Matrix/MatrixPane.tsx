/** The reachability matrix for one port and protocol, by pod or by workload; each cell opens its trace. */
import { useShallow } from "zustand/react/shallow";
import { useApp, useAppStore } from "../../store/StoreProvider.tsx";
import type { MatrixGranularity, Protocol } from "../../engine/analysis/index.ts";
import { useDiffMarks } from "../WhatIf/useDiffMarks.ts";
import { cellKey } from "../WhatIf/marks.ts";
import { downloadConnlist } from "../Export/connlist.ts";

const WORDS: Record<string, string> = { a: "allowed", d: "dropped", p: "partly allowed" };

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

  const open = (pair: [string, string]) => {
    store.getState().ask({ from: pair[0], to: `${pair[1]}:${mq.port}`, protocol: mq.protocol });
  };

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
    <div className="panel" style={{ flex: 1 }}>
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
      </div>
      <div className="matrix-wrap" data-testid="matrix" data-status={status}>
        {error ? <p role="alert">{error}</p> : null}
        {!m && !error ? <p className="muted">Computing…</p> : null}
        {m?.tooLarge ? <p role="status">{m.tooLarge}</p> : null}
        {m && !m.tooLarge ? (
          <table className="matrix" aria-label={`Reachability on ${m.protocol}/${m.port} by ${m.by}`}>
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
              {m.cells.map((row, i) => (
                <tr key={m.ids[i]}>
                  <th scope="row" title={m.labels[i]}>
                    {m.labels[i]}
                  </th>
                  {[...row].map((c, j) => {
                    const pair = m.pairs[i]![j]!;
                    const pressed = question?.from === pair[0] && question.to === `${pair[1]}:${m.port}`;
                    const change = marks?.cells.get(cellKey(m.port, m.protocol, m.ids[i]!, m.ids[j]!));
                    return (
                      <td key={m.ids[j]}>
                        <button
                          type="button"
                          className={`cell ${c}${change ? ` diff-${change}` : ""}`}
                          data-diff={change ?? ""}
                          data-from={m.ids[i]}
                          data-to={m.ids[j]}
                          data-verdict={c === "a" ? "allow" : c === "d" ? "drop" : "partial"}
                          aria-pressed={pressed}
                          aria-label={`${m.labels[i]} to ${m.labels[j]}: ${WORDS[c]}${change ? ` (${change} by the what-if)` : ""}`}
                          title={`${m.labels[i]} → ${m.labels[j]}: ${WORDS[c]}`}
                          onClick={() => open(pair)}
                        >
                          {c === "a" ? "✓" : c === "d" ? "✕" : "~"}
                        </button>
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
      </div>
    </div>
  );
}
