// `npm test`: every check, in order, stopping at the first failure.
// type-check -> lint -> unit tests (vitest) -> conformance -> browser tests (Playwright, Debian's Chromium).
import { spawnSync } from "node:child_process";

const steps = [
  ["type-check", "npm", ["run", "-s", "typecheck"]],
  ["lint", "npm", ["run", "-s", "lint"]],
  ["unit tests", "npx", ["vitest", "run"]],
  ["browser tests", "npm", ["run", "-s", "test:e2e"]],
];
if (process.argv.includes("--no-e2e")) steps.pop();

for (const [name, cmd, args] of steps) {
  console.log(`\n== ${name}: ${cmd} ${args.join(" ")}`);
  const r = spawnSync(cmd, args, { stdio: "inherit" });
  if (r.status !== 0) {
    console.error(`\nnpm test: ${name} failed (exit ${r.status ?? r.signal}).`);
    process.exit(r.status || 1);
  }
}
console.log("\nnpm test: every step passed.");
