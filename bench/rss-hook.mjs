// Preloaded with `node --import` into a process under measurement: at exit it
// writes the process's peak resident set size (KiB) to $KTL_BENCH_RSS.
import { writeFileSync } from "node:fs";

process.on("exit", () => {
  const out = process.env.KTL_BENCH_RSS;
  if (out) writeFileSync(out, String(process.resourceUsage().maxRSS));
});
