/**
 * `ktl observe`: the sample flow files of every format load, the JSON has
 * the shape issue 35 asks for ({matched, unmatched, flows: [{src, dst, port,
 * protocol, observed, predicted, case, decidedBy, explanation}],
 * disagreements}), exit 1 on a disagreement, 2 on an unreadable record
 * (file and line on stderr), and --suggest prints YAML that kubectl can
 * take as it is, its proof as comments.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { run } from "./observe.ts";
import { UsageError } from "../io.ts";
import { parseManifests } from "../../engine/index.ts";

const root = join(import.meta.dirname, "../../..");
const fixture = join(root, "scenarios/fixtures/observed-vs-predicted");
const tmp = mkdtempSync(join(tmpdir(), "ktl-observe-"));

function ktl(...argv: string[]): { code: number; out: string; err: string } {
  const out: string[] = [];
  const err: string[] = [];
  const code = run(argv, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

describe("ktl observe", () => {
  it.each(["hubble-flows.jsonl", "calico-flows.jsonl", "flows.csv"])(
    "%s: every case in --json, exit 1 for the disagreements",
    (file) => {
      const r = ktl("--json", join(fixture, file), fixture);
      expect(r.code).toBe(1);
      const j = JSON.parse(r.out) as {
        matched: number;
        unmatched: unknown[];
        flows: {
          src: string;
          dst: string;
          port: number;
          protocol: string;
          observed: object;
          predicted: string;
          case: string;
          decidedBy?: object;
          explanation?: string;
        }[];
        disagreements: number;
        unmodelled: unknown[];
      };
      expect(new Set(j.flows.map((f) => f.case))).toEqual(
        new Set([
          "agree-allowed",
          "agree-dropped",
          "observed-forwarded-but-predicted-dropped",
          "observed-dropped-but-predicted-allowed",
        ]),
      );
      expect(j.disagreements).toBe(3);
      expect(j.unmatched).toHaveLength(2);
      expect(j.unmodelled).toEqual([]);
      for (const f of j.flows) {
        expect(Object.keys(f)).toEqual(
          expect.arrayContaining(["src", "dst", "port", "protocol", "observed", "predicted", "case"]),
        );
        if (f.case.startsWith("observed-")) expect(f.explanation).toBeTruthy();
      }
    },
  );

  it("prints a table for people, with the disagreements explained and what did not match", () => {
    const r = ktl(join(fixture, "hubble-flows.jsonl"), fixture);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(
      /^31 flow records \(hubble 31\): 29 matched, 2 unmatched; 4 skipped\. Predicted by NetworkPolicy\./,
    );
    expect(r.out).toMatch(
      /DISAGREE: seen dropped, predicted allowed +shop\/Deployment\/backend -> analytics\/Deployment\/collector +TCP\/9000 +0\/14 +allowed/,
    );
    expect(r.out).toMatch(/Why they disagree:\n/);
    expect(r.out).toMatch(/Not matched to the input \(2 records\):/);
    expect(r.out).toMatch(/1 x a reply \(is_reply\)/);
    expect(r.out.trim().split("\n").at(-1)).toBe("3 of 7 rows disagree with the input.");
  });

  it("lesson 32: two rows disagree, and only the flannel profile explains all five forwards", () => {
    const lesson = join(root, "scenarios/39-catch-a-policy-the-cni-ignores");
    const r = ktl("--json", join(lesson, "flows.csv"), lesson);
    expect(r.code).toBe(1);
    const j = JSON.parse(r.out) as {
      disagreements: number;
      hypotheses: { kind: string; explained: number; of: number; contradicted: number }[];
    };
    expect(j.disagreements).toBe(2);
    expect(j.hypotheses.map((h) => [h.kind, h.explained, h.of, h.contradicted])).toEqual([
      ["nothing-enforced", 5, 5, 0],
      ["policy-not-enforced", 3, 5, 0],
      ["policy-not-enforced", 2, 5, 0],
    ]);
    expect(ktl("--cni", "flannel", join(lesson, "flows.csv"), lesson).code).toBe(0);
  });

  it("exits 0 when every row agrees", () => {
    const f = join(tmp, "agree.csv");
    writeFileSync(
      f,
      "shop/frontend,shop/backend,8080,TCP,forwarded,3\ntools/toolbox,shop/payments,8443,TCP,dropped,1\n",
    );
    const r = ktl(f, fixture);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/Every matched flow agrees with the input\./);
  });

  it("exits 2 on an unreadable record, naming the file and line", () => {
    const f = join(tmp, "bad.jsonl");
    writeFileSync(
      f,
      '{"verdict":"FORWARDED","l4":{"TCP":{"destination_port":80}},"source":{},"destination":{}}\n{oops\n',
    );
    const r = ktl(f, fixture);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`${f}:2: not valid JSON: ${r.err.split("not valid JSON: ")[1]}`);
    expect(r.out).toBe("");
  });

  it("--suggest prints YAML with its proof as comments, exit 0 when the proof holds", () => {
    const r = ktl("--suggest", join(fixture, "hubble-flows.jsonl"), fixture);
    expect(r.code).toBe(0);
    const parsed = parseManifests([{ name: "out.yaml", text: r.out }]);
    expect(parsed.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(parsed.objects.length).toBeGreaterThan(0);
    expect(parsed.objects.every((o) => o.kind === "NetworkPolicy")).toBe(true);
    expect(r.out).toMatch(/^# {3}4 of 4 observed forwarded rows still allowed$/m);
    expect(r.out).toMatch(/^# {3}3 of 3 observed dropped rows still dropped$/m);
    expect(r.out).toMatch(/^# {3}nothing else is allowed between the workloads they govern on /m);
    expect(r.out.trim().split("\n").at(-1)).toBe("# The proof holds.");
  });

  it.each([
    ["cilium", "cilium.io/v2", "CiliumNetworkPolicy"],
    ["calico", "projectcalico.org/v3", "NetworkPolicy"],
  ])(
    "--suggest --cni %s writes the CNI's own policies and proves them under that profile",
    (cni, api, kind) => {
      const r = ktl("--suggest", "--cni", cni, join(fixture, "hubble-flows.jsonl"), fixture);
      expect(r.code).toBe(0);
      const parsed = parseManifests([{ name: "out.yaml", text: r.out }]);
      expect(parsed.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
      expect(parsed.objects.length + parsed.ignored.length).toBeGreaterThan(0);
      expect(r.out).not.toContain("networking.k8s.io");
      expect(r.out.match(/^kind: .*$/gm)!.every((k) => k === `kind: ${kind}`)).toBe(true);
      expect(r.out).toContain(`apiVersion: ${api}`);
      expect(r.out.trim().split("\n").at(-1)).toBe("# The proof holds.");
    },
  );

  it.each([
    [[], /no FLOWS given/],
    [["flows.csv"], /no INPUT given after FLOWS/],
    [["-", "-"], /cannot both be standard input/],
    [[fixture, fixture], /FLOWS is one file, not a directory/],
  ])("usage errors: %j", (argv, why) => {
    expect(() => ktl(...argv)).toThrow(UsageError);
    expect(() => ktl(...argv)).toThrow(why);
  });
});
