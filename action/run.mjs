#!/usr/bin/env node
/**
 * The GitHub Action's step (action.yml): compares the manifests before and after a pull request with
 * `ktl diff`, checks the after-state with `ktl validate` (SARIF for code scanning) and `ktl test`,
 * writes one Markdown comment and posts it on the pull request (or updates the one it posted before,
 * found by its hidden marker), then fails by the `fail-on` policy.
 *
 * It asks the CLI only (bin/ktl.mjs, the same bundle `npx ktl` runs): every verdict and deciding
 * object in the comment is ktl's own. Inputs arrive as environment variables, as action.yml maps them:
 *
 *   KTL_BEFORE, KTL_AFTER  manifests (a file or a directory); when KTL_BEFORE is empty, the pull
 *                          request's base commit of KTL_MANIFESTS is read with git archive
 *   KTL_MANIFESTS          the path, in the repository, of the manifests (default ".")
 *   KTL_CNI, KTL_TESTS     the CNI profile (--cni) and a `ktl test` file, both optional
 *   KTL_FAIL_ON            comma-separated: lost-flows, errors, tests (default "lost-flows,errors,tests"), or none
 *   KTL_SARIF              where the SARIF file is written (default ktl.sarif)
 *   KTL_COMMENT_FILE       where the comment body is written (default ktl-comment.md)
 *   KTL_PLAYGROUND_URL     the hosted playground (default: the GitHub Pages site of the action's repository)
 *   GITHUB_TOKEN           when present with a pull request, the comment is posted through the REST API
 *
 * Exit: 0 the policy passed; 1 it failed (each reason on stderr); 2 ktl could not read the input.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { appendFileSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { deflateRawSync } from "node:zlib";

/** The hidden comment that marks the one comment this action keeps up to date on a pull request. */
export const MARKER = "<!-- kube-traffic-lab:ktl-action -->";
const POLICIES = ["lost-flows", "errors", "tests"];
/** The share-link format the playground opens (src/share/codec.ts): [version byte][raw DEFLATE of JSON]. */
const SHARE_VERSION = 5;
/** Links longer than this are cut by chat tools and some browsers (src/share/codec.ts MAX_LINK_CHARS). */
const MAX_LINK_CHARS = 100_000;
const ROWS = 30;

const here = dirname(fileURLToPath(import.meta.url));
const ktlBin = join(here, "..", "bin", "ktl.mjs");

function ktl(args) {
  const r = spawnSync(process.execPath, [ktlBin, ...args], {
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  });
  return { status: r.status ?? 2, stdout: r.stdout ?? "", stderr: r.stderr ?? "" };
}

function json(r, what) {
  try {
    return JSON.parse(r.stdout);
  } catch {
    throw new Error(`ktl ${what} failed (exit ${r.status}): ${r.stderr.trim() || r.stdout.trim()}`);
  }
}

/** The pull request's base commit of `path`, unpacked into a temporary directory with git archive. */
function baseManifests(env, path) {
  const event = env.GITHUB_EVENT_PATH ? JSON.parse(readFileSync(env.GITHUB_EVENT_PATH, "utf8")) : {};
  const sha = event.pull_request?.base?.sha ?? (env.GITHUB_BASE_REF ? `origin/${env.GITHUB_BASE_REF}` : "");
  if (!sha) throw new Error("no before: set the `before` input, or run on a pull_request event");
  spawnSync("git", ["fetch", "--no-tags", "--depth=1", "origin", sha.replace(/^origin\//, "")], {
    stdio: "ignore",
  });
  const dir = mkdtempSync(join(tmpdir(), "ktl-before-"));
  // A path the base commit lacks (the pull request adds the manifests) is an empty before.
  const exists = spawnSync("git", ["cat-file", "-e", `${sha}:${path.replace(/^\.\/?/, "")}`]).status === 0;
  if (!exists && spawnSync("git", ["cat-file", "-e", `${sha}^{commit}`]).status === 0) return dir;
  const tar = execFileSync("git", ["archive", "--format=tar", sha, "--", path], {
    maxBuffer: 512 * 1024 * 1024,
  });
  execFileSync("tar", ["-x", "-C", dir], { input: tar });
  return join(dir, path);
}

/**
 * A playground link that opens `text` with what it changes against `before` marked as a what-if's
 * changes are (src/share/codec.ts, format 5); the text alone when that is too long; undefined when
 * even the text is.
 */
export function playgroundLink(base, text, cni, before) {
  const view = cni ? { view: { cni } } : {};
  const marked = before !== undefined ? link(base, { text, before, ...view }) : undefined;
  if (marked) return { url: marked, marked: true };
  const plain = link(base, { text, ...view });
  return plain ? { url: plain, marked: false } : undefined;
}

function link(base, body) {
  const packed = deflateRawSync(Buffer.from(JSON.stringify(body), "utf8"), { level: 9 });
  const payload = Buffer.concat([Buffer.from([SHARE_VERSION]), packed]).toString("base64url");
  if (payload.length > MAX_LINK_CHARS) return undefined;
  return `${base.replace(/\/?$/, "/")}#share=${payload}`;
}

/** The after-state as one YAML text, for the playground's editor (ktl reads the same files). */
function manifestsText(path) {
  const r = spawnSync("find", [path, "-type", "f", "(", "-name", "*.yaml", "-o", "-name", "*.yml", ")"], {
    encoding: "utf8",
  });
  // A directory with no manifests (the base of a pull request that adds them) is an empty text.
  const files =
    r.status === 0 && r.stdout.trim()
      ? r.stdout.trim().split("\n").sort()
      : statSync(path).isDirectory()
        ? []
        : [path];
  return files.map((f) => `# ${f}\n${readFileSync(f, "utf8").trim()}`).join("\n---\n");
}

const cell = (s) => String(s).replace(/\|/g, "\\|").replace(/\r?\n/g, " ");

function flowTable(flows) {
  const rows = [
    "| from | to | port | before | after | deciding objects (after) |",
    "|---|---|---|---|---|---|",
  ];
  for (const f of flows.slice(0, ROWS))
    rows.push(
      `| ${[f.from, f.to, `${f.port}/${f.protocol}`, f.before, f.after, f.reason].map(cell).join(" | ")} |`,
    );
  if (flows.length > ROWS) rows.push("", `… ${flows.length - ROWS} more (\`ktl diff --json\` lists all)`);
  return rows.join("\n");
}

/** The comment body: a pure function of ktl's answers, so the test reads exactly what a PR shows. */
export function commentBody({ diff, sarif, tests, link, verdicts }) {
  const out = [MARKER, `## Kube Traffic Lab: ${diff.summary}`, ""];
  if (verdicts.length) out.push(`**Policy failed:** ${verdicts.join("; ")}.`, "");
  const lost = diff.flows.filter((f) => f.change === "lost");
  const gained = diff.flows.filter((f) => f.change === "gained");
  if (lost.length) out.push(`### Flows lost (${lost.length})`, "", flowTable(lost), "");
  if (gained.length) out.push(`### Flows gained (${gained.length})`, "", flowTable(gained), "");
  if (!lost.length && !gained.length) out.push("No flow gained or lost.", "");
  const results = sarif.runs?.[0]?.results ?? [];
  const errors = results.filter((r) => r.level === "error");
  const warnings = results.filter((r) => r.level !== "error");
  out.push(`### Validation: ${errors.length} errors, ${warnings.length} warnings`, "");
  for (const r of [...errors, ...warnings].slice(0, ROWS)) {
    const loc = r.locations?.[0]?.physicalLocation;
    const where = loc ? `${loc.artifactLocation?.uri}:${loc.region?.startLine ?? 1}` : "";
    out.push(
      `- ${r.level === "error" ? "error" : "warning"} \`${r.ruleId}\` ${where}: ${cell(r.message.text)}`,
    );
  }
  if (results.length) out.push("");
  if (tests) {
    const couldNot = tests.errors ? `, ${tests.errors} could not run` : "";
    out.push(`### Tests: ${tests.passed} passed, ${tests.failed} failed${couldNot}`, "");
    for (const t of tests.results.filter((x) => !x.pass))
      out.push(
        `- ${t.error !== undefined ? "ERROR" : "FAIL"} ${cell(t.name)} (${t.file}:${t.line}): ${cell(t.failures.join("; "))}`,
      );
    if (tests.failed || tests.errors) out.push("");
  }
  out.push(
    !link
      ? "The after-state is too large for a playground link; open the files in the playground."
      : link.marked
        ? `[Open the after-state in the playground](${link.url}), with what this change does to the flows marked.`
        : `[Open the after-state in the playground](${link.url}) (too large to carry the before-state: the changes are not marked).`,
  );
  return out.join("\n") + "\n";
}

async function github(env, fetchImpl, method, path, body) {
  const api = env.GITHUB_API_URL || "https://api.github.com";
  const res = await fetchImpl(`${api}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${env.GITHUB_TOKEN}`,
      accept: "application/vnd.github+json",
      "x-github-api-version": "2022-11-28",
      ...(body ? { "content-type": "application/json" } : {}),
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  if (!res.ok) throw new Error(`GitHub ${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** Posts the body on the pull request, or edits the comment that carries MARKER. */
async function postComment(env, fetchImpl, number, body) {
  const repo = env.GITHUB_REPOSITORY;
  for (let page = 1; page <= 20; page++) {
    const list = await github(
      env,
      fetchImpl,
      "GET",
      `/repos/${repo}/issues/${number}/comments?per_page=100&page=${page}`,
    );
    const mine = list.find((c) => typeof c.body === "string" && c.body.includes(MARKER));
    if (mine) return github(env, fetchImpl, "PATCH", `/repos/${repo}/issues/comments/${mine.id}`, { body });
    if (list.length < 100) break;
  }
  return github(env, fetchImpl, "POST", `/repos/${repo}/issues/${number}/comments`, { body });
}

export async function main(env = process.env, fetchImpl = globalThis.fetch, log = console) {
  const failOn = (env.KTL_FAIL_ON ?? "lost-flows,errors,tests")
    .split(/[\s,]+/)
    .filter((p) => p && p !== "none");
  const unknown = failOn.filter((p) => !POLICIES.includes(p));
  if (unknown.length) {
    log.error(`fail-on: unknown ${unknown.join(", ")} (use ${POLICIES.join(", ")} or none)`);
    return 2;
  }
  const manifests = env.KTL_MANIFESTS || ".";
  const after = env.KTL_AFTER || manifests;
  const before = env.KTL_BEFORE || baseManifests(env, manifests);
  const cni = env.KTL_CNI ? ["--cni", env.KTL_CNI] : [];

  const diffRun = ktl(["diff", "--json", ...cni, before, after]);
  if (diffRun.status === 2) {
    log.error(diffRun.stderr.trim());
    return 2;
  }
  const diff = json(diffRun, "diff");
  const sarifRun = ktl(["validate", "--format", "sarif", after]);
  const sarif = json(sarifRun, "validate");
  const sarifPath = env.KTL_SARIF || "ktl.sarif";
  writeFileSync(sarifPath, JSON.stringify(sarif, null, 2) + "\n");
  const tests = env.KTL_TESTS
    ? json(ktl(["test", "--format", "json", env.KTL_TESTS, after]), "test")
    : undefined;

  const lost = diff.flows.filter((f) => f.change === "lost").length;
  const errors = (sarif.runs?.[0]?.results ?? []).filter((r) => r.level === "error").length;
  const verdicts = [];
  if (failOn.includes("lost-flows") && lost) verdicts.push(`${lost} flow${lost === 1 ? "" : "s"} lost`);
  if (failOn.includes("errors") && errors)
    verdicts.push(`${errors} validation error${errors === 1 ? "" : "s"}`);
  // A test that could not run (it names what the manifests do not have) fails the check too.
  const notPassed = (tests?.failed ?? 0) + (tests?.errors ?? 0);
  if (failOn.includes("tests") && tests?.failed)
    verdicts.push(`${tests.failed} test${tests.failed === 1 ? "" : "s"} failed`);
  if (failOn.includes("tests") && tests?.errors)
    verdicts.push(`${tests.errors} test${tests.errors === 1 ? "" : "s"} could not run`);

  const actionRepo = env.GITHUB_ACTION_REPOSITORY || "kube-traffic-lab/kube-traffic-lab";
  const [owner, name] = actionRepo.split("/");
  const base = env.KTL_PLAYGROUND_URL || `https://${owner}.github.io/${name}/`;
  const link = playgroundLink(base, manifestsText(after), env.KTL_CNI, manifestsText(before));
  const body = commentBody({ diff, sarif, tests, link, verdicts });
  writeFileSync(env.KTL_COMMENT_FILE || "ktl-comment.md", body);
  if (env.GITHUB_STEP_SUMMARY) appendFileSync(env.GITHUB_STEP_SUMMARY, body);

  const event = env.GITHUB_EVENT_PATH ? JSON.parse(readFileSync(env.GITHUB_EVENT_PATH, "utf8")) : {};
  const number = event.pull_request?.number;
  if (env.GITHUB_TOKEN && number) await postComment(env, fetchImpl, number, body);
  else log.log(`No token or no pull request: the comment is in ${env.KTL_COMMENT_FILE || "ktl-comment.md"}.`);

  if (env.GITHUB_OUTPUT)
    appendFileSync(
      env.GITHUB_OUTPUT,
      `lost-flows=${lost}\nerrors=${errors}\nfailed-tests=${notPassed}\nsarif=${sarifPath}\n`,
    );
  for (const v of verdicts) log.error(`ktl: ${v} (fail-on)`);
  return verdicts.length ? 1 : 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().then(
    (code) => (process.exitCode = code),
    (e) => {
      console.error(String(e?.message ?? e));
      process.exitCode = 2;
    },
  );
}
