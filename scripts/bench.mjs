// `npm run bench`: how fast the engine (and the playground) is on realistic clusters.
//
//   npm run bench                      every tier, prints the table, rewrites BENCHMARKS.md
//   npm run bench -- --tier S,M        only these tiers (BENCHMARKS.md is kept unless --write)
//   npm run bench -- --json            one JSON object per figure on stdout, nothing rewritten
//   npm run bench -- --runs 3          runs per figure (default: per tier, see RUNS)
//   npm run bench -- --no-browser      skip the browser figures (--browser: run them with --tier too)
//   npm run bench -- --startup         ktl start-up figures with --tier too (a full run has them)
//   npm run bench -- --out FILE        write the report to FILE (with --tier: try the writer on a small run)
//   npm run bench -- --from F --out G  measure nothing: write the report of the figures in F (a --json run's output)
//
// Clusters come from bench/generate.mjs (seeded, cached in .cache/bench/).
// In-process figures run bench/runner.mjs bundled with the engine, in a fresh
// Node process per tier; whole-process figures run ./bin/ktl as a user would.
// Every figure is the median of its runs. Nothing here is a test: no figure
// fails the run, the targets are reported with their ratio.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem, release, platform, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { performance } from "node:perf_hooks";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const cacheDir = join(root, ".cache", "bench");
const { generate, ALL, TIERS, GENERATOR_VERSION, DEFAULT_SEED } = await import(
  pathToFileURL(join(root, "bench", "generate.mjs")).href
);

// ---------- arguments ----------

const argv = process.argv.slice(2);
const flag = (name) => argv.includes(`--${name}`);
const option = (name) => {
  const i = argv.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (i < 0) return undefined;
  return argv[i].includes("=") ? argv[i].slice(argv[i].indexOf("=") + 1) : argv[i + 1];
};
if (flag("help") || flag("h")) {
  console.log(
    readFileSync(fileURLToPath(import.meta.url), "utf8")
      .split("\n")
      .slice(0, 16)
      .map((l) => l.replace(/^\/\/ ?/, ""))
      .join("\n"),
  );
  process.exit(0);
}
const json = flag("json");
const tierNames = (option("tier") ?? Object.keys(ALL).join(","))
  .split(",")
  .map((s) => s.trim())
  .filter(Boolean);
for (const t of tierNames) {
  if (!ALL[t]) {
    console.error(`bench: unknown tier "${t}"; one of ${Object.keys(ALL).join(", ")}`);
    process.exit(2);
  }
}
const allTiers = option("tier") === undefined;
const seed = Number(option("seed") ?? DEFAULT_SEED);
const runsOverride = option("runs") ? Number(option("runs")) : undefined;
const browser = flag("browser") || (allTiers && !flag("no-browser"));
const out = option("out");
const write = !json && (allTiers || flag("write") || out !== undefined);

/**
 * Runs per figure: [in-process runs, whole-process runs]. Medians need at least 3; XL's whole process takes
 * five, as L's does: its runs on this machine spread by 0.3 s or more, and its figure is a target.
 */
const RUNS = { S: [7, 5], M: [5, 5], L: [5, 5], XL: [3, 5], "adv-ingress-only": [3, 1] };
const runsOf = (t) => {
  const [inproc, whole] = RUNS[t] ?? [3, 3];
  return runsOverride ? [runsOverride, runsOverride] : [inproc, whole];
};
const TRACES = 1000;

// ---------- helpers ----------

const median = (xs) => {
  const v = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return NaN;
  const m = v.length >> 1;
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
};
const log = (s) => process.stderr.write(s + "\n");
const figures = [];

function record(tier, figure, unit, values, extra = {}) {
  const f = { tier, figure, unit, median: round(median(values)), runs: values.map(round), ...extra };
  figures.push(f);
  if (json) process.stdout.write(JSON.stringify(f) + "\n");
  return f;
}
function round(x) {
  if (!Number.isFinite(x)) return null;
  return x >= 100 ? Math.round(x) : Math.round(x * 100) / 100;
}

function clusterFile(tier) {
  mkdirSync(cacheDir, { recursive: true });
  const path = join(cacheDir, `${tier}-${seed}-v${GENERATOR_VERSION}.yaml`);
  const statsPath = path.replace(/\.yaml$/, ".json");
  if (existsSync(path) && existsSync(statsPath))
    return { path, stats: JSON.parse(readFileSync(statsPath, "utf8")) };
  log(`generating ${tier} ...`);
  const { text, stats } = generate(tier, seed);
  writeFileSync(path, text);
  writeFileSync(statsPath, JSON.stringify(stats));
  return { path, stats };
}

async function bundleRunner() {
  const esbuild = await import("esbuild");
  const out = join(cacheDir, "runner.mjs");
  mkdirSync(cacheDir, { recursive: true });
  await esbuild.build({
    entryPoints: [join(root, "bench", "runner.mjs")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile: out,
    logLevel: "error",
    loader: { ".yaml": "text", ".md": "text" },
    banner: {
      js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
    },
  });
  return out;
}

function runNode(args, { env = {}, timeout = 600_000 } = {}) {
  const rss = join(tmpdir(), `ktl-bench-rss-${process.pid}-${Math.random().toString(36).slice(2)}`);
  const t = performance.now();
  const r = spawnSync(
    process.execPath,
    ["--import", pathToFileURL(join(root, "bench", "rss-hook.mjs")).href, ...args],
    {
      cwd: root,
      encoding: "utf8",
      maxBuffer: 1 << 30,
      timeout,
      env: { ...process.env, ...env, KTL_BENCH_RSS: rss },
    },
  );
  const ms = performance.now() - t;
  let maxRssMB = NaN;
  if (existsSync(rss)) {
    maxRssMB = Number(readFileSync(rss, "utf8")) / 1024;
    rmSync(rss, { force: true });
  }
  return { ms, maxRssMB, status: r.status, stdout: r.stdout ?? "", stderr: r.stderr ?? "", error: r.error };
}

// ---------- engine figures ----------

async function engineFigures(runner) {
  // Build the CLI once so that no timed run pays for esbuild.
  const { ensureBuilt } = await import(pathToFileURL(join(root, "bin", "build-cli.mjs")).href);
  await ensureBuilt();
  const rows = [];
  for (const tier of tierNames) {
    const { path, stats } = clusterFile(tier);
    const [inRuns, wholeRuns] = runsOf(tier);
    log(
      `${tier}: ${stats.pods} pods, ${stats.policies} policies, ${(stats.bytes / 1e6).toFixed(1)} MB; ${inRuns} in-process runs ...`,
    );
    const args = ["--expose-gc", runner, "--file", path, "--runs", String(inRuns), "--port", "80"];
    if (tier === "M") args.push("--matrix");
    if (tier === "S" || tier === "M" || tier === "L") args.push("--analysis");
    if (tier in TIERS) args.push("--traces", String(TRACES));
    const r = runNode(args);
    if (r.status !== 0) {
      log(`${tier}: runner failed (${r.status ?? r.error?.message}): ${r.stderr.slice(-2000)}`);
      continue;
    }
    const out = JSON.parse(r.stdout.trim().split("\n").pop());
    const row = { tier, stats, last: out.last, figures: {} };
    const at = {
      pods: out.last.pods,
      policies: out.last.policies,
      classes: out.last.classes,
      yamlMB: round(stats.bytes / 1e6),
    };
    for (const [phase, values] of Object.entries(out.times)) {
      if (values.every((v) => !Number.isFinite(v))) continue;
      row.figures[phase] = record(tier, phase, phase.endsWith("KB") ? "kB" : "ms", values, at);
    }
    row.figures.runnerPeakRSS = record(tier, "in-process peak RSS", "MB", [out.maxRssMB], at);

    log(`${tier}: ${wholeRuns} runs of ktl reach --summary ...`);
    const whole = [];
    const rss = [];
    let answer;
    for (let i = 0; i < wholeRuns; i++) {
      const w = runNode([join(root, "bin", "ktl"), "reach", "--summary", "--json", "--port", "80", path]);
      if (w.status !== 0) {
        log(`${tier}: ktl exited ${w.status}: ${w.stderr.slice(-1000)}`);
        break;
      }
      answer = JSON.parse(w.stdout.trim().split("\n").pop());
      whole.push(w.ms);
      rss.push(w.maxRssMB);
    }
    if (whole.length) {
      row.figures.whole = record(tier, "ktl reach --summary (whole process)", "ms", whole, {
        ...at,
        allowedPairs: answer.allowedPairs,
      });
      row.figures.wholeRSS = record(tier, "ktl reach --summary peak RSS", "MB", rss, at);
    }
    rows.push(row);
  }
  return rows;
}

/** The engine table's rows from --json figure lines, as engineFigures builds them while measuring. */
function rowsOf(records) {
  const keyOf = {
    "in-process peak RSS": "runnerPeakRSS",
    "ktl reach --summary (whole process)": "whole",
    "ktl reach --summary peak RSS": "wholeRSS",
  };
  const byTier = new Map();
  for (const f of records) {
    if (f.browser || f.pods === undefined) continue;
    let row = byTier.get(f.tier);
    if (!row) {
      row = {
        tier: f.tier,
        stats: { bytes: f.yamlMB * 1e6 },
        last: { pods: f.pods, policies: f.policies, classes: f.classes },
        figures: {},
      };
      byTier.set(f.tier, row);
    }
    row.figures[keyOf[f.figure] ?? f.figure] = f;
  }
  return [...byTier.values()];
}

// ---------- ktl start-up ----------

/**
 * What one short ktl run costs, as the conformance suites pay it ~120 times: node alone, then
 * ./bin/ktl as a user runs it (sh, then node from the V8 startup snapshot that bin/build-cli.mjs
 * built for this node and these sources), the same with KTL_NO_SNAPSHOT=1 (sh, then node with
 * bin/ktl's freshness check and the plain ESM bundle), and `node bin/ktl` (no sh). Wall time per
 * run, minimum and median (the minimum is the least disturbed by other load on the machine),
 * the variants interleaved so that load changes hit all of them alike.
 */
async function startupFigures() {
  const { ensureBuilt, ensureSnapshot } = await import(
    pathToFileURL(join(root, "bin", "build-cli.mjs")).href
  );
  await ensureBuilt();
  if (!(await ensureSnapshot())) log("startup: no snapshot could be built; ./bin/ktl runs the plain bundle");
  const small = join(root, "scenarios", "05-allow-one-caller-after-default-deny", "manifests.yaml");
  const ktl = join(root, "bin", "ktl");
  const variants = [
    ["node alone (node -e 0)", process.execPath, ["-e", "0"], {}],
    ["./bin/ktl validate (1 small file), from the snapshot", ktl, ["validate", small], {}],
    [
      "./bin/ktl validate, KTL_NO_SNAPSHOT=1 (plain bundle)",
      ktl,
      ["validate", small],
      { KTL_NO_SNAPSHOT: "1" },
    ],
    ["node bin/ktl validate (plain bundle, no sh)", process.execPath, [ktl, "validate", small], {}],
  ];
  const RUNS = 21;
  const times = variants.map(() => []);
  for (let i = 0; i < RUNS; i++)
    variants.forEach(([name, cmd, args, env], v) => {
      if (times[v].length < i) return; // this variant failed before
      const t = performance.now();
      const r = spawnSync(cmd, args, { cwd: root, encoding: "utf8", env: { ...process.env, ...env } });
      if (r.status !== 0) return log(`startup: ${name} exited ${r.status}: ${(r.stderr || "").slice(-300)}`);
      times[v].push(performance.now() - t);
    });
  variants.forEach(([name], v) =>
    record("-", `start-up: ${name}`, "ms", times[v], { startup: true, min: round(Math.min(...times[v])) }),
  );
}

// ---------- browser figures ----------

async function browserFigures() {
  const probe = join(root, "bench", "browser.mjs");
  if (!existsSync(probe)) return { skipped: "no browser benchmark (bench/browser.mjs) yet" };
  const { measureBrowser } = await import(pathToFileURL(probe).href);
  return measureBrowser({ root, record, log, clusterFile, tiers: allTiers ? undefined : tierNames });
}

// ---------- targets ----------

// Issue 18's targets (medians on this 2-core machine).
const NOTE_OF = {
  "keystroke to redrawn graph": "Keystroke to redrawn graph (S, M, L)",
  "longest main-thread task while typing": "Longest main-thread task while typing",
  "load to drawn graph": "Load to drawn graph",
};
const browserTarget = (tier, figure, limit, label) => ({
  tier,
  figure,
  limit,
  unit: "ms",
  label,
  note: NOTE_OF[figure],
});
const TARGETS = [
  {
    tier: "L",
    figure: "ktl reach --summary (whole process)",
    limit: 1200,
    unit: "ms",
    label: "L `ktl reach --summary`, whole process",
    note: "`ktl reach --summary` at L and XL",
  },
  {
    tier: "XL",
    figure: "ktl reach --summary (whole process)",
    limit: 6000,
    unit: "ms",
    label: "XL `ktl reach --summary`, whole process",
    note: "`ktl reach --summary` at L and XL",
  },
  {
    tier: "XL",
    figure: "ktl reach --summary peak RSS",
    limit: 1536,
    unit: "MB",
    label: "XL `ktl reach --summary`, peak memory",
    note: "`ktl reach --summary` at L and XL",
  },
  {
    tier: "L",
    figure: "trace",
    limit: 5,
    unit: "ms",
    label: "L trace, per trace after the model is built",
    note: "Trace at L",
  },
  browserTarget("S", "keystroke to redrawn graph", 50, "S keystroke to redrawn graph"),
  browserTarget("M", "keystroke to redrawn graph", 150, "M keystroke to redrawn graph"),
  browserTarget("L", "keystroke to redrawn graph", 600, "L keystroke to redrawn graph"),
  browserTarget("S", "longest main-thread task while typing", 50, "S longest main-thread task while typing"),
  browserTarget("M", "longest main-thread task while typing", 50, "M longest main-thread task while typing"),
  browserTarget("L", "longest main-thread task while typing", 100, "L longest main-thread task while typing"),
  browserTarget("S", "load to drawn graph", 800, "S load to drawn graph"),
  browserTarget("M", "load to drawn graph", 1500, "M load to drawn graph"),
  browserTarget("L", "load to drawn graph", 4000, "L load to drawn graph"),
  {
    tier: "default",
    figure: "first load to drawn scenario",
    limit: 2000,
    unit: "ms",
    label: "first load to drawn default scenario",
    note: "Load to drawn graph",
  },
  {
    tier: "-",
    figure: "main bundle without Monaco (gzip)",
    limit: 300,
    unit: "kB",
    label: "main bundle without Monaco, gzip",
  },
];

function targetRows() {
  return TARGETS.map((t) => {
    const f = figures.find((x) => x.tier === t.tier && x.figure === t.figure);
    if (!f || f.median === null) return { ...t, value: null, ratio: null, met: null };
    return { ...t, value: f.median, ratio: f.median / t.limit, met: f.median < t.limit };
  });
}

// ---------- report ----------

function fmt(f, unit = "ms") {
  if (!f || f.median === null) return "–";
  if (unit === "ms")
    return f.median >= 1000
      ? `${(f.median / 1000).toFixed(2)} s`
      : `${f.median < 10 ? f.median.toFixed(2) : Math.round(f.median)} ms`;
  return `${Math.round(f.median)} ${unit}`;
}

function machine() {
  const c = cpus();
  const git = (args) => spawnSync("git", args, { cwd: root, encoding: "utf8" }).stdout?.trim() ?? "";
  const dirty = git(["status", "--porcelain", "--", "src/engine", "src/cli", "bench", "scripts", "bin"]);
  return {
    cpu: `${c[0]?.model ?? "unknown"} × ${c.length}`,
    memoryGB: Math.round(totalmem() / 2 ** 30),
    os: `${platform()} ${release()}`,
    node: process.version,
    commit: git(["rev-parse", "--short", "HEAD"]) + (dirty ? " (with uncommitted changes)" : ""),
    date: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
    seed,
    loadStart: loadStart.toFixed(2),
    loadEnd: loadavg()[0].toFixed(2),
  };
}

function markdown(rows, browserResult, m) {
  const L = [];
  L.push("# Benchmarks", "");
  L.push("Written by `npm run bench` (scripts/bench.mjs); do not edit by hand. Medians over several runs;");
  L.push("clusters from bench/generate.mjs with the seed below. Reachability is for TCP port 80.", "");
  L.push(
    `Machine: ${m.cpu}, ${m.memoryGB} GB RAM, ${m.os}, Node ${m.node}. Commit ${m.commit}, ${m.date}, seed ${m.seed}.`,
  );
  L.push(
    `Load average (1 min) at start and end: ${m.loadStart} and ${m.loadEnd}: the machine is shared, so figures carry that noise.`,
    "",
  );
  L.push("## Engine", "");
  L.push(
    "| tier | pods | policies | classes | YAML | parse | model build | policy index | summary (1 port) | full matrix | trace | `ktl reach --summary` whole process | its peak RSS |",
  );
  L.push("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const r of rows) {
    const f = r.figures;
    L.push(
      `| ${r.tier} | ${r.last.pods} | ${r.last.policies} | ${r.last.classes} | ${(r.stats.bytes / 1e6).toFixed(1)} MB | ${fmt(f.parse)} | ${fmt(f.build)} | ${fmt(f.index)} | ${fmt(f.summary)} | ${fmt(f.matrix)} | ${fmt(f.trace)} | ${fmt(f.whole)} | ${fmt(f.wholeRSS, "MB")} |`,
    );
  }
  L.push("");
  const analysed = rows.filter((r) => r.figures.analysis);
  if (analysed.length) {
    L.push(
      "The playground worker's path, in-process: the whole analysis (`openAnalysis`), then again after a one-doc",
    );
    L.push(
      "edit (a policy appended) with the worker's parse cache warm, and the answer to the page as JSON: the whole",
    );
    L.push("analysis, and the delta against the analysis before the edit that the worker sends.", "");
    L.push(
      "| tier | analysis | after a one-doc edit | whole answer | delta answer |",
      "|---|---:|---:|---:|---:|",
    );
    for (const r of analysed) {
      const f = r.figures;
      L.push(
        `| ${r.tier} | ${fmt(f.analysis)} | ${fmt(f.reanalysis)} | ${fmt(f.answerWholeKB, "kB")} | ${fmt(f.answerDeltaKB, "kB")} |`,
      );
    }
    L.push("");
  }
  L.push(
    "Tiers: S, M and XL write Deployments, StatefulSets and a DaemonSet that the model expands; L writes every pod",
  );
  L.push(
    "explicitly (node and IP given). Adversarial inputs: `adv-select-all` (10,000 policies, each selecting every pod),",
  );
  L.push(
    "`adv-ingress-only` (the XL cluster with policies that isolate ingress only), `adv-no-policy` (the L cluster without",
  );
  L.push(
    "policies), `adv-ports` (100-port Services, endPort ranges, named ports whose numbers differ per pod, so every pod is",
  );
  L.push(
    "its own class). Parse, model build, policy index (pod classes, selected policies), summary (class matrix for one port",
  );
  L.push(
    "and the pair count) and trace are in-process, after the first run warmed the JIT; `ktl reach --summary` is a fresh",
  );
  L.push(
    "process as a user runs it (JIT cold, parse included). Trace is per trace (1,000 per run: pod to Service port, pod to",
  );
  L.push(
    "pod) after buildProxyIndex; the full matrix (class matrix to the pod-by-pod boolean matrix) is measured for M.",
    "",
  );
  const startup = figures.filter((x) => x.startup);
  if (startup.length) {
    L.push("## ktl start-up", "");
    L.push("| one run | median | minimum |", "|---|---:|---:|");
    for (const f of startup)
      L.push(`| ${f.figure.replace(/^start-up: /, "")} | ${f.median} ms | ${f.min} ms |`);
    L.push("");
  }
  L.push("## Browser", "");
  if (browserResult.skipped) L.push(`Not measured: ${browserResult.skipped}.`, "");
  else {
    L.push("| figure | tier | median | 95th percentile | runs |", "|---|---|---:|---:|---:|");
    for (const f of figures.filter((x) => x.browser))
      L.push(
        `| ${f.figure} | ${f.tier} | ${f.median} ${f.unit} | ${f.p95 !== undefined ? `${f.p95} ${f.unit}` : "–"} | ${f.runs.length} |`,
      );
    L.push("");
    for (const [tier, why] of Object.entries(browserResult.failed ?? {}))
      L.push(`Not measured at ${tier}: ${why}.`, "");
  }
  // Every target with its figure; a missed one points at the paragraph of bench/notes.md (printed
  // below) that gives the profile explaining it and what would close it.
  const notesText = existsSync(join(root, "bench", "notes.md"))
    ? readFileSync(join(root, "bench", "notes.md"), "utf8")
    : "";
  L.push("## Targets", "");
  L.push(
    "Issue 18's targets (and three of the playground's own). For a target missed, the last column names the",
    "paragraph below (from bench/notes.md) with the profile that explains it and what would close it.",
    "",
  );
  L.push(
    "| target | limit | measured | ratio (measured / limit) | met | if missed: why, and what would close it |",
    "|---|---:|---:|---:|---|---|",
  );
  for (const t of targetRows()) {
    const failed = browserResult.failed?.[t.tier];
    const why =
      t.value === null && failed && t.note
        ? `the ${t.tier} browser run failed (${failed}); below: **${t.note}**`
        : t.met !== false
          ? ""
          : t.note && notesText.includes(`**${t.note}.**`)
            ? `below: **${t.note}**`
            : "**no explanation in bench/notes.md yet**";
    L.push(
      `| ${t.label} | ${t.limit} ${t.unit} | ${t.value === null ? "not measured" : `${t.value} ${t.unit}`} | ${t.ratio === null ? "–" : t.ratio.toFixed(2)} | ${t.met === null ? "–" : t.met ? "yes" : "**no**"} | ${why} |`,
    );
  }
  L.push("");
  const notes = join(root, "bench", "notes.md");
  if (existsSync(notes)) L.push(readFileSync(notes, "utf8").trim(), "");
  return L.join("\n");
}

// ---------- main ----------

const started = performance.now();
const loadStart = loadavg()[0];
const from = option("from");
let rows = [];
let browserResult;
let measuredOn;
if (from) {
  // The report of an earlier run's figures (--json lines): the engine table's rows are rebuilt
  // from them, and the machine line is the measuring run's (its commit, date and load), not this one's.
  for (const line of readFileSync(from, "utf8").split("\n")) {
    if (!line.trim().startsWith("{")) continue;
    const o = JSON.parse(line);
    if (o.figure) figures.push(o);
    else if (o.machine) measuredOn = o.machine;
  }
  rows = rowsOf(figures);
  browserResult = figures.some((f) => f.browser) ? {} : { skipped: `no browser figures in ${from}` };
} else {
  const runner = await bundleRunner();
  // The browser's figures first, before the engine's (XL's runs hold a core and a gigabyte for minutes): measured
  // after them, M's load and keystroke were 1.3 to 1.6 times the same build's measured alone (bench/notes.md).
  browserResult = browser
    ? await browserFigures()
    : { skipped: flag("no-browser") ? "--no-browser" : "only with every tier, or with --browser" };
  rows = await engineFigures(runner);
  if (allTiers || flag("startup")) await startupFigures();
  if (browser && browserResult.skipped) log(`browser figures not measured: ${browserResult.skipped}`);
  for (const [tier, why] of Object.entries(browserResult.failed ?? {}))
    log(`browser figures not measured at ${tier}: ${why}`);
}
if (json) {
  process.stdout.write(JSON.stringify({ machine: machine() }) + "\n");
  for (const t of targetRows())
    process.stdout.write(
      JSON.stringify({
        target: t.label,
        tier: t.tier,
        figure: t.figure,
        limit: t.limit,
        unit: t.unit,
        value: t.value,
        ratio: t.ratio === null ? null : round(t.ratio),
        met: t.met,
      }) + "\n",
    );
} else {
  const md = markdown(rows, browserResult, measuredOn ?? machine());
  process.stdout.write(md + "\n");
  if (write) {
    writeFileSync(out ?? join(root, "BENCHMARKS.md"), md);
    log(`${out ?? "BENCHMARKS.md"} rewritten.`);
  } else log("BENCHMARKS.md kept (only a full run rewrites it; add --write to force).");
}
log(`bench: ${((performance.now() - started) / 1000).toFixed(0)} s`);
