/**
 * No silent answers (contract/ktl-cli.md, "Every layer, and no silent
 * answers"): an input with a policy-like object of an API group and kind that
 * ktl does not evaluate gives `unmodelled` in the JSON of reach, trace and
 * connlist, and the human output names it on its first line.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { main } from "../main.ts";

const dir = mkdtempSync(join(tmpdir(), "ktl-unmodelled-"));

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
metadata: {name: a, namespace: x}
spec: {containers: [{name: c, image: i}]}
---
apiVersion: v1
kind: Pod
metadata: {name: b, namespace: x}
spec: {containers: [{name: c, image: i}]}
`;

const EGRESS_FIREWALL = `---
apiVersion: k8s.ovn.org/v1
kind: EgressFirewall
metadata: {name: default, namespace: x}
spec: {egress: [{type: Deny, to: {cidrSelector: 0.0.0.0/0}}]}
`;

const ANTREA_NP = `---
apiVersion: crd.antrea.io/v1beta1
kind: NetworkPolicy
metadata: {name: antrea-deny, namespace: x}
spec: {priority: 5, appliedTo: [{podSelector: {}}], ingress: [{action: Drop, from: [{podSelector: {}}]}]}
`;

const ANTREA_CNP = `---
apiVersion: crd.antrea.io/v1beta1
kind: ClusterNetworkPolicy
metadata: {name: acnp}
spec: {priority: 1, appliedTo: [{podSelector: {}}], ingress: [{action: Drop, from: [{podSelector: {}}]}]}
`;

describe("unmodelled policy objects are named by every answer", () => {
  it.each([
    {
      name: "OVN-Kubernetes' EgressFirewall",
      text: EGRESS_FIREWALL,
      want: { kind: "EgressFirewall", namespace: "x", name: "default", line: 11 },
    },
    {
      name: "Antrea's crd.antrea.io NetworkPolicy (not networking.k8s.io's)",
      text: ANTREA_NP,
      want: { kind: "NetworkPolicy", namespace: "x", name: "antrea-deny", line: 11 },
    },
    {
      name: "Antrea's crd.antrea.io ClusterNetworkPolicy (not network-policy-api's)",
      text: ANTREA_CNP,
      want: { kind: "ClusterNetworkPolicy", name: "acnp", line: 11 },
    },
  ])("$name: reach, trace and connlist JSON list it; their text says so first", async ({ text, want }) => {
    const f = file(`${want.name}.yaml`, PODS + text);
    const reach = await ktl("reach", "--json", f);
    expect(reach.code).toBe(0);
    expect(JSON.parse(reach.out).unmodelled).toEqual([expect.objectContaining(want)]);
    const summary = await ktl("reach", "--summary", "--json", f);
    expect(JSON.parse(summary.out).unmodelled).toEqual([expect.objectContaining(want)]);
    const trace = await ktl("trace", "--json", "--from", "pod:x/a", "--to", "pod:x/b:80", f);
    expect(JSON.parse(trace.out).unmodelled).toEqual([expect.objectContaining(want)]);
    const conn = await ktl("connlist", "--format", "json", f);
    expect(JSON.parse(conn.out).unmodelled).toEqual([expect.objectContaining(want)]);
    for (const argv of [
      ["reach", f],
      ["trace", "--from", "pod:x/a", "--to", "pod:x/b:80", f],
      ["connlist", f],
    ]) {
      const first = (await ktl(...argv)).out.split("\n")[0]!;
      expect(first, argv[0]).toMatch(/^WARNING: this answer ignores 1 object/);
      expect(first, argv[0]).toContain(
        `${want.kind} ${want.namespace ? `${want.namespace}/` : ""}${want.name}`,
      );
    }
  });

  it("an input with only modelled objects has an empty list and no warning line", async () => {
    const f = file("plain.yaml", PODS);
    expect(JSON.parse((await ktl("reach", "--json", f)).out).unmodelled).toEqual([]);
    expect(
      JSON.parse((await ktl("trace", "--json", "--from", "pod:x/a", "--to", "pod:x/b:80", f)).out).unmodelled,
    ).toEqual([]);
    expect((await ktl("reach", f)).out).not.toMatch(/WARNING/);
    // connlist keeps netpol-analyzer's bare array when nothing is left out.
    expect(Array.isArray(JSON.parse((await ktl("connlist", "--format", "json", f)).out))).toBe(true);
  });

  it("a Gateway API route does not change a pod-to-pod verdict: trace names it, reach does not", async () => {
    const f = file(
      "route.yaml",
      PODS +
        "---\napiVersion: gateway.networking.k8s.io/v1\nkind: GRPCRoute\nmetadata: {name: r, namespace: x}\nspec: {}\n",
    );
    expect(JSON.parse((await ktl("reach", "--json", f)).out).unmodelled).toEqual([]);
    expect(
      JSON.parse((await ktl("trace", "--json", "--from", "pod:x/a", "--to", "pod:x/b:80", f)).out).unmodelled,
    ).toEqual([expect.objectContaining({ kind: "GRPCRoute", name: "r" })]);
  });

  it("ktl validate warns (KTL109) instead of saying the input is valid without a word", async () => {
    const f = file("validate.yaml", PODS + EGRESS_FIREWALL);
    const r = await ktl("validate", f);
    expect(r.out).toMatch(
      /warning KTL109: EgressFirewall default \(k8s\.ovn\.org\/v1\) could change traffic verdicts/,
    );
    expect(r.out).not.toMatch(/valid, no warnings/);
  });
});
