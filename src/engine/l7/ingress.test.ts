import { describe, expect, it } from "vitest";
import { ingressPathMatches } from "./ingress.ts";
import { ingressHostMatches } from "./common.ts";
import { backend, backendsOf, client, ingressNginx, l7, nodes, ns, type Obj } from "./test-fixtures.ts";
import { makePolicy, modelOf } from "../testing/fixtures.ts";
import { unmodelledFor } from "../policy/unmodelled.ts";

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

const controller = ingressNginx;
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

// ingress-nginx's canary (docs user-guide/nginx-configuration/annotations.md "Canary"; controller.go
// mergeAlternativeBackends; rootfs/etc/nginx/lua/balancer.lua route_to_alternative_balancer).
describe("ingress-nginx canary Ingresses (rule 5)", () => {
  const A = "nginx.ingress.kubernetes.io/";
  const main = ingress({
    rules: [
      { host: "shop.com", http: { paths: [{ path: "/", pathType: "Prefix", backend: svcBackend("a") }] } },
    ],
  });
  const canary = (annotations: Record<string, string>, path = "/", host = "shop.com", svc = "b"): Obj => ({
    apiVersion: "networking.k8s.io/v1",
    kind: "Ingress",
    metadata: {
      name: "web-canary",
      namespace: "app",
      annotations: { [`${A}canary`]: "true", ...annotations },
    },
    spec: {
      ingressClassName: "nginx",
      rules: [{ host, http: { paths: [{ path, pathType: "Prefix", backend: svcBackend(svc) }] } }],
    },
  });
  const W10 = { [`${A}canary-weight`]: "10" };
  const H = { [`${A}canary-by-header`]: "x-canary" };
  it.each<[string, Obj, string[], string]>([
    ["canary-weight 10: a tenth of the requests", canary(W10), [], "app/a:8080=0.9 app/b:8080=0.1"],
    ["canary-weight 0: none", canary({ [`${A}canary-weight`]: "0" }), [], "app/a:8080=1"],
    ["canary-weight 100: every request", canary({ [`${A}canary-weight`]: "100" }), [], "app/b:8080=1"],
    [
      "canary-weight-total 1000 (above 100): weight 100 of 1000",
      canary({ [`${A}canary-weight`]: "100", [`${A}canary-weight-total`]: "1000" }),
      [],
      "app/a:8080=0.9 app/b:8080=0.1",
    ],
    ["header always", canary({ ...H, ...W10 }), ["x-canary: always"], "app/b:8080=1"],
    [
      "header never beats the weight",
      canary({ ...H, [`${A}canary-weight`]: "100" }),
      ["x-canary: never"],
      "app/a:8080=1",
    ],
    [
      "another header value falls through to the weight",
      canary({ ...H, ...W10 }),
      ["x-canary: maybe"],
      "app/a:8080=0.9 app/b:8080=0.1",
    ],
    [
      "canary-by-header-value matches",
      canary({ ...H, [`${A}canary-by-header-value`]: "beta" }),
      ["x-canary: beta"],
      "app/b:8080=1",
    ],
    [
      "canary-by-header-value set: always is just another value",
      canary({ ...H, [`${A}canary-by-header-value`]: "beta" }),
      ["x-canary: always"],
      "app/a:8080=1",
    ],
    [
      "canary-by-header-pattern matches anywhere in the value",
      canary({ ...H, [`${A}canary-by-header-pattern`]: "be+ta" }),
      ["x-canary: pre-beeta-2"],
      "app/b:8080=1",
    ],
    ["cookie always", canary({ [`${A}canary-by-cookie`]: "ab" }), ["Cookie: x=1; ab=always"], "app/b:8080=1"],
    [
      "header before cookie",
      canary({ ...H, [`${A}canary-by-cookie`]: "ab" }),
      ["x-canary: never", "Cookie: ab=always"],
      "app/a:8080=1",
    ],
    ["a canary on another path is merged into nothing", canary(W10, "/beta"), [], "app/a:8080=1"],
    ["a canary of another host is merged into nothing", canary(W10, "/", "other.com"), [], "app/a:8080=1"],
    [
      "a canary naming the main Service is no alternative",
      canary(W10, "/", "shop.com", "a"),
      [],
      "app/a:8080=1",
    ],
    [
      "a canary Service without a ready endpoint: the main backend serves",
      canary({ [`${A}canary-weight`]: "100" }, "/", "shop.com", "c"),
      [],
      "app/a:8080=1",
    ],
  ])("%s", (_, c, headers, backends) => {
    const r = l7([...base, ...backend("app", "c", 13, 0), main, c])(
      "pod:default/client",
      "ingress:app/web:80",
      "GET /",
      ["Host: shop.com", ...headers],
    );
    expect([r.httpStatus, backendsOf(r)]).toEqual([200, backends]);
  });
  it("a canary Ingress serves no request of its own: a host only it names answers 404", () => {
    const only = canary({ [`${A}canary-weight`]: "100" }, "/", "beta.shop.com");
    const r = l7([...base, main, only])("pod:default/client", "ingress:app/web:80", "GET /", [
      "Host: beta.shop.com",
    ]);
    expect([r.httpStatus, backendsOf(r)]).toEqual([404, ""]);
  });
});

// Nothing silent: ingress-nginx's other annotations are named (KTL460) with what the controller does.
describe("ingress-nginx annotations ktl does not evaluate", () => {
  it("each is in the trace's unmodelled with its line and effect; the canary ones are evaluated", () => {
    const A = "nginx.ingress.kubernetes.io/";
    const ing = {
      apiVersion: "networking.k8s.io/v1",
      kind: "Ingress",
      metadata: {
        name: "web",
        namespace: "app",
        annotations: {
          [`${A}whitelist-source-range`]: "10.0.0.0/8",
          [`${A}rewrite-target`]: "/$2",
          [`${A}proxy-body-size`]: "8m",
          [`${A}canary-weight`]: "10",
          "example.com/other": "x",
        },
      },
      spec: {
        ingressClassName: "nginx",
        rules: [{ http: { paths: [{ path: "/", pathType: "Prefix", backend: svcBackend("a") }] } }],
      },
    };
    const m = modelOf([...base, ing]);
    const entries = unmodelledFor(m, "all");
    expect(entries.map((u) => [u.field, u.line > 1])).toEqual([
      [`metadata.annotations["${A}whitelist-source-range"]`, true],
      [`metadata.annotations["${A}rewrite-target"]`, true],
      [`metadata.annotations["${A}proxy-body-size"]`, true],
    ]);
    expect(entries[0]!.message).toMatch(/403/);
    expect(unmodelledFor(m, "pod")).toEqual([]);
    expect(m.diagnostics.filter((d) => d.code === "KTL460")).toHaveLength(3);
  });
});

// annotations.md, Canary: "all the other non-canary annotations will be ignored (inherited from the
// corresponding main ingress) except load-balance, upstream-hash-by, and annotations related to session affinity".
it("a canary Ingress's other annotations are the main Ingress's: only its own are named", () => {
  const A = "nginx.ingress.kubernetes.io/";
  const canaryIng = {
    apiVersion: "networking.k8s.io/v1",
    kind: "Ingress",
    metadata: {
      name: "web-canary",
      namespace: "app",
      annotations: {
        [`${A}canary`]: "true",
        [`${A}rewrite-target`]: "/",
        [`${A}upstream-hash-by`]: "$request_uri",
      },
    },
    spec: {
      ingressClassName: "nginx",
      rules: [{ http: { paths: [{ path: "/", pathType: "Prefix", backend: svcBackend("b") }] } }],
    },
  };
  expect(unmodelledFor(modelOf([...base, canaryIng]), "all").map((u) => u.field)).toEqual([
    `metadata.annotations["${A}upstream-hash-by"]`,
  ]);
});

// ingress-nginx's nginx.tmpl: with TLS for the host (spec.tls), ssl-redirect (default true) answers plain HTTP
// with http-redirect-code (default 308) to https; force-ssl-redirect redirects without TLS too.
describe("ingress-nginx's redirect of plain HTTP to HTTPS (rule 6)", () => {
  const A = "nginx.ingress.kubernetes.io/";
  const web = (tls: Obj[] | undefined, annotations: Record<string, string> = {}): Obj => ({
    apiVersion: "networking.k8s.io/v1",
    kind: "Ingress",
    metadata: { name: "web", namespace: "app", annotations },
    spec: {
      ingressClassName: "nginx",
      ...(tls ? { tls } : {}),
      rules: [
        { host: "shop.com", http: { paths: [{ path: "/", pathType: "Prefix", backend: svcBackend("a") }] } },
      ],
    },
  });
  it.each<[string, Obj, number, string | undefined]>([
    [
      "TLS for the host: 308 to https",
      web([{ hosts: ["shop.com"], secretName: "tls" }]),
      308,
      "https://shop.com:443/cart?x=1",
    ],
    ["a wildcard TLS host covers it", web([{ hosts: ["*.com"] }]), 308, "https://shop.com:443/cart?x=1"],
    [
      "ssl-redirect false: routed",
      web([{ hosts: ["shop.com"] }], { [`${A}ssl-redirect`]: "false" }),
      200,
      undefined,
    ],
    ["TLS for another host: routed", web([{ hosts: ["other.com"] }]), 200, undefined],
    [
      "force-ssl-redirect without TLS: 308",
      web(undefined, { [`${A}force-ssl-redirect`]: "true" }),
      308,
      "https://shop.com:443/cart?x=1",
    ],
  ])("%s", (_, ing, status, location) => {
    const r = l7([...base, ing])("pod:default/client", "ingress:app/web:80", "GET /cart?x=1", [
      "Host: shop.com",
    ]);
    expect(r.httpStatus).toBe(status);
    const rd = r.redirect;
    expect(rd ? `${rd.scheme}://${rd.host}:${rd.port}${rd.path}` : undefined).toBe(location);
  });
});
