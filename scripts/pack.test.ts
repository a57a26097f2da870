/**
 * The installable CLI: `npm pack` makes a package whose `ktl` runs with no
 * dependency at all (a self-contained bundle made at pack time), installed as
 * `ktl`, `kube-traffic-lab` (so `npx kube-traffic-lab reach -` works) and
 * `kubectl-ktl` (so `kubectl ktl reach` works: kubectl runs any
 * `kubectl-NAME` on the PATH as the plugin NAME).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { dump, loadAll } from "js-yaml";

const root = join(import.meta.dirname, "..");
const work = mkdtempSync(join(tmpdir(), "ktl-pack-"));
const app = join(work, "app");
const bin = (name: string) => join(app, "node_modules", ".bin", name);
const shop = join(root, "scenarios", "01-trace-a-shop-across-zones", "manifests.yaml");

function run(file: string, args: string[], input?: string): string {
  return execFileSync(file, args, {
    cwd: app,
    encoding: "utf8",
    input,
    env: { ...process.env, npm_config_loglevel: "error" },
  });
}

describe("npm pack", () => {
  let files: string[] = [];

  beforeAll(() => {
    const out = execFileSync("npm", ["pack", "--json", "--pack-destination", work], {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, npm_config_loglevel: "error" },
    });
    const info = JSON.parse(out.slice(out.indexOf("["))) as { filename: string; files: { path: string }[] }[];
    files = info[0]!.files.map((f) => f.path).sort();
    execFileSync("mkdir", ["-p", app]);
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "empty", private: true }));
    // --offline: a package that needed anything from the registry would fail here.
    execFileSync(
      "npm",
      ["install", "--offline", "--omit=dev", "--no-audit", "--no-fund", join(work, info[0]!.filename)],
      { cwd: app, encoding: "utf8" },
    );
  }, 240_000);

  it("ships its licence and says where it lives (repository, homepage, bugs)", () => {
    expect(files).toContain("LICENSE");
    const pkg = JSON.parse(
      readFileSync(join(app, "node_modules", "kube-traffic-lab", "package.json"), "utf8"),
    ) as Record<string, unknown>;
    expect(pkg.license).toBe("Apache-2.0");
    // No install-time script: npm would run or warn about it on every install of the package.
    const scripts = (pkg.scripts ?? {}) as Record<string, string>;
    for (const hook of ["prepare", "preinstall", "install", "postinstall"])
      expect(scripts[hook], hook).toBeUndefined();
    expect(readFileSync(join(app, "node_modules", "kube-traffic-lab", "LICENSE"), "utf8")).toMatch(
      /Apache License\s+Version 2\.0/,
    );
    expect(pkg.repository).toMatchObject({
      type: "git",
      url: expect.stringMatching(/^git\+https:\/\/github\.com\//),
    });
    expect(pkg.homepage).toMatch(/^https:\/\//);
    expect(pkg.bugs).toMatchObject({ url: expect.stringMatching(/\/issues$/) });
  });

  it("ships the bundle and the launcher, no sources and no dependencies", () => {
    expect(files).toContain("lib/ktl.mjs");
    expect(files).toContain("bin/ktl.mjs");
    // The installed commands start under a node shebang: npm's shims run them wherever node runs.
    expect(readFileSync(join(app, "node_modules", "kube-traffic-lab", "bin", "ktl.mjs"), "utf8")).toMatch(
      /^#!\/usr\/bin\/env node\n/,
    );
    expect(files.filter((f) => f.startsWith("src/"))).toEqual([]);
    expect(readdirSync(join(app, "node_modules")).filter((n) => !n.startsWith("."))).toEqual([
      "kube-traffic-lab",
    ]);
  });

  it("runs as ktl, as kube-traffic-lab and as the kubectl plugin kubectl-ktl", () => {
    expect(run(bin("ktl"), ["--version"]).trim()).toMatch(/^ktl \d+\.\d+\.\d+/);
    const text = run(
      bin("kube-traffic-lab"),
      ["reach", "--json", "--summary", "-"],
      `apiVersion: v1\nkind: Pod\nmetadata: {name: a, namespace: x}\n`,
    );
    expect(JSON.parse(text)).toMatchObject({ pods: 1, allowedPairs: 1 });
    const trace = JSON.parse(
      run(bin("kubectl-ktl"), [
        "trace",
        "--json",
        "--from",
        "pod:shop/frontend-0",
        "--to",
        "service:shop/backend:80",
        shop,
      ]),
    ) as { verdict: string };
    expect(["allow", "drop", "partial"]).toContain(trace.verdict);
  });

  it("the README's live-cluster lines run as written, with the manifests as kubectl would print them", () => {
    const readme = readFileSync(join(root, "README.md"), "utf8");
    const at = readme.indexOf("### `npx`, and `kubectl ktl`");
    const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(at))![1]!;
    const lines = block
      .split("\n")
      .map((l) => l.replace(/\s+#.*$/, "").trim())
      .filter((l) => l.startsWith("kubectl "));
    expect(lines).toHaveLength(2);
    // kubectl get … -o yaml prints one List of the objects.
    const items = (loadAll(readFileSync(shop, "utf8")) as unknown[]).filter(Boolean);
    const manifests = dump({ apiVersion: "v1", kind: "List", items });
    for (const line of lines) {
      // `kubectl get … | ktl …` reads what kubectl prints; `kubectl ktl …` is kubectl running kubectl-ktl.
      const command = line.includes("| ")
        ? line.slice(line.indexOf("| ") + 2)
        : line.replace(/^kubectl ktl /, "kubectl-ktl ");
      const [name, ...args] = command.split(/\s+/);
      const out = run(bin(name!), args, manifests);
      expect(out, line).toMatch(name === "ktl" ? /frontend/ : /backend/);
    }
  });
});
