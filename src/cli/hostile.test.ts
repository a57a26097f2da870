/**
 * The CLI's reading and printing paths under hostile input (issue 16):
 * control characters in names are escaped, directories yield regular files
 * only, special files fail or are skipped with one clear line, UTF-16 files
 * are decoded, and an internal error is one line (the stack with --debug).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { commands, main } from "./main.ts";
import { decodeText, readInputs } from "./io.ts";
import { escapeControls } from "./report.ts";

const dir = mkdtempSync(join(tmpdir(), "ktl-hostile-"));

async function ktl(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const o = vi.spyOn(process.stdout, "write").mockImplementation((s) => ((out += String(s)), true));
  const e = vi.spyOn(process.stderr, "write").mockImplementation((s) => ((err += String(s)), true));
  try {
    const code = await main(argv);
    return { code, out, err };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

describe("control characters", () => {
  it("are escaped in every line ktl prints, names included", async () => {
    const p = join(dir, "esc.yaml");
    writeFileSync(p, 'apiVersion: v1\nkind: Namespace\nmetadata: {name: "a\\e]52;c;Zm9v\\ab\\rX"}\n');
    const r = await ktl("validate", p);
    expect([...(r.err + r.out)].filter((c) => c === "\u001b" || c === "\u0007" || c === "\r")).toEqual([]);
    expect(r.out).toContain("a\\u001b]52;c;Zm9v\\u0007b\\rX");
    expect(escapeControls("tab\tand\nnewline stay; \u009b and \u202e do not")).toBe(
      "tab\tand\nnewline stay; \\u009b and \\u202e do not",
    );
  });

  it("an unknown command is one escaped line; Object.prototype names are not commands", async () => {
    const r = await ktl("\u001b[2Jx");
    expect(r.code).toBe(2);
    expect(r.err.trim().split("\n")).toHaveLength(1);
    expect(r.err).not.toContain("\u001b");
    expect((await ktl("constructor")).code).toBe(2);
  });

  it("an internal error is one line; --debug adds the stack", async () => {
    const spy = vi.spyOn(commands.reach!, "run").mockImplementation(() => {
      throw new TypeError("boom");
    });
    try {
      const r = await ktl("reach", "x.yaml");
      expect(r.code).toBe(3);
      expect(r.err.trim().split("\n")).toEqual([
        "ktl reach: internal error (a ktl bug): boom; run again with --debug for the stack",
      ]);
      const d = await ktl("reach", "--debug", "x.yaml");
      expect(d.err).toContain("at ");
      expect(spy).toHaveBeenLastCalledWith(["x.yaml"], expect.anything());
    } finally {
      spy.mockRestore();
    }
  });
});

describe("large inputs", () => {
  it("reach without --summary refuses a matrix it cannot print and names --summary", async () => {
    const p = join(dir, "big.yaml");
    writeFileSync(
      p,
      "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  replicas: 3001\n  selector: {matchLabels: {a: b}}\n  template:\n    metadata: {labels: {a: b}}\n    spec: {containers: [{name: c, image: x}]}\n",
    );
    const r = await ktl("reach", "--json", p);
    expect(r.code).toBe(2);
    expect(r.out).toBe("");
    expect(r.err).toContain("use --summary");
    const s = await ktl("reach", "--summary", "--json", p);
    expect(s.code).toBe(0);
    expect(JSON.parse(s.out).pods).toBe(3001);
  });
});

describe("reading inputs", () => {
  it("reads regular files in a directory and skips FIFOs and devices with a line each", () => {
    const d = join(dir, "tree");
    mkdirSync(join(d, "sub"), { recursive: true });
    writeFileSync(join(d, "a.yaml"), "kind: A\n");
    writeFileSync(join(d, "sub", "b.yml"), "kind: B\n");
    writeFileSync(join(d, "notes.txt"), "x");
    execFileSync("mkfifo", [join(d, "fifo.yaml")]);
    symlinkSync("/dev/zero", join(d, "zero.yaml"));
    const warnings: string[] = [];
    const files = readInputs([d], (s) => warnings.push(s));
    expect(files.map((f) => f.name)).toEqual([join(d, "a.yaml"), join(d, "sub", "b.yml")]);
    expect(warnings).toEqual([
      `ktl: skipping ${join(d, "fifo.yaml")}: a FIFO; inside a directory ktl reads regular files only`,
      `ktl: skipping ${join(d, "zero.yaml")}: a character device; inside a directory ktl reads regular files only`,
    ]);
  });

  it("names a missing input in one line", async () => {
    const r = await ktl("validate", join(dir, "missing.yaml"));
    expect(r.code).toBe(2);
    expect(r.err.trim()).toBe(`ktl validate: ${join(dir, "missing.yaml")}: no such file or directory`);
  });

  it("reads a file of several MiB whole, and an empty one, exactly as written", () => {
    // One buffer of the file's size (io.ts readCapped), a multi-byte character across every MiB boundary.
    const line = "# \u00e9t\u00e9 \u2603 caf\u00e9\n";
    const big = line.repeat(Math.ceil((3 * (1 << 20) + 7) / Buffer.byteLength(line)));
    writeFileSync(join(dir, "big.yaml"), big);
    writeFileSync(join(dir, "empty.yaml"), "");
    const [a, b] = readInputs([join(dir, "big.yaml"), join(dir, "empty.yaml")]);
    expect(a!.text === big).toBe(true);
    expect(b!.text).toBe("");
  });

  it("decodes UTF-16 by its byte order mark", () => {
    const text = "apiVersion: v1\nkind: Namespace\n";
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]);
    const be = Buffer.from(le);
    be.swap16();
    expect(decodeText(le)).toBe(text);
    expect(decodeText(be)).toBe(text);
    expect(decodeText(Buffer.from(text))).toBe(text);
  });
});

describe("issue 31: a Calico selector 3,000 parentheses deep", () => {
  const p = join(dir, "deep-selector.yaml");
  writeFileSync(
    p,
    [
      "apiVersion: projectcalico.org/v3\nkind: NetworkPolicy\nmetadata: {name: deep, namespace: default}\nspec:",
      `  selector: "${"(".repeat(3000)}app == 'a'${")".repeat(3000)}"`,
      "  ingress: [{action: Allow}]",
      "---\napiVersion: v1\nkind: Pod\nmetadata: {name: a, namespace: default, labels: {app: a}}\nspec: {nodeName: n1, containers: [{name: c, image: x}]}\nstatus: {podIP: 10.244.1.5}",
    ].join("\n"),
  );
  it.each([
    ["validate", [p]],
    ["validate", ["--format", "sarif", p]],
    ["reach", [p]],
    ["trace", ["--from", "pod:default/a", "--to", "pod:default/a:80", p]],
    ["diff", [p, p]],
    ["connlist", [p]],
  ])("ktl %s %j answers and names the selector (KTL453)", async (cmd, args) => {
    const r = await ktl(cmd, ...args);
    expect(r.err).not.toContain("internal error");
    expect(r.code).toBeLessThan(3);
    if (cmd === "validate") expect(r.out).toContain("KTL453");
  });
});

describe("issue 31: a newline inside a name never reaches plain-text stdout", () => {
  // A name that, printed raw, starts a line GitHub Actions runs as a workflow command.
  const evil = (s: string) => `${s}\\n::error::pwned`;
  const manifests = (extra: string) =>
    [
      `apiVersion: v1\nkind: Namespace\nmetadata: {name: "${evil("ns")}"}`,
      `apiVersion: v1\nkind: Pod\nmetadata: {name: "${evil("web")}", namespace: "${evil("ns")}", labels: {app: web}}\nspec: {nodeName: n1, containers: [{name: c, image: x, ports: [{containerPort: 80}]}]}\nstatus: {podIP: 10.244.1.5}`,
      `apiVersion: v1\nkind: Pod\nmetadata: {name: client, namespace: "${evil("ns")}", labels: {app: client}}\nspec: {nodeName: n1, containers: [{name: c, image: x}]}\nstatus: {podIP: 10.244.1.6}`,
      `apiVersion: v1\nkind: Service\nmetadata: {name: "${evil("svc")}", namespace: "${evil("ns")}"}\nspec: {selector: {app: web}, ports: [{port: 80}]}`,
      `apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: "${evil("np")}", namespace: "${evil("ns")}"}\nspec: {podSelector: {matchLabels: {app: web}}${extra}}`,
    ].join("\n---\n") + "\n";
  const a = join(dir, "evil-a.yaml");
  const b = join(dir, "evil-b.yaml");
  const tests = join(dir, "evil-tests.yaml");
  writeFileSync(a, manifests(""));
  writeFileSync(b, manifests(", ingress: [{from: [{podSelector: {matchLabels: {app: client}}}]}]"));
  writeFileSync(
    tests,
    'tests:\n  - name: client reaches web\n    from: "ns\\n::error::pwned/client"\n    to: "ns\\n::error::pwned/web\\n::error::pwned:80"\n    expect: allow\n',
  );
  const pod = "ns\n::error::pwned/client";
  const to = "ns\n::error::pwned/web\n::error::pwned:80";

  it.each([
    ["validate", [a]],
    ["reach", [a]],
    ["connlist", [a]],
    ["trace", [a, "--from", pod, "--to", to]],
    ["diff", [a, b]],
    ["test", [tests, a]],
  ])("ktl %s", async (command, args) => {
    const r = await ktl(command, ...args);
    expect(r.code, r.err).toBeLessThan(3);
    expect(r.out + r.err).toContain("pwned");
    const lines = (r.out + r.err).split("\n").filter((l) => l.startsWith("::error::pwned"));
    expect(lines).toEqual([]);
  });
});
