// Bundles src/cli/main.ts into .cache/ktl.mjs when any source is newer than the bundle.
// Runs from `npm ci` (prepare) and from bin/ktl, so `./bin/ktl` works with no build step.
import { existsSync, readdirSync, readFileSync, statSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
export const bundle = join(root, ".cache", "ktl.mjs");
/** The bundle an installed package ships (made by `npm pack`'s prepack; the package has no src/). */
export const shipped = join(root, "lib", "ktl.mjs");

function newest(dir) {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) t = Math.max(t, newest(p));
    else if (e.name.endsWith(".ts") && !e.name.endsWith(".test.ts")) t = Math.max(t, statSync(p).mtimeMs);
  }
  return t;
}

export async function ensureBuilt() {
  if (!existsSync(join(root, "src", "cli", "main.ts"))) {
    if (existsSync(shipped)) return shipped;
    throw new Error("ktl: this installation has neither the sources nor lib/ktl.mjs; reinstall the package");
  }
  const sources = ["src/engine", "src/cli", "scenarios"].map((d) => join(root, d)).filter(existsSync);
  const stale =
    !existsSync(bundle) ||
    sources.some((d) => newest(d) > statSync(bundle).mtimeMs) ||
    statSync(join(root, "package.json")).mtimeMs > statSync(bundle).mtimeMs;
  if (!stale) return bundle;
  let esbuild;
  try {
    esbuild = await import("esbuild");
  } catch {
    if (existsSync(bundle)) return bundle;
    throw new Error(
      "ktl: the CLI is not built and esbuild is missing; run `npm install` in the project first",
    );
  }
  mkdirSync(dirname(bundle), { recursive: true });
  // Several ktl processes may rebuild at once (the conformance runner runs them in parallel):
  // each writes its own file and renames it into place, so no process imports a half-written bundle.
  const tmp = `${bundle}.${process.pid}.tmp.mjs`;
  try {
    await build(esbuild, tmp);
    renameSync(tmp, bundle);
  } finally {
    rmSync(tmp, { force: true });
  }
  return bundle;
}

async function build(esbuild, outfile, release = false) {
  await esbuild.build({
    entryPoints: [join(root, "src/cli/main.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile,
    // No source map: node does not read one unless run with --enable-source-maps, and an inline map doubles the bundle's load time, paid by every ktl run.
    sourcemap: false,
    minify: release,
    legalComments: release ? "eof" : "none",
    logLevel: "error",
    loader: { ".yaml": "text", ".md": "text" },
    define: {
      __KTL_VERSION__: JSON.stringify(JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version),
    },
    banner: {
      js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
    },
  });
}

/** `npm pack` (prepack): the self-contained bundle an installed package runs, needing no dependency at all. */
export async function buildShipped() {
  const esbuild = await import("esbuild");
  mkdirSync(dirname(shipped), { recursive: true });
  await build(esbuild, shipped, true);
  return shipped;
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === "--ship") {
  await buildShipped();
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    await ensureBuilt();
  } catch (e) {
    // `prepare` must not fail an install where esbuild is absent (a production install).
    console.error(String(e.message ?? e));
  }
}
