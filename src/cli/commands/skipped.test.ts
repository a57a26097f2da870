/**
 * No silent answers about the input itself (contract/ktl-cli.md, "Every
 * layer, and no silent answers"): a document that could not be read is
 * listed in `skipped` by every command and the command exits 1, as `kubectl
 * apply -f` applies the other documents and still fails (its resource
 * builder continues on error and returns the errors: exit 1); an input with
 * no Kubernetes object exits 2 with one line; a later object with the same
 * kind, namespace and name replaces the earlier one, as kubectl apply does,
 * and is listed in `replaced`.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { main } from "../main.ts";

const dir = mkdtempSync(join(tmpdir(), "ktl-skipped-"));

function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

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

afterEach(() => vi.restoreAllMocks());

const PODS = `apiVersion: v1
kind: Pod
metadata: {name: a, namespace: x, labels: {app: a}}
spec: {containers: [{name: c, image: i, ports: [{containerPort: 80}]}]}
---
apiVersion: v1
kind: Pod
metadata: {name: b, namespace: x, labels: {app: b}}
spec: {containers: [{name: c, image: i, ports: [{containerPort: 80}]}]}
`;

/** The deny-all whose policyTypes flow list is never closed: kubectl refuses the document ("did not find expected ',' or ']'"). */
const BROKEN_DENY_ALL = `---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny-all, namespace: x}
spec:
  podSelector: {}
  policyTypes: [Ingress, Egress
`;

const broken = file("broken.yaml", PODS + BROKEN_DENY_ALL);
const good = file("good.yaml", PODS);
const tests = file(
  "tests.yaml",
  "tests:\n  - name: a reaches b\n    from: pod:x/a\n    to: pod:x/b:80\n    expect: allow\n",
);

const SKIPPED = {
  file: broken,
  doc: 2,
  line: 17,
  code: "KTL101",
  kind: "NetworkPolicy",
  namespace: "x",
  name: "deny-all",
};

describe("a document that could not be read is in every command's JSON, and the command exits 1", () => {
  it.each([
    { command: "reach", argv: ["reach", "--json", broken], json: (j: Record<string, unknown>) => j },
    {
      command: "reach --summary",
      argv: ["reach", "--summary", "--json", broken],
      json: (j: Record<string, unknown>) => j,
    },
    {
      command: "trace",
      argv: ["trace", "--json", "--from", "pod:x/a", "--to", "pod:x/b:80", broken],
      json: (j: Record<string, unknown>) => j,
    },
    {
      command: "connlist",
      argv: ["connlist", "--format", "json", broken],
      json: (j: Record<string, unknown>) => j,
    },
    { command: "validate", argv: ["validate", "--json", broken], json: (j: Record<string, unknown>) => j },
    {
      command: "test",
      argv: ["test", "--format", "json", tests, broken],
      json: (j: Record<string, unknown>) => j,
    },
    {
      command: "iptables",
      argv: ["iptables", "--json", "--node", "node-1", broken],
      json: (j: Record<string, unknown>) => j,
    },
    { command: "diff", argv: ["diff", "--json", good, broken], json: (j: Record<string, unknown>) => j },
  ])("$command", async ({ argv, json, command }) => {
    const r = await ktl(...argv);
    expect(r.code).toBe(1);
    const j = json(JSON.parse(r.out) as Record<string, unknown>);
    expect(j.skipped).toEqual([
      expect.objectContaining(command === "diff" ? { ...SKIPPED, input: "after" } : SKIPPED),
    ]);
    expect(j.replaced).toEqual([]);
    // Still one clear line on stderr naming the file, the document and the line.
    expect(r.err).toMatch(/broken\.yaml, document 3, line 17, column \d+: error KTL101/);
  });

  it("the human answer names it on its first line", async () => {
    const r = await ktl("reach", broken);
    expect(r.code).toBe(1);
    expect(r.out.split("\n")[0]).toBe(
      `WARNING: this answer misses 1 document(s) that could not be read: ${broken} document 3, line 17 (NetworkPolicy x/deny-all): KTL101`,
    );
  });

  it("the same input without the broken document exits 0 with empty lists", async () => {
    const r = await ktl("reach", "--json", good);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ unmodelled: [], skipped: [], replaced: [] });
  });
});

describe("an input with no Kubernetes object exits 2 with one line", () => {
  const empty = file("empty.yaml", "");
  const onlyBroken = file("only-broken.yaml", BROKEN_DENY_ALL);
  it.each([
    {
      name: "an empty file",
      argv: ["reach", empty],
      says: "the input holds no Kubernetes object (it is empty)",
    },
    {
      name: "comments only",
      argv: ["connlist", file("comments.yaml", "# nothing\n---\n")],
      says: "(it is empty)",
    },
    {
      name: "only a broken document",
      argv: ["trace", "--from", "pod:x/a", "--to", "pod:x/b:80", onlyBroken],
      says: "1 document(s) could not be read (listed above)",
    },
    { name: "validate of an empty file", argv: ["validate", empty], says: "holds no Kubernetes object" },
    {
      name: "diff of two empty files",
      argv: ["diff", empty, empty],
      says: "BEFORE and AFTER hold no Kubernetes object (it is empty)",
    },
  ])("$name", async ({ argv, says }) => {
    const r = await ktl(...argv);
    expect(r.code).toBe(2);
    expect(r.out).toBe("");
    const lines = r.err.trim().split("\n");
    expect(lines[lines.length - 1]).toContain(says);
  });

  it("diff of an empty BEFORE (a new application) is an answer", async () => {
    const r = await ktl("diff", "--json", file("empty2.yaml", ""), good);
    expect(r.code).toBe(0);
  });
});

describe("a later object with the same kind, namespace and name replaces the earlier (kubectl apply)", () => {
  it("is listed in replaced with both places, and the answer is the later one's", async () => {
    const twice = file(
      "twice.yaml",
      `${PODS}---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: p, namespace: x}
spec: {podSelector: {}, policyTypes: [Ingress]}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: p, namespace: x}
spec: {podSelector: {matchLabels: {app: none}}, policyTypes: [Ingress]}
`,
    );
    const r = await ktl("reach", "--json", twice);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out) as { allowed: boolean[][]; replaced: unknown[] };
    expect(j.allowed).toEqual([
      [true, true],
      [true, true],
    ]);
    expect(j.replaced).toEqual([
      expect.objectContaining({
        kind: "NetworkPolicy",
        namespace: "x",
        name: "p",
        line: 11,
        by: expect.objectContaining({ line: 16 }),
      }),
    ]);
    expect(r.err).toContain("KTL201");
  });
});
