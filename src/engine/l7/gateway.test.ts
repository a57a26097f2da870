import { describe, expect, it } from "vitest";
import { effectiveHostnames, pathMatches } from "./gateway.ts";
import { gatewayHostMatches } from "./common.ts";
import {
  backend,
  backendsOf,
  client,
  endpointsOf,
  gateway,
  l7,
  nodes,
  ns,
  route,
  type Obj,
} from "./test-fixtures.ts";
import { modelOf } from "../testing/fixtures.ts";
import { unmodelledFor } from "../policy/unmodelled.ts";

const INFRA = "gateway-conformance-infra";
const base: Obj[] = [
  ...nodes,
  ns("default"),
  ns(INFRA, { "gateway-conformance": "infra" }),
  client(),
  ...backend(INFRA, "infra-backend-v1", 11),
  ...backend(INFRA, "infra-backend-v2", 12),
  ...backend(INFRA, "infra-backend-v3", 13),
];
const httpListener = {
  name: "http",
  port: 80,
  protocol: "HTTP",
  allowedRoutes: { namespaces: { from: "Same" } },
};
const gw = (routes: Obj[], listeners: Obj[] = [httpListener]) =>
  l7([...base, ...gateway(INFRA, "same-namespace", listeners), ...routes]);
const ref = (name: string, weight?: number) => ({
  name,
  port: 8080,
  ...(weight !== undefined ? { weight } : {}),
});
const to = `gateway:${INFRA}/same-namespace:80`;
const winner = (t: ReturnType<ReturnType<typeof gw>>) =>
  t.httpStatus === 200
    ? (t.backends ?? []).map((b) => b.service.split("/")[1]).join("+")
    : String(t.httpStatus);

// apis/v1/httproute_types.go HTTPPathMatch: "PathPrefix: matches based on a URL path prefix split by `/`.
// Matching is done on a path element by element basis"; the trailing slash is ignored.
describe("pathMatches (HTTPPathMatch)", () => {
  it.each<[string, string, string, boolean]>([
    ["PathPrefix", "/v2", "/v2", true],
    ["PathPrefix", "/v2", "/v2/", true],
    ["PathPrefix", "/v2", "/v2/example", true],
    ["PathPrefix", "/v2", "/v2example", false],
    ["PathPrefix", "/v2/", "/v2", true],
    ["PathPrefix", "/", "/anything", true],
    ["Exact", "/match", "/match", true],
    ["Exact", "/match", "/match/", false],
    ["Exact", "/match", "/MATCH", false],
  ])("%s %s vs %s", (type, value, path, want) => expect(pathMatches({ type, value }, path)).toBe(want));
});

// apis/v1/shared_types.go Hostname: "*.example.com" matches "foo.example.com" and "foo.bar.example.com",
// not "example.com"; conformance HTTPRouteListenerHostnameMatching.
describe("hostnames", () => {
  it.each<[string, string, boolean]>([
    ["*.bar.com", "foo.bar.com", true],
    ["*.bar.com", "multiple.prefixes.bar.com", true],
    ["*.bar.com", "bar.com", false],
    ["bar.com", "bar.com", true],
    ["bar.com", "foo.bar.com", false],
  ])("%s matches %s: %s", (p, h, want) => expect(gatewayHostMatches(p, h)).toBe(want));
  // HTTPRouteSpec.Hostnames: the intersection of listener and route hostnames.
  it.each<[string | undefined, string[], string[] | undefined]>([
    [undefined, [], undefined],
    ["foo.com", [], ["foo.com"]],
    [undefined, ["a.com"], ["a.com"]],
    ["*.example.com", ["test.example.com", "other.org"], ["test.example.com"]],
    ["test.example.com", ["*.example.com"], ["test.example.com"]],
    ["*.example.com", ["*.foo.example.com"], ["*.foo.example.com"]],
    ["*.foo.example.com", ["*.example.com"], ["*.foo.example.com"]],
    ["a.com", ["b.com"], []],
  ])("listener %s, route %j", (l, r, want) => expect(effectiveHostnames(l, r)).toEqual(want));
});

// conformance/tests/httproute-method-matching.yaml and httproute-matching-across-routes: precedence
// across rules (HTTPRouteRule doc): Exact, longest prefix, method, most headers, most query params.
describe("route precedence (HTTPRouteRule)", () => {
  const t = gw([
    route(INFRA, "precedence", {
      parentRefs: [{ name: "same-namespace" }],
      rules: [
        { matches: [{ method: "POST" }], backendRefs: [ref("infra-backend-v1")] },
        {
          matches: [{ headers: [{ name: "version", value: "two" }] }],
          backendRefs: [ref("infra-backend-v3")],
        },
        { matches: [{ path: { type: "PathPrefix", value: "/p" } }], backendRefs: [ref("infra-backend-v2")] },
        { matches: [{ path: { type: "Exact", value: "/p/x" } }], backendRefs: [ref("infra-backend-v3")] },
        {
          matches: [
            { queryParams: [{ name: "q", value: "1" }] },
            {
              headers: [
                { name: "a", value: "1" },
                { name: "b", value: "2" },
              ],
            },
          ],
          backendRefs: [ref("infra-backend-v1")],
        },
      ],
    }),
  ]);
  it.each<[string, string, string[], string]>([
    ["method beats headers", "POST /", ["version: two"], "infra-backend-v1"],
    ["longer prefix beats method", "POST /p", [], "infra-backend-v2"],
    ["Exact beats any prefix", "GET /p/x", [], "infra-backend-v3"],
    ["element-wise prefix", "GET /px", [], "404"],
    ["more headers beat fewer", "GET /", ["version: two", "a: 1", "b: 2"], "infra-backend-v1"],
    ["header names are case-insensitive, values exact", "GET /", ["Version: two"], "infra-backend-v3"],
    ["header value case matters", "GET /", ["version: Two"], "404"],
    ["query param", "GET /?q=1", [], "infra-backend-v1"],
    ["nothing matches", "GET /", [], "404"],
  ])("%s", (_, http, headers, want) => expect(winner(t("pod:default/client", to, http, headers))).toBe(want));

  // Ties across routes: the oldest route, then namespace/name alphabetically.
  it.each<[string, string, string]>([
    ["older wins", "2024-01-01T00:00:00Z", "infra-backend-v2"],
    ["newer loses", "2026-01-01T00:00:00Z", "infra-backend-v1"],
  ])("%s", (_, createdB, want) => {
    const r = gw([
      route(
        INFRA,
        "a",
        { parentRefs: [{ name: "same-namespace" }], rules: [{ backendRefs: [ref("infra-backend-v1")] }] },
        "2025-01-01T00:00:00Z",
      ),
      route(
        INFRA,
        "b",
        { parentRefs: [{ name: "same-namespace" }], rules: [{ backendRefs: [ref("infra-backend-v2")] }] },
        createdB,
      ),
    ]);
    expect(winner(r("pod:default/client", to, "GET /"))).toBe(want);
  });
});

describe("backends (HTTPBackendRef)", () => {
  // conformance HTTPRouteWeight: 70/30 over two Services of two pods: endpoint = weight x 1/pods.
  it("weights multiply with the share per ready endpoint", () => {
    const t = gw([
      route(INFRA, "w", {
        parentRefs: [{ name: "same-namespace" }],
        rules: [
          {
            backendRefs: [
              ref("infra-backend-v1", 70),
              ref("infra-backend-v2", 30),
              ref("infra-backend-v3", 0),
            ],
          },
        ],
      }),
    ])("external:203.0.113.10@node-1", to, "GET /");
    expect(backendsOf(t)).toBe(`${INFRA}/infra-backend-v1:8080=0.7 ${INFRA}/infra-backend-v2:8080=0.3`);
    expect(endpointsOf(t)).toBe(
      "10.244.1.11:3000=0.35 10.244.1.12:3000=0.15 10.244.2.11:3000=0.35 10.244.2.12:3000=0.15",
    );
    expect([t.verdict, t.httpStatus, t.sourceIPPreserved]).toEqual(["allow", 200, false]);
  });
  // conformance HTTPRouteInvalidCrossNamespaceBackendRef / HTTPRouteInvalidNonExistentBackendRef: 500.
  it.each<[string, Obj, number]>([
    ["cross-namespace without ReferenceGrant", { name: "web-backend", namespace: "other", port: 8080 }, 500],
    ["Service not found", { name: "nope", port: 8080 }, 500],
    ["not a Service", { group: "example.com", kind: "Thing", name: "x", port: 8080 }, 500],
  ])("%s", (_, br, status) => {
    const t = gw([
      route(INFRA, "bad", { parentRefs: [{ name: "same-namespace" }], rules: [{ backendRefs: [br] }] }),
    ])("pod:default/client", to, "GET /");
    expect([t.verdict, t.httpStatus, t.decidedBy?.layer, t.endpoints.length]).toEqual([
      "drop",
      status,
      "Gateway",
      0,
    ]);
  });
  it("a Service without ready endpoints: 503", () => {
    const objs = [
      ...base.filter(
        (o) => !(o.kind === "Pod" && String((o.metadata as Obj).name).startsWith("infra-backend-v1")),
      ),
      ...gateway(INFRA, "same-namespace", [httpListener]),
      route(INFRA, "r", {
        parentRefs: [{ name: "same-namespace" }],
        rules: [{ backendRefs: [ref("infra-backend-v1")] }],
      }),
    ];
    const t = l7(objs)("pod:default/client", to, "GET /");
    expect([t.verdict, t.httpStatus, t.decidedBy?.layer]).toEqual(["drop", 503, "Gateway"]);
  });
});

// conformance HTTPRouteRequestRedirect / HTTPRouteRedirectPortAndScheme: statusCode default 302; port from the scheme.
describe("RequestRedirect", () => {
  it.each<[string, Obj, number, { scheme: string; host: string; port: number; path: string }]>([
    [
      "hostname only",
      { hostname: "example.org" },
      302,
      { scheme: "http", host: "example.org", port: 80, path: "/r/x" },
    ],
    [
      "https scheme, 301",
      { scheme: "https", statusCode: 301 },
      301,
      { scheme: "https", host: "198.51.100.10", port: 443, path: "/r/x" },
    ],
    [
      "ReplacePrefixMatch",
      { path: { type: "ReplacePrefixMatch", replacePrefixMatch: "/new" } },
      302,
      { scheme: "http", host: "198.51.100.10", port: 80, path: "/new/x" },
    ],
    [
      "ReplaceFullPath",
      { path: { type: "ReplaceFullPath", replaceFullPath: "/full" } },
      302,
      { scheme: "http", host: "198.51.100.10", port: 80, path: "/full" },
    ],
  ])("%s", (_, requestRedirect, status, redirect) => {
    const t = gw([
      route(INFRA, "rd", {
        parentRefs: [{ name: "same-namespace" }],
        rules: [
          {
            matches: [{ path: { type: "PathPrefix", value: "/r" } }],
            filters: [{ type: "RequestRedirect", requestRedirect }],
          },
        ],
      }),
    ])("pod:default/client", to, "GET /r/x");
    expect([t.httpStatus, t.redirect, t.verdict]).toEqual([status, redirect, "allow"]);
  });
});

describe("listeners and attachment", () => {
  it("no listener on the port refuses the connection", () => {
    const t = gw([])("pod:default/client", `gateway:${INFRA}/same-namespace:8080`, "GET /");
    expect([t.verdict, t.decidedBy?.layer, t.httpStatus]).toEqual(["drop", "Gateway", undefined]);
  });
  // conformance HTTPRouteHostnameIntersection: a route whose hostnames do not intersect the listener's does not attach.
  it("route hostnames intersect the listener's", () => {
    const t = gw(
      [
        route(INFRA, "h", {
          parentRefs: [{ name: "same-namespace" }],
          hostnames: ["other.org"],
          rules: [{ backendRefs: [ref("infra-backend-v1")] }],
        }),
      ],
      [{ ...httpListener, hostname: "*.example.com" }],
    );
    expect(t("pod:default/client", to, "GET /", ["Host: a.example.com"]).httpStatus).toBe(404);
  });
});

/**
 * RegularExpression matches (implementation-specific, httproute_types.go) as
 * Envoy-based implementations run them: RE2 (github.com/google/re2/wiki/Syntax)
 * against the whole value. A rule with a pattern RE2 rejects is invalid: the
 * implementation drops it (shared_types.go RouteConditionPartiallyInvalid,
 * "Dropped Rule"); a route whose every rule is invalid is not accepted.
 */
describe("RegularExpression matches are RE2 (issue 31)", () => {
  const t = gw([
    route(INFRA, "re", {
      parentRefs: [{ name: "same-namespace" }],
      rules: [
        {
          matches: [{ path: { type: "RegularExpression", value: "(?i)/api/.*" } }],
          backendRefs: [ref("infra-backend-v1")],
        },
        {
          matches: [{ path: { type: "RegularExpression", value: "/(a+)+b" } }],
          backendRefs: [ref("infra-backend-v2")],
        },
        {
          matches: [{ headers: [{ name: "x-id", type: "RegularExpression", value: "[0-9]{3}" }] }],
          backendRefs: [ref("infra-backend-v3")],
        },
        // RE2 has no lookahead: the rule is dropped, its other match with it.
        {
          matches: [
            { path: { type: "RegularExpression", value: "/(?=x)x.*" } },
            { path: { type: "Exact", value: "/dropped" } },
          ],
          backendRefs: [ref("infra-backend-v3")],
        },
      ],
    }),
  ]);
  it.each<[string, string, string[], string]>([
    ["(?i) flag: case-insensitive", "GET /API/x", [], "infra-backend-v1"],
    ["nested quantifiers on 40 a's: no match, linear time", `GET /${"a".repeat(40)}`, [], "404"],
    ["nested quantifiers where they match", `GET /${"a".repeat(40)}b`, [], "infra-backend-v2"],
    ["a header regex matches the whole value", "GET /h", ["x-id: 123"], "infra-backend-v3"],
    ["not a part of it", "GET /h", ["x-id: 1234"], "404"],
    ["a dropped rule matches nothing, not even its valid match", "GET /dropped", [], "404"],
    ["nor what its lookahead would have matched", "GET /xyz", [], "404"],
  ])("%s: %s", (_, http, headers, want) => {
    expect(winner(t("pod:default/client", to, http, headers))).toBe(want);
  });
  it("the trace says which rule was dropped and why", () => {
    const r = t("pod:default/client", to, "GET /dropped");
    const hop = r.hops.find((h) => h.detail.includes("is dropped"));
    expect(hop?.detail).toContain("spec.rules[3].matches[0].path.value");
    expect(hop?.detail).toContain("invalid or unsupported Perl syntax");
  });
  it("a route whose every rule is invalid is not accepted", () => {
    const only = gw([
      route(INFRA, "bad", {
        parentRefs: [{ name: "same-namespace" }],
        rules: [
          {
            matches: [{ path: { type: "RegularExpression", value: "/(" } }],
            backendRefs: [ref("infra-backend-v1")],
          },
        ],
      }),
    ]);
    const r = only("pod:default/client", to, "GET /(");
    expect(r.httpStatus).toBe(404);
    expect(r.hops.some((h) => h.detail.includes("is not accepted (Accepted False, UnsupportedValue)"))).toBe(
      true,
    );
  });
  it("a route over the CRD's size limits does not exist (httproute_types.go MaxItems: 16 rules)", () => {
    const many = gw([
      route(INFRA, "many", {
        parentRefs: [{ name: "same-namespace" }],
        rules: Array.from({ length: 17 }, () => ({ backendRefs: [ref("infra-backend-v1")] })),
      }),
    ]);
    const r = many("pod:default/client", to, "GET /");
    expect(r.httpStatus).toBe(404);
    expect(r.hops.some((h) => h.detail.includes("spec.rules: 17 items, the CRD allows at most 16"))).toBe(
      true,
    );
  });
});

// Nothing silent: the HTTPRoute fields engine/l7/gateway.ts does not apply are named (KTL460).
describe("HTTPRoute fields ktl does not evaluate", () => {
  it("filters other than RequestRedirect and URLRewrite, timeouts, retry and sessionPersistence are in unmodelled", () => {
    const objects = [
      ...nodes,
      ns("shop"),
      ...gateway("shop", "gw", [{ name: "http", port: 80, protocol: "HTTP" }]),
      ...backend("shop", "web", 11),
      route("shop", "web", {
        parentRefs: [{ name: "gw" }],
        rules: [
          {
            filters: [
              { type: "URLRewrite", urlRewrite: { hostname: "x" } },
              { type: "RequestMirror", requestMirror: { backendRef: { name: "web", port: 8080 } } },
            ],
            timeouts: { request: "1s" },
            backendRefs: [
              {
                name: "web",
                port: 8080,
                filters: [
                  {
                    type: "RequestHeaderModifier",
                    requestHeaderModifier: { set: [{ name: "a", value: "b" }] },
                  },
                ],
              },
            ],
          },
        ],
      }),
    ];
    const m = modelOf(objects);
    expect(unmodelledFor(m, "all").map((u) => u.field)).toEqual([
      "spec.rules[0].filters[1]",
      "spec.rules[0].backendRefs[0].filters[0]",
      "spec.rules[0].timeouts",
    ]);
    expect(unmodelledFor(m, "all")[0]!.message).toMatch(/RequestMirror: a copy of each request/);
    expect(unmodelledFor(m, "pod")).toEqual([]);
  });
});
