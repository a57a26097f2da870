/**
 * An edge's observed rows beside its verdict (each with the engine's case,
 * counts, prediction and tested explanation), and "Allow this edge" / "Deny
 * this edge": the engine's smallest edit with its proof, applied as a
 * what-if. The engine decides every word here.
 */
import { useState } from "react";
import type { EdgeEdit, EdgeEditQuery } from "../../engine/index.ts";
import type { GraphEdge } from "../../graph/model.ts";
import { observedCase, observedText, type ObservedMark } from "../../graph/observedMarks.ts";
import { useApp, useAppStore } from "../../store/StoreProvider.tsx";
import { edgeEditClient, proofLines, runEdgeEdit } from "../WhatIf/edgeEdit.ts";

export function ObservedRows({ mark }: { mark: ObservedMark }) {
  const store = useAppStore();
  return (
    <section aria-label="Observed on this edge" data-testid="edge-observed-rows">
      <h4>
        Observed: {observedCase(mark.case).label} ({observedText(mark)})
      </h4>
      <ul>
        {mark.rows.map((r, i) => (
          <li key={i} data-testid="edge-observed-row" data-case={r.case}>
            <span className="mono">{r.src}</span> → <span className="mono">{r.dst}</span> {r.protocol}/
            {r.port}: seen {r.observed.forwarded} forwarded, {r.observed.dropped} dropped; predicted{" "}
            {r.predicted} ({r.reason}){" "}
            <button
              type="button"
              className="link"
              onClick={() =>
                store
                  .getState()
                  .ask({ from: r.mark.source, to: `${r.mark.target}:${r.port}`, protocol: r.protocol })
              }
            >
              trace
            </button>
            {r.explanation ? <p className="muted">{r.explanation}</p> : null}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The pair an edge's edit is about: an observed row's, else its first flow's. */
function pairOf(edge: GraphEdge, mark: ObservedMark | undefined): Omit<EdgeEditQuery, "want"> | undefined {
  const r = mark?.rows[0];
  if (r) return { from: r.mark.source, to: r.mark.target, port: r.port, protocol: r.protocol };
  const f = edge.flows.find((x) => x.verdict !== "allow") ?? edge.flows[0];
  if (!f) return undefined;
  const m = /^(.*):(\d+)$/.exec(f.traceTo);
  return { from: f.from, to: m ? m[1]! : f.traceTo, port: m ? Number(m[2]) : f.port, protocol: f.protocol };
}

export function EdgeEditActions({ edge, mark }: { edge: GraphEdge; mark: ObservedMark | undefined }) {
  const store = useAppStore();
  const running = useApp((s) => s.whatIf.status === "running");
  const [done, setDone] = useState<EdgeEdit | undefined>(undefined);
  const pair = pairOf(edge, mark);
  if (!pair) return null;
  const run = (want: "allow" | "deny") =>
    void runEdgeEdit(store, edgeEditClient, { ...pair, want }).then((r) => setDone(r));
  return (
    <section aria-label="Edit this edge" data-testid="edge-edit">
      <p>
        <button type="button" disabled={running} data-testid="edge-allow" onClick={() => run("allow")}>
          Allow this edge
        </button>{" "}
        <button type="button" disabled={running} data-testid="edge-deny" onClick={() => run("deny")}>
          Deny this edge
        </button>{" "}
        <span className="muted">
          {pair.from} → {pair.to} {pair.protocol}/{pair.port}
        </span>
      </p>
      {done ? (
        <div role="status" data-testid="edge-edit-proof" data-holds={done.proof?.holds ? "true" : "false"}>
          <p>{done.summary}</p>
          {proofLines(done).map((l, i) => (
            <p key={i}>{l}</p>
          ))}
          {done.added ? <pre className="mono">{done.added}</pre> : null}
        </div>
      ) : null}
    </section>
  );
}
