// `npm test`: every check, in order, stopping at the first failure:
// build ktl -> type-check -> lint -> format (prettier --check) -> unit tests (vitest) -> conformance (../shared, when present) -> browser tests (Playwright).
// Each runner's own counts are added up into one closing line: "tests: N passed, N failed".
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";

const shared = "../shared";
const steps = [
  // The CLI's bundle and start-up snapshot, built once here (./bin/ktl would build them on first
  // use, but the suites below start many at once).
  { name: "build ktl", cmd: "node", args: ["bin/build-cli.mjs"] },
  { name: "type-check", cmd: "npm", args: ["run", "-s", "typecheck"] },
  { name: "lint", cmd: "npm", args: ["run", "-s", "lint"] },
  { name: "format", cmd: "npx", args: ["prettier", "--check", "."] },
  {
    name: "unit tests",
    cmd: "npx",
    args: ["vitest", "run"],
    counts: /Tests\s+(?:(\d+) failed \| )?(\d+) passed/,
  },
];
if (existsSync(`${shared}/conformance/run`)) {
  steps.push({
    name: "conformance with upstream Kubernetes",
    cmd: "node",
    args: [`${shared}/conformance/run`],
    counts: /^(\d+) passed, (\d+) failed$/m,
    order: "pf",
  });
}
// conformance-next suites that pass, run with the same runner (each added when its layer landed).
const next = ["cilium", "calico", "gateway", "ingress", "mesh", "tiers"]
  .map((s) => `${shared}/conformance-next/${s}`)
  .filter((d) => existsSync(d));
if (next.length && existsSync(`${shared}/conformance/run`)) {
  steps.push({
    name: `conformance-next (${next.map((d) => d.split("/").pop()).join(", ")})`,
    cmd: "node",
    args: [`${shared}/conformance/run`, ...next],
    counts: /^(\d+) passed, (\d+) failed$/m,
    order: "pf",
  });
}
if (existsSync(`${shared}/conformance-peer/run`)) {
  // Its core cases and its anp/ cases (AdminNetworkPolicy / BaselineAdminNetworkPolicy).
  steps.push({
    name: "netpol-analyzer's own suite",
    cmd: "node",
    args: [`${shared}/conformance-peer/run`, `${shared}/conformance-peer/netpol-analyzer`],
    counts: /^(\d+) passed, (\d+) failed$/m,
    order: "pf",
  });
}
if (!existsSync(shared)) console.log(`(no ${shared} beside the project: conformance suites skipped)`);
if (!process.argv.includes("--no-e2e")) {
  steps.push({
    name: "browser tests",
    cmd: "npm",
    args: ["run", "-s", "test:e2e"],
    counts: /(?:(\d+) failed[\s\S]*?)?(\d+) passed \(/,
  });
}

let passed = 0;
let failed = 0;
for (const step of steps) {
  console.log(`\n== ${step.name}: ${step.cmd} ${step.args.join(" ")}`);
  const { code, output } = await new Promise((resolve) => {
    const child = spawn(step.cmd, step.args, {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, FORCE_COLOR: "0", NO_COLOR: "1" },
    });
    let output = "";
    child.stdout.on("data", (d) => {
      output += d;
      process.stdout.write(d);
    });
    child.stderr.on("data", (d) => {
      output += d;
      process.stderr.write(d);
    });
    child.on("close", (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output }));
  });
  if (step.counts) {
    const m = step.counts.exec(output);
    if (m) {
      const [p, f] = step.order === "pf" ? [m[1], m[2]] : [m[2], m[1]];
      passed += Number(p ?? 0);
      failed += Number(f ?? 0);
    }
  } else if (code === 0) passed += 1;
  if (code !== 0) {
    if (!step.counts) failed += 1;
    console.error(`\nnpm test: ${step.name} failed (exit ${code}).`);
    console.log(`tests: ${passed} passed, ${Math.max(failed, 1)} failed`);
    process.exit(code || 1);
  }
}
console.log(`\nnpm test: every step passed.`);
console.log(`tests: ${passed} passed, ${failed} failed`);
