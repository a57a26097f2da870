import { describe, expect, it } from "vitest";
import ELK from "elkjs/lib/elk.bundled.js";
import {
  analyzeText,
  openAnalysis,
  type Analysis,
  type Flow,
  type PodView,
  type TraceView,
} from "../engine/analysis/index.ts";
import { defaultScenario } from "../../scenarios/index.ts";
import { AUTO, chooseLevel, leafResolver, pathEdges, type EdgeFlow, type GraphModel } from "./model.ts";
import { buildGraph } from "./build.ts";
import { positionsOf, toElkGraph } from "./layout.ts";
import { questionEdges, toFlowElements } from "./flow.ts";
import { ElementStabilizer, sameEdge } from "./stabilize.ts";
import type { Filters } from "../store/types.ts";

const all: Filters = { hiddenNamespaces: [], port: "all", onlyDrops: false };
const shop = analyzeText(defaultScenario().manifests);
const graph = (
  a: Analysis = shop,
  filters: Partial<Filters> = {},
  grouping: "auto" | "pod" | "workload" | "namespace" = "auto",
) => buildGraph(a, { filters: { ...all, ...filters }, grouping, lens: "topology" });
const edge = (g: GraphModel, source: string, target: string) =>
  g.edges.find((e) => e.source === source && e.target === target);

describe("graph of the default scenario", () => {
  const g = graph();
  it("draws pods inside cluster nodes inside zones", () => {
    const parent = (id: string) => g.nodes.find((n) => n.id === id)?.parent;
    expect(parent("node:node-a")).toBe("zone:zone-a");
    expect(parent("node:node-b")).toBe("zone:zone-b");
    expect(parent("pod:tools/toolbox")).toBe("node:node-a");
    expect(parent("pod:shop/cache-0")).toBe("node:node-b");
    expect(g.level).toBe("pod");
  });
  it("puts parents before their children (React Flow needs it)", () => {
    const seen = new Set<string>();
    for (const n of g.nodes) {
      if (n.parent) expect(seen.has(n.parent), n.id).toBe(true);
      seen.add(n.id);
    }
  });
  it("has Services and one external client, for the LoadBalancer Service", () => {
    expect(
      g.nodes
        .filter((n) => n.kind === "service")
        .map((n) => n.id)
        .sort(),
    ).toEqual(["service:shop/backend", "service:shop/cache", "service:shop/frontend"]);
    expect(g.nodes.filter((n) => n.kind === "external").map((n) => n.id)).toEqual(["external:203.0.113.10"]);
  });
  it.each([
    ["pod:tools/toolbox", "service:shop/backend", "drop", "policy"],
    ["pod:shop/frontend-0", "service:shop/backend", "allow", undefined],
    ["pod:shop/backend-1", "service:shop/cache", "drop", "traffic-policy"],
    ["pod:shop/backend-0", "service:shop/cache", "allow", undefined],
    ["service:shop/backend", "pod:shop/backend-0", "partial", "policy"],
    ["external:203.0.113.10", "service:shop/frontend", "allow", undefined],
  ] as const)("%s -> %s is %s", (s, t, verdict, cause) => {
    const e = edge(g, s, t);
    expect(e, `${s} -> ${t}`).toBeDefined();
    expect(e!.verdict).toBe(verdict);
    expect(e!.dropCause).toBe(cause);
  });
  it("labels each edge with its deciding object", () => {
    expect(edge(g, "pod:tools/toolbox", "service:shop/backend")!.label).toBe("default-deny-ingress");
    expect(edge(g, "pod:shop/backend-1", "service:shop/cache")!.label).toBe("cache");
    expect(edge(g, "service:shop/backend", "pod:shop/backend-0")!.label).toBe("backend-from-frontend +1");
  });
  it("an endpoint edge is explained by the trace of a refused client", () => {
    const f = edge(g, "service:shop/backend", "pod:shop/backend-0")!.flows[0]!;
    expect(f.from).toMatch(/^pod:/);
    expect(f.from).not.toMatch(/frontend/);
    expect(f.traceTo).toBe("service:shop/backend:80");
  });
});

describe("filters", () => {
  it("only drops: every edge left is a drop or partial", () => {
    const g = graph(shop, { onlyDrops: true });
    expect(g.edges.length).toBeGreaterThan(0);
    expect(g.edges.every((e) => e.verdict !== "allow")).toBe(true);
  });
  it("a hidden namespace hides its pods and their edges, and counts them", () => {
    const g = graph(shop, { hiddenNamespaces: ["tools"] });
    expect(g.nodes.some((n) => n.id === "pod:tools/toolbox")).toBe(false);
    expect(g.edges.some((e) => e.source === "pod:tools/toolbox")).toBe(false);
    expect(g.hidden).toBe(1);
  });
  it("a port keeps only that port's flows", () => {
    const g = graph(shop, { port: "6379/TCP" });
    expect(new Set(g.edges.map((e) => (e.source.startsWith("service:") ? e.source : e.target)))).toEqual(
      new Set(["service:shop/cache"]),
    );
  });
});

describe("grouping", () => {
  it("by workload: one node per workload and cluster node, with counts, and merged edges", () => {
    const g = graph(shop, {}, "workload");
    const fe = g.nodes.filter((n) => n.kind === "group" && n.label === "frontend");
    expect(fe.map((n) => [n.id, n.count]).sort()).toEqual([
      ["group:workload:shop/StatefulSet/frontend@node:node-a", 1],
      ["group:workload:shop/StatefulSet/frontend@node:node-b", 1],
    ]);
    expect(edge(g, "group:workload:tools/Pod/toolbox@node:node-a", "service:shop/backend")!.verdict).toBe(
      "drop",
    );
  });

  it("merges mixed verdicts into partial", () => {
    const pod = (name: string): PodView => ({
      id: `pod:x/${name}`,
      namespace: "x",
      name,
      node: "node:n",
      ips: ["10.0.0.1"],
      labels: {},
      workload: { id: "workload:x/Deployment/w", kind: "Deployment", name: "w" },
      ports: [],
      hostNetwork: false,
      ready: true,
      phase: "Running",
      terminating: false,
      generated: true,
      ref: { kind: "Deployment", name: "w", line: 1 },
      isolatedBy: { ingress: [], egress: [] },
    });
    const flow = (from: string, verdict: Flow["verdict"]): Flow => ({
      id: from,
      kind: "service",
      from: [from],
      to: "service:x/s",
      port: 80,
      protocol: "TCP",
      verdict,
      reason: verdict,
      decidedBy: [],
      traceTo: "service:x/s:80",
      ...(verdict === "drop" ? { dropCause: "policy" as const } : {}),
    });
    const a: Analysis = {
      ...shop,
      zones: [],
      nodes: [
        {
          id: "node:n",
          name: "n",
          internalIP: "1.1.1.1",
          ready: true,
          unschedulable: false,
          synthesized: false,
        },
      ],
      pods: [pod("a"), pod("b")],
      services: [{ ...shop.services[0]!, id: "service:x/s", namespace: "x", name: "s" }],
      flows: [flow("pod:x/a", "allow"), flow("pod:x/b", "drop")],
      externalClients: [],
    };
    const g = graph(a, {}, "workload");
    expect(g.edges).toHaveLength(1);
    expect(g.edges[0]).toMatchObject({
      source: "group:workload:x/Deployment/w@node:n",
      target: "service:x/s",
      verdict: "partial",
      dropCause: "policy",
    });
    expect(
      graph(a, {}, "pod")
        .edges.map((e) => e.verdict)
        .sort(),
    ).toEqual(["allow", "drop"]);
  });

  it("auto: pods when small, workloads when large, namespaces when huge", () => {
    expect(chooseLevel(shop, "auto")).toBe("pod");
    const many = (n: number, workloads: number): Analysis => ({
      ...shop,
      flows: [],
      pods: Array.from({ length: n }, (_, i) => ({
        ...shop.pods[0]!,
        id: `pod:x/p${i}`,
        workload: {
          id: `workload:x/Deployment/w${i % workloads}`,
          kind: "Deployment",
          name: `w${i % workloads}`,
        },
      })),
    });
    expect(chooseLevel(many(AUTO.maxPods + 1, 20), "auto")).toBe("workload");
    expect(chooseLevel(many(2000, AUTO.maxGroups + 1), "auto")).toBe("namespace");
    expect(chooseLevel(many(2000, AUTO.maxGroups + 1), "pod")).toBe("pod");
  });
});

describe("layout key", () => {
  it("stays when only verdicts change, so an edit that turns edges does not move anything", () => {
    const turned: Analysis = {
      ...shop,
      flows: shop.flows.map((f) => ({ ...f, verdict: "drop" as const, dropCause: "policy" as const })),
    };
    expect(graph(turned).structureKey).toBe(graph().structureKey);
  });
  it("changes when a pod is added", () => {
    const more = analyzeText(defaultScenario().manifests.replace("replicas: 1", "replicas: 2"));
    expect(graph(more).structureKey).not.toBe(graph().structureKey);
  });
});

describe("a traced path lights up", () => {
  const g = graph();
  const part = (source: string, target: string) => ({
    source,
    target,
    verdict: "drop" as const,
    reason: "no",
    decidedBy: [],
  });
  it("maps the path source -> Service -> each endpoint to drawn edges", () => {
    expect(pathEdges(["pod:a/x", "service:a/s", "pod:a/y", "pod:a/z"], (id) => id)).toEqual([
      ["pod:a/x", "service:a/s"],
      ["service:a/s", "pod:a/y"],
      ["service:a/s", "pod:a/z"],
    ]);
    expect(leafResolver(g)("external:203.0.113.10@node-b")).toBe("external:203.0.113.10");
  });
  it("lights existing edges and adds a question edge where none is drawn", () => {
    const t: TraceView = {
      from: "pod:tools/toolbox",
      to: "pod:shop/cache-0:6379",
      protocol: "TCP",
      verdict: "drop",
      reason: "no",
      sourceIPPreserved: true,
      endpoints: [],
      hops: [],
      path: ["pod:tools/toolbox", "pod:shop/cache-0"],
      edges: [part("pod:tools/toolbox", "pod:shop/cache-0")],
    };
    const { lit, extra } = questionEdges(g, t);
    expect(extra.map((e) => [e.source, e.target, e.verdict, e.kind])).toEqual([
      ["pod:tools/toolbox", "pod:shop/cache-0", "drop", "question"],
    ]);
    expect(lit).toEqual(new Set([extra[0]!.id]));
    expect(extra[0]!.title).toBe("no");
    const svc: TraceView = {
      ...t,
      to: "service:shop/backend:80",
      path: ["pod:tools/toolbox", "service:shop/backend", "pod:shop/backend-1", "pod:shop/backend-0"],
      edges: [
        part("pod:tools/toolbox", "service:shop/backend"),
        part("service:shop/backend", "pod:shop/backend-1"),
        part("service:shop/backend", "pod:shop/backend-0"),
      ],
    };
    const q = questionEdges(g, svc);
    expect(q.extra).toEqual([]);
    expect([...q.lit].sort()).toEqual([
      "e:pod:tools/toolbox->service:shop/backend",
      "e:service:shop/backend->pod:shop/backend-0",
      "e:service:shop/backend->pod:shop/backend-1",
    ]);
  });
  it("asked by workload: every pod's path is lit, each with its own verdict", () => {
    // The shop's cache has internalTrafficPolicy Local: backend-0 runs beside cache-0, backend-1 does not.
    const session = openAnalysis([{ name: "m.yaml", text: defaultScenario().manifests }]);
    const t = session.trace({
      from: "workload:shop/backend",
      to: "service:shop/cache:6379",
      protocol: "TCP",
    });
    expect(t.workload?.verdict).toBe("partial");
    // The traced pair (the refused one) comes first, as the details panel shows it.
    expect(t.edges[0]).toMatchObject({ source: "pod:shop/backend-1", verdict: "drop" });
    const { edges } = toFlowElements(graph(session.analysis, {}, "pod"), undefined, { trace: t });
    const lit = edges
      .filter((e) => e.data!.lit)
      .map((e) => [e.source, e.target, e.data!.edge.verdict])
      .sort();
    expect(lit).toEqual([
      ["pod:shop/backend-0", "service:shop/cache", "allow"],
      ["pod:shop/backend-1", "service:shop/cache", "drop"],
      ["service:shop/cache", "pod:shop/cache-0", "allow"],
    ]);
    expect(t.path).toEqual(
      expect.arrayContaining([
        "pod:shop/backend-0",
        "pod:shop/backend-1",
        "service:shop/cache",
        "pod:shop/cache-0",
      ]),
    );
  });

  it("dims what is off the path and keeps the test hooks on every edge", () => {
    const t: TraceView = {
      from: "pod:tools/toolbox",
      to: "service:shop/backend:80",
      protocol: "TCP",
      verdict: "drop",
      reason: "",
      sourceIPPreserved: true,
      endpoints: [],
      hops: [],
      path: ["pod:tools/toolbox", "service:shop/backend"],
      edges: [part("pod:tools/toolbox", "service:shop/backend")],
    };
    const { nodes, edges } = toFlowElements(g, undefined, { trace: t });
    expect(edges.find((e) => e.id === "e:pod:tools/toolbox->service:shop/backend")!.data!.lit).toBe(true);
    expect(edges.filter((e) => e.data!.dimmed).length).toBe(edges.length - 1);
    expect(nodes.find((n) => n.id === "pod:shop/cache-0")!.data.dimmed).toBe(true);
    for (const e of edges)
      expect([e.source, e.target].every((id) => /^(pod|service|node|external|group):/.test(id))).toBe(true);
  });
});

describe("ELK layout (compound nodes)", () => {
  const g = graph();
  it("keeps edges at the top level, oriented cluster -> Service -> external client", () => {
    const elk = toElkGraph(g);
    expect(elk.children!.map((c) => c.id).sort()).toEqual([
      "external:203.0.113.10",
      "service:shop/backend",
      "service:shop/cache",
      "service:shop/frontend",
      "zone:zone-a",
      "zone:zone-b",
    ]);
    for (const e of elk.edges!) {
      expect(e.sources[0]).not.toMatch(/^external:/);
      expect(e.targets[0]).not.toMatch(/^zone:/);
    }
  });
  it("places every node inside its parent", async () => {
    const root = await new ELK().layout(toElkGraph(g));
    const pos = positionsOf(root);
    for (const n of g.nodes) {
      const p = pos[n.id];
      expect(p, n.id).toBeDefined();
      if (!n.parent) continue;
      const parent = pos[n.parent]!;
      expect(p!.x).toBeGreaterThanOrEqual(0);
      expect(p!.y).toBeGreaterThanOrEqual(0);
      expect(p!.x + p!.width).toBeLessThanOrEqual(parent.width + 0.5);
      expect(p!.y + p!.height).toBeLessThanOrEqual(parent.height + 0.5);
    }
  });
});

describe("re-rendering only what changed", () => {
  it("hands back the same objects for unchanged elements and new ones for changed edges", () => {
    const s = new ElementStabilizer();
    const first = s.apply(toFlowElements(graph(), undefined));
    const turned: Analysis = {
      ...shop,
      flows: shop.flows.map((f) =>
        f.from.includes("pod:tools/toolbox")
          ? { ...f, verdict: "drop" as const, dropCause: "policy" as const }
          : f,
      ),
    };
    const second = s.apply(toFlowElements(graph(turned), undefined));
    expect(second.nodes.every((n, i) => n === first.nodes[i])).toBe(true);
    // No node changed: the very list comes back, and React Flow keeps its store as it was.
    expect(second.nodes).toBe(first.nodes);
    expect(second.edges).not.toBe(first.edges);
    const changed = second.edges.filter((e) => !first.edges.includes(e)).map((e) => e.id);
    expect(changed).toEqual([
      "e:pod:tools/toolbox->service:shop/cache",
      "e:pod:tools/toolbox->service:shop/frontend",
    ]);
    // The same picture again: both lists come back as they were.
    const third = s.apply(toFlowElements(graph(turned), undefined));
    expect(third.nodes).toBe(second.nodes);
    expect(third.edges).toBe(second.edges);
  });

  it("a new observation on an edge is a change: the edge draws its observed glyph (observedMarks.ts)", () => {
    const s = new ElementStabilizer();
    const g = graph();
    const first = s.apply(toFlowElements(g, undefined));
    const id = first.edges[0]!.id;
    const mark = { case: "agree-allowed" as const, forwarded: 3, dropped: 0, rows: [] };
    const second = s.apply(
      toFlowElements(g, undefined, { observed: { marks: new Map([[id, mark]]), extra: [] } }),
    );
    expect(second.edges.filter((e) => !first.edges.includes(e)).map((e) => e.id)).toEqual([id]);
    expect(second.edges[0]!.data!.observed).toBe(mark);
  });
});

describe("sameEdge: equal picture, compared in place", () => {
  it("an edge whose flows are equal is the same; one changed caller or reason is not", () => {
    const [e] = toFlowElements(graph(), undefined).edges;
    const copy = (flows: EdgeFlow[]) => ({
      ...e!,
      data: { ...e!.data!, edge: { ...e!.data!.edge, flows } },
    });
    const flows = e!.data!.edge.flows;
    expect(flows.length).toBeGreaterThan(0);
    expect(sameEdge(e!, copy(flows.map((f) => ({ ...f }))))).toBe(true);
    expect(sameEdge(e!, copy(flows.map((f, i) => (i ? f : { ...f, from: "pod:x/other" }))))).toBe(false);
    expect(sameEdge(e!, copy(flows.map((f, i) => (i ? f : { ...f, reason: "another" }))))).toBe(false);
    expect(sameEdge(e!, copy(flows.slice(1)))).toBe(false);
  });
});
