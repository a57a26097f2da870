/**
 * Every lesson's answer is what the engine computes: each check is a
 * `ktl trace` query run through traceRequest, before and after the lesson's
 * suggested edit. Every scenario of the catalogue loads without error
 * diagnostics and passes apiserver validation (kube-apiserver 1.35 create
 * path, src/engine/validate).
 *
 * README.md of each lesson is rendered from lessons.ts; run with
 * UPDATE_LESSON_READMES=1 to rewrite them after changing a lesson.
 */
import { describe, expect, it } from "vitest";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildProxyIndex, loadModel, validateModel } from "../src/engine/index.ts";
import { parseAnyDestination, traceL7, type L7TraceResult } from "../src/engine/l7/index.ts";
import { LESSONS, LESSON_SCENARIOS, lessonById, type Lesson, type LessonCheck } from "./lessons.ts";
import { applyLessonEdit } from "./lessonEdit.ts";
import { addHttpHeader, parseHttpRequestLine, type HttpRequest } from "../src/engine/http/request.ts";
import { SCENARIOS, scenarioById } from "./index.ts";

type TraceResult = L7TraceResult;

function trace(text: string, c: LessonCheck): TraceResult {
  const model = loadModel([{ name: "manifests.yaml", text }], c.cni ? { cni: c.cni } : {});
  let http: HttpRequest | undefined;
  if (c.http) {
    const line = parseHttpRequestLine(c.http);
    if ("error" in line) throw new Error(line.error);
    http = line;
    for (const h of c.headers ?? []) {
      const next = addHttpHeader(http, h);
      if ("error" in next) throw new Error(next.error);
      http = next;
    }
  }
  // As `ktl trace` answers (src/cli/commands/trace.ts): every destination of the contract, L7 routers included.
  const to = parseAnyDestination(c.to);
  if ("error" in to) throw new Error(to.error);
  return traceL7(model, buildProxyIndex(model), c.from, to, c.protocol ?? "TCP", http);
}

/** The check's fields, read off the trace, in the check's own terms (unset fields left out). */
function observed(r: TraceResult, c: LessonCheck): LessonCheck {
  const o: LessonCheck = { from: c.from, to: c.to, verdict: r.verdict };
  if (c.protocol) o.protocol = c.protocol;
  if (c.endpoints)
    o.endpoints = r.endpoints
      .map((e) =>
        c.endpoints!.some((x) => /:\d+$/.test(x))
          ? `${e.pod ?? e.ip}:${e.port}`
          : (e.pod ?? `${e.ip}:${e.port}`),
      )
      .sort();
  if (c.nodes) o.nodes = [...new Set(r.endpoints.map((e) => e.node ?? "?"))].sort();
  if (c.count !== undefined) o.count = r.endpoints.length;
  if (c.sourceIPPreserved !== undefined) o.sourceIPPreserved = r.sourceIPPreserved;
  if (c.kubeProxy) o.kubeProxy = r.kubeProxy ? r.kubeProxy.action : "none";
  if (c.hops) o.hops = c.hops.filter((h) => r.hops.some((x) => x.step === h));
  if (c.http) o.http = c.http;
  if (c.headers) o.headers = c.headers;
  // An HTTP check states its whole answer: the status, or none when no HTTP answer comes back.
  if (c.http && r.httpStatus !== undefined) o.httpStatus = r.httpStatus;
  if (c.cni) o.cni = c.cni;
  if (c.backends)
    o.backends = Object.fromEntries(
      (r.backends ?? []).map((b) => [
        `${b.service}:${b.port}${b.subset ? `#${b.subset}` : ""}`,
        Math.round(b.weight * 1000) / 1000,
      ]),
    );
  if (c.says && r.hops.some((h) => h.detail.includes(c.says!))) o.says = c.says;
  return o;
}

function expected(c: LessonCheck): LessonCheck {
  return {
    ...c,
    ...(c.endpoints ? { endpoints: [...c.endpoints].sort() } : {}),
    ...(c.nodes ? { nodes: [...c.nodes].sort() } : {}),
  };
}

function readme(l: Lesson): string {
  return `# ${String(l.number).padStart(2, "0")} · ${l.title}

${l.goal}

## Question

${l.question}

<details>
<summary>Answer</summary>

${l.answer}

Sources: ${l.sources.join("; ")}.

### Checked by

\`scenarios/lessons.test.ts\` runs these traces (\`ktl trace --from SRC --to DST scenarios/${l.id}/\`):

${l.checks.map((c) => `- \`${c.from}\` → \`${c.to}\`${c.protocol && c.protocol !== "TCP" ? ` (${c.protocol})` : ""}${c.http ? ` \`--http '${c.http}'${(c.headers ?? []).map((h) => ` --header '${h}'`).join("")}\`` : ""}${c.cni ? ` \`--cni ${c.cni}\`` : ""}: ${c.verdict}${c.http ? (c.httpStatus ? ` (HTTP ${c.httpStatus})` : " (no HTTP answer)") : ""}`).join("\n")}

### Try

${l.edit.description}

${l.edit.lookFor}

</details>
`;
}

function catalogueReadme(): string {
  return `# Scenarios and lessons

The catalogue that the playground's menu, the e2e tests and the CLI smoke
tests read (\`index.ts\`). \`01\` is the playground's default scenario; \`02\`
onwards are workshop lessons, each making one idea visible: a question to
predict, its answer, and one edit to try (data in \`lessons.ts\`, checked by
\`lessons.test.ts\` against the engine). Open one in the playground with
\`#lesson=<number>\`, or on the command line with
\`ktl trace --from SRC --to DST scenarios/<folder>/\`.

| # | Lesson | Goal |
|---|---|---|
${LESSONS.map((l) => `| ${String(l.number).padStart(2, "0")} | [${l.title}](${l.id}/README.md) | ${l.goal} |`).join("\n")}

\`fixtures/\` holds scenarios that tests and e2e specs use but that are not
lessons: \`why-frontend-cannot-reach-payments\` (a namespaceSelector asking for
\`team: web\` where the namespace says \`team: storefront\`, and a DNS egress
rule selecting \`name: kube-system\`) is in the scenario menu too;
\`observed-vs-predicted\` holds the same traffic as Hubble flows, Calico flow
logs and a CSV, with one row of each of \`ktl observe\`'s four cases.
`;
}

describe("lesson catalogue", () => {
  it("scenarios/README.md lists every lesson", () => {
    const path = join(import.meta.dirname, "README.md");
    if (process.env.UPDATE_LESSON_READMES) writeFileSync(path, catalogueReadme());
    expect(readFileSync(path, "utf8")).toBe(catalogueReadme());
  });

  it("has at least 14 lessons, numbered from 02 in folder order, each in the scenario catalogue", () => {
    expect(LESSONS.length).toBeGreaterThanOrEqual(14);
    const folders = readdirSync(import.meta.dirname)
      .filter((d) => /^\d\d-/.test(d) && d !== "01-trace-a-shop-across-zones")
      .sort();
    expect(LESSONS.map((l) => l.id)).toEqual(folders);
    // Numbers are reserved per area (tiers 27-28, L7 29-31), so one area's lessons may land before another's.
    expect(LESSONS[0]!.number).toBe(2);
    LESSONS.forEach((l, i) => i > 0 && expect(l.number).toBeGreaterThan(LESSONS[i - 1]!.number));
    for (const l of LESSON_SCENARIOS) expect(scenarioById(l.id)?.manifests).toBe(l.manifests);
    expect(lessonById("09-keep-traffic-in-zone-with-hints")?.title).toMatch(/topology hints/);
  });

  // Every answer names where it comes from upstream: a kubernetes/* source
  // file (with the function or test in question), a KEP, a docs page of
  // Kubernetes or of the project that decides (Cilium, Calico, Istio, Gateway
  // API, netfilter), or a file of its repository.
  it.each(LESSONS.map((l) => ({ id: l.id, l })))(
    "$id: the answer has a Sources line naming upstream files, KEPs or docs",
    ({ l }) => {
      expect(l.sources.length).toBeGreaterThan(0);
      for (const src of l.sources) {
        expect(src).toMatch(
          /^(kubernetes\/[a-z-]+ (pkg|staging|test|cmd|[a-z]+)\/[\w./-]+\.(go|md)( .+)?|KEP-\d+( .+)?|https:\/\/(kubernetes\.io|github\.com|docs\.cilium\.io|docs\.tigera\.io|istio\.io|gateway-api\.sigs\.k8s\.io|git\.netfilter\.org)\/\S+( .+)?)$/,
        );
      }
      expect(new Set(l.sources).size).toBe(l.sources.length);
    },
  );

  // Predict, then reveal: what the learner reads before the reveal (the title
  // and goal in the menu and the lesson bar, the manifests' comments) sets
  // the scene and never states an outcome; explanations belong in the answer.
  const OUTCOME =
    /\b(drop(s|ped)?|reject(s|ed)?|refuse[sd]?|denied|blocked|masquerade[sd]?|short-circuit\w*|falls? back|fallback|left out|no (local )?endpoints?|only ever|(gets?|answers?) (403|404|500|502|503)|miss(es)?|fails?)\b/i;
  it.each(LESSONS.map((l) => ({ id: l.id, l })))(
    "$id: title, goal and comments state no outcome",
    ({ l }) => {
      expect(`${l.title} ${l.goal}`).not.toMatch(OUTCOME);
      const comments: string[] = [];
      let inQuestion = false;
      for (const line of l.manifests.split("\n")) {
        const m = /^\s*#\s?(.*)$/.exec(line);
        if (!m) {
          inQuestion = false;
          continue;
        }
        // The question may say "dropped" (it asks about it); its lines run to the end of the comment block.
        if (/^Question:/.test(m[1]!)) inQuestion = true;
        if (!inQuestion) comments.push(m[1]!);
      }
      for (const c of comments) expect(c).not.toMatch(OUTCOME);
    },
  );

  it.each(LESSONS.map((l) => ({ id: l.id, l })))("$id: README.md is rendered from lessons.ts", ({ l }) => {
    const path = join(import.meta.dirname, l.id, "README.md");
    if (process.env.UPDATE_LESSON_READMES) writeFileSync(path, readme(l));
    expect(existsSync(path)).toBe(true);
    expect(readFileSync(path, "utf8")).toBe(readme(l));
  });
});

describe.each(SCENARIOS.map((s) => ({ id: s.id, s })))("scenario $id", ({ s }) => {
  it("loads with no error diagnostics and passes apiserver validation", () => {
    const model = loadModel([{ name: s.file, text: s.manifests }]);
    expect(model.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(validateModel(model, { lint: false }).errors).toEqual([]);
  });
});

describe.each(LESSONS.map((l) => ({ id: l.id, l })))("lesson $id", ({ l }) => {
  it.each(l.checks.map((c) => ({ q: `${c.from} -> ${c.to}`, c })))("answer: $q", ({ c }) => {
    const r = trace(l.manifests, c);
    expect(r.error).toBeUndefined();
    expect(observed(r, c)).toEqual(expected(c));
  });

  it("the suggested edit applies to the manifests and leaves no error", () => {
    const c = l.edit.change;
    if ("replace" in c) expect(l.manifests.split(c.replace.find)).toHaveLength(2);
    const r = applyLessonEdit(l);
    expect(r.error).toBeUndefined();
    expect(r.text).not.toBe(l.manifests);
    const model = loadModel([{ name: l.file, text: r.text }]);
    expect(model.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(validateModel(model, { lint: false }).errors).toEqual([]);
  });

  it.each(l.edit.checks.map((c) => ({ q: `${c.from} -> ${c.to}`, c })))("after the edit: $q", ({ c }) => {
    const r = trace(applyLessonEdit(l).text, c);
    expect(r.error).toBeUndefined();
    expect(observed(r, c)).toEqual(expected(c));
  });
});

describe("lesson 16's edit applied over the running Service (issue 22: patchAllocatedValues)", () => {
  it("removing clusterIP: None is accepted and keeps the Service headless: the edit's notes say so", () => {
    const r = applyLessonEdit(lessonById("16-resolve-headless-and-externalname")!);
    expect(r.notes?.join(" ")).toMatch(
      /keeps the stored value None \(patchAllocatedValues\).*stays headless/,
    );
  });
});
