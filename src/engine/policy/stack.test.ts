/**
 * The policy stack's two paths must agree: the class rows (stackMatrix,
 * stackPodMatrix, stackReachSummary) and the exact walk of every layer for
 * one connection (explainStackPair), on random stacks: NetworkPolicies,
 * ClusterNetworkPolicies of both tiers (v1alpha2) and AdminNetworkPolicy /
 * BaselineAdminNetworkPolicy (v1alpha1), with every action, peer kind
 * (namespaces, pods, networks, nodes, a peer of unknown type) and port form
 * (number, range, named port), host-network pods and pods' traffic to
 * themselves. The exact path follows network-policy-api's
 * ClusterNetworkPolicySpec.tier and rule docs directly.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { buildPolicyIndex, loadModel, type Protocol } from "../index.ts";
import { setForm } from "../netpol/bitset.ts";
import {
  buildStack,
  explainStackPair,
  stackMatrix,
  stackPodMatrix,
  stackReachSummary,
  stackRow,
} from "./index.ts";
import { Bitset, SparseSet } from "../netpol/bitset.ts";
import { randomStackCluster as cluster } from "./test-fixtures.ts";

const QUERIES: [number, Protocol][] = [
  [80, "TCP"],
  [8080, "TCP"],
  [75, "TCP"],
  [53, "UDP"],
  [80, "SCTP"],
];

function check(): void {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), (seed) => {
      const model = loadModel([{ name: "random.yaml", text: cluster(seed) }]);
      expect(model.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
      const stack = buildStack(model, buildPolicyIndex(model));
      const wrong: string[] = [];
      for (const [port, protocol] of QUERIES) {
        const m = stackMatrix(stack, port, protocol);
        const matrix = stackPodMatrix(stack, m);
        let count = 0;
        model.pods.forEach((a, i) =>
          model.pods.forEach((b, j) => {
            const exact = explainStackPair(stack, a, b, port, protocol).allowed;
            if (matrix[i]![j]) count++;
            if (matrix[i]![j] !== exact)
              wrong.push(
                `${a.key} -> ${b.key} ${protocol}/${port}: classes ${matrix[i]![j]}, exact ${exact}`,
              );
          }),
        );
        const s = stackReachSummary(stack, m);
        if (s.allowedPairs !== count)
          wrong.push(`${protocol}/${port}: summary ${s.allowedPairs} pairs, matrix ${count}`);
      }
      expect(wrong, `seed ${seed}\n${cluster(seed)}`).toEqual([]);
    }),
    { seed: 20261201, numRuns: 40 },
  );
}

describe("the stack's class rows agree with the exact walk of its layers on random stacks", () => {
  it.each([0, 32, Infinity])(
    "every pair and the summary count (sparseFactor %s)",
    (factor) => {
      const saved = setForm.sparseFactor;
      setForm.sparseFactor = factor;
      try {
        check();
      } finally {
        setForm.sparseFactor = saved;
      }
    },
    120_000,
  );
});

describe("stackRow walks first-match entries per layer as decideStack does", () => {
  const set = (n: number, ...xs: number[]) => new SparseSet(n, Int32Array.from(xs));
  const members = (s: ReturnType<typeof stackRow>, n: number) =>
    s === null
      ? Array.from({ length: n }, (_, i) => i)
      : [...Array(n).keys()].filter((i) => (s instanceof Bitset ? s.has(i) : s.has(i)));
  it.each([
    { name: "no entries: the default allows every peer", layers: [[]], want: [0, 1, 2, 3] },
    {
      name: "Deny in the first layer wins over a later Accept",
      layers: [[{ action: "Deny" as const, set: set(4, 0) }], [{ action: "Accept" as const, set: null }]],
      want: [1, 2, 3],
    },
    {
      name: "Pass skips the rest of its layer, the next decides",
      layers: [
        [
          { action: "Pass" as const, set: set(4, 1) },
          { action: "Deny" as const, set: null },
        ],
        [{ action: "Deny" as const, set: set(4, 1) }],
      ],
      want: [],
    },
    {
      name: "a passed peer no later layer decides is allowed",
      layers: [
        [
          { action: "Pass" as const, set: set(4, 2) },
          { action: "Deny" as const, set: null },
        ],
        [],
      ],
      want: [2],
    },
    {
      name: "first match within a layer: Accept before Deny",
      layers: [
        [
          { action: "Accept" as const, set: set(4, 3) },
          { action: "Deny" as const, set: null },
        ],
      ],
      want: [3],
    },
  ])("$name", ({ layers, want }) => {
    expect(members(stackRow(4, layers), 4)).toEqual(want);
  });
});
