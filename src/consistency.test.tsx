/**
 * One truth on screen (issue 14, item 4): for every scenario of the
 * catalogue (the lessons and fixtures included) and a set of questions (the
 * scenario's expectations, its lessons' checks and one question per drawn
 * flow), every surface shows what the engine's trace returned: the verdict,
 * the deciding objects with their YAML lines, and the same words.
 *
 * The surfaces: the graph's flow records and edge data (and the edges a
 * traced question lights), the details panel (TraceDetails, rendered), the
 * presenter's steps, and `ktl trace` in JSON and text. A surface that
 * re-decides, drops a hop, or words a reason its own way fails here.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { SCENARIOS } from "../scenarios/index.ts";
import { LESSONS, type LessonCheck } from "../scenarios/lessons.ts";
import { applyLessonEdit } from "../scenarios/lessonEdit.ts";
import { buildProxyIndex, loadModel, traceWorkload, type TraceResult } from "./engine/index.ts";
import { parseAnyDestination, traceL7 } from "./engine/l7/index.ts";
import { questionOf } from "./components/Lessons/question.ts";
import { yamlOf } from "./engine/testing/fixtures.ts";
import { canaryBehindPolicy } from "./engine/l7/test-fixtures.ts";
import { openAnalysis, type Protocol, type TraceQuery, type TraceView } from "./engine/analysis/index.ts";
import { causesOf } from "./engine/analysis/flows.ts";
import type { HopStep } from "./engine/trace/types.ts";
import { reasonAfterVerdict, sourceAddressText, stepTitle, verdictMark } from "./engine/trace/render.ts";
import { buildGraph } from "./graph/build.ts";
import { toFlowElements } from "./graph/flow.ts";
import { presenterSteps } from "./components/Presenter/steps.ts";
import { TraceDetails } from "./components/Inspector/TraceDetails.tsx";
import { StoreProvider } from "./store/StoreProvider.tsx";
import { createAppStore } from "./store/createAppStore.ts";
import { run as ktlTrace } from "./cli/commands/trace.ts";

const dir = mkdtempSync(join(tmpdir(), "ktl-consistency-"));

/** At most this many drawn flows per scenario are asked (every scenario's expectations and checks always are). */
const FLOWS_PER_SCENARIO = 12;

interface Question extends TraceQuery {
  why: string;
  /** The request as the lesson check writes it (`ktl trace --http LINE --header H...`); `http` is what the playground parsed from it. */
  httpLine?: string;
  headers?: string[];
}

/** A text to ask questions of: each catalogue scenario, and each lesson after its suggested edit. */
interface Case {
  id: string;
  file: string;
  manifests: string;
  asked: {
    from: string;
    to: string;
    protocol?: Protocol;
    why: string;
    http?: string;
    headers?: string[];
    cni?: string;
  }[];
}

const CASES: Case[] = [
  ...SCENARIOS.map((s) => {
    const lesson = LESSONS.find((l) => l.id === s.id);
    return {
      id: s.id,
      file: s.file,
      manifests: s.manifests,
      asked: [
        ...s.expect.map((e) => ({ ...e, why: "expectation" })),
        ...(lesson?.checks ?? []).map((c) => ({ ...c, why: "lesson check" })),
      ],
    };
  }),
  ...LESSONS.map((l) => ({
    id: `${l.id} after its edit`,
    file: l.file,
    manifests: applyLessonEdit(l).text,
    asked: l.edit.checks.map((c) => ({ ...c, why: "check after the edit" })),
  })),
];

function questionsOf(c: Case, flows: ReturnType<typeof openAnalysis>["analysis"]["flows"]): Question[] {
  const out = new Map<string, Question>();
  const add = (q: Question) => {
    const k = `${q.from}|${q.to}|${q.protocol}|${q.httpLine ?? ""}|${(q.headers ?? []).join("|")}`;
    if (!out.has(k)) out.set(k, q);
  };
  // A lesson check with an HTTP request is asked as the lesson bar asks it (questionOf); other CNI profiles
  // are the share link's, not a question's.
  for (const a of c.asked) {
    if (a.cni) continue;
    const check: LessonCheck = { from: a.from, to: a.to, verdict: "allow" };
    if (a.protocol) check.protocol = a.protocol;
    if (a.http) check.http = a.http;
    if (a.headers) check.headers = a.headers;
    const q: Question = { ...questionOf(check), why: a.why };
    if (a.http) q.httpLine = a.http;
    if (a.headers?.length) q.headers = a.headers;
    add(q);
  }
  // Drawn flows, drops first: they are where surfaces used to disagree.
  const drawn = [...flows]
    .filter((f) => f.kind !== "endpoint" || f.client)
    .sort((a, b) => Number(a.verdict === "allow") - Number(b.verdict === "allow"));
  for (const f of drawn.slice(0, FLOWS_PER_SCENARIO))
    add({
      from: f.kind === "endpoint" ? f.client! : f.from[0]!,
      to: f.traceTo,
      protocol: f.protocol,
      why: `${f.kind} flow`,
    });
  return [...out.values()];
}

/** What the engine answered, as every surface must show it. */
function truthOf(t: TraceResult) {
  const c = causesOf(t);
  return {
    verdict: t.verdict,
    reason: t.reason,
    decidedBy: c.decidedBy.map((r) => `${r.kind} ${r.namespace ?? ""}/${r.name}:${r.line}`),
    hops: t.hops.map((h) => ({
      step: h.step,
      verdict: h.verdict,
      detail: h.detail,
      line: h.ref?.line,
    })),
  };
}

const refText = (r: { kind: string; namespace?: string; name: string; line: number }) =>
  `${r.kind} ${r.namespace ?? ""}/${r.name}:${r.line}`;

/** The details panel as people read it: the verdict, its sentence, each hop's title, mark, words and line link. */
function detailsHtml(q: TraceQuery, view: TraceView): string {
  const store = createAppStore({ text: "", scenarioId: undefined, origin: "default" });
  store.setState({ question: q, trace: { status: "ready", query: q, result: view, error: undefined } });
  // Server rendering reads the store's initial state (useSyncExternalStore's server snapshot): make it this one.
  const state = store.getState();
  store.getInitialState = () => state;
  return renderToStaticMarkup(
    <StoreProvider store={store}>
      <TraceDetails />
    </StoreProvider>,
  );
}

function inspectorText(q: TraceQuery, view: TraceView) {
  const html = detailsHtml(q, view);
  const text = (s: string) =>
    s
      .replace(/<[^>]+>/g, "")
      .replace(/&quot;/g, '"')
      .replace(/&#x27;/g, "'")
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&amp;/g, "&")
      .replace(/\s+/g, " ")
      .trim();
  const lead = /<p class="lead" data-testid="trace-verdict" data-verdict="([a-z]+)">([\s\S]*?)<\/p>/.exec(
    html,
  );
  const hops = [...html.matchAll(/<li data-testid="hop" data-verdict="([a-z]+)"[^>]*>([\s\S]*?)<\/li>/g)].map(
    (m) => ({
      verdict: m[1]!,
      text: text(m[2]!),
      lines: [...m[2]!.matchAll(/line (\d+)/g)].map((x) => x[1]),
    }),
  );
  const source = /data-testid="source-address"[^>]*>([\s\S]*?)<\/p>/.exec(html);
  const workload = /data-testid="workload-verdict"[^>]*>([\s\S]*?)<\/p>/.exec(html);
  return {
    verdict: lead?.[1],
    lead: text(lead?.[2] ?? ""),
    hops,
    source: source ? text(source[1]!) : undefined,
    workload: workload ? text(workload[1]!) : undefined,
  };
}

function cli(file: string, q: Question | TraceQuery, json: boolean): string {
  const out: string[] = [];
  const request =
    "httpLine" in q && q.httpLine
      ? ["--http", q.httpLine, ...(q.headers ?? []).flatMap((h) => ["--header", h])]
      : [];
  const argv = [
    "--from",
    q.from,
    "--to",
    q.to,
    "--protocol",
    q.protocol,
    ...request,
    ...(json ? ["--json"] : []),
    file,
  ];
  const code = ktlTrace(argv, { out: (s) => out.push(s), err: () => {} });
  expect(code).toBe(0);
  return out.join("\n");
}

const VERDICT_WORDS = { allow: "Allowed", drop: "Dropped", partial: "Partly allowed" } as const;

describe("one truth: graph, details, presenter and CLI show the engine's answer", () => {
  it.each(CASES.map((s) => [s.id, s] as const))("%s", (_id, s) => {
    const file = join(dir, `${s.id.replace(/ /g, "-")}.yaml`);
    writeFileSync(file, s.manifests);
    // The CLI names the file it read; the playground its own name. Lines are what both must agree on.
    const model = loadModel([{ name: file, text: s.manifests }]);
    const proxy = buildProxyIndex(model);
    const session = openAnalysis([{ name: s.file, text: s.manifests }]);
    const questions = questionsOf(s, session.analysis.flows);
    expect(questions.length).toBeGreaterThan(0);
    for (const q of questions) {
      const at = `${s.id}: ${q.from} -> ${q.to} ${q.protocol}${q.httpLine ? ` ${q.httpLine}${(q.headers ?? []).map((h) => ` [${h}]`).join("")}` : ""} (${q.why})`;
      // The engine's answer as `ktl trace` gives it: traceL7, which is traceRequest's packet-level answer
      // unless the question is an HTTP request, names a router, or a mesh's sidecars decide (engine/l7).
      const dst = parseAnyDestination(q.to);
      if ("error" in dst) continue;
      const t = traceL7(model, proxy, q.from, dst, q.protocol, q.http);
      if (t.error) continue;
      const truth = truthOf(t);

      // The graph's flow record for this question (drawn by pod source): its verdict, reason and deciding lines.
      // A flow is a connection, not one request: an HTTP question has none. A route flow is one (rule, backend)
      // share of a router (analysis/routers.ts), not the router's answer to a request: which rule a request
      // takes is the question's answer, checked on every surface below.
      const flow =
        !q.http &&
        session.analysis.flows.find(
          (f) =>
            f.kind !== "endpoint" &&
            f.kind !== "route" &&
            f.from.includes(q.from) &&
            f.traceTo === q.to &&
            f.protocol === q.protocol,
        );
      if (flow) {
        expect(flow.verdict, at).toBe(truth.verdict);
        expect(flow.reason, at).toBe(truth.reason);
        expect(flow.decidedBy.map(refText), at).toEqual(truth.decidedBy);
      }

      // The playground's trace (what the details panel, the presenter and the graph's lit path read).
      const view = session.trace(q);
      expect(view.verdict, at).toBe(truth.verdict);
      expect(view.reason, at).toBe(truth.reason);
      expect(
        view.hops.map((h) => ({ step: h.step, verdict: h.verdict, detail: h.detail, line: h.ref?.line })),
        at,
      ).toEqual(truth.hops);

      // The graph with the question lit: each lit edge shows the trace's verdict for its part of the path.
      const port = Number(q.to.slice(q.to.lastIndexOf(":") + 1));
      const g = buildGraph(session.analysis, {
        filters: {
          hiddenNamespaces: [],
          port: Number.isFinite(port) ? `${port}/${q.protocol}` : "all",
          onlyDrops: false,
        },
        grouping: "pod",
        lens: "topology",
      });
      const lit = toFlowElements(g, undefined, { trace: view }).edges.filter((e) => e.data!.lit);
      for (const e of lit) {
        const part = view.edges.find(
          (x) => x.source === e.data!.edge.source && x.target === e.data!.edge.target,
        );
        expect(part, `${at}: lit edge ${e.id} is a part of the traced path`).toBeDefined();
        expect(e.data!.edge.verdict, `${at}: lit edge ${e.id}`).toBe(part!.verdict);
        expect(e.data!.edge.decidedBy.map(refText), `${at}: lit edge ${e.id}`).toEqual(
          part!.decidedBy.map(refText),
        );
      }
      const first = view.edges[0];
      if (first) {
        expect(first.verdict, at).toBe(truth.verdict);
        expect(first.decidedBy.map(refText), at).toEqual(truth.decidedBy);
      }
      for (const ep of t.endpoints) {
        const part = view.edges.find((x) => ep.pod && x.target === `pod:${ep.pod}`);
        if (part) expect(part.verdict, `${at}: edge to ${ep.pod}`).toBe(ep.verdict);
      }

      // The details panel, rendered: the verdict word, the engine's sentence, every hop in order with its line.
      const d = inspectorText(q, view);
      expect(d.verdict, at).toBe(truth.verdict);
      expect(d.lead, at).toBe(`${VERDICT_WORDS[truth.verdict]} ${reasonAfterVerdict(truth.reason)}`);
      expect(d.hops.length, at).toBe(truth.hops.length);
      d.hops.forEach((h, i) => {
        const want = truth.hops[i]!;
        expect(h.verdict, at).toBe(want.verdict);
        expect(h.text.startsWith(stepTitle(want.step)), at).toBe(true);
        expect(h.text, at).toContain(want.detail.replace(/\s+/g, " ").trim());
        if (want.line) expect(h.lines, at).toContain(String(want.line));
      });
      const address = sourceAddressText(t);
      // No endpoint (an HTTP 404 from the router, say): no address to state, on any surface.
      if (!t.sourceIPPreserved && address)
        expect(d.source, at).toBe(`Source address at the backends: ${address}`);
      else expect(d.source, at).toBeUndefined();

      // Presenter mode: one step per hop, same title, verdict, words and line.
      const steps = presenterSteps(q, view);
      expect(
        steps.map((p) => ({ step: p.title, verdict: p.verdict, detail: p.detail, line: p.ref?.line })),
        at,
      ).toEqual(truth.hops.map((h) => ({ ...h, step: stepTitle(h.step) })));

      // ktl trace --json: the same verdict, reason, hops and lines.
      const json = JSON.parse(cli(file, q, true)) as TraceResult;
      expect(json.verdict, at).toBe(truth.verdict);
      expect(json.reason, at).toBe(truth.reason);
      expect(truthOf(json), at).toEqual(truth);

      // ktl trace (text): every hop's line, the verdict line and the source address line.
      const text = cli(file, q, false);
      truth.hops.forEach((h, i) =>
        expect(text, at).toContain(
          `${String(i + 1).padStart(2)}. [${verdictMark(h.verdict).padEnd(4)}] ${stepTitle(h.step)}: ${h.detail}`,
        ),
      );
      expect(text, at).toMatch(
        new RegExp(
          `^${truth.verdict.toUpperCase()}( \\([^)]*\\))?: ${reasonAfterVerdict(truth.reason).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`,
          "m",
        ),
      );
      if (address) expect(text, at).toContain(`Source address at the backends: ${address}`);
    }

    // Asked by workload: the details panel, the presenter and ktl show the same aggregate and the same representative.
    const a = session.analysis;
    const pod = a.pods.find((p) => p.workload.kind !== "Pod" && p.ips.length > 0);
    const svc = a.services.find((x) => x.ports.length > 0 && x.type !== "ExternalName");
    if (pod && svc) {
      const q = {
        from: pod.workload.id,
        to: `${svc.id}:${svc.ports[0]!.port}`,
        protocol: svc.ports[0]!.protocol,
      };
      const at = `${s.id}: ${q.from} -> ${q.to}`;
      const w = traceWorkload(model, proxy, q.from, q.to, q.protocol);
      const view = session.trace(q);
      if (w.error) expect(view.error, at).toBe(w.error);
      else {
        expect(view.workload, at).toMatchObject({
          verdict: w.verdict,
          summary: w.summary,
          representative: w.representative,
        });
        expect(view.verdict, at).toBe(w.trace.verdict);
        const d = inspectorText(q, view);
        expect(d.workload, at).toBe(`${VERDICT_WORDS[w.verdict]} ${w.summary}`);
        expect(d.verdict, at).toBe(w.trace.verdict);
        const json = JSON.parse(cli(file, q, true)) as TraceResult & { workload: { summary: string } };
        expect(json.workload.summary, at).toBe(w.summary);
        expect(truthOf(json), at).toEqual(truthOf(w.trace));
        // The graph lights every pod's path: each pair's first part carries that pair's own verdict.
        for (const p of w.pairs) {
          const target = p.to.replace(/:\d+$/, "");
          const part = view.edges.find((x) => x.source === p.from && x.target === target);
          expect(part?.verdict, `${at}: ${p.from} -> ${target}`).toBe(p.verdict);
        }
        const g = buildGraph(session.analysis, {
          filters: { hiddenNamespaces: [], port: "all", onlyDrops: false },
          grouping: "pod",
          lens: "topology",
        });
        for (const e of toFlowElements(g, undefined, { trace: view }).edges.filter((x) => x.data!.lit)) {
          const part = view.edges.find(
            (x) => x.source === e.data!.edge.source && x.target === e.data!.edge.target,
          );
          expect(e.data!.edge.verdict, `${at}: lit edge ${e.id}`).toBe(part?.verdict);
        }
      }
    }
  });
});

// Issue 20's "done when", in the playground: the same question the CLI test asks (src/cli/commands/trace.test.ts),
// through the analysis session the worker runs, rendered as the details panel shows it.
describe("a Gateway's weighted route to pods behind NetworkPolicy, in the details panel", () => {
  const text = yamlOf(canaryBehindPolicy());
  const session = openAnalysis([{ name: "canary.yaml", text }]);
  const q: TraceQuery = {
    from: "external:203.0.113.10@node-1",
    to: "gateway:shop/web:80",
    protocol: "TCP",
    http: { method: "GET", path: "/", headers: {} },
  };
  const view = session.trace(q);
  const html = detailsHtml(q, view);

  it("every layer is a hop, in the panel as in the engine's answer", () => {
    const d = inspectorText(q, view);
    expect(d.verdict).toBe("partial");
    const layers: HopStep[] = [
      "load balancer",
      "load balancer health check",
      "kube-proxy",
      "router",
      "listener",
      "route",
      "backend",
      "proxy to backend",
      "ingress policy at backend",
    ];
    for (const layer of layers)
      expect(
        d.hops.some((h) => h.text.startsWith(stepTitle(layer))),
        layer,
      ).toBe(true);
  });

  it("the backends' shares and each endpoint's chance multiply: 90% x 1/2 = 45%, 10% x 1/1 = 10%", () => {
    const backends = [...html.matchAll(/<tr data-service="([^"]+)" data-weight="([^"]+)">/g)].map((m) => [
      m[1],
      Number(m[2]),
    ]);
    expect(backends).toEqual([
      ["service:shop/stable", 0.9],
      ["service:shop/canary", 0.1],
    ]);
    const table = html.slice(html.indexOf("Endpoints, each with its share of all requests"));
    const rows = [
      ...table.matchAll(
        /<tr><td>([^<]+)<\/td><td class="mono">([^<]+)<\/td><td>[^<]*<\/td><td>([^<]+)<\/td><td[^>]*><span class="verdict ([a-z]+)"/g,
      ),
    ].map((m) => [m[1], m[3], m[4]]);
    expect(rows).toEqual([
      ["shop/stable-0", "45%", "allow"],
      ["shop/stable-1", "45%", "allow"],
      ["shop/canary-0", "10%", "drop"],
    ]);
    // And the graph's paths view carries the same shares on the router's edges.
    expect(view.backends?.map((b) => [b.service, b.weight])).toEqual(backends);
  });
});
