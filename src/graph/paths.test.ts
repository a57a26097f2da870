import { describe, expect, it } from "vitest";
import { analyzeText, type Analysis } from "../engine/analysis/index.ts";
import { defaultScenario, SCENARIOS } from "../../scenarios/index.ts";
import { CHOSEN_MAX_EDGES, lensOf, topologyDecides, type GraphModel } from "./model.ts";
import { buildGraph, graphSteps } from "./build.ts";
import { everyPause } from "./pace.ts";
import { layeredLayout, columnOf, packLayers, splitByFlows } from "./layered.ts";
import { namespaceNodeId, nsGroupKey, nsGroupNodeId, nsKey, POD_LEVEL, workloadNodeId } from "./paths.ts";
import { labelBox } from "./edgeLabels.ts";
import { whereDropsAre } from "./drops.ts";
import { toFlowElements } from "./flow.ts";
import type { TraceView } from "../engine/analysis/index.ts";
import type { Filters, Grouping } from "../store/types.ts";
import type { NsGroupBy } from "./nsGroups.ts";
// @ts-expect-error: the bench generator is plain JavaScript
import { generate } from "../../bench/generate.mjs";

const all: Filters = { hiddenNamespaces: [], port: "all", onlyDrops: false };
const shop = analyzeText(defaultScenario().manifests);
const S: Analysis = analyzeText((generate("S") as { text: string }).text);
const paths = (
  a: Analysis,
  o: {
    grouping?: Grouping;
    open?: Record<string, boolean>;
    budget?: number;
    filters?: Partial<Filters>;
    nsGroupBy?: NsGroupBy;
  } = {},
): GraphModel =>
  buildGraph(a, {
    filters: { ...all, ...o.filters },
    grouping: o.grouping ?? "auto",
    lens: "paths",
    open: o.open ?? {},
    budget: o.budget ?? 30,
    ...(o.nsGroupBy ? { nsGroupBy: o.nsGroupBy } : {}),
  });
const ids = (g: GraphModel, kind?: string) =>
  g.nodes.filter((n) => !kind || n.kind === kind).map((n) => n.id);

describe("lens", () => {
  it("auto is the paths lens; topology is turned on, and the scenario says when zones or nodes decide", () => {
    expect(lensOf(shop, "auto")).toBe("paths");
    expect(lensOf(S, "topology")).toBe("topology");
    expect(topologyDecides(shop)).toBe(true);
    expect(topologyDecides(S)).toBe(false);
  });
});

describe("paths lens: namespace -> workload -> pods", () => {
  it(`a small cluster (at most ${POD_LEVEL} pods) shows every pod and Service, keeping the pod-level test hooks`, () => {
    const g = paths(shop);
    expect(ids(g, "pod")).toContain("pod:shop/frontend-0");
    expect(
      g.edges.find((e) => e.source === "pod:tools/toolbox" && e.target === "service:shop/backend")?.verdict,
    ).toBe("drop");
    expect(
      g.edges.find((e) => e.source === "service:shop/backend" && e.target === "pod:shop/backend-0")?.verdict,
    ).toBe("partial");
    expect(g.nodes.every((n) => n.parent === undefined)).toBe(true);
  });

  it("grouping by workload: one element per workload cluster-wide (not per node), its pods counted", () => {
    const g = paths(shop, { grouping: "workload" });
    const backend = g.nodes.filter((n) => n.label === "backend" && n.kind === "group");
    expect(backend).toHaveLength(1);
    expect(backend[0]!.count).toBe(2);
    expect(backend[0]!.toggle).toMatch(/^workload:shop\//);
  });

  it("a Service whose endpoints all belong to one folded workload is drawn inside it", () => {
    const g = paths(shop, { grouping: "workload" });
    const backend = g.nodes.find((n) => n.label === "backend" && n.kind === "group")!;
    expect(backend.services).toEqual(["service:shop/backend"]);
    expect(ids(g)).not.toContain("service:shop/backend");
  });

  it("opening a workload shows its pods; folding a namespace shows one element", () => {
    const wl = paths(shop, { grouping: "workload" });
    const backend = wl.nodes.find((n) => n.label === "backend" && n.kind === "group")!;
    const opened = paths(shop, { grouping: "workload", open: { [backend.toggle!]: true } });
    expect(ids(opened)).toEqual(
      expect.arrayContaining(["pod:shop/backend-0", "pod:shop/backend-1", "service:shop/backend"]),
    );
    const folded = paths(shop, { open: { [nsKey("shop")]: false } });
    expect(ids(folded)).toContain(namespaceNodeId("shop"));
    expect(ids(folded).filter((id) => id.startsWith("pod:shop/"))).toEqual([]);
  });

  it("auto at S (189 pods): namespaces fold, largest first, until the elements fit the budget", () => {
    for (const budget of [12, 20, 30]) {
      const g = paths(S, { budget });
      expect(g.nodes.length, `budget ${budget}`).toBeLessThanOrEqual(budget);
      expect(g.nodes.some((n) => n.kind === "namespace")).toBe(true);
    }
  });

  it("the user's choice wins over the budget", () => {
    const g = paths(S, { budget: 12, open: { [nsKey("kube-system")]: true, [nsKey("search-prod")]: true } });
    expect(ids(g)).not.toContain(namespaceNodeId("search-prod"));
    expect(g.nodes.some((n) => n.namespace === "search-prod" && n.kind === "group")).toBe(true);
  });
});

describe("paths lens at M (2,036 pods, 43 namespaces)", () => {
  const M: Analysis = analyzeText((generate("M") as { text: string }).text);
  it("namespaces sharing a name prefix fold into one family element when folded namespaces alone do not fit", () => {
    const g = paths(M, { budget: 14, nsGroupBy: "prefix" });
    expect(g.nodes.length).toBeLessThanOrEqual(14);
    const billing = g.nodes.find((n) => n.id === nsGroupNodeId("billing"))!;
    expect(billing.label).toBe("billing-*");
    expect(billing.nsCount).toBe(4);
    expect(billing.toggle).toBe(nsGroupKey("billing"));
    // One aggregated edge per pair: the DNS edge from the family counts all its namespaces' connections.
    expect(g.edges.filter((e) => e.source === billing.id).length).toBeGreaterThan(0);
  });
  it("auto folds by the team label the namespaces carry: one element per team, titled by its value", () => {
    const g = paths(M, { budget: 14 });
    expect(g.nodes.length).toBeLessThanOrEqual(14);
    const billing = g.nodes.find((n) => n.id === nsGroupNodeId("team=billing"))!;
    expect(billing.label).toBe("billing");
    expect(billing.nsCount).toBe(4);
    expect(billing.sublabel).toMatch(/^4 namespaces · \d+ pods$/);
    expect(billing.toggle).toBe(nsGroupKey("team=billing"));
    expect(ids(g)).not.toContain(nsGroupNodeId("billing"));
  });
  it("a label that cuts across the names (env) makes other families; namespaces without it are never folded into one", () => {
    const g = paths(M, { budget: 14, nsGroupBy: "label:env" });
    const families = g.nodes.filter((n) => n.id.startsWith("group:nsgroup:"));
    expect(families.map((n) => n.label).sort()).toEqual(expect.arrayContaining(["prod", "staging"]));
    const prod = families.find((n) => n.id === nsGroupNodeId("env=prod"))!;
    // Every team has two prod namespaces (NAME-prod and NAME-prod-3): the family holds both of each of the ten teams.
    expect(prod.nsCount).toBe(20);
    expect(prod.members).toEqual(expect.arrayContaining([expect.stringMatching(/^pod:billing-prod\//)]));
    // kube-system has no env label: it stays its own element (or open), never in a family.
    expect(g.nodes.some((n) => n.namespace === "kube-system")).toBe(true);
    for (const f of families) expect(f.members!.some((m) => m.includes("kube-system/"))).toBe(false);
  });
  it("a label no namespace carries folds nothing further", () => {
    const g = paths(M, { budget: 14, nsGroupBy: "label:no-such-key" });
    expect(g.nodes.some((n) => n.id.startsWith("group:nsgroup:"))).toBe(false);
  });
  it("opening a family shows its namespaces, each of which folds back into it", () => {
    const g = paths(M, { budget: 14, nsGroupBy: "prefix", open: { [nsGroupKey("billing")]: true } });
    expect(ids(g)).not.toContain(nsGroupNodeId("billing"));
    const ns = g.nodes.find((n) => n.id === namespaceNodeId("billing-prod"))!;
    expect(ns.fold).toBe(nsGroupKey("billing"));
    const byTeam = paths(M, { budget: 14, open: { [nsGroupKey("team=billing")]: true } });
    expect(byTeam.nodes.find((n) => n.id === namespaceNodeId("billing-prod"))!.fold).toBe(
      nsGroupKey("team=billing"),
    );
  });
  it("closing a family by hand folds it whatever the budget", () => {
    const g = paths(M, { budget: 400, nsGroupBy: "label:env", open: { [nsGroupKey("env=dev")]: false } });
    const dev = g.nodes.find((n) => n.id === nsGroupNodeId("env=dev"))!;
    expect(dev.nsCount).toBeGreaterThan(1);
    expect(ids(g)).not.toContain(namespaceNodeId("billing-dev"));
  });
  it("lays out by flows: monitoring and the ingress controller left of the namespaces, DNS right of them", () => {
    const g = paths(M, { budget: 14, nsGroupBy: "prefix" });
    const pos = layeredLayout(g, { aspect: 2, maxRows: 7 });
    const x = (label: string) => pos[g.nodes.find((n) => n.label === label)!.id]!.x;
    // Left of, or packed into one column above (packLayers: a column keeps its layers in order, the first above).
    const y = (label: string) => pos[g.nodes.find((n) => n.label === label)!.id]!.y;
    const before = (a: string, b: string) => x(a) < x(b) || (x(a) === x(b) && y(a) < y(b));
    expect(before("ingress-nginx-controller", "billing-*")).toBe(true);
    expect(before("monitoring", "billing-*")).toBe(true);
    expect(before("shipping-*", "coredns")).toBe(true);
    const width = Math.max(...Object.values(pos).map((p) => p.x + p.width));
    const height = Math.max(...Object.values(pos).map((p) => p.y + p.height));
    expect(width / height).toBeLessThan(2.6);
  });
});

describe("rank by flows", () => {
  const index = new Map(["a", "b", "c", "d"].map((k, i) => [k, i]));
  it.each([
    [
      ["a>b", "b>c"],
      [[0, 3], [1], [2]],
    ],
    [
      ["a>b", "b>a", "a>c", "a>d"],
      [[0], [1, 2, 3]],
    ],
    [[], [[0, 1, 2, 3]]],
  ] as const)("links %j give layers %j", (links, want) => {
    const got = splitByFlows([0, 1, 2, 3], links as unknown as string[], index).map((l) => [...l].sort());
    expect(got).toEqual(want);
  });
  it("packs two short layers into one column only when the picture is too wide for the pane", () => {
    const layers = [[0], [1], [2, 3, 4, 5, 6, 7, 8, 9], [10]];
    expect(packLayers(layers, 10, 10, { width: 10, height: 10 })).toHaveLength(4);
    expect(packLayers(layers, 10, 0.5, { width: 10, height: 10 }).length).toBeLessThan(4);
  });
});

describe("paths lens: aggregated edges", () => {
  const g = paths(S, { budget: 20 });
  it("one edge per (source element, destination element), counting the pod-level connections by verdict", () => {
    const keys = g.edges.map((e) => `${e.source}>${e.target}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (const e of g.edges) {
      const m = e.mix!;
      expect(m.allow + m.drop + m.partial).toBe(e.count);
      const mixed = [m.allow, m.drop, m.partial].filter((n) => n > 0).length > 1;
      if (mixed) expect(e.verdict).toBe("partial");
    }
    expect(g.edges.length).toBeGreaterThan(5);
  });
  it("edges at scale come from the engine's workload flows (who can connect), so a large graph is not empty", () => {
    expect(S.reach?.flows.length).toBeGreaterThan(0);
    expect(g.edges.some((e) => e.flows.some((f) => f.flowId.startsWith("workload|")))).toBe(true);
  });
  it("an answer that keeps flows as objects maps as a fresh copy does, under the same fold and another", () => {
    // pathEdges.ts keeps each flow's sender runs by the flow while every id is drawn where it was.
    const fresh = (a: Analysis, o: Parameters<typeof paths>[1]) => paths(structuredClone(a), o);
    expect(paths(S, { budget: 20 })).toEqual(fresh(S, { budget: 20 }));
    // Another fold moves ids to other elements: the runs kept under the first must not be read.
    const ns = S.pods[0]!.namespace;
    const opened = { budget: 20, open: { [nsKey(ns)]: true } };
    expect(paths(S, opened).edges).not.toEqual(g.edges);
    expect(paths(S, opened)).toEqual(fresh(S, opened));
    expect(paths(S, { budget: 20 })).toEqual(g);
    // An edit's answer: some flows new objects, one workload flow gone, the rest the very objects.
    const next: Analysis = {
      ...S,
      flows: S.flows.map((f, i) => (i % 3 ? f : { ...f, from: [...f.from] })),
      reach: { ...S.reach!, flows: S.reach!.flows.slice(1) },
    };
    expect(paths(next, { budget: 20 })).toEqual(fresh(next, { budget: 20 }));
    // The compact drops' records kept as objects while a group lost a pod: summed again.
    const big = S.reach!.groups.findIndex(
      (x, i) => x.pods.length > 1 && S.reach!.drops.some((d) => inRuns(d.groups, i)),
    );
    const smaller: Analysis = {
      ...S,
      reach: {
        ...S.reach!,
        groups: S.reach!.groups.map((x, i) => (i === big ? { ...x, pods: x.pods.slice(1) } : x)),
      },
    };
    expect(paths(smaller, { budget: 20 })).toEqual(fresh(smaller, { budget: 20 }));
    expect(paths(smaller, { budget: 20 }).edges).not.toEqual(g.edges);
  });
  it("filters do not change the layout's links: a port filter keeps every place", () => {
    const filtered = paths(S, { budget: 20, filters: { port: "5432/TCP" } });
    expect(filtered.links).toEqual(g.links);
    expect(filtered.structureKey).toBe(g.structureKey);
    expect(filtered.edges.length).toBeLessThan(g.edges.length);
  });
});

describe("layered layout", () => {
  const g = paths(shop);
  const pos = layeredLayout(g, { aspect: 1.6 });
  it("clients left, Services next, then pods that call on, then backends", () => {
    const x = (id: string) => pos[id]!.x;
    expect(x("external:203.0.113.10")).toBeLessThan(x("service:shop/frontend"));
    expect(x("pod:tools/toolbox")).toBeLessThan(x("service:shop/backend"));
    expect(x("service:shop/backend")).toBeLessThan(x("pod:shop/backend-0"));
    expect(x("service:shop/frontend")).toBeLessThan(x("pod:shop/frontend-0"));
  });
  it("no two elements overlap", () => {
    const boxes = Object.entries(pos);
    for (let i = 0; i < boxes.length; i++)
      for (let j = i + 1; j < boxes.length; j++) {
        const [, a] = boxes[i]!;
        const [, b] = boxes[j]!;
        const overlap =
          a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
        expect(overlap, `${boxes[i]![0]} / ${boxes[j]![0]}`).toBe(false);
      }
  });
  it("is stable: after an edit removes a pod, every other element keeps its place", () => {
    const text = defaultScenario().manifests;
    const edited = analyzeText(text.replace(/---\n# A debugging pod[\s\S]*?(?=---)/, ""));
    const g2 = paths(edited);
    expect(ids(g2)).not.toContain("pod:tools/toolbox");
    const pos2 = layeredLayout(g2, { aspect: 1.6, previous: pos });
    for (const id of ids(g2)) if (pos[id]) expect(pos2[id], id).toEqual(pos[id]);
  });
  it("a new element moves down past the elements already placed", () => {
    const g2 = paths(shop, { grouping: "workload" });
    const pos2 = layeredLayout(paths(shop), { previous: layeredLayout(g2) });
    const boxes = Object.values(pos2);
    for (let i = 0; i < boxes.length; i++)
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i]!;
        const b = boxes[j]!;
        expect(
          a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height,
        ).toBe(false);
      }
  });
  it.each([
    ["external", 0, 1, 0],
    ["service", 1, 1, 1],
    ["group", 0, 2, 0],
    ["group", 2, 1, 2],
    ["group", 2, 0, 3],
    ["group", 0, 0, 4],
    // An L7 router: column 5, drawn between the clients (0) and the Services (1) (COLUMN_ORDER).
    ["router", 1, 2, 5],
  ] as const)("a %s with %i in and %i out goes to column %i", (kind, ins, outs, col) => {
    expect(columnOf({ id: "x", kind, label: "x", width: 1, height: 1 }, ins, outs)).toBe(col);
  });
});

describe("selecting an element dims what is not connected to it", () => {
  it("keeps its neighbours and their edges, dims the rest", () => {
    const g = paths(shop);
    const el = toFlowElements(g, layeredLayout(g), { selectedNode: "pod:tools/toolbox" });
    const dim = new Map(el.nodes.map((n) => [n.id, n.data.dimmed]));
    expect(dim.get("pod:tools/toolbox")).toBe(false);
    expect(dim.get("service:shop/backend")).toBe(false);
    expect(dim.get("pod:shop/cache-0")).toBe(true);
    for (const e of el.edges)
      expect(e.data!.dimmed).toBe(!(e.source === "pod:tools/toolbox" || e.target === "pod:tools/toolbox"));
  });
  it("labels stay hidden until hover, selection or a trace", () => {
    const g = paths(shop);
    const el = toFlowElements(g, layeredLayout(g), {});
    expect(el.edges.filter((e) => e.data!.showLabel)).toEqual([]);
    const hovered = toFlowElements(g, layeredLayout(g), { hoveredEdge: el.edges[0]!.id });
    expect(hovered.edges.filter((e) => e.data!.showLabel).map((e) => e.id)).toEqual([el.edges[0]!.id]);
  });
  it("workload element ids name the workload", () => {
    expect(workloadNodeId("workload:shop/Deployment/backend")).toBe("group:workload:shop/Deployment/backend");
  });
});

describe("edge labels sit clear of every box and of each other", () => {
  const trace = (path: string[]): TraceView => ({
    from: path[0]!,
    to: path[path.length - 1]!,
    protocol: "TCP",
    verdict: "drop",
    reason: "",
    sourceIPPreserved: true,
    endpoints: [],
    hops: [],
    path,
    // The path's parts: source -> Service, Service -> each endpoint.
    edges: path.slice(1).map((to, i) => ({
      source: i === 0 ? path[0]! : path[1]!,
      target: to,
      verdict: "drop" as const,
      reason: "",
      decidedBy: [],
    })),
  });
  it.each([
    ["backend-1 to the cache", ["pod:shop/backend-1", "service:shop/cache", "pod:shop/cache-0"]],
    [
      "toolbox to the backend",
      ["pod:tools/toolbox", "service:shop/backend", "pod:shop/backend-0", "pod:shop/backend-1"],
    ],
  ])("%s, at the pane shapes of 1440x900 and 1280x720", (_, path) => {
    const g = paths(shop);
    for (const [aspect, rows] of [
      [2, 7],
      [2.7, 5],
    ] as const) {
      const pos = layeredLayout(g, { aspect, maxRows: rows });
      const { edges } = toFlowElements(g, pos, { trace: trace(path) });
      const labels = edges
        .filter((e) => e.data!.showLabel && e.data!.edge.label)
        .map((e) => {
          const w = labelBox(e.data!.edge).width;
          return {
            id: e.id,
            x: e.data!.labelAt!.x - w / 2,
            y: e.data!.labelAt!.y,
            width: w,
            height: labelBox(e.data!.edge).height,
          };
        });
      expect(labels.length).toBeGreaterThan(0);
      const hit = (a: { x: number; y: number; width: number; height: number }, b: typeof a) =>
        a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
      for (const l of labels) {
        for (const [id, b] of Object.entries(pos)) expect(hit(l, b), `${l.id} over ${id}`).toBe(false);
        for (const m of labels) if (m !== l) expect(hit(l, m), `${l.id} over ${m.id}`).toBe(false);
      }
    }
  });
});

describe("paths lens: a flow's senders counted one by one", () => {
  it("senders spread over elements in any order count each, at pod level and folded alike", () => {
    // Every pod of the scenario sends one flow to the backend Service, in an order that interleaves workloads:
    // a folded element's senders are not adjacent, and each must still count once.
    const senders = shop.pods.map((p) => p.id);
    const interleaved = [...senders.filter((_, i) => i % 2 === 0), ...senders.filter((_, i) => i % 2 === 1)];
    const base = shop.flows.find((f) => f.to === "service:shop/backend" && f.kind !== "endpoint")!;
    const flow = { ...base, id: "test|interleaved", from: interleaved, verdict: "drop" as const };
    const a: Analysis = { ...shop, flows: [flow] };
    for (const grouping of ["pod", "workload", "namespace"] as const) {
      const g = paths(a, { grouping });
      expect(
        g.edges.reduce((n, e) => n + e.mix!.drop, 0),
        grouping,
      ).toBe(senders.length);
      for (const e of g.edges)
        expect(
          e.flows.filter((f) => f.flowId === flow.id),
          grouping,
        ).toHaveLength(1);
    }
    expect(paths(a, { grouping: "namespace" }).edges.length).toBeLessThan(
      paths(a, { grouping: "pod" }).edges.length,
    );
  });
});

describe("paths lens: an edge lists examples, not every flow", () => {
  it("at most 24 flows, refused first; the rest are counted, and the count holds them all", () => {
    const g = paths(S, { grouping: "namespace" });
    const big = g.edges.filter((e) => e.unlistedFlows);
    expect(big.length).toBeGreaterThan(0);
    for (const e of g.edges) {
      expect(e.flows.length).toBeLessThanOrEqual(24);
      const firstAllowed = e.flows.findIndex((f) => f.verdict === "allow");
      if (firstAllowed >= 0)
        expect(e.flows.slice(firstAllowed).every((f) => f.verdict === "allow")).toBe(true);
    }
    for (const e of big) expect(e.flows.length).toBe(24);
    // Opened to pods, the same flows are spread over edges that each list them all.
    const listed = (m: GraphModel) =>
      m.edges.reduce((n, e) => n + e.flows.length + (e.unlistedFlows ?? 0), 0);
    expect(listed(g)).toBeGreaterThan(g.edges.reduce((n, e) => n + e.flows.length, 0));
  });
});

/** Whether group `k` is in the [start, end) runs of a compact drop record. */
function inRuns(runs: readonly number[], k: number): boolean {
  for (let i = 0; i < runs.length; i += 2) if (k >= runs[i]! && k < runs[i + 1]!) return true;
  return false;
}

// Past the engine's listing limit the admitted pairs come as compact records (ReachAllowed): the graph draws
// them as it draws listed flows, so the picture does not depend on where the limit falls. Before these records,
// the pairs past the limit were only counted: at M 1,935 and at L 348,490 allowed connections had no edge.
describe("paths lens: the admitted pairs past the listing limit are drawn", () => {
  const text = (generate("S") as { text: string }).text;
  const cut = analyzeText(text, "manifests.yaml", { workloadFlowLimit: 40 });
  const edgesOf = (a: Analysis, o: Parameters<typeof paths>[1] = {}) =>
    paths(a, o)
      .edges.map((e) => `${e.source}>${e.target} ${e.verdict} ${e.count} ${JSON.stringify(e.mix)} ${e.ports}`)
      .sort();
  it("the limited answer lists 40 flows and gives the rest as records", () => {
    expect(cut.reach!.flows).toHaveLength(40);
    expect(cut.reach!.allowed.length).toBeGreaterThan(0);
    expect(S.reach!.allowed).toEqual([]);
  });
  it("every edge, with its verdict, its count and its ports, at the namespace fold and opened", () => {
    expect(edgesOf(cut)).toEqual(edgesOf(S));
    const open = { [nsKey("payments-prod")]: true, [nsKey("search-staging")]: true };
    expect(edgesOf(cut, { open })).toEqual(edgesOf(S, { open }));
    expect(edgesOf(cut, { filters: { onlyDrops: true } })).toEqual(
      edgesOf(S, { filters: { onlyDrops: true } }),
    );
    expect(edgesOf(cut, { filters: { port: "8080/TCP" } })).toEqual(
      edgesOf(S, { filters: { port: "8080/TCP" } }),
    );
  });
  it("the drop list counts the partly admitted pairs past the limit as it counts partial flows", () => {
    const total = (a: Analysis) =>
      whereDropsAre(a).spots.reduce((n, s) => [n[0]! + s.connections, n[1]! + s.partly], [0, 0]);
    expect(total(cut)).toEqual(total(S));
  });
});

describe("the mapping a slice at a time (pace.ts)", () => {
  it("gives the graph the one-go mapping gives, and may pause in each loop over the flows and the compact drops", () => {
    expect(S.reach!.drops.length).toBeGreaterThan(0);
    for (const a of [S, shop]) {
      const options = {
        filters: all,
        grouping: "auto" as const,
        lens: "paths" as const,
        open: {},
        budget: 30,
      };
      // A pace always due: the mapping pauses wherever it may.
      const { value, pauses, asked } = everyPause((pace) => graphSteps(a, options, pace));
      expect(pauses).toBe(asked);
      // Twice over the flows (the elements that take part, then the edges), once over the compact drops, and
      // once per merged edge (at least the edges drawn).
      const flows = a.flows.length + (a.reach?.flows.length ?? 0);
      const graph = buildGraph(a, options);
      expect(pauses).toBeGreaterThanOrEqual(2 * flows + (a.reach?.drops.length ?? 0) + graph.edges.length);
      expect(value).toEqual(graph);
    }
  });
});

describe("a grouping chosen by hand with more edges than a picture can show (model.ts CHOSEN_MAX_EDGES)", () => {
  it("folds to fit as auto does and names the grouping it declined; one within the limit is drawn", () => {
    // 189 pods: every pod paired with every other it sends to or is refused by is thousands of edges.
    const byPod = paths(S, { grouping: "pod" });
    expect(byPod.declined).toEqual({ grouping: "pod", limit: CHOSEN_MAX_EDGES });
    expect(byPod.edges.length).toBeLessThanOrEqual(CHOSEN_MAX_EDGES);
    expect(byPod.level).not.toBe("pod");
    const auto = paths(S);
    expect(byPod.nodes.map((n) => n.id)).toEqual(auto.nodes.map((n) => n.id));
    // By namespace S has a hundred edges: drawn as asked.
    const byNamespace = paths(S, { grouping: "namespace" });
    expect(byNamespace.declined).toBeUndefined();
    expect(byNamespace.nodes.some((n) => n.id === namespaceNodeId("payments-prod"))).toBe(true);
  });

  it("every scenario of the catalogue is drawn by pod as asked", () => {
    for (const s of SCENARIOS) {
      const g = paths(analyzeText(s.manifests), { grouping: "pod" });
      expect([s.id, g.declined]).toEqual([s.id, undefined]);
    }
  });
});
