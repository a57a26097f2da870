/** Routers in the paths lens, and the edge notes of verdicts.ts: a router's shares, a CNI dialect's drop, an L7 restriction. */
import { describe, expect, it } from "vitest";
import { analyzeText } from "../engine/analysis/index.ts";
import { yamlOf } from "../engine/testing/fixtures.ts";
import { backend, client, gateway, nodes, ns, route } from "../engine/l7/test-fixtures.ts";
import { buildGraph } from "./build.ts";
import { layeredLayout } from "./layered.ts";
import { noteTag, shareText } from "./verdicts.ts";

const filters = { hiddenNamespaces: [], port: "all", onlyDrops: false };

const canary = yamlOf([
  ...nodes,
  ns("default"),
  ns("shop"),
  client(),
  ...gateway("shop", "gw", [{ name: "http", port: 80, protocol: "HTTP" }]),
  ...backend("shop", "web-v1", 11),
  ...backend("shop", "web-v2", 12),
  route("shop", "web", {
    parentRefs: [{ name: "gw" }],
    rules: [
      {
        backendRefs: [
          { name: "web-v1", port: 8080, weight: 90 },
          { name: "web-v2", port: 8080, weight: 10 },
        ],
      },
    ],
  }),
]);

describe("routers in the paths lens", () => {
  it("a Gateway is an element between the external client and its backends, its routes labelled with their shares", () => {
    const g = buildGraph(analyzeText(canary), { filters, grouping: "auto", lens: "paths" });
    const router = g.nodes.find((n) => n.id === "gateway:shop/gw");
    expect(router).toMatchObject({ kind: "router", label: "gw" });
    const routes = g.edges.filter((e) => e.source === "gateway:shop/gw");
    expect(routes.map((e) => [e.target, e.label, e.note])).toEqual([
      ["service:shop/web-v1", "90%", "weight"],
      ["service:shop/web-v2", "10%", "weight"],
    ]);
    expect(g.edges.some((e) => e.source === "external:203.0.113.10" && e.target === "gateway:shop/gw")).toBe(
      true,
    );
    // The layout puts the router between the client and the Services.
    const pos = layeredLayout(g);
    const x = (id: string) => pos[id]!.x;
    expect(x("external:203.0.113.10")).toBeLessThan(x("gateway:shop/gw"));
    expect(x("gateway:shop/gw")).toBeLessThan(x("service:shop/web-v1"));
  });

  it("the topology lens leaves routers out rather than drawing edges to nothing", () => {
    const g = buildGraph(analyzeText(canary), { filters, grouping: "auto", lens: "topology" });
    expect(g.edges.every((e) => g.nodes.some((n) => n.id === e.source))).toBe(true);
  });
});

describe("edge notes", () => {
  it.each([
    ["weight", { weights: [0.9], verdict: "allow" }, "90%"],
    ["weight", { weights: [1 / 3], verdict: "allow" }, "33.3%"],
    ["cni", { dialect: "Cilium", verdict: "drop" }, "Cilium ✕"],
    ["cni", { dialect: "Calico", verdict: "partial" }, "Calico ✕"],
    ["l7", { l7: ["GET /api/.*"], verdict: "allow" }, "HTTP GET /api/.* only"],
    ["l7", { l7: ["GET /a", "GET /b", "PUT /c"], verdict: "allow" }, "HTTP GET /a, GET /b +1 only"],
  ] as const)("%s %j is tagged %s", (note, e, tag) => {
    expect(
      noteTag(note, { ...e, l7: "l7" in e ? [...e.l7] : [], weights: "weights" in e ? [...e.weights] : [] }),
    ).toBe(tag);
  });
  it("shares are rounded to a tenth of a percent", () => expect(shareText(0.125)).toBe("12.5%"));

  it("a Cilium drop and a Cilium L7 restriction are worded on their edges", () => {
    const text = `apiVersion: v1
kind: Pod
metadata: {name: api, namespace: app, labels: {app: api}}
spec: {nodeName: node-1, containers: [{name: c, image: x, ports: [{name: http, containerPort: 80}]}]}
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: app, labels: {app: web}}
spec: {nodeName: node-1, containers: [{name: c, image: x, ports: [{name: http, containerPort: 80}]}]}
---
apiVersion: v1
kind: Pod
metadata: {name: other, namespace: app, labels: {app: other}}
spec: {nodeName: node-1, containers: [{name: c, image: x, ports: [{name: http, containerPort: 80}]}]}
---
apiVersion: cilium.io/v2
kind: CiliumNetworkPolicy
metadata: {name: api-l7, namespace: app}
spec:
  endpointSelector: {matchLabels: {app: api}}
  ingress:
  - fromEndpoints: [{matchLabels: {app: web}}]
    toPorts:
    - ports: [{port: "80", protocol: TCP}]
      rules: {http: [{method: GET, path: "/api/.*"}]}
`;
    const g = buildGraph(analyzeText(text), { filters, grouping: "pod", lens: "paths" });
    const edge = (from: string) => g.edges.find((e) => e.source === from && e.target === "pod:app/api")!;
    expect([edge("pod:app/web").note, edge("pod:app/web").label]).toEqual([
      "l7",
      "HTTP GET /api/.* only · api-l7",
    ]);
    expect([edge("pod:app/other").note, edge("pod:app/other").label]).toEqual(["cni", "Cilium ✕ · api-l7"]);
  });
});
