import { defineConfig, type Plugin } from "vitest/config";
import react from "@vitejs/plugin-react";

/** `import text from "./manifests.yaml"` gives the file's text, as esbuild's `text` loader does for bin/ktl. */
function yamlAsText(): Plugin {
  return {
    name: "ktl-yaml-as-text",
    transform(code, id) {
      if (!/\.ya?ml$/.test(id)) return null;
      return { code: `export default ${JSON.stringify(code)};`, map: null };
    },
  };
}

export default defineConfig({
  plugins: [yamlAsText(), react()],
  base: "./",
  worker: { format: "es" },
  build: {
    target: "es2022",
    chunkSizeWarningLimit: 4096,
  },
  test: {
    include: ["src/**/*.test.ts", "src/**/*.test.tsx", "scripts/**/*.test.ts", "scenarios/**/*.test.ts"],
    environment: "node",
    pool: "threads",
    maxWorkers: 2,
    // A generous ceiling, not a speed assertion: several suites run at once on a loaded 2-core machine.
    testTimeout: 60_000,
  },
});
