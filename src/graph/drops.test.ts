import { describe, expect, it } from "vitest";
import { analyzeText, type Analysis, type Flow } from "../engine/analysis/index.ts";
import { defaultScenario } from "../../scenarios/index.ts";
import { buildGraph } from "./build.ts";
import { leafResolver, type GraphModel } from "./model.ts";
import { edgeText } from "./edgeLabels.ts";
import { everyPause } from "./pace.ts";
import { dropSpotsSteps, focusDropSpot, spotDecider, spotTitle, whereDropsAre } from "./drops.ts";
import type { Filters, Grouping } from "../store/types.ts";
// @ts-expect-error: the bench generator is plain JavaScript
import { generate } from "../../bench/generate.mjs";

const all: Filters = { hiddenNamespaces: [], port: "all", onlyDrops: false };
const shop = analyzeText(defaultScenario().manifests);
const S: Analysis = analyzeText((generate("S") as { text: string }).text);
const graph = (a: Analysis, grouping: Grouping, budget = 30, filters: Partial<Filters> = {}) =>
  buildGraph(a, { filters: { ...all, ...filters }, grouping, lens: "paths", open: {}, budget });

/** Every flow the engine did not allow, as the (source element, target element) pairs that must carry it. */
function droppedPairs(a: Analysis, g: GraphModel): { pairs: Set<string>; refusing: Set<string> } {
  const resolve = leafResolver(g);
  const pairs = new Set<string>();
  const refusing = new Set<string>();
  for (const f of [...a.flows, ...(a.reach?.flows ?? [])]) {
    if (f.verdict === "allow") continue;
    const t = resolve(f.to);
    for (const from of f.from) {
      const s = resolve(from);
      if (!s || !t || from === f.to) continue;
      if (s === t && f.kind === "endpoint") refusing.add(t);
      else pairs.add(`${s}->${t}`);
    }
  }
  // The pairs no endpoint admits, compact (source groups): pod by pod, not as the graph walks them.
  for (const d of a.reach?.drops ?? []) {
    const t = resolve(d.to);
    for (const k of groupsOf(d.groups))
      for (const i of a.reach!.groups[k]!.pods) {
        const s = resolve(a.pods[i]!.id);
        if (s && t) pairs.add(`${s}->${t}`);
      }
  }
  return { pairs, refusing };
}

/** The group indices of [start, end) runs. */
function groupsOf(runs: readonly number[]): number[] {
  const out: number[] = [];
  for (let r = 0; r < runs.length; r += 2) for (let k = runs[r]!; k < runs[r + 1]!; k++) out.push(k);
  return out;
}

/** Pod-level connections of the compact drops: each dropped group's pods. */
function compactConnections(a: Analysis): number {
  let n = 0;
  for (const d of a.reach?.drops ?? [])
    for (const k of groupsOf(d.groups)) n += a.reach!.groups[k]!.pods.length;
  return n;
}

const levels: [string, Analysis, Grouping, number][] = [
  ["default scenario by pod", shop, "pod", 30],
  ["default scenario by workload", shop, "workload", 30],
  ["default scenario by namespace", shop, "namespace", 30],
  ["S (189 pods), namespaces folded", S, "auto", 30],
  ["S folded into families", S, "auto", 6],
  ["S by workload", S, "workload", 30],
];

describe("drops fold with their elements", () => {
  it.each(levels)(
    "%s: every flow that is not allowed lands on a drop or partial edge (a loop inside one element)",
    (_, a, grouping, budget) => {
      const g = graph(a, grouping, budget);
      const { pairs, refusing } = droppedPairs(a, g);
      expect(pairs.size + refusing.size).toBeGreaterThan(0);
      const edges = new Map(g.edges.map((e) => [`${e.source}->${e.target}`, e]));
      for (const p of pairs) expect(edges.get(p)?.verdict, p).not.toBe("allow");
      for (const p of pairs) expect(edges.get(p), p).toBeDefined();
      for (const id of refusing)
        expect(g.nodes.find((n) => n.id === id)?.refuses?.refuse, id).toBeGreaterThan(0);
    },
  );

  it.each(levels)(
    "%s: only drops shows exactly the edges that carry drops, at the same fold level",
    (_, a, grouping, budget) => {
      const g = graph(a, grouping, budget);
      const only = graph(a, grouping, budget, { onlyDrops: true });
      expect(only.nodes.map((n) => n.id)).toEqual(g.nodes.map((n) => n.id));
      expect(only.edges.every((e) => e.verdict !== "allow")).toBe(true);
      expect(only.edges.map((e) => e.id).sort()).toEqual(
        g.edges
          .filter((e) => e.verdict !== "allow")
          .map((e) => e.id)
          .sort(),
      );
    },
  );

  it("a folded namespace whose members drop among themselves carries a loop with the count and the layer", () => {
    const g = graph(shop, "namespace");
    const loops = g.edges.filter((e) => e.source === e.target);
    expect(loops.map((e) => e.id)).toContain("e:group:namespace:shop->group:namespace:shop");
    expect(loops.length).toBeGreaterThan(0);
    for (const l of loops) {
      expect(l.verdict).not.toBe("allow");
      expect(edgeText(l)).toMatch(/\d+( of \d+)? (partly )?dropped.* inside|inside/);
      expect(l.layers?.length).toBeGreaterThan(0);
    }
  });

  it("an aggregated drop edge between boxes says how many connections drop and which layer dropped them", () => {
    const g = graph(shop, "namespace");
    const e = g.edges.find((x) => x.source === "group:namespace:tools" && x.verdict !== "allow")!;
    expect(e).toBeDefined();
    expect(edgeText(e)).toContain("NetworkPolicy");
    expect(edgeText(e)).toMatch(/\d+ (of \d+ )?dropped/);
  });

  it("drops the engine lists at scale (reach) fold into family elements like any flow", () => {
    const pod = S.pods.find((p) => p.namespace.startsWith("payments"))!;
    const svc = S.services.find((s) => s.namespace.startsWith("search"))!;
    const drop: Flow = {
      id: "workload|test-drop",
      kind: "service",
      from: [pod.id],
      to: svc.id,
      port: svc.ports[0]!.port,
      protocol: "TCP",
      verdict: "drop",
      dropCause: "policy",
      reason: "no endpoint admits it",
      decidedBy: [{ kind: "NetworkPolicy", namespace: svc.namespace, name: "default-deny", line: 1 }],
      traceTo: `${svc.id}:${svc.ports[0]!.port}`,
    };
    const a: Analysis = { ...S, reach: { ...S.reach!, flows: [...S.reach!.flows, drop] } };
    const g = graph(a, "auto", 6, { onlyDrops: true });
    const resolve = leafResolver(g);
    const e = g.edges.find((x) => x.source === resolve(pod.id) && x.target === resolve(svc.id));
    expect(e?.verdict).not.toBe("allow");
    expect(e?.layers).toContain("NetworkPolicy");
  });
});

describe("drops at 2,036 pods (M): the pairs no endpoint admits are drawn, not counted in a sentence", () => {
  const M: Analysis = analyzeText((generate("M") as { text: string }).text);
  it.each([
    ["namespaces folded", "auto", 30],
    ["folded into families", "auto", 6],
  ] as const)("%s: every dropped group lands on a drop or partial edge", (_, grouping, budget) => {
    expect(M.reach!.drops.length).toBeGreaterThan(0);
    const g = graph(M, grouping, budget);
    const { pairs } = droppedPairs(M, g);
    const edges = new Map(g.edges.map((e) => [`${e.source}->${e.target}`, e]));
    for (const p of pairs) expect(edges.get(p)?.verdict, p).not.toBe("allow");
    const only = graph(M, grouping, budget, { onlyDrops: true });
    expect(only.edges.length).toBe(pairs.size);
    // The edges' dropped connections add up to every pod-level connection the engine found dropped.
    const drawn = only.edges.reduce((n, e) => n + (e.mix?.drop ?? 0) + (e.mix?.partial ?? 0), 0);
    let fromFlows = 0;
    for (const f of [...M.flows, ...M.reach!.flows])
      if (f.verdict !== "allow") for (const x of f.from) if (x !== f.to) fromFlows++;
    expect(drawn).toBeGreaterThanOrEqual(compactConnections(M));
    // An edge lists example flows of its compact drops, and counts the rest rather than dropping them.
    const heavy = only.edges.find((e) => e.unlistedFlows)!;
    expect(heavy.flows.length).toBeGreaterThan(0);
    expect(heavy.flows.every((f) => f.verdict !== "allow" && f.traceTo.startsWith("service:"))).toBe(true);
    expect(drawn).toBeLessThanOrEqual(compactConnections(M) + fromFlows);
  });
});

describe("where the drops are", () => {
  it("ranks spots by namespace pair and deciding object, most connections first", () => {
    const { spots } = whereDropsAre(shop);
    expect(spots.length).toBeGreaterThan(0);
    for (let i = 1; i < spots.length; i++)
      expect(spots[i - 1]!.connections).toBeGreaterThanOrEqual(spots[i]!.connections);
    const tools = spots.find((s) => s.from === "tools" && s.to === "shop");
    expect(tools && spotTitle(tools)).toBe("tools → shop");
    expect(tools && spotDecider(tools)).toMatch(/^NetworkPolicy shop\//);
  });

  it("ranks the pairs no endpoint admits too: nothing the engine found is only counted", () => {
    expect(S.reach!.dropped).toBeGreaterThan(0);
    expect(S.reach!.drops.reduce((n, d) => n + d.count, 0)).toBe(S.reach!.dropped);
    // Every pod of every dropped group is a connection of some spot, once.
    const listed = whereDropsAre(S).spots.reduce((n, s) => n + s.connections, 0);
    let fromFlows = 0;
    for (const f of S.reach!.flows) if (f.verdict !== "allow") fromFlows += f.from.length;
    for (const f of S.flows) if (f.verdict !== "allow") fromFlows += f.from.length;
    expect(listed).toBe(fromFlows + compactConnections(S));
  });

  it("an answer that keeps flows as the objects ranked before ranks as a fresh copy of it does", () => {
    // An edit's answer keeps unchanged flows as the very objects (worker/delta.ts), and each flow's part is
    // kept by the flow: ranking twice, or a new answer sharing flows, must count every flow once per answer.
    const fresh = (a: Analysis) => whereDropsAre(structuredClone(a)).spots;
    expect(whereDropsAre(S).spots).toEqual(fresh(S));
    expect(whereDropsAre(S).spots).toEqual(fresh(S));
    // Half the flows changed (new objects), the rest kept; one refused flow gone.
    const refused = S.flows.findIndex((f) => f.verdict !== "allow");
    const next: Analysis = {
      ...S,
      flows: S.flows.flatMap((f, i) => (i === refused ? [] : i % 2 ? [{ ...f }] : [f])),
    };
    expect(whereDropsAre(next).spots).toEqual(fresh(next));
    expect(whereDropsAre(next).spots).not.toEqual(whereDropsAre(S).spots);
    // The compact drops' records kept as objects while a group lost a pod: their parts are read again.
    const big = S.reach!.groups.findIndex((g) => g.pods.length > 1);
    const smaller: Analysis = {
      ...S,
      reach: {
        ...S.reach!,
        groups: S.reach!.groups.map((g, i) => (i === big ? { ...g, pods: g.pods.slice(1) } : g)),
      },
    };
    expect(whereDropsAre(smaller).spots).toEqual(fresh(smaller));
    expect(whereDropsAre(smaller).spots).not.toEqual(whereDropsAre(S).spots);
  });

  it("opening a spot shows both namespaces and picks the edge that carries it", () => {
    const { spots } = whereDropsAre(S);
    const spot = spots.find((s) => s.from !== undefined && s.from !== s.to)!;
    const options = { filters: all, grouping: "auto" as const, lens: "paths" as const, open: {}, budget: 6 };
    const folded = buildGraph(S, options);
    expect(folded.nodes.some((n) => n.kind === "namespace" && n.nsCount)).toBe(true);
    const f = focusDropSpot(S, options, spot);
    expect(Object.values(f.open).every(Boolean)).toBe(true);
    expect(f.edge?.verdict).not.toBe("allow");
    const ns = (id: string) => f.graph.nodes.find((n) => n.id === id)?.namespace;
    expect(ns(f.edge!.source)).toBe(spot.from);
    expect(ns(f.edge!.target)).toBe(spot.to);
  });
});

describe("the drops ranked a slice at a time (pace.ts)", () => {
  it("rank as in one go, and may pause at every flow and every compact record", () => {
    expect(S.reach!.drops.length).toBeGreaterThan(0);
    for (const a of [S, shop]) {
      const { value, pauses, asked } = everyPause((pace) => dropSpotsSteps(a, pace));
      expect(pauses).toBe(asked);
      const flows = a.flows.length + (a.reach?.flows.length ?? 0);
      const records =
        (a.reach?.drops.length ?? 0) + (a.reach?.allowed ?? []).filter((d) => d.verdict === "partial").length;
      expect(pauses).toBe(flows + records);
      expect(value).toEqual(whereDropsAre(a));
    }
  });
});
