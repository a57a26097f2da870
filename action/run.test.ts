/**
 * The GitHub Action's script (action/run.mjs) run as the action runs it, on a fixture whose pull
 * request loses a flow: the frontend's access to the backend, by a policy whose selector now has a
 * typo (testdata/before, testdata/after). GitHub's REST API is a local server that records calls.
 */
import { spawn, spawnSync } from "node:child_process";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { load as parse } from "js-yaml";
import { decodeShare } from "../src/share/codec.ts";

const here = import.meta.dirname;
const MARKER = "<!-- kube-traffic-lab:ktl-action -->";

interface Call {
  method: string;
  url: string;
  body: { body?: string } | undefined;
}

let calls: Call[] = [];
let existing: { id: number; body: string }[] = [];
let api = "";
const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  let data = "";
  req.on("data", (c: Buffer) => (data += c.toString()));
  req.on("end", () => {
    calls.push({ method: req.method ?? "", url: req.url ?? "", body: data ? JSON.parse(data) : undefined });
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify(req.method === "GET" ? existing : { id: 1 }));
  });
});

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const addr = server.address();
  if (addr && typeof addr === "object") api = `http://127.0.0.1:${addr.port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function runAction(
  env: Record<string, string>,
  cwd?: string,
): Promise<{ code: number; stderr: string; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), "ktl-action-"));
  const event = join(dir, "event.json");
  writeFileSync(event, JSON.stringify({ pull_request: { number: 7, base: { sha: "unused" } } }));
  const child = spawn(process.execPath, [join(here, "run.mjs")], {
    ...(cwd ? { cwd } : {}),
    env: {
      PATH: process.env.PATH ?? "",
      KTL_BEFORE: join(here, "testdata", "before"),
      KTL_AFTER: join(here, "testdata", "after"),
      KTL_TESTS: join(here, "testdata", "tests.yaml"),
      KTL_SARIF: join(dir, "ktl.sarif"),
      KTL_COMMENT_FILE: join(dir, "comment.md"),
      KTL_PLAYGROUND_URL: "https://example.test/lab/",
      GITHUB_STEP_SUMMARY: join(dir, "summary.md"),
      GITHUB_OUTPUT: join(dir, "output"),
      GITHUB_EVENT_PATH: event,
      GITHUB_REPOSITORY: "acme/shop",
      GITHUB_API_URL: api,
      ...env,
    },
  });
  let stderr = "";
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code: code ?? -1, stderr, dir })));
}

describe("the GitHub Action's script", () => {
  it("comments the lost flow with its deciding policy, writes SARIF and fails by policy", async () => {
    calls = [];
    existing = [];
    const { code, stderr, dir } = await runAction({ GITHUB_TOKEN: "t0ken" });
    expect(code).toBe(1);
    expect(stderr).toContain("1 flow lost (fail-on)");
    expect(stderr).toContain("1 test failed (fail-on)");

    const body = readFileSync(join(dir, "comment.md"), "utf8");
    expect(body.startsWith(MARKER)).toBe(true);
    expect(body).toContain("### Flows lost (1)");
    expect(body).toMatch(
      /\| pod:shop\/frontend-\S+ \| pod:shop\/backend-\S+ \| 8080\/TCP \| allow \| drop \|/,
    );
    expect(body).toContain("isolated for ingress by shop/backend-from-frontend");
    expect(body).toContain("**Policy failed:** 1 flow lost; 1 test failed.");
    expect(body).toContain("`KTL610`");
    expect(body).toContain("FAIL the frontend reaches the backend");
    expect(readFileSync(join(dir, "summary.md"), "utf8")).toBe(body);
    expect(readFileSync(join(dir, "output"), "utf8")).toContain("lost-flows=1\nerrors=0\nfailed-tests=1\n");

    // The link opens the after-state: the playground decodes it to the after manifests.
    const link =
      /\[Open the after-state in the playground\]\((https:\/\/example\.test\/lab\/#share=([\w-]+))\)/.exec(
        body,
      );
    expect(link).not.toBeNull();
    const decoded = decodeShare(link![2]!);
    expect(decoded.ok).toBe(true);
    if (decoded.ok) expect(decoded.input.text).toContain("app: front-end");
    // It carries the before-state too: the playground marks what the change does, as a what-if's changes.
    expect(body).toContain("with what this change does to the flows marked");
    if (decoded.ok) {
      expect(decoded.input.before).toBeDefined();
      expect(decoded.input.before).not.toBe(decoded.input.text);
    }

    const sarif = JSON.parse(readFileSync(join(dir, "ktl.sarif"), "utf8"));
    expect(sarif.version).toBe("2.1.0");
    expect(sarif.runs[0].results.map((r: { ruleId: string }) => r.ruleId)).toEqual(["KTL610"]);
    expect(sarif.runs[0].results[0].locations[0].physicalLocation.region.startLine).toBe(12);

    expect(calls.map((c) => `${c.method} ${c.url.replace(/\?.*/, "")}`)).toEqual([
      "GET /repos/acme/shop/issues/7/comments",
      "POST /repos/acme/shop/issues/7/comments",
    ]);
    expect(calls[1]!.body?.body).toBe(body);
  });

  it("updates its own comment, found by the hidden marker, and passes when fail-on is none", async () => {
    calls = [];
    existing = [
      { id: 41, body: "LGTM" },
      { id: 42, body: `${MARKER}\nold` },
    ];
    const { code } = await runAction({ GITHUB_TOKEN: "t0ken", KTL_FAIL_ON: "none" });
    expect(code).toBe(0);
    expect(calls.map((c) => `${c.method} ${c.url.replace(/\?.*/, "")}`)).toEqual([
      "GET /repos/acme/shop/issues/7/comments",
      "PATCH /repos/acme/shop/issues/comments/42",
    ]);
    expect(calls[1]!.body?.body).not.toContain("Policy failed");
  });

  it("without a token writes the comment to its file only, and fails only by the policies asked", async () => {
    calls = [];
    const { code, stderr, dir } = await runAction({ KTL_FAIL_ON: "errors" });
    expect(code).toBe(0);
    expect(stderr).toBe("");
    expect(calls).toEqual([]);
    expect(readFileSync(join(dir, "comment.md"), "utf8")).toContain("### Flows lost (1)");
  });

  it("by default compares the manifests at the pull request's base commit with the checkout", async () => {
    const repo = mkdtempSync(join(tmpdir(), "ktl-action-repo-"));
    const git = (...args: string[]) => {
      const r = spawnSync("git", args, { cwd: repo, encoding: "utf8" });
      if (r.status !== 0) throw new Error(r.stderr);
      return r.stdout.trim();
    };
    git("init", "-q");
    git("config", "user.email", "ci@example.test");
    git("config", "user.name", "ci");
    cpSync(join(here, "testdata", "before"), join(repo, "deploy"), { recursive: true });
    git("add", ".");
    git("commit", "-qm", "base");
    const base = git("rev-parse", "HEAD");
    cpSync(join(here, "testdata", "after"), join(repo, "deploy"), { recursive: true });
    git("commit", "-qam", "head");
    const event = join(repo, "..", `${base}.json`);
    writeFileSync(event, JSON.stringify({ pull_request: { number: 7, base: { sha: base } } }));
    const { code, dir } = await runAction(
      { KTL_BEFORE: "", KTL_AFTER: "", KTL_MANIFESTS: "deploy", GITHUB_EVENT_PATH: event, KTL_SARIF: "" },
      repo,
    );
    expect(code).toBe(1);
    expect(readFileSync(join(dir, "comment.md"), "utf8")).toContain("### Flows lost (1)");
    // SARIF paths are the repository's own, as code scanning resolves them.
    const sarif = JSON.parse(readFileSync(join(repo, "ktl.sarif"), "utf8"));
    expect(sarif.runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri).toBe(
      "deploy/policy.yaml",
    );
  });

  it("refuses an unknown policy", async () => {
    const { code, stderr } = await runAction({ KTL_FAIL_ON: "lost-flow" });
    expect(code).toBe(2);
    expect(stderr).toContain("fail-on: unknown lost-flow");
  });
});

describe("the README's example workflow", () => {
  const readme = readFileSync(join(here, "..", "README.md"), "utf8");
  const block = /<!-- action-workflow:[^>]*-->\s*```yaml\n([\s\S]*?)```/.exec(readme);
  const action = parse(readFileSync(join(here, "..", "action.yml"), "utf8")) as {
    inputs: Record<string, unknown>;
    runs: { steps: { run?: string }[] };
  };

  it("passes only inputs action.yml declares, and uploads the SARIF file the action writes", () => {
    expect(block).not.toBeNull();
    const workflow = parse(block![1]!) as {
      permissions: Record<string, string>;
      jobs: { ktl: { steps: { uses?: string; with?: Record<string, string> }[] } };
    };
    const steps = workflow.jobs.ktl.steps;
    const ours = steps.find((s) => s.uses?.startsWith("kube-traffic-lab/"));
    expect(ours).toBeDefined();
    expect(Object.keys(ours?.with ?? {}).filter((k) => !(k in action.inputs))).toEqual([]);
    const upload = steps.find((s) => s.uses?.startsWith("github/codeql-action/upload-sarif"));
    expect(upload?.with?.sarif_file).toBe((action.inputs.sarif as { default: string }).default);
    expect(workflow.permissions).toMatchObject({
      "pull-requests": "write",
      "security-events": "write",
    });
    expect(action.runs.steps.some((s) => s.run?.includes("action/run.mjs"))).toBe(true);
  });
});

describe("the playground link", () => {
  const load = () =>
    // @ts-expect-error: the action's script is plain JavaScript
    import("./run.mjs") as Promise<{
      playgroundLink(
        base: string,
        text: string,
        cni?: string,
        before?: string,
      ): { url: string; marked: boolean } | undefined;
    }>;
  it("carries the before-state when both fit, else the after-state alone, else nothing", async () => {
    const { playgroundLink } = await load();
    const base = "https://example.test/lab";
    const both = playgroundLink(base, "kind: A\n", "cilium", "kind: B\n");
    expect(both!.marked).toBe(true);
    const decoded = decodeShare(both!.url.split("#share=")[1]!);
    expect(decoded).toMatchObject({
      ok: true,
      input: { text: "kind: A\n", before: "kind: B\n", view: { cni: "cilium" } },
    });
    // Random hex does not compress below half: 200,000 characters of it make a link past the 100,000 limit.
    const noise = () => randomBytes(100_000).toString("hex");
    const big = playgroundLink(base, "kind: A\n", undefined, noise());
    expect(big!.marked).toBe(false);
    expect(decodeShare(big!.url.split("#share=")[1]!)).toMatchObject({
      ok: true,
      input: { text: "kind: A\n" },
    });
    expect(playgroundLink(base, noise(), undefined, "kind: B\n")).toBeUndefined();
  });
});
