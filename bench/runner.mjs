// In-process engine timings for one cluster file. Bundled with the engine by
// scripts/bench.mjs (esbuild) and run in a fresh Node process per tier, so
// tiers do not share a heap or JIT state.
//
//   node --expose-gc runner.mjs --file F [--runs N] [--matrix] [--traces N] [--port 80]
//
// Prints one JSON object: every phase's per-run times in milliseconds.
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import * as engine from "../src/engine/index.ts";

const { parseManifests, buildModel, buildPolicyIndex, classMatrix, reachSummary, podMatrix } = engine;

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const v = process.argv[i + 1];
  return v === undefined || v.startsWith("--") ? true : v;
}

const file = arg("file");
const runs = Number(arg("runs", 3));
const port = Number(arg("port", 80));
const wantMatrix = arg("matrix", false) === true;
const traces = Number(arg("traces", 0));
const text = readFileSync(file, "utf8");
const files = [{ name: file, text }];

const times = { parse: [], build: [], index: [], summary: [], reach: [] };
if (wantMatrix) times.matrix = [];
if (traces > 0) {
  times.trace = [];
  times.traceIndex = [];
}
let traceStats;
let last;
const gc = globalThis.gc ?? (() => {});
let heapPeak = 0;
const sampleHeap = () => {
  heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
};

for (let r = 0; r < runs; r++) {
  last = undefined;
  gc();
  let t = performance.now();
  const parsed = parseManifests(files);
  times.parse.push(performance.now() - t);
  sampleHeap();
  t = performance.now();
  const model = buildModel(parsed);
  times.build.push(performance.now() - t);
  sampleHeap();
  const t0 = performance.now();
  const index = buildPolicyIndex(model);
  times.index.push(performance.now() - t0);
  t = performance.now();
  const m = classMatrix(index, port, "TCP");
  const s = reachSummary(index, m);
  times.summary.push(performance.now() - t);
  times.reach.push(performance.now() - t0);
  sampleHeap();
  if (wantMatrix) {
    t = performance.now();
    const mm = classMatrix(index, port, "TCP");
    const rows = podMatrix(index, mm);
    times.matrix.push(performance.now() - t);
    if (rows.length !== model.pods.length) throw new Error("matrix size");
    sampleHeap();
  }
  if (traces > 0) {
    const tr = traceTimes(model, traces);
    times.trace.push(tr.perTrace);
    times.traceIndex.push(tr.index);
  }
  last = {
    summary: s,
    pods: model.pods.length,
    policies: model.policies.length,
    services: model.services.length,
    classes: index.classes.length,
    diagnostics: model.diagnostics.length,
    traceStats,
  };
}

/**
 * `n` requests over one model (traceRequest after buildProxyIndex, both built
 * once per run): three in four from a pod to a Service port, one in four from
 * a pod to another pod's port. Returns the mean milliseconds per trace.
 */
function traceTimes(model, n) {
  const { traceRequest, buildProxyIndex } = engine;
  if (typeof traceRequest !== "function" || typeof buildProxyIndex !== "function")
    return { perTrace: NaN, index: NaN };
  let t = performance.now();
  const index = buildProxyIndex(model);
  const indexMs = performance.now() - t;
  const pods = model.pods.filter((p) => !p.hostNetwork && p.ips.length > 0);
  const services = model.services.filter((s) => s.ports.length > 0 && s.clusterIPs.length > 0);
  let seed = 7;
  const next = (k) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return (seed >>> 8) % k;
  };
  const requests = [];
  for (let i = 0; i < n; i++) {
    const src = pods[next(pods.length)];
    if (services.length > 0 && i % 4 !== 3) {
      const svc = services[next(services.length)];
      requests.push([`pod:${src.key}`, `service:${svc.key}:${svc.ports[0].port}`]);
    } else {
      const dst = pods[next(pods.length)];
      requests.push([`pod:${src.key}`, `pod:${dst.key}:${dst.ports[0]?.containerPort ?? 80}`]);
    }
  }
  let errors = 0;
  let endpoints = 0;
  t = performance.now();
  for (const [from, to] of requests) {
    const r = traceRequest(model, index, from, to);
    if (r.error) errors++;
    endpoints += r.endpoints.length;
  }
  const perTrace = (performance.now() - t) / n;
  if (errors > n / 100) throw new Error(`${errors} of ${n} traces failed`);
  traceStats = { errors, meanEndpoints: endpoints / n };
  return { perTrace, index: indexMs };
}

/**
 * The playground worker's path (--analysis): openAnalysis of the whole text,
 * then the same after a one-doc edit (a policy appended) with the parse cache
 * warm, and the size of the answer to the page (the delta against the
 * analysis before the edit, as JSON) against the whole analysis.
 */
if (arg("analysis", false) === true) {
  const { openAnalysis } = await import("../src/engine/analysis/index.ts");
  const { YamlPartCache } = await import("../src/engine/parse/yaml.ts");
  const { messageFor } = await import("../src/worker/delta.ts");
  times.analysis = [];
  times.reanalysis = [];
  const sizes = { whole: [], delta: [] };
  for (let r = 0; r < runs; r++) {
    const parseCache = new YamlPartCache();
    const name = "bench.yaml";
    gc();
    let t = performance.now();
    const before = openAnalysis([{ name, text }], { parseCache }).analysis;
    times.analysis.push(performance.now() - t);
    const edited = `${text}\n---\napiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata:\n  name: bench-edit-${r}\n  namespace: default\nspec:\n  podSelector: {}\n  ingress:\n  - {}\n`;
    gc();
    t = performance.now();
    const after = openAnalysis([{ name, text: edited }], { parseCache }).analysis;
    times.reanalysis.push(performance.now() - t);
    sizes.whole.push(JSON.stringify(after).length / 1000);
    sizes.delta.push(JSON.stringify(messageFor(after, { generation: 1, value: before })).length / 1000);
  }
  times.answerWholeKB = sizes.whole;
  times.answerDeltaKB = sizes.delta;
}

const mem = process.memoryUsage();
process.stdout.write(
  JSON.stringify({
    file,
    runs,
    times,
    last,
    heapPeakMB: heapPeak / 2 ** 20,
    rssMB: mem.rss / 2 ** 20,
    maxRssMB: process.resourceUsage().maxRSS / 1024,
  }) + "\n",
);
