// Bundles src/cli/main.ts into .cache/ktl.mjs when any source is newer than the bundle, and
// builds the V8 startup snapshot that `./bin/ktl` starts from (see ensureSnapshot).
// Runs from `npm ci` (prepare) and from bin/ktl, so `./bin/ktl` works with no build step.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  closeSync,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  mkdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
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
    // .ts sources, and the .yaml and .md files the bundle embeds as text (lessons' manifests and READMEs).
    else if (/\.(ts|yaml|md)$/.test(e.name) && !e.name.endsWith(".test.ts"))
      t = Math.max(t, statSync(p).mtimeMs);
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

async function build(esbuild, outfile, release = false, snapshot = false) {
  await esbuild.build({
    entryPoints: [join(root, snapshot ? "src/cli/snapshot.ts" : "src/cli/main.ts")],
    bundle: true,
    platform: "node",
    // A snapshot is built from one CommonJS script (node --build-snapshot loads no ES module).
    format: snapshot ? "cjs" : "esm",
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
    banner: snapshot
      ? undefined
      : { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  });
}

// ---------- the V8 startup snapshot ----------
//
// A blob belongs to one node binary (version and architecture) and one build of the sources, so it
// is made on this machine: by `npm ci` (prepare) and by the first bin/ktl run that finds none for
// the node it runs on. .cache/ktl.snapshot names the current one: "<node version> <blob file>",
// the blob file being ktl-<node version>-<arch>-<hash of its bundle>.blob. bin/ktl's sh part
// starts `node --snapshot-blob` only when that node version matches and no source is newer than
// the blob; anything else (no blob, another node, sources edited, a symlinked launcher, an
// installed package, KTL_NO_SNAPSHOT set) runs the plain bundle, which is the same code.
export const snapshotStamp = join(root, ".cache", "ktl.snapshot");

/** The blob named by the stamp when it was built by this node and after the current bundle; else null. */
export function currentSnapshot() {
  try {
    const [v, file] = readFileSync(snapshotStamp, "utf8").trim().split(" ");
    const blob = join(root, ".cache", file ?? "");
    if (v !== process.version || !file?.startsWith(`ktl-${process.version}-${process.arch}-`)) return null;
    if (!existsSync(blob) || statSync(blob).mtimeMs < statSync(bundle).mtimeMs) return null;
    return blob;
  } catch {
    return null;
  }
}

/**
 * Builds the snapshot for this node and the current bundle when there is none. Never throws and
 * never breaks a run: a failure (no esbuild, a node without snapshots, a read-only tree, another
 * process building at the same time) leaves bin/ktl on the plain bundle.
 */
export async function ensureSnapshot() {
  if (!existsSync(join(root, "src", "cli", "snapshot.ts")) || !existsSync(bundle)) return null;
  if (currentSnapshot()) return currentSnapshot();
  const dir = dirname(bundle);
  const lock = join(dir, "ktl.snapshot.lock");
  let fd;
  try {
    try {
      fd = openSync(lock, "wx");
    } catch {
      // Another process builds it; a lock left by a killed build is taken over after two minutes.
      if (Date.now() - statSync(lock).mtimeMs < 120_000) return null;
      rmSync(lock, { force: true });
      fd = openSync(lock, "wx");
    }
    const esbuild = await import("esbuild");
    const cjs = join(dir, `ktl-snapshot.${process.pid}.tmp.cjs`);
    const tmpBlob = join(dir, `ktl.${process.pid}.tmp.blob`);
    try {
      await build(esbuild, cjs, false, true);
      const hash = createHash("sha256").update(readFileSync(cjs)).digest("hex").slice(0, 12);
      const file = `ktl-${process.version}-${process.arch}-${hash}.blob`;
      const made = spawnSync(process.execPath, ["--snapshot-blob", tmpBlob, "--build-snapshot", cjs], {
        cwd: dir,
        stdio: "ignore",
        timeout: 60_000,
      });
      if (made.status !== 0 || !existsSync(tmpBlob)) return null;
      // The blob must answer as the bundle does before any run uses it.
      const probe = spawnSync(process.execPath, ["--snapshot-blob", tmpBlob, "--", "--version"], {
        encoding: "utf8",
        timeout: 20_000,
      });
      const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
      if (probe.status !== 0 || probe.stdout.trim() !== `ktl ${version}`) return null;
      renameSync(tmpBlob, join(dir, file));
      writeFileSync(`${snapshotStamp}.${process.pid}.tmp`, `${process.version} ${file}\n`);
      renameSync(`${snapshotStamp}.${process.pid}.tmp`, snapshotStamp);
      // Blobs of other builds: 6 MB each; one a run started a moment ago may still be reading is kept.
      for (const old of readdirSync(dir))
        if (
          /^ktl-.*\.blob$/.test(old) &&
          old !== file &&
          Date.now() - statSync(join(dir, old)).mtimeMs > 600_000
        )
          rmSync(join(dir, old), { force: true });
      return join(dir, file);
    } finally {
      rmSync(cjs, { force: true });
      rmSync(tmpBlob, { force: true });
    }
  } catch {
    return null;
  } finally {
    if (fd !== undefined) {
      closeSync(fd);
      rmSync(lock, { force: true });
    }
  }
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
    await ensureSnapshot();
  } catch (e) {
    // `prepare` must not fail an install where esbuild is absent (a production install).
    console.error(String(e.message ?? e));
  }
}
