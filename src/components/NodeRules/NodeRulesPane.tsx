/**
 * The Node rules tab: what `ktl iptables|nft|ipvs --node NAME` prints for one
 * node, computed in the engine worker, and, when a question is asked, the
 * rules its packet matched, numbered in order, each linking to its trace hop.
 * Only the lines in view are rendered, so outputs of thousands of lines scroll
 * smoothly.
 */
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import { useShallow } from "zustand/react/shallow";
import { useApp, useAppStore } from "../../store/StoreProvider.tsx";
import { rulesQueryOf, sameQuestion, sameRulesQuery } from "../../store/viewSlice.ts";
import { markFirstDraw } from "../../store/firstDraw.ts";
import {
  stepTitle,
  type NodeRulesView,
  type RulesMode,
  type TraceHopView,
} from "../../engine/analysis/index.ts";
import type { NodeView, RuleBranchView } from "../../engine/analysis/types.ts";
import { downloadBlob } from "../Export/graphSvg.ts";
import { fileName } from "../Export/format.ts";
import {
  LINE_HEIGHT,
  branchSummary,
  defaultBranch,
  focusLine,
  lineKind,
  lineMarks,
  scrollTopFor,
  visibleRange,
  type LineMark,
} from "./view.ts";

const MODES: { mode: RulesMode; label: string; command: string }[] = [
  { mode: "iptables", label: "iptables", command: "iptables" },
  { mode: "nftables", label: "nftables", command: "nft" },
  { mode: "ipvs", label: "IPVS", command: "ipvs" },
];

const percent = (p: number) => `${Math.round(p * 1000) / 10}%`;

interface Focus {
  line: number;
  nonce: number;
  /** The rules the line number belongs to. */
  of: NodeRulesView;
}

function RuleLines({
  view,
  marks,
  hops,
  focus,
}: {
  view: NodeRulesView;
  marks: Map<number, LineMark>;
  hops: TraceHopView[] | undefined;
  focus: Focus | undefined;
}) {
  const store = useAppStore();
  const box = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [viewport, setViewport] = useState(600);
  const lines = view.lines;
  // Widest line in characters, a tab counting as 4 (the tab-size of .rules-text).
  const width = useMemo(
    () => lines.reduce((w, l) => Math.max(w, l.length + 3 * (l.split("\t").length - 1)), 0),
    [lines],
  );
  // The gutter makes room for step numbers and hop links only when a walk marks lines.
  const gutter = marks.size ? 110 : 52;

  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    setViewport(el.clientHeight);
    const ro = new ResizeObserver(() => setViewport(el.clientHeight));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  useLayoutEffect(() => {
    const el = box.current;
    if (!el || !focus || focus.of !== view) return;
    el.scrollTop = scrollTopFor(focus.line, el.clientHeight, lines.length);
    setScrollTop(el.scrollTop);
  }, [focus, view, lines.length]);

  const { first, last } = visibleRange(scrollTop, viewport, lines.length);
  const rows: React.ReactNode[] = [];
  for (let i = first; i < last; i++) {
    const text = lines[i]!;
    const m = marks.get(i);
    const hop = m?.hop !== undefined ? hops?.[m.hop] : undefined;
    const go = m?.hop !== undefined ? () => store.getState().focusHop(m.hop!) : undefined;
    rows.push(
      <div
        key={i}
        className={`rl ${lineKind(text)}${m ? " lit" : ""}${m?.stop ? " stop" : ""}`}
        style={{ top: i * LINE_HEIGHT }}
        data-line={i + 1}
        data-step={m ? m.steps.join(" ") : undefined}
        data-stop={m?.stop}
        data-hop={m?.hop}
        onClick={go}
      >
        <span className="rl-gutter" style={{ width: gutter }}>
          <span className="rl-no">{i + 1}</span>
          {m ? (
            <button
              type="button"
              className="rl-step"
              disabled={!go}
              title={
                hop
                  ? `Show hop ${m.hop! + 1} (${stepTitle(hop.step)}) of the trace`
                  : "Matched by the request"
              }
              aria-label={`Rule ${m.steps.join(" and ")} of the walk${m.stop ? `, ${m.stop === "drop" ? "dropped" : "rejected"} here` : ""}${hop ? `: show hop ${m.hop! + 1}, ${stepTitle(hop.step)}, in the details` : ""}`}
              onClick={(e) => {
                e.stopPropagation();
                go?.();
              }}
            >
              <span className="num">{m.steps.join(",")}</span>
              {hop ? <span className="hop">hop {m.hop! + 1}</span> : null}
            </button>
          ) : null}
        </span>
        <span className="rl-text">{text}</span>
      </div>,
    );
  }

  return (
    <div
      ref={box}
      className="rules-text mono"
      data-testid="rules-text"
      tabIndex={0}
      role="region"
      aria-label={`${view.mode} rules on ${view.node}, ${lines.length} lines`}
      onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}
    >
      <div
        className="rules-inner"
        style={{ height: lines.length * LINE_HEIGHT, minWidth: `calc(${width + 2}ch + ${gutter}px)` }}
      >
        {rows}
      </div>
    </div>
  );
}

/** Which node's rules, in which proxy mode: the command that prints them, and their download. */
function RulesControls({
  nodes,
  shownNode,
  rulesMode,
  result,
  updating,
}: {
  nodes: readonly NodeView[] | undefined;
  shownNode: string;
  rulesMode: RulesMode;
  result: NodeRulesView | undefined;
  updating: boolean;
}) {
  const store = useAppStore();
  const mode = MODES.find((m) => m.mode === rulesMode)!;
  return (
    <div className="panel-head">
      <label className="filters">
        Node
        <select
          aria-label="Node"
          value={shownNode}
          onChange={(e) => store.getState().setRulesNode(e.target.value || undefined)}
        >
          {!nodes?.some((n) => n.name === shownNode) ? (
            <option value="">{shownNode || "choose…"}</option>
          ) : null}
          {(nodes ?? []).map((n) => (
            <option key={n.id} value={n.name}>
              {n.name}
            </option>
          ))}
        </select>
      </label>
      <span className="filters" role="group" aria-label="Proxy mode">
        {MODES.map((m) => (
          <button
            key={m.mode}
            type="button"
            className="btn small"
            aria-pressed={m.mode === rulesMode}
            onClick={() => store.getState().setRulesMode(m.mode)}
          >
            {m.label}
          </button>
        ))}
      </span>
      <span className="muted" title="The text is exactly what this ktl command prints">
        <code>
          ktl {mode.command} --node {shownNode || "NAME"}
        </code>
        {result && !result.error ? ` · ${result.lines.length} lines` : ""}
        {updating ? " · updating…" : ""}
      </span>
      {result && !result.error ? (
        <button
          type="button"
          className="btn small"
          title="Save the text exactly as ktl prints it"
          onClick={() =>
            downloadBlob(
              new Blob([result.lines.join("\n") + "\n"], { type: "text/plain" }),
              fileName([result.node, MODES.find((m) => m.mode === result.mode)!.command], "txt"),
            )
          }
        >
          Download rules
        </button>
      ) : null}
    </div>
  );
}

/** A question's walk through this node's rules: its branches (DNAT endpoints) and the rules each matched, in order. */
function RulesWalk({
  result,
  branch,
  branchIndex,
  pick,
  goTo,
}: {
  result: NodeRulesView | undefined;
  branch: RuleBranchView | undefined;
  branchIndex: number;
  pick: (index: number) => void;
  goTo: (line: number) => void;
}) {
  const store = useAppStore();
  const walk = result?.walk;
  return (
    <div className="rules-walk" data-testid="rules-walk">
      {result?.walkNote ? <p className="muted">{result.walkNote}.</p> : null}
      {walk ? (
        <>
          <p title={walk.note}>
            <span className="mono">{walk.trace.from}</span> → <span className="mono">{walk.trace.to}</span>:{" "}
            <strong>{branch ? branchSummary(branch) : walk.note}</strong>
            {walk.handledElsewhere ? (
              <>
                {" "}
                <button
                  type="button"
                  className="link"
                  onClick={() => store.getState().setRulesNode(walk.handledElsewhere)}
                >
                  Show {walk.handledElsewhere}'s rules
                </button>
              </>
            ) : null}
          </p>
          {walk.branches.length > 1 ? (
            <div className="filters" role="group" aria-label="Branches">
              {walk.branches.map((b, i) => (
                <button
                  key={i}
                  type="button"
                  className="btn small"
                  aria-pressed={i === branchIndex}
                  onClick={() => pick(i)}
                >
                  {b.endpoint ? `DNAT ${b.endpoint}` : "no DNAT"} · {percent(b.probability)}
                  {b.verdict !== "accept" ? ` · ${b.verdict.toUpperCase()}` : ""}
                </button>
              ))}
            </div>
          ) : null}
          <div className="rules-walk-row">
            {branch ? (
              <ol className="rule-steps" aria-label="Rules matched, in order">
                {branch.steps.map((s, i) => (
                  <li key={i}>
                    <button
                      type="button"
                      className={`rule-chip${i === branch.stoppedAt ? " stop" : ""}`}
                      title={`${s.table} ${s.chain}: ${s.action}${s.chance !== undefined ? ` (${percent(s.chance)})` : ""} — line ${s.line + 1}`}
                      aria-label={`Go to rule ${i + 1}: ${s.table} ${s.chain}, ${s.action}, line ${s.line + 1}`}
                      onClick={() => goTo(s.line)}
                    >
                      {i + 1}
                    </button>
                  </li>
                ))}
              </ol>
            ) : null}
            {walk.packet ? <span className="muted mono">packet {walk.packet}</span> : null}
          </div>
        </>
      ) : null}
    </div>
  );
}

export function NodeRulesPane() {
  const nodes = useApp((s) => s.analysis.result?.nodes);
  const { rulesNode, rulesMode, question } = useApp(
    useShallow((s) => ({ rulesNode: s.rulesNode, rulesMode: s.rulesMode, question: s.question })),
  );
  const { status, result, error, query } = useApp(
    useShallow((s) => ({
      status: s.rules.status,
      result: s.rules.result,
      error: s.rules.error,
      query: s.rules.query,
    })),
  );
  const hops = useApp((s) =>
    s.trace.status === "ready" && s.question && sameQuestion(s.trace.query, s.question)
      ? s.trace.result?.hops
      : undefined,
  );
  const wanted = rulesQueryOf({ rulesNode, rulesMode, question });
  const current = !!result && sameRulesQuery(query, wanted) && status === "ready";

  // A load that opens on this tab is finished when the rules (or their error) are shown: no graph is drawn to say so.
  useEffect(() => {
    if (current || status === "error") markFirstDraw();
  }, [current, status]);

  const walk = result?.walk;
  const [picked, setPicked] = useState<{ of: NodeRulesView; index: number } | undefined>(undefined);
  const branchIndex = picked && picked.of === result ? picked.index : defaultBranch(walk?.branches ?? []);
  const branch = walk?.branches[branchIndex];
  const marks = useMemo(() => lineMarks(branch), [branch]);
  const walkHops = walk && question && sameQuestion(walk.trace, question) ? hops : undefined;

  // Bring the rule that matters into view when a walk (or another branch) arrives; chips move it on request.
  const [focus, setFocus] = useState<Focus | undefined>(undefined);
  const nonce = useRef(0);
  const goTo = (line: number | undefined) => {
    if (line !== undefined && line >= 0 && result) setFocus({ line, nonce: ++nonce.current, of: result });
  };
  useEffect(() => {
    const line = focusLine(branch);
    if (line !== undefined && result) setFocus({ line, nonce: ++nonce.current, of: result });
  }, [branch, result]);

  const shownNode = result?.node ?? rulesNode ?? "";

  return (
    <div
      className="panel rules-pane"
      style={{ flex: 1 }}
      data-testid="node-rules"
      data-status={current ? "ready" : status}
      data-node={result?.node ?? ""}
      data-mode={result?.mode ?? ""}
    >
      <RulesControls
        nodes={nodes}
        shownNode={shownNode}
        rulesMode={rulesMode}
        result={result}
        updating={!current && status === "running"}
      />
      {result?.deprecated ? (
        <p className="muted" role="note" data-testid="rules-deprecated">
          {result.deprecated}.
        </p>
      ) : null}
      {question ? (
        <RulesWalk
          result={result}
          branch={branch}
          branchIndex={branchIndex}
          pick={(index) => result && setPicked({ of: result, index })}
          goTo={goTo}
        />
      ) : null}
      {error ? (
        <p role="alert" className="empty">
          {error}
        </p>
      ) : null}
      {result?.error ? (
        <p role="alert" className="empty">
          {result.error}
        </p>
      ) : null}
      {!result && !error ? <p className="empty">Computing…</p> : null}
      {result && !result.error ? (
        <RuleLines
          key={`${result.mode}\u0000${result.node}`}
          view={result}
          marks={marks}
          hops={walkHops}
          focus={focus}
        />
      ) : null}
    </div>
  );
}
