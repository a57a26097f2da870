/** `ktl test`: policy tests as files, in ktl's form and netassert v2's, with text, JSON and JUnit output. */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { run } from "./test.ts";
import { UsageError } from "../io.ts";

const root = join(import.meta.dirname, "../../..");
const shop = join(root, "scenarios/01-trace-a-shop-across-zones");
const dir = mkdtempSync(join(tmpdir(), "ktl-test-"));

function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

function ktl(...argv: string[]): { code: number; out: string; err: string } {
  const out: string[] = [];
  const err: string[] = [];
  const code = run(argv, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

describe("ktl test", () => {
  it("the README's example passes: a PASS line per expectation with what decided it, exit 0", () => {
    const r = ktl(join(root, "docs/examples/shop-tests.yaml"), shop);
    expect(r.code).toBe(0);
    expect(r.out.match(/^PASS /gm)).toHaveLength(4);
    expect(r.out).toMatch(
      /PASS {2}the toolbox cannot call the backend \(.*shop-tests\.yaml:7\)\n\s+drop: NetworkPolicy shop\/default-deny-ingress; none of the 2 candidate endpoints accepts the connection \(ingress: .*isolated for ingress by shop\/default-deny-ingress/,
    );
    expect(r.out.trim().split("\n").at(-1)).toBe("4 passed, 0 failed");
  });

  it("a wrong expectation fails with each failing pair and exit 1", () => {
    const t = file(
      "wrong.yaml",
      "tests:\n  - name: toolbox reaches the backend\n    from: tools/toolbox\n    to: service:shop/backend:80\n    expect: allow\n",
    );
    const r = ktl(t, shop);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(
      /^FAIL {2}toolbox reaches the backend \(.*wrong\.yaml:2\)\n\s+pod:tools\/toolbox -> service:shop\/backend:80: drop, expected allow: /m,
    );
  });

  it("a namespace or workload source means every pod of it; a pod is not tested against itself", () => {
    const t = file(
      "ns.yaml",
      "tests:\n  - {name: shop to its frontends, from: 'namespace:shop', to: 'shop/frontend:8080', expect: allow}\n",
    );
    const r = JSON.parse(ktl("--format", "json", t, shop).out) as {
      results: { cases: { from: string; to: string }[] }[];
    };
    const cases = r.results[0]!.cases;
    // 5 pods in shop x 2 frontends, less the 2 pairs of a frontend with itself.
    expect(cases).toHaveLength(8);
    expect(cases.some((c) => c.to.startsWith(`${c.from}:`))).toBe(false);
  });

  it("sourceIPPreserved is checked on the pairs that are allowed", () => {
    const t = file(
      "snat.yaml",
      "tests:\n  - {name: backend sees the client, from: 'external:198.51.100.0/24', to: 'service:shop/frontend:80', expect: allow, sourceIPPreserved: false}\n",
    );
    const r = ktl(t, shop);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(
      /external:198\.51\.100\.1@node-a -> service:shop\/frontend:80: source address preserved, expected masqueraded/,
    );
  });

  it("reads netassert v2 test lists: exitCode 0 expects a connection, any other value expects none", () => {
    const t = file(
      "netassert.yaml",
      `- name: frontend-to-backend
  type: k8s
  protocol: tcp
  targetPort: 8080
  timeoutSeconds: 67
  attempts: 3
  exitCode: 0
  src:
    k8sResource: {kind: statefulset, name: frontend, namespace: shop}
  dst:
    k8sResource: {kind: statefulset, name: backend, namespace: shop}
- name: toolbox-to-cache
  type: k8s
  protocol: tcp
  targetPort: 6379
  exitCode: 1
  src:
    k8sResource: {kind: pod, name: toolbox, namespace: tools}
  dst:
    k8sResource: {kind: statefulset, name: cache, namespace: shop}
`,
    );
    const r = ktl(t, shop);
    expect(r.out).toMatch(/PASS {2}frontend-to-backend/);
    expect(r.out).toMatch(/PASS {2}toolbox-to-cache/);
    expect(r.code).toBe(0);
  });

  it("--format junit is a JUnit report with a failure per failing expectation", () => {
    const t = file(
      "junit.yaml",
      "tests:\n  - {name: a, from: tools/toolbox, to: 'service:shop/backend:80', expect: allow}\n  - {name: b, from: tools/toolbox, to: 'service:shop/backend:80', expect: drop}\n",
    );
    const r = ktl("--format", "junit", t, shop);
    expect(r.code).toBe(1);
    // Every case and the suite carry a time; errors are counted apart from failures.
    expect(r.out).toMatch(/<testsuite name="ktl test" tests="2" failures="1" errors="0" time="\d+\.\d{3}">/);
    // The class is the test file's name, not its path (Jenkins showed a class "yaml" under the path).
    expect(r.out).toMatch(
      /<testcase name="a" classname="ktl\.junit" time="\d+\.\d{3}">\n\s+<failure message="pod:tools\/toolbox -&gt; service:shop\/backend:80: drop, expected allow/,
    );
    expect(r.out).toMatch(/<testcase name="b" classname="ktl\.junit" time="\d+\.\d{3}"\/>/);
  });

  it("a malformed test names its file and line and exits 2; a missing workload is an error, not a failure, naming it", () => {
    const bad = file(
      "bad.yaml",
      "tests:\n  - name: x\n    from: tools/toolbox\n    to: service:shop/backend:80\n    expect: maybe\n",
    );
    const r = ktl(bad, shop);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(
      /bad\.yaml, document 1, line 5: error KTL801: test "x": expect must be allow, drop or partial, not "maybe"/,
    );
    const missing = file(
      "missing.yaml",
      "tests:\n  - {name: y, from: shop/nope, to: 'service:shop/backend:80', expect: drop}\n",
    );
    const m = ktl(missing, shop);
    expect(m.code).toBe(1);
    expect(m.out).toMatch(/^ERROR {2}y /m);
    expect(m.out).toMatch(/no workload or pod shop\/nope in the input/);
    expect(m.out).toMatch(/0 passed, 0 failed, 1 could not run$/);
    const j = ktl("--format", "junit", missing, shop);
    expect(j.out).toMatch(/failures="0" errors="1"/);
    expect(j.out).toMatch(/<error message="[^"]*no workload or pod shop\/nope in the input/);
    expect(JSON.parse(ktl("--json", missing, shop).out)).toMatchObject({ passed: 0, failed: 0, errors: 1 });
  });

  it("two tests of one name are an error naming both lines (a report could not tell them apart)", () => {
    const twice = file(
      "twice.yaml",
      "tests:\n  - {name: same, from: tools/toolbox, to: 'service:shop/backend:80', expect: allow}\n  - {name: same, from: tools/toolbox, to: 'service:shop/backend:80', expect: drop}\n",
    );
    const r = ktl(twice, shop);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(
      /twice\.yaml.*line 3: error KTL801: test name "same" is used twice, at lines 2 and 3/,
    );
  });

  it("a directory as TESTS says what TESTS is, not a raw EISDIR", () => {
    expect(() => ktl(root, shop)).toThrow(/is a directory: TESTS is one file/);
  });

  it("needs a tests file and manifests", () => {
    expect(() => ktl()).toThrow(UsageError);
    expect(() => ktl(join(root, "docs/examples/shop-tests.yaml"))).toThrow(
      /no INPUT given after the TESTS file/,
    );
    expect(readFileSync(join(root, "docs/examples/shop-tests.yaml"), "utf8")).toMatch(/^tests:/m);
  });
});
