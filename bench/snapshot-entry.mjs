// The ktl CLI as one CommonJS script for a V8 startup snapshot (`node --build-snapshot`),
// measured by scripts/bench.mjs against bin/ktl: the engine's module graph is
// loaded and initialised at build time, so a run starts with main() at once.
//
//   node --snapshot-blob ktl.blob --build-snapshot ktl.cjs     (ktl.cjs: this file bundled by esbuild)
//   node --snapshot-blob ktl.blob validate f.yaml
import v8 from "node:v8";
import { main } from "../src/cli/main.ts";

if (v8.startupSnapshot?.isBuildingSnapshot()) {
  v8.startupSnapshot.setDeserializeMainFunction(() => {
    // In a snapshot run argv is [node, ...args]: no script path.
    void main(process.argv.slice(1)).then((code) => (process.exitCode = code));
  });
} else {
  void main(process.argv.slice(2)).then((code) => (process.exitCode = code));
}
