/**
 * The entry of ktl's V8 startup snapshot (bin/build-cli.mjs bundles it as CommonJS and runs
 * `node --snapshot-blob B --build-snapshot`): the engine's modules are loaded and initialised
 * at build time, so `node --snapshot-blob B -- ARGS` (what bin/ktl runs when a snapshot for this
 * node and these sources exists) starts with main() at once.
 */
import { startupSnapshot } from "node:v8";
import { main } from "./main.ts";

const run = (argv: string[]) => void main(argv).then((code) => (process.exitCode = code));

if (startupSnapshot.isBuildingSnapshot()) {
  // Run from the snapshot, argv is [node, ...ARGS]: there is no script path.
  startupSnapshot.setDeserializeMainFunction(() => run(process.argv.slice(1)));
} else {
  run(process.argv.slice(2));
}
