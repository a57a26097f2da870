import { describe, expect, it } from "vitest";
import { ingressPathMatches } from "./ingress.ts";
import { ingressHostMatches } from "./common.ts";
import { backend, backendsOf, client, l7, nodes, ns, type Obj } from "./test-fixtures.ts";
import { makePod, makeService, makePolicy } from "../testing/fixtures.ts";

// kubernetes.io/docs/concepts/services-networking/ingress "Examples" table.
describe("ingressPathMatches (the docs' Examples table)", () => {
  it.each<[string, string, string, boolean]>([
    ["Prefix", "/", "/anything", true],
    ["Exact", "/foo", "/foo", true],
    ["Exact", "/foo", "/bar", false],
    ["Exact", "/foo", "/foo/", false],
    ["Exact", "/foo/", "/foo", false],
    ["Prefix", "/foo", "/foo", true],
    ["Prefix", "/foo", "/foo/", true],
    ["Prefix", "/foo/", "/foo", true],
    ["Prefix", "/foo/", "/foo/", true],
    ["Prefix", "/aaa/bb", "/aaa/bbb", false],
    ["Prefix", "/aaa/bbb", "/aaa/bbb", true],
    ["Prefix", "/aaa/bbb/", "/aaa/bbb", true],
    ["Prefix", "/aaa/bbb", "/aaa/bbb/", true],
    ["Prefix", "/aaa/bbb", "/aaa/bbbxyz", false],
    ["Prefix", "/aaa/bbb", "/aaa/bbb/ccc", true],
  ])("%s %s vs %s", (type, rule, path, want) => expect(ingressPathMatches(type, rule, path)).toBe(want));
});

// "Hostname wildcards": *.foo.com matches bar.foo.com, not baz.bar.foo.com nor foo.com.
describe("ingressHostMatches", () => {
  it.each<[string, string, boolean]>([
    ["*.foo.com", "bar.foo.com", true],
    ["*.foo.com", "baz.bar.foo.com", false],
    ["*.foo.com", "foo.com", false],
    ["foo.bar.com", "foo.bar.com", true],
  ])("%s vs %s", (p, h, want) => expect(ingressHostMatches(p, h)).toBe(want));
});

const NGINX = "ingress-nginx";
const controllerLabels = {
  "app.kubernetes.io/name": "ingress-nginx",
  "app.kubernetes.io/component": "controller",
};
const controller: Obj[] = [
  ns(NGINX),
  {
    apiVersion: "networking.k8s.io/v1",
    kind: "IngressClass",
    metadata: { name: "nginx" },
    spec: { controller: "k8s.io/ingress-nginx" },
  },
  makeService(
    NGINX,
    "ingress-nginx-controller",
    {
      type: "LoadBalancer",
      externalTrafficPolicy: "Local",
      selector: controllerLabels,
      ports: [{ name: "http", port: 80, targetPort: 80 }],
    },
    { status: { loadBalancer: { ingress: [{ ip: "198.51.100.20" }] } } },
  ),
  makePod(NGINX, "ingress-nginx-controller-0", {
    node: "node-1",
    ip: "10.244.1.60",
    labels: controllerLabels,
  }),
];
const ingress = (spec: Obj): Obj => ({
  apiVersion: "networking.k8s.io/v1",
  kind: "Ingress",
  metadata: { name: "web", namespace: "app" },
  spec: { ingressClassName: "nginx", ...spec },
});
const svcBackend = (name: string) => ({ service: { name, port: { number: 8080 } } });
const base = [
  ...nodes,
  ns("default"),
  ns("app"),
  client(),
  ...controller,
  ...backend("app", "a", 11),
  ...backend("app", "b", 12),
];

describe("routeIngress through ingress-nginx", () => {
  const t = l7([
    ...base,
    ingress({
      rules: [
        {
          host: "shop.example.com",
          http: {
            paths: [
              { path: "/", pathType: "Prefix", backend: svcBackend("a") },
              { path: "/api", pathType: "Prefix", backend: svcBackend("b") },
              { path: "/api", pathType: "Exact", backend: svcBackend("a") },
            ],
          },
        },
        {
          host: "*.example.com",
          http: { paths: [{ path: "/", pathType: "Prefix", backend: svcBackend("b") }] },
        },
        {
          host: "gone.example.com",
          http: { paths: [{ path: "/", pathType: "Prefix", backend: svcBackend("missing") }] },
        },
      ],
    }),
  ]);
  // "Multiple matches": the longest path wins, Exact over Prefix on a tie; exact hosts over wildcards.
  it.each<[string, string, string, number, string]>([
    ["longest prefix", "shop.example.com", "/api/v1", 200, "app/b:8080=1"],
    ["Exact beats Prefix of the same length", "shop.example.com", "/api", 200, "app/a:8080=1"],
    ["shorter prefix", "shop.example.com", "/cart", 200, "app/a:8080=1"],
    ["wildcard host", "x.example.com", "/", 200, "app/b:8080=1"],
    ["wildcard is one label", "a.b.example.com", "/", 404, ""],
    ["missing Service: 503", "gone.example.com", "/", 503, ""],
  ])("%s", (_, host, path, status, backends) => {
    const r = t("pod:default/client", "ingress:app/web:80", `GET ${path}`, [`Host: ${host}`]);
    expect([r.httpStatus, backendsOf(r)]).toEqual([status, backends]);
    if (status !== 200) expect(r.decidedBy?.layer).toBe("Ingress");
  });
  // The controller's Service has externalTrafficPolicy Local and its only pod is on node-1.
  it.each<[string, string, string | undefined]>([
    ["external:203.0.113.10@node-1", "allow", undefined],
    ["external:203.0.113.10@node-2", "drop", "kube-proxy"],
  ])("from %s", (from, verdict, layer) => {
    const r = t(from, "ingress:app/web:80", "GET /", ["Host: shop.example.com"]);
    expect([r.verdict, r.decidedBy?.layer]).toEqual([verdict, layer]);
  });
});

describe("defaultBackend and NetworkPolicy on the controller's hop", () => {
  it("defaultBackend serves what no rule matches", () => {
    const r = l7([
      ...base,
      ingress({
        defaultBackend: svcBackend("b"),
        rules: [
          { host: "a.com", http: { paths: [{ path: "/", pathType: "Prefix", backend: svcBackend("a") }] } },
        ],
      }),
    ])("pod:default/client", "ingress:app/web:80", "GET /", ["Host: other.com"]);
    expect([r.httpStatus, backendsOf(r)]).toEqual([200, "app/b:8080=1"]);
  });
  it("a policy admitting only the controller's namespace", () => {
    const pol = makePolicy("app", "from-nginx", {
      podSelector: {},
      policyTypes: ["Ingress"],
      ingress: [
        { from: [{ namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "other" } } }] },
      ],
    });
    const r = l7([
      ...base,
      pol,
      ingress({
        rules: [{ http: { paths: [{ path: "/", pathType: "Prefix", backend: svcBackend("a") }] } }],
      }),
    ])("pod:default/client", "ingress:app/web:80", "GET /");
    expect([r.verdict, r.decidedBy?.layer, r.httpStatus]).toEqual(["drop", "NetworkPolicy", 503]);
  });
});
