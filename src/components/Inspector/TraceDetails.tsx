import { useEffect, useRef } from "react";
import { useShallow } from "zustand/react/shallow";
import { useApp, useAppStore } from "../../store/StoreProvider.tsx";
import { sameQuestion } from "../../store/viewSlice.ts";
import { LineLink, RefLink } from "./RefLink.tsx";
import { runWhatIf } from "../WhatIf/run.ts";
import { whatIfClient } from "../WhatIf/client.ts";
import {
  nearMissEditText,
  nearMissesOf,
  reasonAfterVerdict,
  sourceAddressText,
  stepTitle,
  type TraceHopView,
  type TraceQuery,
  type TraceView,
  type Verdict,
  type WorkloadAnswerView,
} from "../../engine/analysis/index.ts";

const VERDICT_WORDS: Record<Verdict, string> = {
  allow: "Allowed",
  drop: "Dropped",
  partial: "Partly allowed",
};

export function VerdictBadge({ verdict }: { verdict: string }) {
  const word =
    verdict in VERDICT_WORDS ? VERDICT_WORDS[verdict as Verdict] : verdict === "pass" ? "pass" : verdict;
  return <span className={`verdict ${verdict}`}>{word}</span>;
}

/**
 * What would allow a dropped connection but for one condition, first on the
 * panel, each with its two lines and the edit: NetworkPolicy rules one label,
 * namespace or port away, and Services whose selector, targetPort or traffic
 * policy leaves kube-proxy without an endpoint. The engine gives each edit as
 * a what-if action; "Try this edit" runs it as one (the graph then shows what
 * changed, and the question is answered again over the edited text).
 */
function NearMisses({ hops }: { hops: TraceHopView[] }) {
  const store = useAppStore();
  const running = useApp((s) => s.whatIf.status === "running");
  const misses = nearMissesOf(hops);
  if (!misses.length) return null;
  return (
    <div className="near-misses" data-testid="near-misses">
      <h4>Closest {misses.some((m) => "policy" in m) ? "rules" : "fixes"} that would allow it</h4>
      <ul>
        {misses.map((m, i) => (
          <li key={i} data-testid="near-miss" data-condition={m.condition}>
            <span>{m.text}.</span>{" "}
            <LineLink line={m.ruleRef.line}>
              {"policy" in m
                ? "the rule"
                : `${m.ruleRef.kind} ${m.ruleRef.namespace ?? ""}/${m.ruleRef.name}`}
              , line {m.ruleRef.line}
            </LineLink>
            {m.objectRef ? (
              <>
                {" · "}
                <LineLink line={m.objectRef.line}>
                  {m.objectRef.kind} {m.objectRef.namespace ? `${m.objectRef.namespace}/` : ""}
                  {m.objectRef.name}, line {m.objectRef.line}
                </LineLink>
              </>
            ) : null}
            {m.edit ? (
              <span className="near-miss-edit">
                {" "}
                <span className="muted">
                  · smallest edit, line {m.edit.at.line}:{" "}
                  <span className="mono">{nearMissEditText(m.edit)}</span>
                  {m.edit.kind === "label" ? " (or change the selector)" : ""}
                </span>{" "}
                <button
                  type="button"
                  className="btn small"
                  data-testid="near-miss-try"
                  disabled={running}
                  title="Make this edit in the editor as a what-if: the graph shows what changes, and the question is answered again"
                  onClick={() => {
                    const edit = m.edit!;
                    void runWhatIf(store, whatIfClient, nearMissEditText(edit), edit);
                  }}
                >
                  Try this edit
                </button>
              </span>
            ) : null}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** Asked by workload: the answer over every pod (all, some or none allowed), each pod's verdict, and which one is traced below. */
function WorkloadAnswer({ w, protocol }: { w: WorkloadAnswerView; protocol: TraceQuery["protocol"] }) {
  const store = useAppStore();
  const shown = w.pairs.slice(0, 12);
  const rep = w.representative;
  return (
    <div className="workload-answer" data-testid="workload-answer" data-verdict={w.verdict}>
      <p className="lead" data-testid="workload-verdict" data-verdict={w.verdict}>
        <VerdictBadge verdict={w.verdict} /> {w.summary}
      </p>
      <ul className="workload-pairs">
        {shown.map((p) => (
          <li key={`${p.from}|${p.to}`} data-testid="workload-pair" data-verdict={p.verdict}>
            <VerdictBadge verdict={p.verdict} /> <span className="mono">{p.from}</span> →{" "}
            <span className="mono">{p.to}</span>{" "}
            {p.from === rep.from && p.to === rep.to ? (
              <span className="muted">(traced below)</span>
            ) : (
              <button
                type="button"
                className="link"
                onClick={() => store.getState().ask({ from: p.from, to: p.to, protocol })}
              >
                explain
              </button>
            )}
            <span className="muted"> {reasonAfterVerdict(p.reason)}</span>
          </li>
        ))}
        {w.pairs.length > shown.length ? (
          <li className="muted">and {w.pairs.length - shown.length} more</li>
        ) : null}
      </ul>
      <h4>
        One pod traced hop by hop: <span className="mono">{rep.from}</span> →{" "}
        <span className="mono">{rep.to}</span>
        {w.verdict === "allow" ? null : <span className="muted"> (one that is not allowed)</span>}
      </h4>
    </div>
  );
}

const STATUS_WORDS: Record<number, string> = {
  200: "OK: a backend pod answers",
  301: "redirect",
  302: "redirect",
  403: "Forbidden: an L7 rule refuses the request",
  404: "Not Found: no route matches the request",
  500: "Internal Server Error: the route's backend is invalid",
  503: "Service Unavailable: the backend has no ready endpoint",
};

/** The L7 part of an answer, as the engine gave it: the request, the HTTP status, who refused it, the router's weighted backends. */
function L7Answer({ result }: { result: TraceView }) {
  if (!result.request && result.httpStatus === undefined && !result.backends?.length && !result.assumed)
    return null;
  return (
    <div className="l7-answer" data-testid="l7-answer">
      {result.assumed?.length ? (
        <p className="notice" data-kind="info" data-testid="assumed">
          Assumed by the cluster profile (not in the YAML): {result.assumed.join("; ")}
        </p>
      ) : null}
      {result.request ? (
        <p>
          <span className="muted">Request</span>{" "}
          <span className="mono">
            {result.request.method} {result.request.path}
            {Object.entries(result.request.headers).map(([k, v]) => ` · ${k}: ${v}`)}
          </span>
          {result.router ? (
            <span className="muted">
              {" "}
              through{" "}
              {result.router.kind === "Pod"
                ? `the sidecar of ${result.router.name}`
                : `${result.router.kind} ${result.router.namespace ?? ""}/${result.router.name}`}
            </span>
          ) : null}
        </p>
      ) : null}
      {result.httpStatus !== undefined ? (
        <p data-testid="http-status" data-status={result.httpStatus}>
          <span className={`http-status s${Math.floor(result.httpStatus / 100)}xx`}>
            HTTP {result.httpStatus}
          </span>{" "}
          {STATUS_WORDS[result.httpStatus] ?? ""}
          {result.redirect ? (
            <span className="mono">
              {" "}
              to {result.redirect.scheme}://{result.redirect.host}:{result.redirect.port}
              {result.redirect.path}
            </span>
          ) : null}
          {result.decidedBy ? (
            <span className="muted">
              {" "}
              · decided by {result.decidedBy.layer}
              {result.decidedBy.name
                ? ` (${result.decidedBy.kind ?? ""} ${result.decidedBy.namespace ? `${result.decidedBy.namespace}/` : ""}${result.decidedBy.name}${result.decidedBy.rule ? `, ${result.decidedBy.rule}` : ""})`
                : ""}
              {result.decidedBy.line ? (
                <>
                  {" "}
                  <LineLink line={result.decidedBy.line}>line {result.decidedBy.line}</LineLink>
                </>
              ) : null}
            </span>
          ) : null}
        </p>
      ) : null}
      {result.backends?.length ? (
        <>
          <h4>Backends the route chose</h4>
          <table className="endpoints" data-testid="l7-backends">
            <thead>
              <tr>
                <th>Service</th>
                <th>Port</th>
                <th>Subset</th>
                <th>Share</th>
                <th>Route</th>
              </tr>
            </thead>
            <tbody>
              {result.backends.map((b, i) => (
                <tr key={i} data-service={b.service} data-weight={b.weight}>
                  <td>{b.service.replace(/^service:/, "")}</td>
                  <td>{b.port}</td>
                  <td>{b.subset ?? "—"}</td>
                  <td>{Math.round(b.weight * 1000) / 10}%</td>
                  <td>{b.ref ? <RefLink refView={b.ref} /> : "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : null}
    </div>
  );
}

/** The answer to the current question, hop by hop, each decision linked to its YAML line. */
export function TraceDetails() {
  const store = useAppStore();
  const { question, status, result, error, query } = useApp(
    useShallow((s) => ({
      question: s.question,
      status: s.trace.status,
      result: s.trace.result,
      error: s.trace.error,
      query: s.trace.query,
    })),
  );
  const hopFocus = useApp((s) => s.hopFocus);
  const hopList = useRef<HTMLOListElement>(null);
  // A rule's link in the Node rules tab: bring its hop into view.
  useEffect(() => {
    if (!hopFocus) return;
    hopList.current?.children[hopFocus.index]?.scrollIntoView({ block: "nearest" });
  }, [hopFocus, result]);
  if (!question) return null;
  const current = sameQuestion(query, question);
  const source = result ? sourceAddressText(result) : undefined;
  return (
    <section aria-label="Trace" data-testid="trace">
      <h3>
        <span className="mono">{question.from}</span> → <span className="mono">{question.to}</span>{" "}
        <span className="muted">
          {question.protocol}
          {question.http ? ` · ${question.http.method} ${question.http.path}` : ""}
        </span>
      </h3>
      {!current || status === "running" ? <p className="muted">Tracing…</p> : null}
      {current && status === "error" ? <p role="alert">The engine could not trace this: {error}</p> : null}
      {current && status === "ready" && result?.error ? <p role="alert">{result.error}</p> : null}
      {current && status === "ready" && result && !result.error ? (
        <>
          {result.workload ? <WorkloadAnswer w={result.workload} protocol={question.protocol} /> : null}
          <p className="lead" data-testid="trace-verdict" data-verdict={result.verdict}>
            {/* The badge says the verdict: the engine's reason without its own leading "dropped:" (no "Dropped dropped:"). */}
            <VerdictBadge verdict={result.verdict} /> {reasonAfterVerdict(result.reason)}
          </p>
          <L7Answer result={result} />
          <NearMisses hops={result.hops} />
          {!result.sourceIPPreserved && source ? (
            // The engine's sentence, as ktl trace prints it: with a hairpin, only the backends that are masqueraded see the node's address.
            <p className="muted" data-testid="source-address">
              Source address at the backends: {source}
            </p>
          ) : null}
          {result.handledBy ? (
            <p className="muted">
              kube-proxy on <span className="mono">{result.handledBy}</span> handles the packet:{" "}
              <button
                type="button"
                className="link"
                onClick={() => {
                  // In the mode the Node rules tab shows (the walk covers iptables, nftables and IPVS alike).
                  store.getState().setRulesNode(result.handledBy);
                  store.getState().setTab("rules");
                }}
              >
                see the rules it matched there
              </button>
            </p>
          ) : null}
          <h4>Hop by hop</h4>
          <ol className="hops" ref={hopList}>
            {result.hops.map((h, i) => (
              <li
                key={i}
                data-testid="hop"
                data-verdict={h.verdict}
                data-lit={hopFocus?.index === i ? "true" : undefined}
              >
                <span className="step">
                  {stepTitle(h.step)} <VerdictBadge verdict={h.verdict} />
                </span>
                <span>{h.detail}</span>
                {h.ref ? (
                  <span>
                    <RefLink refView={h.ref} />
                  </span>
                ) : (
                  <span />
                )}
              </li>
            ))}
          </ol>
          {result.endpoints.length ? (
            <>
              <h4>
                {result.backends?.length
                  ? "Endpoints, each with its share of all requests"
                  : "Endpoints kube-proxy chooses among"}
              </h4>
              <table className="endpoints">
                <thead>
                  <tr>
                    <th>Pod</th>
                    <th>Address</th>
                    <th>Node</th>
                    <th>Chance</th>
                    <th>Verdict</th>
                  </tr>
                </thead>
                <tbody>
                  {result.endpoints.map((ep, i) => (
                    <tr key={i}>
                      <td>{ep.pod ?? "—"}</td>
                      <td className="mono">
                        {ep.ip}:{ep.port}
                      </td>
                      <td>{ep.node ?? "—"}</td>
                      <td>{Math.round(ep.probability * 1000) / 10}%</td>
                      <td title={ep.reason}>
                        <VerdictBadge verdict={ep.verdict} /> <span className="muted">{ep.reason}</span>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </>
          ) : null}
        </>
      ) : null}
    </section>
  );
}
