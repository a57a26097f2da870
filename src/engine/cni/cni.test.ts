/**
 * Table-driven checks of both dialects, each case naming the upstream
 * source of the behaviour. Cilium: cilium/cilium Documentation/security/
 * policy/*.rst and pkg/policy; Calico: tigera/docs reference/resources and
 * projectcalico/calico libcalico-go, felix.
 */
import { describe, expect, it } from "vitest";
import { cluster, type PodSpec } from "./testkit.ts";
import { cniPairAllowed, explainCniDirection, hasCniPolicies, peerOf } from "./index.ts";
import type { Protocol } from "../model/types.ts";
import { addHttpHeader, parseHttpRequestLine, type HttpRequest } from "../http/request.ts";
import { asPodKey } from "../model/ids.ts";
import { loadModel } from "../index.ts";

type Probe = [from: string, to: string, port: number, allowed: boolean, protocol?: Protocol];

function probe(
  pods: PodSpec[],
  policies: string,
  probes: Probe[],
  namespaces?: Record<string, Record<string, string>>,
) {
  const model = cluster(pods, policies, namespaces);
  expect(model.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  expect(hasCniPolicies(model.cni)).toBe(true);
  for (const [from, to, port, allowed, protocol] of probes) {
    const a = model.podsByKey.get(asPodKey(from))!,
      b = model.podsByKey.get(asPodKey(to))!;
    expect(cniPairAllowed(model, model.cni!, a, b, port, protocol ?? "TCP"), `${from} -> ${to} ${port}`).toBe(
      allowed,
    );
  }
}

describe("Cilium", () => {
  const pods: PodSpec[] = [
    {
      ns: "a",
      name: "server",
      labels: { app: "server" },
      ports: [
        { name: "http", port: 80 },
        { name: "alt", port: 81 },
        { name: "dns", port: 53, protocol: "UDP" },
      ],
    },
    { ns: "a", name: "client", labels: { app: "client" }, node: 2 },
    { ns: "b", name: "client", labels: { app: "client" }, node: 2 },
  ];
  it.each<[string, string, Probe[]]>([
    [
      "fromEndpoints without a namespace label stays in the policy's namespace (utils.go getEndpointSelector)",
      `apiVersion: cilium.io/v2\nkind: CiliumNetworkPolicy\nmetadata: {name: p, namespace: a}\nspec:\n  endpointSelector: {matchLabels: {app: server}}\n  ingress:\n  - fromEndpoints: [{matchLabels: {app: client}}]`,
      [
        ["a/client", "a/server", 80, true],
        ["b/client", "a/server", 80, false],
      ],
    ],
    [
      "k8s:io.kubernetes.pod.namespace crosses namespaces (kubernetes.rst 'Namespaces')",
      `apiVersion: cilium.io/v2\nkind: CiliumNetworkPolicy\nmetadata: {name: p, namespace: a}\nspec:\n  endpointSelector: {matchLabels: {app: server}}\n  ingress:\n  - fromEndpoints: [{matchLabels: {"k8s:io.kubernetes.pod.namespace": b, app: client}}]`,
      [
        ["a/client", "a/server", 80, false],
        ["b/client", "a/server", 80, true],
      ],
    ],
    [
      "a clusterwide fromEndpoints {} means every pod (CCNP)",
      `apiVersion: cilium.io/v2\nkind: CiliumClusterwideNetworkPolicy\nmetadata: {name: p}\nspec:\n  endpointSelector: {matchLabels: {app: server}}\n  ingress:\n  - fromEndpoints: [{}]`,
      [
        ["a/client", "a/server", 80, true],
        ["b/client", "a/server", 80, true],
      ],
    ],
    [
      "ingressDeny on one port beats an L3 allow (language.rst 'Deny Policies')",
      `apiVersion: cilium.io/v2\nkind: CiliumNetworkPolicy\nmetadata: {name: p, namespace: a}\nspec:\n  endpointSelector: {matchLabels: {app: server}}\n  ingress:\n  - fromEndpoints: [{}]\n  ingressDeny:\n  - fromEndpoints: [{matchLabels: {app: client}}]\n    toPorts: [{ports: [{port: "80", protocol: TCP}]}]`,
      [
        ["a/client", "a/server", 80, false],
        ["a/client", "a/server", 81, true],
      ],
    ],
    [
      "protocol ANY (or none) matches TCP and UDP; a range is inclusive (l4.go)",
      `apiVersion: cilium.io/v2\nkind: CiliumNetworkPolicy\nmetadata: {name: p, namespace: a}\nspec:\n  endpointSelector: {matchLabels: {app: server}}\n  ingress:\n  - toPorts: [{ports: [{port: "53"}, {port: "80", endPort: 81, protocol: TCP}]}]`,
      [
        ["b/client", "a/server", 53, true, "UDP"],
        ["b/client", "a/server", 81, true],
        ["b/client", "a/server", 82, false],
        ["b/client", "a/server", 80, false, "UDP"],
      ],
    ],
    [
      "a named port in toPorts resolves on the destination (l4.go named ports)",
      `apiVersion: cilium.io/v2\nkind: CiliumNetworkPolicy\nmetadata: {name: p, namespace: a}\nspec:\n  endpointSelector: {matchLabels: {app: server}}\n  ingress:\n  - toPorts: [{ports: [{port: alt, protocol: TCP}]}]`,
      [
        ["a/client", "a/server", 81, true],
        ["a/client", "a/server", 80, false],
      ],
    ],
    [
      "an empty ingress rule {} allows nothing but turns on default deny (language.rst 'Ingress/Egress Default Deny')",
      `apiVersion: cilium.io/v2\nkind: CiliumNetworkPolicy\nmetadata: {name: p, namespace: a}\nspec:\n  endpointSelector: {matchLabels: {app: server}}\n  ingress:\n  - {}`,
      [["a/client", "a/server", 80, false]],
    ],
    [
      "enableDefaultDeny.ingress false: a deny rule without default deny (intro.rst)",
      `apiVersion: cilium.io/v2\nkind: CiliumNetworkPolicy\nmetadata: {name: p, namespace: a}\nspec:\n  endpointSelector: {matchLabels: {app: server}}\n  enableDefaultDeny: {ingress: false}\n  ingressDeny:\n  - fromEndpoints: [{matchLabels: {"k8s:io.kubernetes.pod.namespace": b}}]`,
      [
        ["a/client", "a/server", 80, true],
        ["b/client", "a/server", 80, false],
      ],
    ],
    [
      "egress section: egress default deny only, ingress untouched (intro.rst 'Endpoint default policy')",
      `apiVersion: cilium.io/v2\nkind: CiliumNetworkPolicy\nmetadata: {name: p, namespace: a}\nspec:\n  endpointSelector: {matchLabels: {app: client}}\n  egress:\n  - toEndpoints: [{matchLabels: {app: server}}]`,
      [
        ["a/client", "a/server", 80, true],
        ["a/client", "b/client", 80, false],
        ["b/client", "a/client", 80, true],
      ],
    ],
    [
      "NetworkPolicy and CiliumNetworkPolicy allow-lists are unioned (network/kubernetes/policy.rst)",
      `apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: np, namespace: a}\nspec:\n  podSelector: {matchLabels: {app: server}}\n  policyTypes: [Ingress]\n  ingress:\n  - from: [{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: b}}}]\n---\napiVersion: cilium.io/v2\nkind: CiliumNetworkPolicy\nmetadata: {name: p, namespace: a}\nspec:\n  endpointSelector: {matchLabels: {app: server}}\n  ingress:\n  - fromEndpoints: [{matchLabels: {app: client}}]\n    toPorts: [{ports: [{port: "81", protocol: TCP}]}]`,
      [
        ["a/client", "a/server", 80, false],
        ["a/client", "a/server", 81, true],
        ["b/client", "a/server", 80, true],
      ],
    ],
  ])("%s", (_name, policy, probes) => probe(pods, policy, probes));

  it.each<[string, string, { ip: string; node?: string }, boolean]>([
    [
      "world admits an outside client (language.rst 'Entities based')",
      "fromEntities: [world]",
      { ip: "203.0.113.10" },
      true,
    ],
    ["world is not a pod", "fromEntities: [world]", { ip: "10.244.2.11" }, false],
    ["cluster admits a remote node", "fromEntities: [cluster]", { ip: "172.18.0.3", node: "node-2" }, true],
    [
      "remote-node admits another node",
      "fromEntities: [remote-node]",
      { ip: "172.18.0.3", node: "node-2" },
      true,
    ],
    ["remote-node is not the outside", "fromEntities: [remote-node]", { ip: "203.0.113.10" }, false],
    [
      "the own node is always admitted (allow-localhost)",
      "fromEntities: [world]",
      { ip: "172.18.0.2", node: "node-1" },
      true,
    ],
    [
      "fromCIDRSet with except (cidr.go)",
      "fromCIDRSet: [{cidr: 203.0.113.0/24, except: [203.0.113.128/25]}]",
      { ip: "203.0.113.10" },
      true,
    ],
    [
      "the except carves out",
      "fromCIDRSet: [{cidr: 203.0.113.0/24, except: [203.0.113.128/25]}]",
      { ip: "203.0.113.200" },
      false,
    ],
    [
      "CIDR rules never select pods (policy-cidr-match-mode unset)",
      "fromCIDR: [10.244.0.0/16]",
      { ip: "10.244.2.11" },
      false,
    ],
    [
      "CIDR rules never select nodes",
      "fromCIDR: [172.18.0.0/16]",
      { ip: "172.18.0.3", node: "node-2" },
      false,
    ],
  ])("%s", (_name, peerRule, peer, allowed) => {
    const model = cluster(
      [...pods],
      `apiVersion: cilium.io/v2\nkind: CiliumNetworkPolicy\nmetadata: {name: p, namespace: a}\nspec:\n  endpointSelector: {matchLabels: {app: server}}\n  ingress:\n  - ${peerRule}`,
    );
    const server = model.podsByKey.get(asPodKey("a/server"))!;
    const from = peerOf(model, peer.ip, model.podsByIP.get(peer.ip));
    expect(explainCniDirection(model, model.cni!, "ingress", server, from, 80, "TCP").allowed).toBe(allowed);
  });

  const l7 = `apiVersion: cilium.io/v2\nkind: CiliumNetworkPolicy\nmetadata: {name: p, namespace: a}\nspec:\n  endpointSelector: {matchLabels: {app: server}}\n  ingress:\n  - toPorts:\n    - ports: [{port: "80", protocol: TCP}]\n      rules:\n        http:\n        - {method: GET, path: "/api/.*"}\n        - {method: "PUT|POST", path: /upload, headers: ["X-Token: 42", "X-Trace"]}\n        - {host: "shop\\\\.example\\\\.com"}`;
  const req = (line: string, ...headers: string[]): HttpRequest => {
    let r = parseHttpRequestLine(line) as HttpRequest;
    for (const h of headers) r = addHttpHeader(r, h) as HttpRequest;
    return r;
  };
  it.each<[string, HttpRequest, 200 | 403]>([
    ["path regex matches the whole path (http.go PortRuleHTTP.Path)", req("GET /api/v1"), 200],
    ["a prefix match is not enough", req("GET /v2/api/x"), 403],
    ["method is a whole-value regex", req("GETX /api/v1"), 403],
    ["method alternatives", req("POST /upload", "X-Token: 42", "x-trace: 1"), 200],
    [
      "header value must be equal (pkg/envoy getHTTPRule)",
      req("PUT /upload", "X-Token: 43", "X-Trace: 1"),
      403,
    ],
    ["a header named without value must be present", req("PUT /upload", "X-Token: 42"), 403],
    ["host is a whole-value regex", req("DELETE /x", "Host: shop.example.com"), 200],
    ["host prefix is not enough", req("DELETE /x", "Host: shop.example.com.evil"), 403],
  ])("L7: %s", (_name, request, status) => {
    const model = cluster(pods, l7);
    const v = explainCniDirection(
      model,
      model.cni!,
      "ingress",
      model.podsByKey.get(asPodKey("a/server"))!,
      peerOf(model, "10.244.2.11", model.podsByKey.get(asPodKey("a/client"))),
      80,
      "TCP",
      request,
    );
    expect(v.allowed).toBe(true);
    expect(v.l7?.request?.status).toBe(status);
  });
  it("L7 rules restrict only the port they are on; another port is dropped at L4", () => {
    const model = cluster(pods, l7);
    const v = explainCniDirection(
      model,
      model.cni!,
      "ingress",
      model.podsByKey.get(asPodKey("a/server"))!,
      peerOf(model, "10.244.2.11", model.podsByKey.get(asPodKey("a/client"))),
      81,
      "TCP",
      req("GET /api/x"),
    );
    expect(v.allowed).toBe(false);
    expect(v.l7).toBeUndefined();
  });

  /**
   * Cilium's HTTP rules are RE2 (Envoy safe_regex; the agent compiles them
   * with Go's regexp in PortRuleHTTP.Sanitize), per RE2's syntax doc
   * (github.com/google/re2/wiki/Syntax): flags such as (?i), no lookaround,
   * linear-time matching. A rule that does not compile makes
   * CiliumNetworkPolicy.Parse reject the whole policy (issue 31).
   */
  const withPath = (path: string) =>
    `apiVersion: cilium.io/v2\nkind: CiliumNetworkPolicy\nmetadata: {name: p, namespace: a}\nspec:\n  endpointSelector: {matchLabels: {app: server}}\n  ingress:\n  - toPorts:\n    - ports: [{port: "80", protocol: TCP}]\n      rules:\n        http:\n        - {method: GET, path: ${JSON.stringify(path)}}`;
  const status = (model: ReturnType<typeof cluster>, request: HttpRequest) =>
    explainCniDirection(
      model,
      model.cni!,
      "ingress",
      model.podsByKey.get(asPodKey("a/server"))!,
      peerOf(model, "10.244.2.11", model.podsByKey.get(asPodKey("a/client"))),
      80,
      "TCP",
      request,
    );
  it.each<[string, string, string, 200 | 403]>([
    ["RE2 flags: (?i) makes the match case-insensitive", "(?i)/API/.*", "GET /api/v1", 200],
    ["nested quantifiers run in linear time: (a+)+b on 40 a's", "/(a+)+b", `GET /${"a".repeat(40)}`, 403],
    ["the same pattern where it matches", "/(a+)+b", `GET /${"a".repeat(40)}b`, 200],
    ["RE2 is whole-value here: a|ab takes ab", "/a|/ab", "GET /ab", 200],
    ["Perl character classes (\\d) are ASCII in RE2", "/v\\d+", "GET /v\u0663", 403],
  ])("L7 RE2: %s", (_name, path, line, want) => {
    const model = cluster(pods, withPath(path));
    expect(model.diagnostics.filter((d) => d.code === "KTL454")).toEqual([]);
    expect(status(model, req(line)).l7?.request?.status).toBe(want);
  });
  it.each([
    ["a lookahead (RE2: (?=re) NOT SUPPORTED)", "/(?=x)xy", "invalid or unsupported Perl syntax"],
    ["a backreference (RE2: \\1 NOT SUPPORTED)", "/(a)\\1", "invalid escape sequence"],
    ["an unclosed group", "/api(", "missing closing )"],
  ])(
    "L7 RE2: %s rejects the whole policy (CiliumNetworkPolicy.Parse), named with its line",
    (_, path, why) => {
      const model = cluster(pods, withPath(path));
      const d = model.diagnostics.filter((x) => x.code === "KTL454");
      expect(d).toHaveLength(1);
      expect(d[0]).toMatchObject({
        severity: "error",
        field: "spec.ingress[0].toPorts[0].rules.http[0].path",
      });
      expect(d[0]!.line).toBeGreaterThan(0);
      expect(d[0]!.message).toContain(why);
      expect(model.cni?.cilium?.rules ?? []).toEqual([]);
      // No policy selects the server any more: the request gets through (Cilium's default allow).
      expect(status(model, req("GET /anything")).allowed).toBe(true);
    },
  );
});

describe("Calico", () => {
  const pods: PodSpec[] = [
    {
      ns: "a",
      name: "server",
      labels: { app: "server" },
      ports: [
        { name: "http", port: 80 },
        { name: "alt", port: 81 },
      ],
    },
    { ns: "a", name: "client", labels: { app: "client" }, node: 2, sa: "robot" },
    { ns: "a", name: "bad", labels: { app: "client", role: "bad" }, node: 2 },
    { ns: "b", name: "client", labels: { app: "client" }, node: 2 },
  ];
  const gnp = (name: string, spec: string) =>
    `apiVersion: projectcalico.org/v3\nkind: GlobalNetworkPolicy\nmetadata: {name: ${name}}\nspec:\n${spec}`;
  const np = (name: string, spec: string) =>
    `apiVersion: projectcalico.org/v3\nkind: NetworkPolicy\nmetadata: {name: ${name}, namespace: a}\nspec:\n${spec}`;
  it.each<[string, string, Probe[], Record<string, Record<string, string>>?]>([
    [
      "lower order first; a Deny at 100 beats an Allow at 200 (networkpolicy.go Order)",
      [
        np(
          "deny",
          "  order: 100\n  selector: app == 'server'\n  ingress: [{action: Deny, source: {selector: role == 'bad'}}]",
        ),
        np("allow", "  order: 200\n  selector: app == 'server'\n  ingress: [{action: Allow}]"),
      ].join("\n---\n"),
      [
        ["a/bad", "a/server", 80, false],
        ["a/client", "a/server", 80, true],
        ["b/client", "a/server", 80, true],
      ],
    ],
    [
      "a rule selector stays in the policy's namespace (_selector-scopes.mdx)",
      np(
        "p",
        "  selector: app == 'server'\n  ingress: [{action: Allow, source: {selector: app == 'client'}}]",
      ),
      [
        ["a/client", "a/server", 80, true],
        ["b/client", "a/server", 80, false],
      ],
    ],
    [
      "a GlobalNetworkPolicy rule selector spans namespaces",
      gnp(
        "p",
        "  selector: app == 'server'\n  ingress: [{action: Allow, source: {selector: app == 'client'}}]",
      ),
      [
        ["a/client", "a/server", 80, true],
        ["b/client", "a/server", 80, true],
      ],
    ],
    [
      "namespaceSelector on projectcalico.org/name and on labels (_entityrule.mdx)",
      np(
        "p",
        "  selector: app == 'server'\n  ingress: [{action: Allow, source: {namespaceSelector: team == 'x' && projectcalico.org/name == 'b'}}]",
      ),
      [
        ["a/client", "a/server", 80, false],
        ["b/client", "a/server", 80, true],
      ],
      { b: { team: "x" } },
    ],
    [
      "Pass goes to the next tier; end of the default tier denies (tier.mdx)",
      [
        `apiVersion: projectcalico.org/v3\nkind: Tier\nmetadata: {name: sec}\nspec: {order: 10}`,
        gnp(
          "sec.p",
          "  tier: sec\n  order: 1\n  selector: all()\n  ingress: [{action: Pass, source: {selector: app == 'client'}}, {action: Deny}]",
        ),
        np(
          "allow-a",
          "  selector: app == 'server'\n  ingress: [{action: Allow, source: {namespaceSelector: projectcalico.org/name == 'a'}}]",
        ),
      ].join("\n---\n"),
      [
        ["a/client", "a/server", 80, true],
        ["b/client", "a/server", 80, false],
        ["a/server", "a/client", 80, false],
      ],
    ],
    [
      "a tier that applies and decides nothing ends in Deny; defaultAction Pass hands on (tier.go DefaultAction)",
      [
        `apiVersion: projectcalico.org/v3\nkind: Tier\nmetadata: {name: sec}\nspec: {order: 10}`,
        `apiVersion: projectcalico.org/v3\nkind: Tier\nmetadata: {name: soft}\nspec: {order: 20, defaultAction: Pass}`,
        gnp(
          "sec.p",
          "  tier: sec\n  selector: app == 'server'\n  ingress: [{action: Allow, destination: {ports: [81]}, protocol: TCP}]",
        ),
        gnp(
          "soft.q",
          "  tier: soft\n  selector: app == 'client'\n  ingress: [{action: Deny, source: {selector: role == 'bad'}}]",
        ),
      ].join("\n---\n"),
      [
        ["a/client", "a/server", 80, false],
        ["a/client", "a/server", 81, true],
        ["a/server", "a/client", 80, true],
        ["a/bad", "a/client", 80, false],
      ],
    ],
    [
      "types inferred: egress rules only -> Egress (networkpolicy.go Types)",
      np(
        "p",
        "  selector: app == 'client'\n  egress: [{action: Allow, destination: {selector: app == 'server'}}]",
      ),
      [
        ["a/client", "a/server", 80, true],
        ["a/client", "a/bad", 80, false],
        ["a/server", "a/client", 80, true],
      ],
    ],
    [
      "ports 'a:b', notPorts and named ports (_ports.mdx)",
      np(
        "p",
        "  selector: app == 'server'\n  ingress: [{action: Allow, protocol: TCP, destination: {ports: ['70:90', alt], notPorts: [85]}}]",
      ),
      [
        ["a/client", "a/server", 80, true],
        ["a/client", "a/server", 81, true],
        ["a/client", "a/server", 85, false],
        ["a/client", "a/server", 91, false],
        ["a/client", "a/server", 80, false, "UDP"],
      ],
    ],
    [
      "serviceAccounts.names matches the pod's service account (_entityrule.mdx)",
      np(
        "p",
        "  selector: app == 'server'\n  ingress: [{action: Allow, source: {serviceAccounts: {names: [robot]}}}]",
      ),
      [
        ["a/client", "a/server", 80, true],
        ["a/bad", "a/server", 80, false],
      ],
    ],
    [
      "a NetworkPolicy sits at order 1000 in the default tier (conversion.go K8sNetworkPolicyToCalico)",
      [
        `apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: k, namespace: a}\nspec:\n  podSelector: {matchLabels: {app: server}}\n  policyTypes: [Ingress]\n  ingress: [{from: [{podSelector: {}}]}]`,
        np(
          "early",
          "  order: 999\n  selector: app == 'server'\n  ingress: [{action: Deny, source: {selector: role == 'bad'}}]",
        ),
        np(
          "late",
          "  order: 1001\n  selector: app == 'server'\n  ingress: [{action: Deny, source: {selector: app == 'client'}}]",
        ),
      ].join("\n---\n"),
      [
        ["a/bad", "a/server", 80, false],
        ["a/client", "a/server", 80, true],
        ["b/client", "a/server", 80, false],
      ],
    ],
  ])("%s", (_name, policy, probes, namespaces) => probe(pods, policy, probes, namespaces));

  it.each<[string, string, string, boolean]>([
    ["nets admit an outside address", "nets: [203.0.113.0/24]", "203.0.113.9", true],
    ["notNets exclude it", "notNets: [203.0.113.0/24]", "203.0.113.9", false],
    [
      "notSelector admits non-endpoints (_entityrule.mdx 'Understanding notSelector')",
      "notSelector: role == 'bad'",
      "203.0.113.9",
      true,
    ],
    ["a negated selector needs an endpoint", "selector: role != 'bad'", "203.0.113.9", false],
  ])("%s", (_name, source, ip, allowed) => {
    const model = cluster(
      pods,
      gnp("p", `  selector: app == 'server'\n  ingress: [{action: Allow, source: {${source}}}]`),
    );
    expect(
      explainCniDirection(
        model,
        model.cni!,
        "ingress",
        model.podsByKey.get(asPodKey("a/server"))!,
        { ip },
        80,
        "TCP",
      ).allowed,
    ).toBe(allowed);
  });

  it("a selector syntax error is a located diagnostic, and the policy selects nothing", () => {
    const model = cluster(pods, np("p", "  selector: app = 'server'\n  ingress: [{action: Deny}]"));
    const d = model.diagnostics.find((x) => x.code === "KTL450");
    expect(d?.message).toContain("character 5");
    expect(d?.line).toBeGreaterThan(0);
    expect(
      cniPairAllowed(
        model,
        model.cni!,
        model.podsByKey.get(asPodKey("a/client"))!,
        model.podsByKey.get(asPodKey("a/server"))!,
        80,
        "TCP",
      ),
    ).toBe(true);
  });
  it("decidedBy names the Calico policy and rule", () => {
    const model = cluster(
      pods,
      gnp("p", "  selector: app == 'server'\n  ingress: [{action: Deny, source: {selector: role == 'bad'}}]"),
    );
    const v = explainCniDirection(
      model,
      model.cni!,
      "ingress",
      model.podsByKey.get(asPodKey("a/server"))!,
      peerOf(model, "10.244.2.12", model.podsByKey.get(asPodKey("a/bad"))),
      80,
      "TCP",
    );
    expect(v).toMatchObject({
      allowed: false,
      layer: "CalicoNetworkPolicy",
      ref: { kind: "GlobalNetworkPolicy", name: "p", rule: "ingress[0]" },
    });
  });
});

describe("every dialect reads the service account the same way (model/build.ts serviceAccountOf)", () => {
  // Before the model normalised it, Calico honoured the deprecated spec.serviceAccount alias and Cilium did not.
  const pod = (name: string, spec: string, labels: string) => `apiVersion: v1
kind: Pod
metadata: {name: ${name}, namespace: a, labels: {${labels}}}
spec: {nodeName: n1, ${spec}containers: [{name: c, image: x, ports: [{containerPort: 80}]}]}
status: {phase: Running, podIP: 10.0.0.${name === "server" ? 2 : 3}, conditions: [{type: Ready, status: "True"}]}`;
  const pods = [pod("server", "", "app: server"), pod("client", "serviceAccount: robot, ", "app: client")];
  it.each([
    [
      "Cilium: fromEndpoints on io.cilium.k8s.policy.serviceaccount (Documentation/security/policy/kubernetes.rst 'ServiceAccounts')",
      `apiVersion: cilium.io/v2\nkind: CiliumNetworkPolicy\nmetadata: {name: p, namespace: a}\nspec:\n  endpointSelector: {matchLabels: {app: server}}\n  ingress:\n  - fromEndpoints: [{matchLabels: {io.cilium.k8s.policy.serviceaccount: robot}}]`,
    ],
    [
      "Calico: source.serviceAccounts.names (reference/resources/networkpolicy 'ServiceAccountMatch')",
      `apiVersion: projectcalico.org/v3\nkind: NetworkPolicy\nmetadata: {name: p, namespace: a}\nspec:\n  selector: app == 'server'\n  types: [Ingress]\n  ingress:\n  - action: Allow\n    source: {serviceAccounts: {names: [robot]}}`,
    ],
  ])("%s", (_, policy) => {
    const model = loadModel([{ name: "t.yaml", text: [...pods, policy].join("\n---\n") }]);
    const client = model.podsByKey.get(asPodKey("a/client"))!;
    const server = model.podsByKey.get(asPodKey("a/server"))!;
    expect(client.serviceAccount).toBe("robot");
    expect(cniPairAllowed(model, model.cni!, client, server, 80, "TCP")).toBe(true);
    expect(cniPairAllowed(model, model.cni!, server, server, 80, "TCP")).toBe(false);
  });
});
