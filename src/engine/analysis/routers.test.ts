/**
 * The playground's L7 view (routers.ts and the session's trace): routers as
 * elements with weighted route flows, judged by the lower layers from the
 * router's pods, and questions that carry an HTTP request answered by
 * engine/l7 as `ktl trace` answers them (shared/contract/ktl-cli.md).
 * Weights: gateway-api apis/v1/shared_types.go BackendRef.Weight.
 */
import { describe, expect, it } from "vitest";
import { openAnalysis } from "./index.ts";
import { yamlOf } from "../testing/fixtures.ts";
import { backend, client, gateway, nodes, ns, route, type Obj } from "../l7/test-fixtures.ts";

const canary = (extra: Obj[] = []) => [
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
  ...extra,
];

const denyV2 = {
  apiVersion: "networking.k8s.io/v1",
  kind: "NetworkPolicy",
  metadata: { name: "v2-closed", namespace: "shop" },
  spec: { podSelector: { matchLabels: { app: "web-v2" } }, policyTypes: ["Ingress"] },
};

const open = (objects: Obj[], cni?: "cilium") =>
  openAnalysis([{ name: "m.yaml", text: yamlOf(objects) }], cni ? { cni } : {});

describe("routers in the analysis", () => {
  it.each([
    ["no policy", [], "allow", "allow"],
    ["a NetworkPolicy closes web-v2 to the gateway's pods", [denyV2], "allow", "drop"],
  ] as const)("a 90/10 canary through a Gateway: %s", (_, extra, v1, v2) => {
    const a = open(canary([...extra])).analysis;
    expect(a.routers.map((r) => [r.id, r.traceTo, r.service, r.pods.length])).toEqual([
      ["gateway:shop/gw", "gateway:shop/gw:80", "service:shop/gw-istio", 2],
    ]);
    const routes = a.flows.filter((f) => f.kind === "route" && f.from[0] === "gateway:shop/gw");
    expect(routes.map((f) => [f.to, f.weight, f.verdict])).toEqual([
      ["service:shop/web-v1", 0.9, v1],
      ["service:shop/web-v2", 0.1, v2],
    ]);
    if (v2 === "drop") expect(routes[1]!.decidedBy.map((r) => r.name)).toContain("v2-closed");
    expect(a.flows.filter((f) => f.to === "gateway:shop/gw").map((f) => f.verdict)).toEqual([
      "allow",
      "allow",
    ]);
    expect(Object.keys(a.l7Targets).sort()).toEqual(["service:shop/web-v1", "service:shop/web-v2"]);
  });

  it("a question through the Gateway carries the request and answers with the contract's L7 fields", () => {
    const s = open(canary([denyV2]));
    const t = s.trace({
      from: "pod:default/client",
      to: "gateway:shop/gw:80",
      protocol: "TCP",
      http: { method: "GET", path: "/", headers: {} },
    });
    expect(t.verdict).toBe("partial");
    expect(t.backends?.map((b) => [b.service, b.weight])).toEqual([
      ["service:shop/web-v1", 0.9],
      ["service:shop/web-v2", 0.1],
    ]);
    // The probabilities multiply: 90% over two pods, 10% over two pods.
    expect(t.endpoints.map((e) => e.probability).sort()).toEqual([0.05, 0.05, 0.45, 0.45]);
    expect(t.request).toEqual({ method: "GET", path: "/", headers: {} });
    expect(t.path).toEqual([
      "pod:default/client",
      "gateway:shop/gw",
      "service:shop/web-v1",
      "service:shop/web-v2",
    ]);
    expect(t.router).toMatchObject({ id: "gateway:shop/gw", kind: "Gateway" });
  });

  it("a request no route matches gets the Gateway's 404, decided by the Gateway", () => {
    const objects = canary().map((o) =>
      o.kind === "HTTPRoute"
        ? route("shop", "web", {
            parentRefs: [{ name: "gw" }],
            rules: [
              {
                matches: [{ path: { type: "PathPrefix", value: "/shop" } }],
                backendRefs: [{ name: "web-v1", port: 8080 }],
              },
            ],
          })
        : o,
    );
    const t = open(objects).trace({
      from: "pod:default/client",
      to: "gateway:shop/gw:80",
      protocol: "TCP",
      http: { method: "GET", path: "/admin", headers: {} },
    });
    expect([t.verdict, t.httpStatus, t.decidedBy?.layer]).toEqual(["drop", 404, "Gateway"]);
  });

  it("a Service behind a Cilium L7 rule is an L7 target, and a request its rules do not allow gets 403", () => {
    const cnp = {
      apiVersion: "cilium.io/v2",
      kind: "CiliumNetworkPolicy",
      metadata: { name: "api-l7", namespace: "shop" },
      spec: {
        endpointSelector: { matchLabels: { app: "web-v1" } },
        ingress: [
          {
            fromEndpoints: [{}],
            toPorts: [
              {
                ports: [{ port: "3000", protocol: "TCP" }],
                rules: { http: [{ method: "GET", path: "/api/.*" }] },
              },
            ],
          },
        ],
      },
    };
    const s = open([...nodes, ns("shop"), client("shop"), ...backend("shop", "web-v1", 11), cnp], "cilium");
    expect(s.analysis.l7Targets["service:shop/web-v1"]).toMatch(/GET \/api\/\.\*/);
    const ask = (path: string) =>
      s.trace({
        from: "pod:shop/client",
        to: "service:shop/web-v1:8080",
        protocol: "TCP",
        http: { method: "GET", path, headers: {} },
      });
    expect([ask("/api/x").verdict, ask("/api/x").httpStatus]).toEqual(["allow", 200]);
    const refused = ask("/admin");
    expect([refused.verdict, refused.httpStatus, refused.decidedBy?.layer]).toEqual([
      "drop",
      403,
      "CiliumNetworkPolicy",
    ]);
  });
});

// One split, two readers: the graph's route edges take the shares the sidecar's routing takes
// (l7/vsHttp.ts). Before, the graph gave weightless destinations 0 and drew a rejected VirtualService.
describe("a VirtualService's route edges agree with the sidecar's trace", () => {
  const vs = (http: Obj[]): Obj => ({
    apiVersion: "networking.istio.io/v1",
    kind: "VirtualService",
    metadata: { name: "web", namespace: "shop" },
    spec: { hosts: ["web-v1"], http },
  });
  const mesh = (extra: Obj[]) => [
    ...nodes,
    ns("default", { "istio-injection": "enabled" }),
    ns("shop", { "istio-injection": "enabled" }),
    client(),
    ...backend("shop", "web-v1", 11),
    ...backend("shop", "web-v2", 12),
    ...extra,
  ];
  const split = (objects: Obj[]) => {
    const s = open(objects);
    const edges = s.analysis.flows
      .filter((f) => f.kind === "route" && f.from[0] === "virtualservice:shop/web")
      .map((f) => [f.to, f.weight]);
    const t = s.trace({
      from: "pod:default/client",
      to: "service:shop/web-v1:8080",
      protocol: "TCP",
      http: { method: "GET", path: "/", headers: {} },
    });
    return { edges, traced: (t.backends ?? []).map((b) => [b.service, b.weight]) };
  };
  it.each([
    ["no weights: an even split", [{}, {}], [0.5, 0.5]],
    ["weights 3 and 1", [{ weight: 3 }, { weight: 1 }], [0.75, 0.25]],
    ["one weight: the other gets none", [{ weight: 100 }, {}], [1]],
  ])("%s", (_, weights, shares) => {
    const route = [
      { destination: { host: "web-v1", port: { number: 8080 } }, ...weights[0] },
      { destination: { host: "web-v2", port: { number: 8080 } }, ...weights[1] },
    ];
    const { edges, traced } = split(mesh([vs([{ route }])]));
    const expected = shares.map((w, i) => [`service:shop/web-v${i + 1}`, w]);
    expect(traced).toEqual(expected);
    expect(edges.filter(([, w]) => (w as number) > 0)).toEqual(expected);
  });
  it("a VirtualService istiod rejects (an invalid regex) draws no route edge", () => {
    const bad = vs([
      {
        match: [{ uri: { regex: "(" } }],
        route: [{ destination: { host: "web-v2", port: { number: 8080 } } }],
      },
    ]);
    expect(split(mesh([bad])).edges).toEqual([]);
  });
});
