/**
 * The engine worker's handlers, driven without a worker: `tests` runs a
 * `ktl test` file against the session of the text analysed last (the
 * worker's cached session), with the verdicts `ktl test` gives
 * (src/cli/commands/test.test.ts) and what the page needs to show them.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { defaultScenario } from "../../scenarios/index.ts";
import { createEngineHandlers } from "./handlers.ts";
import type { Analysis } from "../engine/analysis/types.ts";

const shop = defaultScenario().manifests;
const example = readFileSync(new URL("../../docs/examples/shop-tests.yaml", import.meta.url), "utf8");

const toolboxToBackend = `tests:
  - name: the storefront reaches the backend
    from: shop/frontend
    to: service:shop/backend:80
    expect: allow
  - name: the toolbox reaches the backend
    from: tools/toolbox
    to: service:shop/backend:80
    expect: allow
`;

/** A NetworkPolicy that lets the tools namespace reach the backend (the fix the e2e spec types). */
const backendFromTools = `
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: backend-from-tools
  namespace: shop
spec:
  podSelector:
    matchLabels:
      app: backend
  ingress:
    - from:
        - namespaceSelector:
            matchLabels:
              kubernetes.io/metadata.name: tools
`;

function analysed(text = shop) {
  const engine = createEngineHandlers();
  engine.handlers.analyze({ text, file: "manifests.yaml", generation: 1 });
  return engine;
}

describe("worker handler: tests", () => {
  it("needs an analysed text first, as every session question does", () => {
    const engine = createEngineHandlers();
    expect(() => engine.handlers.tests({ text: example, file: "t.yaml" })).toThrow(/no scenario/);
  });

  it("the README's example passes against the default scenario, each with its deciding object and editor line", () => {
    const run = analysed().handlers.tests({ text: example, file: "shop-tests.yaml" });
    expect([run.passed, run.failed, run.diagnostics]).toEqual([4, 0, []]);
    const toolbox = run.results[1]!;
    expect(toolbox).toMatchObject({ name: "the toolbox cannot call the backend", line: 7, pass: true });
    expect(toolbox.question).toEqual({
      from: "pod:tools/toolbox",
      to: "service:shop/backend:80",
      protocol: "TCP",
    });
    const deny = toolbox.decidedBy.find((r) => r.name === "default-deny-ingress");
    // The line the Inspector's links go to: inside the policy's own document.
    const lines = shop.split("\n");
    const named = lines.indexOf("  name: default-deny-ingress") + 1;
    expect(deny!.line).toBeGreaterThanOrEqual(named - 3);
    expect(lines.slice(named, deny!.line).includes("---")).toBe(false);
    expect(run.results.every((r) => r.marks.length === 0)).toBe(true);
  });

  it("a failing expectation names each failing pair and marks where the path contradicts it", () => {
    const run = analysed().handlers.tests({ text: toolboxToBackend, file: "t.yaml" });
    expect([run.passed, run.failed]).toEqual([1, 1]);
    const r = run.results[1]!;
    expect(r).toMatchObject({
      name: "the toolbox reaches the backend",
      line: 6,
      pass: false,
      expect: "allow",
    });
    expect(r.failures[0]).toMatch(/^pod:tools\/toolbox -> service:shop\/backend:80: drop, expected allow: /);
    // Expect allow, got drop: the dropped parts are marked, the question's edge and each dropped endpoint.
    expect(r.marks).toEqual([
      { source: "pod:tools/toolbox", target: "service:shop/backend" },
      { source: "service:shop/backend", target: "pod:shop/backend-1" },
      { source: "service:shop/backend", target: "pod:shop/backend-0" },
    ]);
    expect(r.decidedBy.map((x) => x.name)).toContain("default-deny-ingress");
    expect(r.question).toEqual({ from: "pod:tools/toolbox", to: "service:shop/backend:80", protocol: "TCP" });
  });

  it("the same file passes once the manifests allow it: the run follows the newest analysed text", () => {
    const engine = analysed();
    expect(engine.handlers.tests({ text: toolboxToBackend, file: "t.yaml" }).failed).toBe(1);
    engine.handlers.analyze({ text: shop + backendFromTools, file: "manifests.yaml", generation: 2 });
    const run = engine.handlers.tests({ text: toolboxToBackend, file: "t.yaml" });
    expect([run.passed, run.failed]).toEqual([2, 0]);
    expect(run.results[1]!.decidedBy.map((x) => x.name)).toContain("backend-from-tools");
    expect(engine.generation).toBe(2);
  });

  it("expect drop where traffic gets through marks every part of the allowed path", () => {
    const text =
      "tests:\n  - name: x\n    from: shop/frontend\n    to: service:shop/backend:80\n    expect: drop\n";
    const r = analysed().handlers.tests({ text, file: "t.yaml" }).results[0]!;
    expect(r.pass).toBe(false);
    expect(r.marks).toContainEqual({ source: "pod:shop/frontend-0", target: "service:shop/backend" });
    expect(r.marks.filter((m) => m.source === "service:shop/backend").length).toBeGreaterThan(0);
  });

  it.each([
    [
      "an unknown verdict",
      "tests:\n  - name: a\n    from: shop/frontend\n    to: service:shop/backend:80\n    expect: maybe\n",
      5,
      /expect must be allow, drop or partial, not "maybe"/,
    ],
    ["a mapping without tests", "from: a\nto: b\n", 1, /a test file holds a list of tests/],
    ["broken YAML", "tests:\n  - name: [unclosed\n    from: a\n", 3, /./],
    [
      "no destination",
      "tests:\n  - name: a\n    from: shop/frontend\n    expect: allow\n",
      2,
      /needs from and to/,
    ],
  ])("a bad test file (%s) is a message with its line, and nothing runs", (_what, text, line, message) => {
    const run = analysed().handlers.tests({ text, file: "t.yaml" });
    expect(run.results).toEqual([]);
    const d = run.diagnostics.find((x) => x.severity === "error");
    expect(d?.line).toBe(line);
    expect(d?.message).toMatch(message);
  });

  it("an expectation about something the input lacks fails with what is missing, at its line", () => {
    const text =
      "tests:\n  - name: a\n    from: shop/nothing\n    to: service:shop/backend:80\n    expect: allow\n";
    const r = analysed().handlers.tests({ text, file: "t.yaml" }).results[0]!;
    expect(r).toMatchObject({ pass: false, line: 2, marks: [] });
    expect(r.failures).toEqual(["no workload or pod shop/nothing in the input"]);
  });
});

// The toolbar's Assume switches reach the engine as the profile's assumptions (engine/load/cluster.ts).
describe("worker handler: analyze with the profile's assumptions", () => {
  const mesh = `apiVersion: v1
kind: Pod
metadata: {name: client, namespace: app, labels: {app: client}}
spec: {containers: [{name: c, image: i}]}
---
apiVersion: v1
kind: Service
metadata: {name: api, namespace: app}
spec: {selector: {app: api}, ports: [{port: 80}]}
---
apiVersion: v1
kind: Pod
metadata: {name: api, namespace: app, labels: {app: api}}
spec: {containers: [{name: c, image: i, ports: [{containerPort: 80}]}]}
---
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: api, namespace: app}
spec: {hosts: [api], http: [{route: [{destination: {host: api}}]}]}
`;
  it.each([
    [undefined, 0, "KTL471"],
    [{ injection: ["*"] }, 1, undefined],
  ] as const)("assume %j: %i mesh router(s), Problem %s", (assume, routers, code) => {
    const engine = createEngineHandlers();
    const m = engine.handlers.analyze({
      text: mesh,
      file: "m.yaml",
      generation: 1,
      ...(assume ? { assume: { injection: [...assume.injection] } } : {}),
    });
    if (!("full" in m)) throw new Error("expected a full analysis");
    const a = m.full as Analysis;
    expect(a.routers.filter((r) => r.kind === "VirtualService")).toHaveLength(routers);
    expect(a.diagnostics.find((d) => d.code === "KTL471")?.code).toBe(code);
  });
});

describe("observe", () => {
  const dir = new URL("../../scenarios/fixtures/observed-vs-predicted/", import.meta.url);
  const manifests = readFileSync(new URL("manifests.yaml", dir), "utf8");

  it("compares a flow file with the session of the text analysed last, as ktl observe does, each row with its graph pair", () => {
    const { handlers } = createEngineHandlers();
    handlers.analyze({ text: manifests, file: "manifests.yaml", generation: 1 });
    const view = handlers.observe({
      text: readFileSync(new URL("flows.csv", dir), "utf8"),
      file: "flows.csv",
    });
    expect(view.errors).toEqual([]);
    expect(view.report?.disagreements).toBe(3);
    const svc = view.report!.flows.find((f) => f.dst === "service:shop/backend")!;
    expect(svc.mark).toEqual({
      source: expect.stringMatching(/^pod:shop\/frontend-/),
      target: "service:shop/backend",
    });
    const pod = view.report!.flows.find((f) => f.dst === "shop/Deployment/payments")!;
    expect(pod.mark.target).toMatch(/^pod:shop\/payments-[a-z0-9]+-[a-z0-9]+$/);
  });

  it("an unreadable record is an error with its line, and nothing is compared", () => {
    const { handlers } = createEngineHandlers();
    handlers.analyze({ text: manifests, file: "manifests.yaml", generation: 1 });
    const view = handlers.observe({ text: "shop/a,shop/b,eighty,TCP,forwarded\n", file: "f.csv" });
    expect(view).toEqual({
      file: "f.csv",
      errors: [{ file: "f.csv", line: 1, message: expect.stringMatching(/port "eighty"/) }],
    });
  });
});

describe("edgeEdit", () => {
  const manifests = readFileSync(
    new URL("../../scenarios/fixtures/observed-vs-predicted/manifests.yaml", import.meta.url),
    "utf8",
  );
  it("answers the engine's edit for one edge, proved, with before against after", () => {
    const { handlers } = createEngineHandlers();
    const a = handlers.edgeEdit({
      text: manifests,
      file: "manifests.yaml",
      query: { from: "tools/toolbox", to: "service:shop/backend", port: 80, protocol: "TCP", want: "allow" },
    });
    expect(a.result.proof?.holds).toBe(true);
    expect(a.diff).toBeDefined();
  });
});

describe("worker handler: analyze reports its steps", () => {
  it("tells each step with the generation of the text being analysed, once the analysis has run 100 ms", () => {
    const heard: string[] = [];
    let t = 0;
    const engine = createEngineHandlers({
      onProgress: (p, g) => heard.push(`${g}:${p.step}`),
      // Each reading of the clock is 60 ms later: the steps from the third on come past 100 ms.
      now: () => (t += 60),
    });
    engine.handlers.analyze({ text: defaultScenario().manifests, file: "m.yaml", generation: 4 });
    expect(heard).toEqual(["4:1", "4:3", "4:4", "4:5", "4:7"]);
  });

  it("tells only the first step of an analysis over before 100 ms (the page shows a step after a second)", () => {
    const heard: string[] = [];
    const engine = createEngineHandlers({ onProgress: (p, g) => heard.push(`${g}:${p.step}`), now: () => 0 });
    engine.handlers.analyze({ text: defaultScenario().manifests, file: "m.yaml", generation: 1 });
    engine.handlers.analyze({
      text: `${defaultScenario().manifests}\n# edit\n`,
      file: "m.yaml",
      generation: 2,
    });
    expect(heard).toEqual(["1:1", "2:1"]);
  });
});

describe("worker handler: a session whose documents an edit moved", () => {
  // The parse cache moves a document an edit above shifted without copying it (parse/yaml.ts relocate): the
  // values the previous text's session holds then read their positions in the newer text.
  const bad = `${shop.replace(/\n*$/, "\n")}---\napiVersion: v1\nkind: Service\nmetadata: {name: bad, namespace: shop}\nspec:\n  selector: {app: x}\n  ports:\n  - port: 70000\n`;
  it("is analysed again on an undo, so its lines are the old text's (validation asked only then)", () => {
    const { handlers } = createEngineHandlers();
    handlers.analyze({ text: bad, file: "manifests.yaml", generation: 1 });
    handlers.analyze({ text: `# a comment\n${bad}`, file: "manifests.yaml", generation: 2 });
    handlers.analyze({ text: bad, file: "manifests.yaml", generation: 3 });
    const fresh = createEngineHandlers().handlers;
    fresh.analyze({ text: bad, file: "manifests.yaml", generation: 1 });
    const lines = (v: { code: string; line: number }[]) => v.map((d) => `${d.code}@${d.line}`);
    const expected = lines(fresh.validate({}));
    expect(expected.length).toBeGreaterThan(0);
    expect(lines(handlers.validate({}))).toEqual(expected);
  });
});
