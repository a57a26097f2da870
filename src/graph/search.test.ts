import { describe, expect, it } from "vitest";
import { analyzeText } from "../engine/analysis/index.ts";
import { buildGraph } from "./build.ts";
import { drawnAs, findMatches, searchIndex } from "./search.ts";
import { nsGroupKey, nsKey } from "./paths.ts";
// @ts-expect-error: the bench generator is plain JavaScript
import { generate } from "../../bench/generate.mjs";

const M = analyzeText((generate("M") as { text: string }).text);
const index = searchIndex(M);
const graph = (open: Record<string, boolean>) =>
  buildGraph(M, {
    filters: { hiddenNamespaces: [], port: "all", onlyDrops: false },
    grouping: "auto",
    lens: "paths",
    open,
    budget: 14,
  });

describe("find in the graph", () => {
  it("finds namespaces, workloads, Services and pods, exact names first", () => {
    const ns = findMatches(index, "billing-prod");
    expect(ns[0]).toMatchObject({ kind: "namespace", name: "billing-prod" });
    expect(findMatches(index, "coredns")[0]!.kind).toBe("workload");
    expect(findMatches(index, "kube-dns").some((m) => m.kind === "Service")).toBe(true);
    expect(findMatches(index, "")).toEqual([]);
    expect(findMatches(index, "no-such-thing-here")).toEqual([]);
    expect(findMatches(index, "a", 5)).toHaveLength(5);
  });
  it.each([["namespace"], ["workload"], ["Service"], ["pod"]] as const)(
    "a %s folded away at M is drawn once the folds it names are open",
    (kind) => {
      const m = index.find((x) => x.kind === kind && x.name.startsWith("payments-prod"))!;
      const before = graph({});
      expect(before.nodes.some((n) => n.id === m.ids[0])).toBe(false);
      const open = Object.fromEntries(m.opens.map((k) => [k, true]));
      const after = graph(open);
      // The element itself, or (a Service merged into its workload) what draws it.
      const drawn = drawnAs(after, m.ids);
      expect(drawn, m.name).toBeDefined();
      if (kind !== "Service") expect(drawn).toBe(m.ids[0]);
      else expect(after.nodes.find((n) => n.id === drawn)!.services).toContain(m.ids[0]);
      // Before, it was drawn folded: as its namespace family.
      expect(drawnAs(before, m.ids)).toMatch(/^group:nsgroup:/);
    },
  );
  it("opens the namespace family, then the namespace, then (for a pod) its workload", () => {
    const pod = index.find((x) => x.kind === "pod" && x.name.startsWith("payments-prod/"))!;
    // auto: M's namespaces carry a team label, so the family is the team.
    expect(pod.opens.slice(0, 2)).toEqual([nsGroupKey("team=payments"), nsKey("payments-prod")]);
    expect(pod.opens).toHaveLength(3);
    const byPrefix = searchIndex(M, "prefix").find((x) => x.name === pod.name)!;
    expect(byPrefix.opens.slice(0, 2)).toEqual([nsGroupKey("payments"), nsKey("payments-prod")]);
  });
  it("a namespace outside every family (no value for the label) has only itself to open", () => {
    const ws = searchIndex(M, "label:env").find(
      (x) => x.kind === "workload" && x.name === "kube-system/coredns",
    )!;
    expect(ws.opens).toEqual([nsKey("kube-system")]);
    expect(ws.ids).not.toContain(expect.stringMatching(/^group:nsgroup:/));
  });
});
