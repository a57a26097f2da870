/**
 * bin/ktl's two ways to start answer alike: run as ./bin/ktl, its sh part starts node from the
 * V8 startup snapshot (bin/build-cli.mjs's ensureSnapshot builds it for this node and these
 * sources); with KTL_NO_SNAPSHOT=1, or as `node bin/ktl`, the plain bundle runs. Same stdout,
 * stderr and exit code for answers, reports of problems and bad usage, and stdin input.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..");
const ktl = join(root, "bin", "ktl");
const scenario = join(root, "scenarios", "05-allow-one-caller-after-default-deny", "manifests.yaml");

function run(how: "snapshot" | "plain" | "node", args: string[], input?: string) {
  const env = { ...process.env, KTL_NO_SNAPSHOT: how === "plain" ? "1" : "" };
  const r =
    how === "node"
      ? spawnSync(process.execPath, [ktl, ...args], { cwd: root, encoding: "utf8", env, input })
      : spawnSync(ktl, args, { cwd: root, encoding: "utf8", env, input });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("bin/ktl from the startup snapshot and from the bundle", () => {
  let blob: string | null = null;
  beforeAll(async () => {
    const build = (await import(pathToFileURL(join(root, "bin", "build-cli.mjs")).href)) as {
      ensureBuilt(): Promise<string>;
      ensureSnapshot(): Promise<string | null>;
    };
    await build.ensureBuilt();
    blob = await build.ensureSnapshot();
  }, 120_000);

  it("has a snapshot for this node to start from", () => {
    expect(blob).toMatch(new RegExp(`ktl-${process.version}-${process.arch}-[0-9a-f]{12}\\.blob$`));
  });

  it.each([
    ["--version"],
    ["--help"],
    ["reach", "--json", "--summary", scenario],
    ["trace", "--json", "--from", "pod:default/nope", "--to", "pod:default/nada", scenario],
    ["validate", scenario],
    ["reach", "--no-such-flag", scenario],
    ["nosuchcommand"],
    ["validate", join(root, "no", "such", "file.yaml")],
  ])("ktl %s", (...args) => {
    const snapshot = run("snapshot", args);
    expect(run("plain", args)).toEqual(snapshot);
    expect(run("node", args)).toEqual(snapshot);
  });

  it("reads stdin alike", () => {
    const input = "apiVersion: v1\nkind: Pod\nmetadata: {name: a, namespace: x}\n";
    const snapshot = run("snapshot", ["reach", "--json", "--summary", "-"], input);
    expect(JSON.parse(snapshot.stdout)).toMatchObject({ pods: 1, allowedPairs: 1 });
    expect(run("plain", ["reach", "--json", "--summary", "-"], input)).toEqual(snapshot);
  });

  // `ktl reach x.yaml | head`: the reader closes the pipe after its first bytes; ktl stops quietly.
  it.each(["snapshot", "plain"] as const)(
    "stops quietly when its reader closes the pipe (%s)",
    async (how) => {
      const env = { ...process.env, KTL_NO_SNAPSHOT: how === "plain" ? "1" : "" };
      // 300 pods: a reachability matrix of 300 lines, one write each, well beyond a pipe's buffer.
      const file = join(mkdtempSync(join(tmpdir(), "ktl-pipe-")), "pods.yaml");
      writeFileSync(
        file,
        Array.from(
          { length: 300 },
          (_, i) => `apiVersion: v1\nkind: Pod\nmetadata: {name: p${i}, namespace: x}\n`,
        ).join("---\n"),
      );
      const child = spawn(ktl, ["reach", file], { cwd: root, env });
      let err = "";
      child.stderr.on("data", (d) => (err += String(d)));
      await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
      child.stdout.destroy();
      const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
      expect(err).not.toMatch(/EPIPE|Unhandled|^\s+at /m);
      expect(code).toBe(0);
    },
  );
});
