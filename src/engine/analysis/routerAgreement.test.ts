/**
 * One question, one answer for the L7 routers: the graph's route edges (analysis/routers.ts) split a
 * route's requests as the trace of a request through that router does (l7/), on random routes: a
 * Gateway API HTTPRoute's backendRefs and an Istio VirtualService's destinations, with weights
 * left out, zero or set, the same Service named twice, and Istio's fault.abort taking a share;
 * an Ingress with an ingress-nginx canary Ingress beside it (weights, totals, header and cookie
 * rules that a request without them falls through).
 * Upstream: gateway-api apis/v1/shared_types.go BackendRef.Weight; istio/api HTTPRouteDestination.weight;
 * ingress-nginx balancer.lua route_to_alternative_balancer.
 */
import { describe, expect, it } from "vitest";
import { openAnalysis } from "./index.ts";
import { yamlOf } from "../testing/fixtures.ts";
import { rng } from "../testing/random.ts";
import { backend, client, gateway, ingressNginx, nodes, ns, route, type Obj } from "../l7/test-fixtures.ts";

const SERVICES = ["s0", "s1", "s2"];
const WEIGHTS = [undefined, 0, 1, 3, 10, 90];

const sums = (pairs: [string, number][]): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const [k, w] of pairs) if (w > 0) out[k] = Math.round(((out[k] ?? 0) + w) * 1e9) / 1e9;
  return out;
};

function cluster(injected: boolean, extra: Obj[]): Obj[] {
  const labels = injected ? { "istio-injection": "enabled" } : {};
  return [
    ...nodes,
    ns("default", labels),
    ns("shop", labels),
    client(),
    ...SERVICES.flatMap((s, i) => backend("shop", s, 11 + i)),
    ...extra,
  ];
}

function randomRefs(seed: number) {
  const r = rng(seed);
  return Array.from({ length: 1 + r.int(3) }, () => ({ service: r.pick(SERVICES), weight: r.pick(WEIGHTS) }));
}

function edgesFrom(objects: Obj[], router: string) {
  const s = openAnalysis([{ name: "m.yaml", text: yamlOf(objects) }]);
  const edges = s.analysis.flows
    .filter((f) => f.kind === "route" && f.from[0] === router)
    .map((f): [string, number] => [f.to, f.weight ?? 0]);
  return { s, edges: sums(edges) };
}

describe("the graph's route edges split as the router's trace does", () => {
  it.each(Array.from({ length: 40 }, (_, i) => i + 1))("Gateway API HTTPRoute, seed %i", (seed) => {
    const refs = randomRefs(seed);
    const objects = cluster(false, [
      ...gateway("shop", "gw", [{ name: "http", port: 80, protocol: "HTTP" }]),
      route("shop", "web", {
        parentRefs: [{ name: "gw" }],
        rules: [
          {
            backendRefs: refs.map((b) => ({
              name: b.service,
              port: 8080,
              ...(b.weight === undefined ? {} : { weight: b.weight }),
            })),
          },
        ],
      }),
    ]);
    const { s, edges } = edgesFrom(objects, "gateway:shop/gw");
    const t = s.trace({
      from: "pod:default/client",
      to: "gateway:shop/gw:80",
      protocol: "TCP",
      http: { method: "GET", path: "/", headers: {} },
    });
    const traced = sums((t.backends ?? []).map((b): [string, number] => [b.service, b.weight]));
    expect(edges, JSON.stringify(refs)).toEqual(traced);
  });

  it.each(Array.from({ length: 40 }, (_, i) => i + 1))("Istio VirtualService, seed %i", (seed) => {
    const refs = randomRefs(seed);
    const r = rng(seed * 7919);
    const abort =
      r.int(3) === 0 ? { httpStatus: 503, percentage: { value: r.pick([10, 50, 100]) } } : undefined;
    const objects = cluster(true, [
      {
        apiVersion: "networking.istio.io/v1",
        kind: "VirtualService",
        metadata: { name: "web", namespace: "shop" },
        spec: {
          hosts: ["s0"],
          http: [
            {
              ...(abort ? { fault: { abort } } : {}),
              route: refs.map((b) => ({
                destination: { host: b.service, port: { number: 8080 } },
                ...(b.weight === undefined ? {} : { weight: b.weight }),
              })),
            },
          ],
        },
      },
    ]);
    const { s, edges } = edgesFrom(objects, "virtualservice:shop/web");
    const t = s.trace({
      from: "pod:default/client",
      to: "service:shop/s0:8080",
      protocol: "TCP",
      http: { method: "GET", path: "/", headers: {} },
    });
    // The share fault.abort answers reaches no Service: the graph draws no edge for it.
    const traced = sums(
      (t.backends ?? [])
        .filter((b) => SERVICES.some((x) => b.service === `service:shop/${x}`))
        .map((b): [string, number] => [b.service, b.weight]),
    );
    expect(edges, JSON.stringify({ refs, abort })).toEqual(traced);
  });

  it.each(Array.from({ length: 40 }, (_, i) => i + 1))(
    "Ingress with an ingress-nginx canary, seed %i",
    (seed) => {
      const r = rng(seed * 104729);
      const A = "nginx.ingress.kubernetes.io/";
      const ing = (name: string, service: string, annotations?: Record<string, string>): Obj => ({
        apiVersion: "networking.k8s.io/v1",
        kind: "Ingress",
        metadata: { name, namespace: "shop", ...(annotations ? { annotations } : {}) },
        spec: {
          ingressClassName: "nginx",
          rules: [
            {
              host: "shop.com",
              http: {
                paths: [
                  {
                    path: "/",
                    pathType: "Prefix",
                    backend: { service: { name: service, port: { number: 8080 } } },
                  },
                ],
              },
            },
          ],
        },
      });
      const annotations: Record<string, string> = { [`${A}canary`]: r.pick(["true", "true", "false"]) };
      if (r.int(2)) annotations[`${A}canary-weight`] = String(r.pick([0, 5, 30, 100, 250]));
      if (r.int(3) === 0) annotations[`${A}canary-weight-total`] = String(r.pick([50, 100, 1000]));
      if (r.int(3) === 0) annotations[`${A}canary-by-header`] = "x-canary";
      if (r.int(3) === 0) annotations[`${A}canary-by-cookie`] = "beta";
      const objects = cluster(false, [
        ...ingressNginx,
        ing("web", "s0"),
        ing("web-canary", r.pick(SERVICES), annotations),
      ]);
      const { s, edges } = edgesFrom(objects, "ingress:shop/web");
      const t = s.trace({
        from: "pod:default/client",
        to: "ingress:shop/web:80",
        protocol: "TCP",
        http: { method: "GET", path: "/", headers: { host: "shop.com" } },
      });
      const traced = sums((t.backends ?? []).map((b): [string, number] => [b.service, b.weight]));
      expect(edges, JSON.stringify(annotations)).toEqual(traced);
      expect(Object.keys(traced).length).toBeGreaterThan(0);
    },
  );
});
