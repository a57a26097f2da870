/**
 * Cilium's toFQDNs for a `host:` destination (evaluate.ts rule 10), each
 * case naming the upstream text it follows: cilium/cilium
 * Documentation/security/policy/language.rst ("DNS based", "Obtaining DNS
 * data for use by toFQDNs") and pkg/policy/api/fqdn.go with
 * pkg/fqdn/matchpattern (matchName, matchPattern wildcards).
 */
import { describe, expect, it } from "vitest";
import { loadModel, buildProxyIndex, traceL7, parseAnyDestination } from "../../index.ts";
import { fqdnSelector } from "./policy.ts";

const APP = `apiVersion: v1
kind: Node
metadata: {name: node-a}
---
apiVersion: v1
kind: Pod
metadata: {name: app, namespace: shop, labels: {app: app}}
spec: {nodeName: node-a, containers: [{name: c, image: x}]}
`;

const DNS_RULE = (pattern: string) => `
    - toEndpoints:
        - matchLabels:
            k8s:io.kubernetes.pod.namespace: kube-system
            k8s-app: kube-dns
      toPorts:
        - ports: [{port: "53", protocol: ANY}]
          rules:
            dns:
              - ${pattern}`;

function policy(fqdn: string, dns: string | undefined, ports = `[{port: "443", protocol: TCP}]`): string {
  return `${APP}---
apiVersion: cilium.io/v2
kind: CiliumNetworkPolicy
metadata: {name: out, namespace: shop}
spec:
  endpointSelector: {matchLabels: {app: app}}
  egress:
    - toFQDNs:
        - ${fqdn}
      toPorts:
        - ports: ${ports}${dns === undefined ? "" : DNS_RULE(dns)}
`;
}

function trace(text: string, to: string) {
  const model = loadModel([{ name: "a.yaml", text }], { cni: "cilium" });
  const dst = parseAnyDestination(to);
  if ("error" in dst) throw new Error(dst.error);
  return traceL7(model, buildProxyIndex(model), "pod:shop/app", dst, "TCP", undefined);
}

describe("toFQDNs admits a looked-up name only when the DNS proxy saw the lookup", () => {
  it.each([
    {
      source: 'language.rst "DNS based": matchName allows the IPs DNS returns for that name',
      text: policy("matchName: api.example.com", 'matchPattern: "*"'),
      to: "host:api.example.com:443",
      verdict: "allow",
    },
    {
      source: "fqdn.go: matchName is compared case-insensitively, without the trailing dot",
      text: policy("matchName: API.Example.com.", 'matchPattern: "*"'),
      to: "host:api.example.com:443",
      verdict: "allow",
    },
    {
      source: 'language.rst "DNS based": matchPattern *.example.com matches sub.example.com',
      text: policy('matchPattern: "*.example.com"', 'matchPattern: "*"'),
      to: "host:api.example.com:443",
      verdict: "allow",
    },
    {
      source: 'language.rst "DNS based": *.example.com does not match example.com itself',
      text: policy('matchPattern: "*.example.com"', 'matchPattern: "*"'),
      to: "host:example.com:443",
      verdict: "drop",
      says: "no toFQDNs selector matches example.com",
    },
    {
      source:
        'language.rst "Obtaining DNS data for use by toFQDNs": without an L7 DNS rule the proxy sees no lookup, the rule matches nothing',
      text: policy("matchName: api.example.com", undefined),
      to: "host:api.example.com:443",
      verdict: "drop",
      says: "no egress rule of shop/app has an L7 DNS rule",
    },
    {
      source:
        "language.rst: the DNS rule must allow the lookup; one that does not cover the name never sends its answer",
      text: policy("matchName: api.example.com", 'matchPattern: "*.internal.example"'),
      to: "host:api.example.com:443",
      verdict: "drop",
      says: "those present: matchPattern *.internal.example",
    },
    {
      source: "language.rst: toFQDNs with toPorts limits the ports as every L4 rule does",
      text: policy("matchName: api.example.com", 'matchPattern: "*"'),
      to: "host:api.example.com:80",
      verdict: "drop",
      says: "matches api.example.com, but not on TCP/80",
    },
    {
      source:
        'language.rst "DNS based": toFQDNs selects IPs from DNS answers; an address asked for directly was never looked up',
      text: policy("matchName: api.example.com", 'matchPattern: "*"'),
      to: "ip:198.51.100.7:443",
      verdict: "drop",
      says: "never looked up",
    },
  ])("$source", ({ text, to, verdict, says }) => {
    const t = trace(text, to);
    expect(t.verdict).toBe(verdict);
    if (says) expect(JSON.stringify(t.hops)).toContain(says);
  });
});

describe("matchPattern wildcards (pkg/fqdn/matchpattern)", () => {
  it.each([
    ["*", "anything.at.all", true],
    ["*.example.com", "api.example.com", true],
    ["*.example.com", "example.com", false],
    ["*.example.com", "a.b.example.com", false],
    ["api-*.example.com", "api-eu.example.com", true],
    ["*.example.com", "api.example.org", false],
  ] as const)("%s against %s: %s", (pattern, name, want) => {
    expect(fqdnSelector(undefined, pattern)!.test(name)).toBe(want);
  });
});
