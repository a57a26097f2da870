import { describe, expect, it } from "vitest";
import type { ProxyEndpoint } from "./endpoints.ts";
import { categorizeEndpoints, topologyModeFromHints, type ServicePortTraits } from "./topology.ts";

/** BaseEndpointInfo as upstream's tests write it: "ip:port", hints, conditions, isLocal (nodeName = the test node). */
interface E {
  zoneHints?: string[];
  nodeHints?: string[];
  ready?: boolean;
  serving?: boolean;
  terminating?: boolean;
  isLocal?: boolean;
  node?: string;
}
const NODE = "test-node";
function ep(key: string, e: E = {}): ProxyEndpoint {
  const [ip, port] = key.split(":");
  const out: ProxyEndpoint = {
    ip: ip!,
    port: Number(port),
    family: 4,
    key,
    ready: e.ready ?? false,
    serving: e.serving ?? false,
    terminating: e.terminating ?? false,
    zoneHints: e.zoneHints ?? [],
    nodeHints: e.nodeHints ?? [],
    slice: "ns/slice",
    sliceOrigin: "input",
    ref: { kind: "EndpointSlice", name: "slice", file: "t", doc: 0, line: 1 },
  };
  if (e.isLocal) out.nodeName = NODE;
  else if (e.node) out.nodeName = e.node;
  return out;
}
/** BaseServicePortInfo{}: internal policy, external policy, nodePort (externally accessible). */
function svc(
  t: { internalPolicyLocal?: boolean; externalPolicyLocal?: boolean; nodePort?: number } = {},
): ServicePortTraits {
  return {
    internalPolicyLocal: t.internalPolicyLocal ?? false,
    externalPolicyLocal: t.externalPolicyLocal ?? false,
    externallyAccessible: !!t.nodePort,
  };
}
const keys = (l: ProxyEndpoint[] | null) => (l === null ? null : l.map((e) => e.key).sort());

interface Case {
  name: string;
  zone: string;
  svc: ServicePortTraits;
  endpoints: ProxyEndpoint[];
  cluster: string[] | null;
  local: string[] | null;
  all?: string[];
  /** hasAnyEndpoints although allReachableEndpoints is empty. */
  onlyRemote?: boolean;
}

// kubernetes/kubernetes pkg/proxy/topology_test.go TestCategorizeEndpoints @6c039d9075ef, case by case
// (same names, same inputs, same expectations), against topology.go @008b3652959c.
const upstream: Case[] = [
  {
    name: "should use topology since all endpoints have hints, node has a zone label and and there are endpoints for the node's zone",
    zone: "zone-a",
    svc: svc(),
    endpoints: [
      ep("10.1.2.3:80", { zoneHints: ["zone-a"], ready: true }),
      ep("10.1.2.4:80", { zoneHints: ["zone-b"], ready: true }),
      ep("10.1.2.5:80", { zoneHints: ["zone-c"], ready: true }),
      ep("10.1.2.6:80", { zoneHints: ["zone-a"], ready: true }),
    ],
    cluster: ["10.1.2.3:80", "10.1.2.6:80"],
    local: null,
  },
  {
    name: "externalTrafficPolicy: Local, topology ignored for Local endpoints",
    zone: "zone-a",
    svc: svc({ externalPolicyLocal: true, nodePort: 8080 }),
    endpoints: [
      ep("10.1.2.3:80", { zoneHints: ["zone-a"], ready: true, isLocal: true }),
      ep("10.1.2.4:80", { zoneHints: ["zone-b"], ready: true, isLocal: true }),
      ep("10.1.2.5:80", { zoneHints: ["zone-c"], ready: true }),
      ep("10.1.2.6:80", { zoneHints: ["zone-a"], ready: true }),
    ],
    cluster: ["10.1.2.3:80", "10.1.2.6:80"],
    local: ["10.1.2.3:80", "10.1.2.4:80"],
    all: ["10.1.2.3:80", "10.1.2.4:80", "10.1.2.6:80"],
  },
  {
    name: "internalTrafficPolicy: Local, topology ignored for Local endpoints",
    zone: "zone-a",
    svc: svc({ internalPolicyLocal: true, nodePort: 8080 }),
    endpoints: [
      ep("10.1.2.3:80", { zoneHints: ["zone-a"], ready: true, isLocal: true }),
      ep("10.1.2.4:80", { zoneHints: ["zone-b"], ready: true, isLocal: true }),
      ep("10.1.2.5:80", { zoneHints: ["zone-c"], ready: true }),
      ep("10.1.2.6:80", { zoneHints: ["zone-a"], ready: true }),
    ],
    cluster: ["10.1.2.3:80", "10.1.2.6:80"],
    local: ["10.1.2.3:80", "10.1.2.4:80"],
    all: ["10.1.2.3:80", "10.1.2.4:80", "10.1.2.6:80"],
  },
  {
    name: "empty node labels",
    zone: "",
    svc: svc(),
    endpoints: [ep("10.1.2.3:80", { zoneHints: ["zone-a"], ready: true })],
    cluster: ["10.1.2.3:80"],
    local: null,
  },
  // The zone label present with an empty value reads the same as no label (topologyLabels[LabelTopologyZone] is "").
  {
    name: "empty zone label",
    zone: "",
    svc: svc(),
    endpoints: [ep("10.1.2.3:80", { zoneHints: ["zone-a"], ready: true })],
    cluster: ["10.1.2.3:80"],
    local: null,
  },
  {
    name: "node in different zone, no endpoint filtering",
    zone: "zone-b",
    svc: svc(),
    endpoints: [ep("10.1.2.3:80", { zoneHints: ["zone-a"], ready: true })],
    cluster: ["10.1.2.3:80"],
    local: null,
  },
  {
    name: "unready endpoint",
    zone: "zone-a",
    svc: svc(),
    endpoints: [
      ep("10.1.2.3:80", { zoneHints: ["zone-a"], ready: true }),
      ep("10.1.2.4:80", { zoneHints: ["zone-b"], ready: true }),
      ep("10.1.2.5:80", { zoneHints: ["zone-c"], ready: true }),
      ep("10.1.2.6:80", { zoneHints: ["zone-a"], ready: false }),
    ],
    cluster: ["10.1.2.3:80"],
    local: null,
  },
  {
    name: "only unready endpoints in same zone (should not filter)",
    zone: "zone-a",
    svc: svc(),
    endpoints: [
      ep("10.1.2.3:80", { zoneHints: ["zone-a"], ready: false }),
      ep("10.1.2.4:80", { zoneHints: ["zone-b"], ready: true }),
      ep("10.1.2.5:80", { zoneHints: ["zone-c"], ready: true }),
      ep("10.1.2.6:80", { zoneHints: ["zone-a"], ready: false }),
    ],
    cluster: ["10.1.2.4:80", "10.1.2.5:80"],
    local: null,
  },
  {
    name: "missing hints, no filtering applied",
    zone: "zone-a",
    svc: svc(),
    endpoints: [
      ep("10.1.2.3:80", { zoneHints: ["zone-a"], ready: true }),
      ep("10.1.2.4:80", { zoneHints: ["zone-b"], ready: true }),
      ep("10.1.2.5:80", { ready: true }),
      ep("10.1.2.6:80", { zoneHints: ["zone-a"], ready: true }),
    ],
    cluster: ["10.1.2.3:80", "10.1.2.4:80", "10.1.2.5:80", "10.1.2.6:80"],
    local: null,
  },
  {
    name: "multiple hints per endpoint, filtering includes any endpoint with zone included",
    zone: "zone-c",
    svc: svc(),
    endpoints: [
      ep("10.1.2.3:80", { zoneHints: ["zone-a", "zone-b", "zone-c"], ready: true }),
      ep("10.1.2.4:80", { zoneHints: ["zone-b", "zone-c"], ready: true }),
      ep("10.1.2.5:80", { zoneHints: ["zone-b", "zone-d"], ready: true }),
      ep("10.1.2.6:80", { zoneHints: ["zone-c"], ready: true }),
    ],
    cluster: ["10.1.2.3:80", "10.1.2.4:80", "10.1.2.6:80"],
    local: null,
  },
  {
    name: "conflicting topology and localness require merging allEndpoints",
    zone: "zone-a",
    svc: svc({ externalPolicyLocal: true, nodePort: 8080 }),
    endpoints: [
      ep("10.0.0.0:80", { zoneHints: ["zone-a"], ready: true, isLocal: true }),
      ep("10.0.0.1:80", { zoneHints: ["zone-b"], ready: true, isLocal: true }),
      ep("10.0.0.2:80", { zoneHints: ["zone-a"], ready: true }),
      ep("10.0.0.3:80", { zoneHints: ["zone-b"], ready: true }),
    ],
    cluster: ["10.0.0.0:80", "10.0.0.2:80"],
    local: ["10.0.0.0:80", "10.0.0.1:80"],
    all: ["10.0.0.0:80", "10.0.0.1:80", "10.0.0.2:80"],
  },
  {
    name: "internalTrafficPolicy: Local, with empty endpoints",
    zone: "",
    svc: svc({ internalPolicyLocal: true }),
    endpoints: [],
    cluster: null,
    local: [],
  },
  {
    name: "internalTrafficPolicy: Local, but all endpoints are remote",
    zone: "",
    svc: svc({ internalPolicyLocal: true }),
    endpoints: [ep("10.0.0.0:80", { ready: true }), ep("10.0.0.1:80", { ready: true })],
    cluster: null,
    local: [],
    onlyRemote: true,
  },
  {
    name: "internalTrafficPolicy: Local, all endpoints are local",
    zone: "",
    svc: svc({ internalPolicyLocal: true }),
    endpoints: [
      ep("10.0.0.0:80", { ready: true, isLocal: true }),
      ep("10.0.0.1:80", { ready: true, isLocal: true }),
    ],
    cluster: null,
    local: ["10.0.0.0:80", "10.0.0.1:80"],
  },
  {
    name: "internalTrafficPolicy: Local, some endpoints are local",
    zone: "",
    svc: svc({ internalPolicyLocal: true }),
    endpoints: [ep("10.0.0.0:80", { ready: true, isLocal: true }), ep("10.0.0.1:80", { ready: true })],
    cluster: null,
    local: ["10.0.0.0:80"],
  },
  {
    name: "Cluster traffic policy, endpoints not Ready",
    zone: "",
    svc: svc(),
    endpoints: [ep("10.0.0.0:80"), ep("10.0.0.1:80")],
    cluster: [],
    local: null,
  },
  {
    name: "Cluster traffic policy, some endpoints are Ready",
    zone: "",
    svc: svc(),
    endpoints: [ep("10.0.0.0:80"), ep("10.0.0.1:80", { ready: true })],
    cluster: ["10.0.0.1:80"],
    local: null,
  },
  {
    name: "Cluster traffic policy, all endpoints are terminating",
    zone: "",
    svc: svc(),
    endpoints: [
      ep("10.0.0.0:80", { serving: true, terminating: true, isLocal: true }),
      ep("10.0.0.1:80", { serving: true, terminating: true }),
    ],
    cluster: ["10.0.0.0:80", "10.0.0.1:80"],
    local: null,
  },
  {
    name: "iTP: Local, eTP: Cluster, some endpoints local",
    zone: "",
    svc: svc({ internalPolicyLocal: true, nodePort: 8080 }),
    endpoints: [ep("10.0.0.0:80", { ready: true, isLocal: true }), ep("10.0.0.1:80", { ready: true })],
    cluster: ["10.0.0.0:80", "10.0.0.1:80"],
    local: ["10.0.0.0:80"],
    all: ["10.0.0.0:80", "10.0.0.1:80"],
  },
  {
    name: "iTP: Cluster, eTP: Local, some endpoints local",
    zone: "",
    svc: svc({ externalPolicyLocal: true, nodePort: 8080 }),
    endpoints: [ep("10.0.0.0:80", { ready: true, isLocal: true }), ep("10.0.0.1:80", { ready: true })],
    cluster: ["10.0.0.0:80", "10.0.0.1:80"],
    local: ["10.0.0.0:80"],
    all: ["10.0.0.0:80", "10.0.0.1:80"],
  },
  {
    name: "iTP: Local, eTP: Local, some endpoints local",
    zone: "",
    svc: svc({ internalPolicyLocal: true, externalPolicyLocal: true, nodePort: 8080 }),
    endpoints: [ep("10.0.0.0:80", { ready: true, isLocal: true }), ep("10.0.0.1:80", { ready: true })],
    cluster: ["10.0.0.0:80", "10.0.0.1:80"],
    local: ["10.0.0.0:80"],
    all: ["10.0.0.0:80", "10.0.0.1:80"],
  },
  {
    name: "iTP: Local, eTP: Local, all endpoints remote",
    zone: "",
    svc: svc({ internalPolicyLocal: true, externalPolicyLocal: true, nodePort: 8080 }),
    endpoints: [ep("10.0.0.0:80", { ready: true }), ep("10.0.0.1:80", { ready: true })],
    cluster: ["10.0.0.0:80", "10.0.0.1:80"],
    local: [],
    all: ["10.0.0.0:80", "10.0.0.1:80"],
  },
  {
    name: "iTP: Local, eTP: Local, all endpoints remote and terminating",
    zone: "",
    svc: svc({ internalPolicyLocal: true, externalPolicyLocal: true, nodePort: 8080 }),
    endpoints: [
      ep("10.0.0.0:80", { serving: true, terminating: true }),
      ep("10.0.0.1:80", { serving: true, terminating: true }),
    ],
    cluster: ["10.0.0.0:80", "10.0.0.1:80"],
    local: [],
    all: ["10.0.0.0:80", "10.0.0.1:80"],
    onlyRemote: true,
  },
  {
    name: "iTP: Cluster, eTP: Local, with terminating endpoints",
    zone: "",
    svc: svc({ externalPolicyLocal: true, nodePort: 8080 }),
    endpoints: [
      ep("10.0.0.0:80", { ready: true }),
      ep("10.0.0.1:80", { isLocal: true }),
      ep("10.0.0.2:80", { serving: true, terminating: true, isLocal: true }),
      ep("10.0.0.3:80", { serving: true, terminating: true }),
    ],
    cluster: ["10.0.0.0:80"],
    local: ["10.0.0.2:80"],
    all: ["10.0.0.0:80", "10.0.0.2:80"],
  },
  {
    name: "externalTrafficPolicy ignored if not externally accessible",
    zone: "",
    svc: svc({ externalPolicyLocal: true }),
    endpoints: [ep("10.0.0.0:80", { ready: true }), ep("10.0.0.1:80", { ready: true, isLocal: true })],
    cluster: ["10.0.0.0:80", "10.0.0.1:80"],
    local: null,
    all: ["10.0.0.0:80", "10.0.0.1:80"],
  },
  {
    name: "no cluster endpoints for iTP:Local internal-only service",
    zone: "",
    svc: svc({ internalPolicyLocal: true }),
    endpoints: [ep("10.0.0.0:80", { ready: true }), ep("10.0.0.1:80", { ready: true, isLocal: true })],
    cluster: null,
    local: ["10.0.0.1:80"],
    all: ["10.0.0.1:80"],
  },
];

describe("CategorizeEndpoints (upstream topology_test.go TestCategorizeEndpoints)", () => {
  it.each(upstream.map((c) => [c.name, c] as const))("%s", (_, c) => {
    const got = categorizeEndpoints(c.endpoints, c.svc, NODE, c.zone);
    expect(keys(got.clusterEndpoints)).toEqual(c.cluster === null ? null : [...c.cluster].sort());
    expect(keys(got.localEndpoints)).toEqual(c.local === null ? null : [...c.local].sort());
    const all =
      c.cluster !== null && c.local === null
        ? c.cluster
        : c.local !== null && c.cluster === null
          ? c.local
          : c.all!;
    expect(keys(got.allReachableEndpoints)).toEqual([...all].sort());
    expect(got.hasAnyEndpoints).toBe(all.length > 0 || !!c.onlyRemote);
  });
});

// topologyModeFromHints @008b3652959c with PreferSameTrafficDistribution on (the v1.35 default): node hints
// win when every ready endpoint has one and one names this node; otherwise zone hints under the same rule.
// The node names and hints follow the PreferSameNode cases of antrea-io/antrea pkg/agent/proxy/topology_test.go,
// the mirror of the upstream v1.33+ cases.
describe("topologyModeFromHints: PreferSameNode and its fallbacks", () => {
  const both = (key: string, zone: string, node: string, ready = true) =>
    ep(key, { zoneHints: [zone], nodeHints: [node], ready, node });
  const four = [
    both("10.1.2.3:80", "zone-a", "node-1"),
    both("10.1.2.4:80", "zone-b", "node-2"),
    both("10.1.2.5:80", "zone-c", "node-3"),
    both("10.1.2.6:80", "zone-a", "node-4"),
  ];
  it.each<[string, ProxyEndpoint[], string, string, string, string[]]>([
    [
      "PreferSameNode available: only the endpoint hinted for node-1",
      four,
      "node-1",
      "zone-a",
      "PreferSameNode",
      ["10.1.2.3:80"],
    ],
    [
      "PreferSameNode unavailable (no endpoint hinted for node-5): falls back to same zone",
      four,
      "node-5",
      "zone-a",
      "PreferSameZone",
      ["10.1.2.3:80", "10.1.2.6:80"],
    ],
    [
      "PreferSameNode and zone both unavailable: every ready endpoint",
      four,
      "node-5",
      "zone-d",
      "",
      ["10.1.2.3:80", "10.1.2.4:80", "10.1.2.5:80", "10.1.2.6:80"],
    ],
    [
      "one ready endpoint lacks a node hint: node hints ignored, zone hints used",
      [both("10.1.2.3:80", "zone-a", "node-1"), ep("10.1.2.4:80", { zoneHints: ["zone-a"], ready: true })],
      "node-1",
      "zone-a",
      "PreferSameZone",
      ["10.1.2.3:80", "10.1.2.4:80"],
    ],
    [
      "an unready endpoint without hints does not disable topology (only ready endpoints are looked at)",
      [
        both("10.1.2.3:80", "zone-a", "node-1"),
        both("10.1.2.4:80", "zone-b", "node-2"),
        ep("10.1.2.5:80", { ready: false }),
      ],
      "node-1",
      "zone-a",
      "PreferSameNode",
      ["10.1.2.3:80"],
    ],
  ])("%s", (_, endpoints, node, zone, mode, cluster) => {
    expect(topologyModeFromHints(endpoints, node, zone).mode).toBe(mode);
    expect(keys(categorizeEndpoints(endpoints, svc(), node, zone).clusterEndpoints)).toEqual(cluster);
  });

  it("no ready endpoint: no topology, and the serving-terminating fallback ignores hints", () => {
    const eps = [
      ep("10.0.0.1:80", { zoneHints: ["zone-b"], serving: true, terminating: true }),
      ep("10.0.0.2:80", { zoneHints: ["zone-a"], serving: true, terminating: true }),
    ];
    const got = categorizeEndpoints(eps, svc(), NODE, "zone-a");
    expect(got.topology.mode).toBe("");
    expect(got.clusterTerminatingFallback).toBe(true);
    expect(keys(got.clusterEndpoints)).toEqual(["10.0.0.1:80", "10.0.0.2:80"]);
  });

  it("ready endpoints exist but none for the zone: hints are ignored rather than falling back to terminating ones", () => {
    const eps = [
      ep("10.0.0.1:80", { zoneHints: ["zone-b"], ready: true }),
      ep("10.0.0.2:80", { zoneHints: ["zone-a"], serving: true, terminating: true }),
    ];
    const got = categorizeEndpoints(eps, svc(), NODE, "zone-a");
    expect(got.clusterTerminatingFallback).toBe(false);
    expect(keys(got.clusterEndpoints)).toEqual(["10.0.0.1:80"]);
  });
});
