import { defineConfig, type Plugin } from "vitest/config";
import react from "@vitejs/plugin-react";
import { CONTENT_SECURITY_POLICY, SITE_HEADERS, headersFile } from "./src/app/csp.ts";

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

/** The Content-Security-Policy as the first tag of the built index.html (the dev server's React refresh needs inline scripts). */
function contentSecurityPolicy(): Plugin {
  return {
    name: "ktl-content-security-policy",
    apply: "build",
    transformIndexHtml: {
      order: "post",
      handler: () => [
        {
          tag: "meta",
          attrs: { "http-equiv": "Content-Security-Policy", content: CONTENT_SECURITY_POLICY },
          injectTo: "head-prepend",
        },
      ],
    },
    generateBundle() {
      // frame-ancestors cannot be a meta tag: hosts that read `_headers` send it as a header.
      this.emitFile({ type: "asset", fileName: "_headers", source: headersFile() });
    },
  };
}

/**
 * The app's chunk (src/app/boot.tsx, imported by the entry after it starts the engine worker) preloaded
 * from index.html with its CSS and its chunks: it downloads beside the entry instead of after it.
 */
export function preloadApp(): Plugin {
  return {
    name: "ktl-preload-app",
    apply: "build",
    transformIndexHtml: {
      order: "post",
      handler(_html, ctx) {
        const chunks = Object.values(ctx.bundle ?? {}).filter((c) => c.type === "chunk");
        const app = chunks.find((c) => c.facadeModuleId?.endsWith("/src/app/boot.tsx"));
        if (!app) throw new Error("ktl-preload-app: no chunk for src/app/boot.tsx");
        const css = [...(app.viteMetadata?.importedCss ?? [])];
        const entries = new Set(chunks.filter((c) => c.isEntry).map((c) => c.fileName));
        const js = [app.fileName, ...app.imports].filter((f) => !entries.has(f));
        return [
          ...css.map((f) => ({
            tag: "link",
            attrs: { rel: "stylesheet", crossorigin: true, href: `./${f}` },
            injectTo: "head" as const,
          })),
          ...js.map((f) => ({
            tag: "link",
            attrs: { rel: "modulepreload", crossorigin: true, href: `./${f}` },
            injectTo: "head" as const,
          })),
        ];
      },
    },
  };
}

export default defineConfig({
  plugins: [yamlAsText(), react(), contentSecurityPolicy(), preloadApp()],
  base: "./",
  worker: { format: "es" },
  // The built site as a host that reads `_headers` serves it (e2e runs against this).
  preview: { headers: { ...SITE_HEADERS } },
  build: {
    target: "es2022",
    chunkSizeWarningLimit: 4096,
  },
  test: {
    include: [
      "src/**/*.test.ts",
      "src/**/*.test.tsx",
      "scripts/**/*.test.ts",
      "scenarios/**/*.test.ts",
      "action/**/*.test.ts",
    ],
    environment: "node",
    pool: "threads",
    maxWorkers: 2,
    // A generous ceiling, not a speed assertion: several suites run at once on a loaded 2-core machine.
    testTimeout: 60_000,
  },
});
