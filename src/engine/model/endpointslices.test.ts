import { describe, expect, it } from "vitest";
import { makeNode, makePod, makeService, makeSlice, modelOf, type PodOpts } from "../testing/fixtures.ts";
import { parseCpuMillis } from "./endpointslices.ts";
import type { EndpointSlice } from "./services.ts";

const nodes = [
  makeNode("node-a", "192.168.0.2", { zone: "zone-a", podCIDR: "10.244.1.0/24", cpu: "4" }),
  makeNode("node-b", "192.168.0.3", { zone: "zone-b", podCIDR: "10.244.2.0/24", cpu: "4" }),
  makeNode("node-c", "192.168.0.4", { zone: "zone-c", podCIDR: "10.244.3.0/24", cpu: "4" }),
];
const web = (name: string, o: Partial<PodOpts> & { ip: string }) =>
  makePod("ns", name, {
    node: "node-a",
    labels: { app: "web" },
    ports: [{ name: "http", containerPort: 8080 }],
    ...o,
  });
const service = (spec: Record<string, unknown> = {}, extra: Parameters<typeof makeService>[3] = {}) =>
  makeService(
    "ns",
    "web",
    { selector: { app: "web" }, ports: [{ name: "http", port: 80, targetPort: "http" }], ...spec },
    extra,
  );
const slicesOf = (objects: Record<string, unknown>[]): EndpointSlice[] =>
  modelOf([...nodes, ...objects]).endpointSlices.filter((s) => s.serviceName === "web");
const endpoints = (slices: EndpointSlice[]) =>
  slices.flatMap((s) => s.endpoints).sort((a, b) => (a.addresses[0]! < b.addresses[0]! ? -1 : 1));

describe("EndpointSlice controller: which pods, which conditions (endpointslice utils.go podToEndpoint, ShouldPodBeInEndpoints)", () => {
  it.each<
    [string, Partial<PodOpts>, boolean, { ready: boolean; serving: boolean; terminating: boolean } | null]
  >([
    ["ready pod", {}, false, { ready: true, serving: true, terminating: false }],
    ["not ready pod", { ready: false }, false, { ready: false, serving: false, terminating: false }],
    [
      "not ready pod, publishNotReadyAddresses",
      { ready: false },
      true,
      { ready: true, serving: false, terminating: false },
    ],
    [
      "terminating ready pod: serving, not ready",
      { terminating: true },
      false,
      { ready: false, serving: true, terminating: true },
    ],
    [
      "terminating ready pod, publishNotReadyAddresses: ready",
      { terminating: true },
      true,
      { ready: true, serving: true, terminating: true },
    ],
    [
      "terminating pod that failed its probe",
      { terminating: true, ready: false },
      false,
      { ready: false, serving: false, terminating: true },
    ],
    ["Succeeded pod is left out (isPodTerminal)", { phase: "Succeeded" }, false, null],
    ["Failed pod is left out (isPodTerminal)", { phase: "Failed" }, false, null],
  ])("%s", (_, pod, publish, want) => {
    const eps = endpoints(
      slicesOf([service({ publishNotReadyAddresses: publish }), web("w", { ip: "10.244.1.5", ...pod })]),
    );
    if (want === null) expect(eps).toEqual([]);
    else
      expect(eps.map((e) => ({ ready: e.ready, serving: e.serving, terminating: e.terminating }))).toEqual([
        want,
      ]);
  });

  it("records nodeName, the node's zone label and the pod", () => {
    const [e] = endpoints(slicesOf([service(), web("w", { ip: "10.244.2.5", node: "node-b" })]));
    expect(e).toMatchObject({ addresses: ["10.244.2.5"], nodeName: "node-b", zone: "zone-b", pod: "ns/w" });
  });

  it("selects only pods of the Service's namespace matching every selector label; no selector, no slices", () => {
    const other = makePod("other", "w", {
      node: "node-a",
      ip: "10.244.1.9",
      labels: { app: "web" },
      ports: [{ name: "http", containerPort: 8080 }],
    });
    const partial = makePod("ns", "x", { node: "node-a", ip: "10.244.1.8", labels: { app: "web" } });
    expect(
      endpoints(
        slicesOf([
          service({ selector: { app: "web", tier: "front" } }),
          web("w", { ip: "10.244.1.5", labels: { app: "web", tier: "front" } }),
          partial,
          other,
        ]),
      ).map((e) => e.pod),
    ).toEqual(["ns/w"]);
    expect(slicesOf([service({ selector: undefined }), web("w", { ip: "10.244.1.5" })])).toEqual([]);
  });

  it("ExternalName Services get no slices even with a selector (kubernetes/kubernetes#105986)", () => {
    expect(
      slicesOf([
        service({ type: "ExternalName", externalName: "x.example.com" }),
        web("w", { ip: "10.244.1.5" }),
      ]),
    ).toEqual([]);
  });
});

describe("named targetPorts resolve per pod (endpointslice utils.go FindPort)", () => {
  it("pods that name the port differently land in different slices, each with its own number", () => {
    const slices = slicesOf([
      service(),
      web("a", { ip: "10.244.1.5" }),
      web("b", { ip: "10.244.1.6", ports: [{ name: "http", containerPort: 9090 }] }),
    ]);
    expect(slices.map((s) => [s.ports.map((p) => p.port), s.endpoints.map((e) => e.pod)]).sort()).toEqual([
      [[8080], ["ns/a"]],
      [[9090], ["ns/b"]],
    ]);
  });
  it("the container port's protocol must match the Service port's", () => {
    const slices = slicesOf([
      service(),
      web("a", { ip: "10.244.1.5", ports: [{ name: "http", containerPort: 8080, protocol: "UDP" }] }),
    ]);
    expect(slices.flatMap((s) => s.ports)).toEqual([]);
  });
  it("a sidecar (init container with restartPolicy Always) can serve the named port", () => {
    const slices = slicesOf([
      service(),
      web("a", { ip: "10.244.1.5", ports: [], sidecarPorts: [{ name: "http", containerPort: 15001 }] }),
    ]);
    expect(slices[0]!.ports.map((p) => p.port)).toEqual([15001]);
  });
  it("a pod without the name is left out of that port (lint KTL603 reports it, once)", () => {
    const model = modelOf([
      ...nodes,
      service(),
      web("a", { ip: "10.244.1.5", ports: [{ name: "web", containerPort: 8080 }] }),
    ]);
    expect(model.endpointSlices.flatMap((s) => s.ports)).toEqual([]);
    expect(model.diagnostics.filter((d) => d.code === "KTL303")).toEqual([]);
  });
});

describe("hints from spec.trafficDistribution (trafficdist.go preferCloseHeuristic)", () => {
  const pods = [
    web("a", { ip: "10.244.1.5" }),
    web("b", { ip: "10.244.2.5", node: "node-b" }),
    web("u", { ip: "10.244.2.6", node: "node-b", ready: false }),
  ];
  it("PreferClose: every ready endpoint is hinted for its own zone; not-ready endpoints get no hint", () => {
    expect(
      endpoints(slicesOf([service({ trafficDistribution: "PreferClose" }), ...pods])).map(
        (e) => e.hints ?? null,
      ),
    ).toEqual([{ forZones: ["zone-a"], forNodes: [] }, { forZones: ["zone-b"], forNodes: [] }, null]);
  });
  it("PreferSameNode: own zone and own node", () => {
    expect(
      endpoints(slicesOf([service({ trafficDistribution: "PreferSameNode" }), ...pods]))[0]!.hints,
    ).toEqual({ forZones: ["zone-a"], forNodes: ["node-a"] });
  });
  it("no trafficDistribution: no hints", () => {
    expect(endpoints(slicesOf([service(), ...pods])).every((e) => e.hints === undefined)).toBe(true);
  });
});

describe("topology-mode Auto (topologycache.go AddHints, getAllocations, redistributeHints)", () => {
  const spread = [
    web("a1", { ip: "10.244.1.11" }),
    web("a2", { ip: "10.244.1.12" }),
    web("a3", { ip: "10.244.1.13" }),
    web("a4", { ip: "10.244.1.14" }),
    web("b1", { ip: "10.244.2.11", node: "node-b" }),
    web("c1", { ip: "10.244.3.11", node: "node-c" }),
  ];
  const auto = { annotations: { "service.kubernetes.io/topology-mode": "Auto" } };
  it("equal CPU in three zones, 4/1/1 endpoints: zone-a donates one endpoint each to zone-b and zone-c", () => {
    const eps = endpoints(slicesOf([service({}, auto), ...spread]));
    expect(eps.map((e) => [e.pod, e.hints!.forZones])).toEqual([
      ["ns/a1", ["zone-b"]],
      ["ns/a2", ["zone-c"]],
      ["ns/a3", ["zone-a"]],
      ["ns/a4", ["zone-a"]],
      ["ns/b1", ["zone-b"]],
      ["ns/c1", ["zone-c"]],
    ]);
  });
  it("CPU weights the zones: with 8, 4 and 4 CPUs and 4 endpoints per zone, zone-b and zone-c each give one endpoint to zone-a", () => {
    const weighted = [
      makeNode("node-a", "192.168.0.2", { zone: "zone-a", cpu: "8000m" }),
      nodes[1]!,
      nodes[2]!,
    ];
    const pods = ["a", "b", "c"].flatMap((z, i) =>
      [1, 2, 3, 4].map((n) => web(`${z}${n}`, { ip: `10.244.${i + 1}.${n + 10}`, node: `node-${z}` })),
    );
    const eps = modelOf([...weighted, service({}, auto), ...pods]).endpointSlices.flatMap((s) => s.endpoints);
    const perZone = (z: string) => eps.filter((e) => e.hints?.forZones[0] === z).length;
    // desired: a 6, b 3, c 3 (of 12); each of b and c gives one endpoint to a.
    expect([perZone("zone-a"), perZone("zone-b"), perZone("zone-c")]).toEqual([6, 3, 3]);
  });
  it.each<[string, Record<string, unknown>[], RegExp]>([
    [
      "a node without allocatable CPU: no hints (Insufficient Node information)",
      [makeNode("node-a", "192.168.0.2", { zone: "zone-a" }), nodes[1]!, nodes[2]!],
      /Insufficient Node information/,
    ],
    // SetNodes clears the ratios when fewer than 2 zones have CPU, so getAllocations reports InsufficientNodeInfo, not NodesReadyInOneZoneOnly.
    [
      "all ready nodes in one zone: no hints (SetNodes: len(cpuByZone) < 2)",
      [makeNode("node-a", "192.168.0.2", { zone: "zone-a", cpu: "4" })],
      /^topology-mode Auto: the EndpointSlice controller set no hints \(Insufficient Node information: allocatable CPU or zone not specified on one or more nodes; ready nodes with CPU are in one zone only: zone-a\)/,
    ],
    [
      "control-plane and not-ready nodes do not count (hasExcludedLabels, isNodeReady)",
      [
        nodes[0]!,
        makeNode("cp", "192.168.0.9", {
          zone: "zone-b",
          cpu: "4",
          labels: { "node-role.kubernetes.io/control-plane": "" },
        }),
        makeNode("down", "192.168.0.8", { zone: "zone-c", cpu: "4", ready: false }),
      ],
      /Insufficient Node information/,
    ],
  ])("%s", (_, nodeObjs, why) => {
    const slices = modelOf([
      ...nodeObjs,
      service({}, auto),
      web("a1", { ip: "10.244.1.11" }),
      web("a2", { ip: "10.244.1.12" }),
    ]).endpointSlices;
    expect(slices.flatMap((s) => s.endpoints).every((e) => e.hints === undefined)).toBe(true);
    expect(slices[0]!.hintsNote).toMatch(why);
  });
  it("fewer endpoints than zones: no hints (InsufficientNumberOfEndpoints)", () => {
    const slices = slicesOf([service({}, auto), web("a1", { ip: "10.244.1.11" })]);
    expect(slices[0]!.hintsNote).toMatch(/Insufficient number of endpoints \(1 endpoints, 3 zones\)/);
  });
  it("Auto wins over trafficDistribution (reconciler.go: canUseTrafficDistribution requires !hintsEnabled)", () => {
    const slices = slicesOf([service({ trafficDistribution: "PreferClose" }, auto), ...spread]);
    expect(slices[0]!.hintsNote).toMatch(/^topology-mode Auto/);
  });
  it("reads CPU quantities as resource.Quantity does", () => {
    expect([
      parseCpuMillis("4"),
      parseCpuMillis("3500m"),
      parseCpuMillis("0.5"),
      parseCpuMillis(2),
      parseCpuMillis("x"),
    ]).toEqual([4000, 3500, 500, 2000, undefined]);
  });
});

describe("which slices a Service gets", () => {
  const managedBy = (slice: Record<string, unknown>, manager: string) => {
    (slice.metadata as { labels: Record<string, string> }).labels["endpointslice.kubernetes.io/managed-by"] =
      manager;
    return slice;
  };
  it("an input slice managed by the EndpointSlice controller is its state, taken as written: nothing is derived beside it", () => {
    const given = managedBy(
      makeSlice("ns", "web", "web-given", [{ name: "http", port: 7000 }], [{ ip: "10.9.9.9", ready: false }]),
      "endpointslice-controller.k8s.io",
    );
    const slices = slicesOf([service(), web("w", { ip: "10.244.1.5" }), given]);
    expect(slices.map((s) => [s.name, s.origin])).toEqual([["web-given", "input"]]);
    expect(slices[0]!.endpoints[0]).toMatchObject({ ready: false, serving: true, terminating: false });
  });
  it("an input slice with another manager (or none) sits beside the controller's: the controller lists only slices labelled managed-by itself (endpointslice_controller.go syncService) and kube-proxy reads every slice of the Service (endpointslicecache.go)", () => {
    for (const given of [
      makeSlice("ns", "web", "web-extra", [{ name: "http", port: 7000 }], [{ ip: "10.9.9.9" }]),
      managedBy(
        makeSlice("ns", "web", "web-extra", [{ name: "http", port: 7000 }], [{ ip: "10.9.9.9" }]),
        "example.com/my-controller",
      ),
    ]) {
      const slices = slicesOf([service(), web("w", { ip: "10.244.1.5" }), given]);
      expect(slices.map((s) => s.origin)).toEqual(["input", "controller"]);
      expect(endpoints(slices).map((e) => e.addresses[0])).toEqual(["10.244.1.5", "10.9.9.9"]);
    }
  });
  it("a selectorless Service mirrors its Endpoints beside custom slices, unless an input slice is the mirroring controller's own", () => {
    const eps = {
      apiVersion: "v1",
      kind: "Endpoints",
      metadata: { name: "web", namespace: "ns" },
      subsets: [{ addresses: [{ ip: "10.1.0.1" }], ports: [{ name: "http", port: 9376 }] }],
    };
    const custom = makeSlice("ns", "web", "web-extra", [{ name: "http", port: 9376 }], [{ ip: "10.9.9.9" }]);
    expect(slicesOf([service({ selector: undefined }), eps, custom]).map((s) => s.origin)).toEqual([
      "input",
      "mirrored",
    ]);
    const snapshot = managedBy(
      makeSlice("ns", "web", "web-abcde", [{ name: "http", port: 9376 }], [{ ip: "10.1.0.1" }]),
      "endpointslicemirroring-controller.k8s.io",
    );
    expect(slicesOf([service({ selector: undefined }), eps, snapshot]).map((s) => s.origin)).toEqual([
      "input",
    ]);
  });
  it("absent conditions read as kube-proxy reads them: ready and serving true, terminating false (newEndpointSliceInfo)", () => {
    const slices = slicesOf([
      service({ selector: undefined }),
      makeSlice("ns", "web", "s", [{ name: "http", port: 8080 }], [{ ip: "10.9.9.9" }]),
    ]);
    expect(slices[0]!.endpoints[0]).toMatchObject({ ready: true, serving: true, terminating: false });
  });
  it("a selectorless Service mirrors its legacy Endpoints: addresses ready, notReadyAddresses not (endpointslicemirroring addressToEndpoint)", () => {
    const eps = {
      apiVersion: "v1",
      kind: "Endpoints",
      metadata: { name: "web", namespace: "ns" },
      subsets: [
        {
          addresses: [{ ip: "10.1.0.1", nodeName: "node-a" }],
          notReadyAddresses: [{ ip: "10.1.0.2" }],
          ports: [{ name: "http", port: 9376 }],
        },
      ],
    };
    const slices = slicesOf([service({ selector: undefined }), eps]);
    expect(slices.map((s) => s.origin)).toEqual(["mirrored"]);
    expect(slices[0]!.ports.map((p) => [p.name, p.port])).toEqual([["http", 9376]]);
    expect(slices[0]!.endpoints.map((e) => [e.addresses[0], e.ready, e.serving, e.nodeName ?? null])).toEqual(
      [
        ["10.1.0.1", true, true, "node-a"],
        ["10.1.0.2", false, true, null],
      ],
    );
  });
  it("Endpoints labelled endpointslice.kubernetes.io/skip-mirror are not mirrored; a Service with a selector ignores Endpoints", () => {
    const eps = (labels: Record<string, string>) => ({
      apiVersion: "v1",
      kind: "Endpoints",
      metadata: { name: "web", namespace: "ns", labels },
      subsets: [{ addresses: [{ ip: "10.1.0.1" }], ports: [{ name: "http", port: 9376 }] }],
    });
    expect(
      slicesOf([
        service({ selector: undefined }),
        eps({ "endpointslice.kubernetes.io/skip-mirror": "true" }),
      ]),
    ).toEqual([]);
    expect(slicesOf([service(), eps({})]).map((s) => s.origin)).toEqual([]);
  });
  it("a slice for a Service the input lacks is kept but reported (KTL302)", () => {
    const model = modelOf([
      ...nodes,
      makeSlice("ns", "ghost", "g", [{ name: "", port: 80 }], [{ ip: "10.1.0.1" }]),
    ]);
    expect(model.diagnostics.map((d) => d.code)).toContain("KTL302");
  });
});
