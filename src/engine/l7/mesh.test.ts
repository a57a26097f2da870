import { describe, expect, it } from "vitest";
import { backend, client, endpointsOf, l7, nodes, ns, type Obj } from "./test-fixtures.ts";
import { makePolicy, modelOf, yamlOf } from "../testing/fixtures.ts";
import { analyzeText } from "../analysis/index.ts";
import { unmodelledFor } from "../policy/unmodelled.ts";

const istio = (
  kind: string,
  name: string,
  namespace: string,
  spec: Obj,
  group = "networking.istio.io",
): Obj => ({ apiVersion: `${group}/v1`, kind, metadata: { name, namespace }, spec });
const authz = (name: string, namespace: string, spec: Obj) =>
  istio("AuthorizationPolicy", name, namespace, spec, "security.istio.io");
const meshConfig = (mode: string): Obj => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "istio", namespace: "istio-system" },
  data: { mesh: `outboundTrafficPolicy:\n  mode: ${mode}\n` },
});
const INJECTED = { "istio-injection": "enabled" };
const reviews = backend("default", "reviews", 101, 3, {
  port: 9080,
  labels: [{ version: "v1" }, { version: "v1" }, { version: "v2" }],
  sa: "bookinfo-reviews",
});
const base: Obj[] = [
  ...nodes,
  ns("default", INJECTED),
  ns("legacy"),
  ns("istio-system"),
  client("default", "productpage", "10.244.1.100", "node-1", "bookinfo-productpage"),
  client("legacy", "sleep", "10.244.2.150", "node-2"),
  ...reviews,
];
const subsets = istio("DestinationRule", "reviews", "default", {
  host: "reviews",
  subsets: [
    { name: "v1", labels: { version: "v1" } },
    { name: "v2", labels: { version: "v2" } },
    { name: "v3", labels: { version: "v3" } },
  ],
});

// istio/istio samples/bookinfo virtual-service-reviews-90-10.yaml: route weights x 1/pods of the subset.
describe("VirtualService routes (client sidecar)", () => {
  const vs = istio("VirtualService", "reviews", "default", {
    hosts: ["reviews"],
    http: [
      {
        match: [{ headers: { "end-user": { exact: "jason" } } }],
        route: [{ destination: { host: "reviews", subset: "v2" } }],
      },
      { match: [{ uri: { prefix: "/v3" } }], route: [{ destination: { host: "reviews", subset: "v3" } }] },
      {
        match: [{ uri: { prefix: "/reviews" } }],
        route: [
          { destination: { host: "reviews", subset: "v1" }, weight: 90 },
          { destination: { host: "reviews", subset: "v2" }, weight: 10 },
        ],
      },
    ],
  });
  const t = l7([...base, subsets, vs]);
  it.each<[string, string, string[], number | undefined, string]>([
    [
      "90/10 split",
      "GET /reviews/0",
      [],
      200,
      "10.244.1.101:3000=0.45 10.244.1.201:3000=0.1 10.244.2.101:3000=0.45",
    ],
    ["header match first", "GET /reviews/0", ["end-user: jason"], 200, "10.244.1.201:3000=1"],
    [
      "header values are case-sensitive",
      "GET /reviews/0",
      ["end-user: Jason"],
      200,
      "10.244.1.101:3000=0.45 10.244.1.201:3000=0.1 10.244.2.101:3000=0.45",
    ],
    ["empty subset: 503", "GET /v3", [], 503, ""],
    ["no route: 404", "GET /other", [], 404, ""],
  ])("%s", (_, http, headers, status, eps) => {
    const r = t("pod:default/productpage", "host:reviews:9080", http, headers);
    expect([r.httpStatus, endpointsOf(r)]).toEqual([status, eps]);
  });
  it("a client without sidecar ignores the VirtualService (kube-proxy picks among every pod)", () => {
    const r = t("pod:legacy/sleep", "host:reviews.default.svc.cluster.local:9080", "GET /reviews/0");
    expect([r.verdict, r.endpoints.length]).toEqual(["allow", 3]);
  });
});

/**
 * StringMatch.regex is RE2 (istio/api: "RE2 style regex-based match",
 * github.com/google/re2/wiki/Syntax) against the whole value (Envoy
 * safe_regex). istiod's webhook (pkg/config/validation
 * validateStringMatchRegexp) rejects an empty regex, one over 1024
 * characters and one Go's regexp does not compile: such a VirtualService
 * does not exist, and the request goes to the Service directly (issue 31).
 */
describe("VirtualService regex matches are RE2 (issue 31)", () => {
  const vs = (match: Obj) =>
    istio("VirtualService", "reviews", "default", {
      hosts: ["reviews"],
      http: [
        { match: [match], route: [{ destination: { host: "reviews", subset: "v2" } }] },
        { route: [{ destination: { host: "reviews", subset: "v1" } }] },
      ],
    });
  const V2 = "10.244.1.201:3000=1";
  const V1 = "10.244.1.101:3000=0.5 10.244.2.101:3000=0.5";
  const ALL = "10.244.1.101:3000=0.333 10.244.1.201:3000=0.333 10.244.2.101:3000=0.333";
  it.each<[string, Obj, string, string[], string]>([
    ["(?i) flag", { uri: { regex: "(?i)/API/.*" } }, "GET /api/x", [], V2],
    ["whole value: a part of it is not enough", { uri: { regex: "/api" } }, "GET /api/x", [], V1],
    [
      "nested quantifiers on 40 a's: no match, linear time",
      { uri: { regex: "/(a+)+b" } },
      `GET /${"a".repeat(40)}`,
      [],
      V1,
    ],
    ["a header regex", { headers: { "x-id": { regex: "[0-9]+" } } }, "GET /", ["x-id: 42"], V2],
    ["a header named constructor is not on every request", { headers: { constructor: {} } }, "GET /", [], V1],
    ["nor __proto__, matched by regex", { headers: { ["__proto__"]: { regex: ".*" } } }, "GET /", [], V1],
    [
      "rejected (lookahead): the Service's pods, round robin",
      { uri: { regex: "/(?=a)a" } },
      "GET /a",
      [],
      ALL,
    ],
    ["rejected (empty regex)", { uri: { regex: "" } }, "GET /", [], ALL],
    ["rejected (over 1024 characters)", { uri: { regex: "a".repeat(1025) } }, "GET /", [], ALL],
  ])("%s", (_, match, http, headers, eps) => {
    const r = l7([...base, subsets, vs(match)])(
      "pod:default/productpage",
      "host:reviews:9080",
      http,
      headers,
    );
    expect(endpointsOf(r)).toBe(eps);
  });
  it("the trace names istiod's reason", () => {
    const r = l7([...base, subsets, vs({ uri: { regex: "/(?=a)a" } })])(
      "pod:default/productpage",
      "host:reviews:9080",
      "GET /a",
    );
    expect(r.hops.map((h) => h.detail).join("\n")).toContain(
      'istiod\'s validation rejects it (admission webhook "validation.istio.io" denied the request: "spec.http[0].match[0].uri.regex": error parsing regexp: invalid or unsupported Perl syntax',
    );
  });
});

// istio.io egress-control task; pkg/config/mesh/mesh.go DefaultMeshConfig: ALLOW_ANY.
describe("outboundTrafficPolicy", () => {
  const se = istio("ServiceEntry", "httpbin-ext", "default", {
    hosts: ["httpbin.org"],
    ports: [{ number: 80, name: "http", protocol: "HTTP" }],
    resolution: "DNS",
    location: "MESH_EXTERNAL",
  });
  const sidecar = istio("Sidecar", "default", "default", { outboundTrafficPolicy: { mode: "ALLOW_ANY" } });
  it.each<[string, Obj[], string, string | undefined]>([
    ["default ALLOW_ANY", [], "allow", undefined],
    ["MeshConfig REGISTRY_ONLY", [meshConfig("REGISTRY_ONLY")], "drop", "Istio"],
    ["REGISTRY_ONLY with a ServiceEntry", [meshConfig("REGISTRY_ONLY"), se], "allow", undefined],
    ["a namespace Sidecar overrides MeshConfig", [meshConfig("REGISTRY_ONLY"), sidecar], "allow", undefined],
  ])("%s", (_, extra, verdict, layer) => {
    const r = l7([...base, ...extra])("pod:default/productpage", "host:httpbin.org:80", "GET /headers");
    expect([r.verdict, r.decidedBy?.layer]).toEqual([verdict, layer]);
  });
});

// istio.io authz-http and authz-deny tasks; security/v1 AuthorizationPolicy doc: DENY first, then ALLOW.
describe("AuthorizationPolicy and PeerAuthentication on the server's sidecar", () => {
  const allowGet = authz("reviews-viewer", "default", {
    selector: { matchLabels: { app: "reviews" } },
    action: "ALLOW",
    rules: [
      {
        from: [{ source: { principals: ["cluster.local/ns/default/sa/bookinfo-productpage"] } }],
        to: [{ operation: { methods: ["GET"], paths: ["/reviews/*"] } }],
      },
    ],
  });
  const denyDelete = authz("no-delete", "istio-system", {
    action: "DENY",
    rules: [{ to: [{ operation: { methods: ["DELETE"] } }] }],
  });
  const strict = istio(
    "PeerAuthentication",
    "default",
    "default",
    { mtls: { mode: "STRICT" } },
    "security.istio.io",
  );
  const peer = (spec: Obj) => istio("PeerAuthentication", "default", "default", spec, "security.istio.io");
  const denyOthers = authz("deny-others", "default", {
    action: "DENY",
    rules: [{ from: [{ source: { notPrincipals: ["cluster.local/ns/default/sa/bookinfo-productpage"] } }] }],
  });
  const allowNotDelete = authz("no-delete", "default", {
    rules: [{ to: [{ operation: { notMethods: ["DELETE"] } }] }],
  });
  const allowJwt = authz("jwt-only", "default", {
    rules: [{ from: [{ source: { requestPrincipals: ["*"] } }] }],
  });
  const denyPort = (port: string) =>
    authz("deny-port", "default", {
      action: "DENY",
      rules: [{ when: [{ key: "destination.port", values: [port] }] }],
    });
  it.each<[string, Obj[], string, string, string, number | undefined]>([
    ["no policy: allowed", [], "pod:default/productpage", "GET /x", "allow", 200],
    [
      "ALLOW matches principal, method and path",
      [allowGet],
      "pod:default/productpage",
      "GET /reviews/1",
      "allow",
      200,
    ],
    ["wrong method: 403", [allowGet], "pod:default/productpage", "POST /reviews/1", "drop", 403],
    ["path outside the prefix: 403", [allowGet], "pod:default/productpage", "GET /other", "drop", 403],
    ["no sidecar, no principal: 403", [allowGet], "pod:legacy/sleep", "GET /reviews/1", "drop", 403],
    [
      "root-namespace DENY beats ALLOW",
      [allowGet, denyDelete],
      "pod:default/productpage",
      "DELETE /reviews/1",
      "drop",
      403,
    ],
    [
      "allow-nothing (spec: {})",
      [authz("allow-nothing", "default", {})],
      "pod:default/productpage",
      "GET /",
      "drop",
      403,
    ],
    ["STRICT refuses plaintext: no status", [strict], "pod:legacy/sleep", "GET /", "drop", undefined],
    ["STRICT admits a sidecar client", [strict], "pod:default/productpage", "GET /", "allow", 200],
    // PeerAuthentication doc: portLevelMtls overrides the policy's mode on that (workload) port.
    [
      "portLevelMtls DISABLE on the target port under STRICT admits plaintext",
      [peer({ mtls: { mode: "STRICT" }, portLevelMtls: { 3000: { mode: "DISABLE" } } })],
      "pod:legacy/sleep",
      "GET /",
      "allow",
      200,
    ],
    [
      "portLevelMtls STRICT on the target port under PERMISSIVE refuses plaintext",
      [peer({ mtls: { mode: "PERMISSIVE" }, portLevelMtls: { 3000: { mode: "STRICT" } } })],
      "pod:legacy/sleep",
      "GET /",
      "drop",
      undefined,
    ],
    [
      "portLevelMtls on another port leaves the policy's mode",
      [peer({ mtls: { mode: "STRICT" }, portLevelMtls: { 8080: { mode: "DISABLE" } } })],
      "pod:legacy/sleep",
      "GET /",
      "drop",
      undefined,
    ],
    // AuthorizationPolicy doc: notPrincipals, notMethods; a rule's fields are ANDed.
    [
      "DENY notPrincipals: the named client passes",
      [denyOthers],
      "pod:default/productpage",
      "GET /",
      "allow",
      200,
    ],
    ["DENY notPrincipals: anyone else gets 403", [denyOthers], "pod:legacy/sleep", "GET /", "drop", 403],
    ["ALLOW notMethods: a GET passes", [allowNotDelete], "pod:default/productpage", "GET /", "allow", 200],
    [
      "ALLOW notMethods: a DELETE gets 403",
      [allowNotDelete],
      "pod:default/productpage",
      "DELETE /",
      "drop",
      403,
    ],
    // requestPrincipals need a JWT (RequestAuthentication), which ktl does not model: the source never matches.
    [
      "ALLOW by requestPrincipals matches no request",
      [allowJwt],
      "pod:default/productpage",
      "GET /",
      "drop",
      403,
    ],
    [
      "DENY when destination.port is the target port",
      [denyPort("3000")],
      "pod:default/productpage",
      "GET /",
      "drop",
      403,
    ],
    [
      "DENY when destination.port is another port",
      [denyPort("8080")],
      "pod:default/productpage",
      "GET /",
      "allow",
      200,
    ],
  ])("%s", (_, extra, from, http, verdict, status) => {
    const r = l7([...base, ...extra])(from, "host:reviews.default.svc.cluster.local:9080", http);
    expect([r.verdict, r.httpStatus]).toEqual([verdict, status]);
    if (verdict === "drop") expect(r.decidedBy?.layer).toBe("Istio");
  });
});

// The mesh README's rule: NetworkPolicy still applies beneath the VirtualService (sidecar to pod IP).
describe("NetworkPolicy beneath the mesh", () => {
  it("judges the sidecar's connection to each chosen pod", () => {
    const pol = makePolicy("default", "only-v1-from-nowhere", {
      podSelector: { matchLabels: { version: "v2" } },
      policyTypes: ["Ingress"],
    });
    const vs = istio("VirtualService", "reviews", "default", {
      hosts: ["reviews"],
      http: [
        {
          route: [
            { destination: { host: "reviews", subset: "v1" }, weight: 50 },
            { destination: { host: "reviews", subset: "v2" }, weight: 50 },
          ],
        },
      ],
    });
    const r = l7([...base, subsets, vs, pol])("pod:default/productpage", "host:reviews:9080", "GET /");
    expect([r.verdict, endpointsOf(r)]).toEqual([
      "partial",
      "10.244.1.101:3000=0.25 10.244.1.201:3000=0.5! 10.244.2.101:3000=0.25",
    ]);
  });
});

// kubectl apply -f of two VirtualServices with one namespace and name keeps the later (parse/manifests.ts dedupeObjects).
describe("a second VirtualService of the same name replaces the first", () => {
  const to = (subset: string) =>
    istio("VirtualService", "reviews", "default", {
      hosts: ["reviews"],
      http: [{ route: [{ destination: { host: "reviews", subset } }] }],
    });
  it.each([
    ["v1 then v2: v2", ["v1", "v2"], "10.244.1.201:3000=1"],
    ["v2 then v1: v1", ["v2", "v1"], "10.244.1.101:3000=0.5 10.244.2.101:3000=0.5"],
  ])("%s", (_, order, eps) => {
    const r = l7([...base, subsets, ...order.map(to)])(
      "pod:default/productpage",
      "host:reviews:9080",
      "GET /",
    );
    expect(endpointsOf(r)).toBe(eps);
  });
});

// istio/api networking/v1 virtual_service.proto: HTTPFaultInjection (abort.httpStatus with percentage,
// every request without one; delay), HTTPRewrite (uri as the matched prefix's replacement, authority),
// Headers.request (set/add/remove), mirror with mirrorPercentage, HTTPRetry; istio.io tasks
// "Fault Injection" (ratings: abort httpStatus 500) and "Mirroring".
describe("what a matched route does besides choosing backends", () => {
  const route = (extra: Obj) =>
    istio("VirtualService", "reviews", "default", {
      hosts: ["reviews"],
      http: [{ route: [{ destination: { host: "reviews", subset: "v1" } }], ...extra }],
    });
  const trace = (objs: Obj[], http = "GET /reviews/1") =>
    l7([...base, subsets, ...objs])("pod:default/productpage", "host:reviews:9080", http);

  it.each<[string, Obj, string, number | undefined, string]>([
    [
      "abort 500 to every request (no percentage)",
      { fault: { abort: { httpStatus: 500 } } },
      "drop",
      500,
      "",
    ],
    [
      "abort 500 to 100%",
      { fault: { abort: { httpStatus: 500, percentage: { value: 100 } } } },
      "drop",
      500,
      "",
    ],
    [
      "abort 503 to 10%: 90% reach v1",
      { fault: { abort: { httpStatus: 503, percentage: { value: 10 } } } },
      "partial",
      undefined,
      "10.244.1.101:3000=0.45 10.244.2.101:3000=0.45",
    ],
    [
      "delay: the same answer, later",
      { fault: { delay: { fixedDelay: "7s", percentage: { value: 100 } } } },
      "allow",
      200,
      "10.244.1.101:3000=0.5 10.244.2.101:3000=0.5",
    ],
  ])("%s", (_, extra, verdict, status, eps) => {
    const r = trace([route(extra)]);
    expect([r.verdict, r.httpStatus, endpointsOf(r)]).toEqual([verdict, status, eps]);
    if (verdict === "drop")
      expect(r.decidedBy).toMatchObject({ layer: "Istio", rule: "http[0].fault.abort" });
  });

  // The server's AuthorizationPolicy judges the request as the sidecar forwards it.
  const onlyV2Paths = authz("v2-paths", "default", {
    selector: { matchLabels: { app: "reviews" } },
    rules: [
      {
        to: [{ operation: { paths: ["/v2/*"] } }],
        when: [{ key: "request.headers[x-user]", values: ["admin"] }],
      },
    ],
  });
  it.each<[string, Obj, string, number]>([
    ["no rewrite: the server refuses /reviews/1", {}, "drop", 403],
    [
      "rewrite.uri replaces the matched prefix and headers.request.set adds x-user",
      {
        match: [{ uri: { prefix: "/reviews" } }],
        rewrite: { uri: "/v2" },
        headers: { request: { set: { "x-user": "admin" } } },
      },
      "allow",
      200,
    ],
    [
      "a destination's own headers.request.remove takes the header away again",
      {
        match: [{ uri: { prefix: "/reviews" } }],
        rewrite: { uri: "/v2" },
        headers: { request: { set: { "x-user": "admin" } } },
        route: [
          { destination: { host: "reviews", subset: "v1" }, headers: { request: { remove: ["x-user"] } } },
        ],
      },
      "drop",
      403,
    ],
  ])("%s", (_, extra, verdict, status) => {
    const r = trace([route(extra), onlyV2Paths]);
    expect([r.verdict, r.httpStatus]).toEqual([verdict, status]);
  });

  it("a mirror is a second request, judged on its own; the client's answer is the route's", () => {
    const denyRatings = authz("deny-ratings", "default", {
      selector: { matchLabels: { app: "ratings" } },
      action: "DENY",
      rules: [{}],
    });
    const r = trace([
      ...backend("default", "ratings", 50, 1, { port: 9080 }),
      route({ mirror: { host: "ratings" }, mirrorPercentage: { value: 25 } }),
      denyRatings,
    ]);
    expect([r.verdict, r.httpStatus]).toEqual(["allow", 200]);
    expect(r.mirrors).toEqual([
      expect.objectContaining({ service: "default/ratings", share: 0.25, verdict: "drop" }),
    ]);
  });

  it("retries: a connection NetworkPolicy refuses is retried on another endpoint (Istio's default: 2 retries)", () => {
    const pol = makePolicy("default", "no-v2", {
      podSelector: { matchLabels: { version: "v2" } },
      policyTypes: ["Ingress"],
    });
    const split = istio("VirtualService", "reviews", "default", {
      hosts: ["reviews"],
      http: [
        {
          route: [
            { destination: { host: "reviews", subset: "v1" }, weight: 50 },
            { destination: { host: "reviews", subset: "v2" }, weight: 50 },
          ],
        },
      ],
    });
    const r = trace([split, pol]);
    expect(r.verdict).toBe("partial");
    expect(r.retries).toMatchObject({ attempts: 2, default: true, failShare: 0.125 });
    const off = trace([
      istio("VirtualService", "reviews", "default", {
        ...(split.spec as Obj),
        http: [{ ...((split.spec as { http: Obj[] }).http[0] as Obj), retries: { attempts: 0 } }],
      }),
      pol,
    ]);
    expect(off.retries).toBeUndefined();
  });

  it("fields it does not evaluate are in unmodelled with their path", () => {
    const vs = istio("VirtualService", "reviews", "default", {
      hosts: ["reviews"],
      tcp: [{ route: [{ destination: { host: "reviews" } }] }],
      http: [
        {
          match: [{ authority: { exact: "reviews" } }],
          corsPolicy: { allowOrigins: [{ exact: "x" }] },
          fault: { abort: { grpcStatus: "UNAVAILABLE" } },
          route: [{ destination: { host: "reviews" } }],
        },
      ],
    });
    const dr = istio("DestinationRule", "reviews-tls", "default", {
      host: "reviews",
      trafficPolicy: { tls: { mode: "DISABLE" } },
    });
    const m = modelOf([...base, vs, dr]);
    expect(unmodelledFor(m, "all").map((u) => `${u.kind} ${u.field}`)).toEqual([
      "VirtualService spec.tcp",
      "VirtualService spec.http[0].fault.abort",
      "VirtualService spec.http[0].corsPolicy",
      "VirtualService spec.http[0].match[0].authority",
      "DestinationRule spec.trafficPolicy.tls",
    ]);
    // Only the trace routes requests: reach and connlist do not list them.
    expect(unmodelledFor(m, "pod")).toEqual([]);
    expect(m.diagnostics.filter((d) => d.code === "KTL460")).toHaveLength(5);
  });
});

describe("the playground's mesh router shows an aborted share as the trace answers it", () => {
  it("a 10% abort leaves 90% of the route's requests to its backend", () => {
    const vs = istio("VirtualService", "reviews", "default", {
      hosts: ["reviews"],
      http: [
        {
          fault: { abort: { httpStatus: 503, percentage: { value: 10 } } },
          route: [{ destination: { host: "reviews", subset: "v1" } }],
        },
      ],
    });
    const a = analyzeText(yamlOf([...base, subsets, vs]), "m.yaml");
    const route = a.flows.find((f) => f.id.startsWith("route:virtualservice:default/reviews"));
    expect([route?.weight, route?.match]).toEqual([
      0.9,
      "http[0]: /* (fault.abort: 10% answered 503 by the sidecar)",
    ]);
  });
});
