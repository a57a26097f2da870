import { describe, expect, it } from "vitest";
import { SCENARIOS } from "../../../scenarios/index.ts";
import { analyzeText } from "../analysis/index.ts";
import { serviceFlowStates } from "../diff/index.ts";
import { whatIfTargets } from "../whatif/index.ts";
import { loadModel } from "../index.ts";
import { externallyAccessible } from "../model/services.ts";
import { EXTERNAL_CLIENT_IP, graphEndpointId, parseExternalAtNode, externalAtNode } from "../model/ids.ts";
import type { Model } from "../model/types.ts";
import { buildPolicyIndex } from "../netpol/index.ts";
import { buildProxyIndex } from "../proxy/index.ts";
import {
  externalFlowSpecs,
  hasExternalServices,
  reachableFromOutside,
  serviceFlowCount,
  serviceFlowSpecs,
} from "./index.ts";
// @ts-expect-error: the bench generator is plain JavaScript
import { generate } from "../../../bench/generate.mjs";

const load = (text: string): Model => loadModel([{ name: "m.yaml", text }]);

function side(model: Model) {
  return {
    model,
    policy: buildPolicyIndex(model),
    proxy: buildProxyIndex(model),
    id: new Map(model.pods.map((p) => [p.key, p.key])),
  };
}

/** Every flow of the playground's analysis, one key per source id (diff's keys). */
function analysisKeys(text: string): string[] {
  const a = analyzeText(text, "m.yaml", { flowBudget: 1_000_000 });
  return a.flows
    .filter((f) => f.kind === "service" || f.kind === "external")
    .flatMap((f) => f.from.map((from) => `${from}>${f.traceTo}/${f.protocol}`))
    .sort();
}

function diffKeys(text: string): string[] {
  const states = serviceFlowStates(side(load(text)), EXTERNAL_CLIENT_IP, { left: 1_000_000 });
  return [...states!.keys()].sort();
}

const cluster = `
apiVersion: v1
kind: Node
metadata: { name: n1 }
---
apiVersion: v1
kind: Node
metadata: { name: n2 }
---
apiVersion: v1
kind: Pod
metadata: { name: web, namespace: shop, labels: { app: web } }
spec: { nodeName: n1, containers: [{ name: c, ports: [{ containerPort: 8080 }] }] }
status: { podIP: 10.244.0.5 }
---
apiVersion: v1
kind: Pod
metadata: { name: client, namespace: shop, labels: { app: client } }
spec: { nodeName: n2, containers: [{ name: c }] }
status: { podIP: 10.244.1.5 }
`;

const service = (spec: string) => `${cluster}---
apiVersion: v1
kind: Service
metadata: { name: s, namespace: shop }
spec: ${spec}
`;

// pkg/api/v1/service ExternallyAccessible and proxy/util ShouldSkipService, shape by shape.
const SHAPES: { name: string; spec: string; accessible: boolean; reachable: boolean }[] = [
  {
    name: "ClusterIP",
    spec: "{ selector: { app: web }, ports: [{ port: 80, targetPort: 8080 }] }",
    accessible: false,
    reachable: false,
  },
  {
    name: "ClusterIP with external IPs",
    spec: "{ selector: { app: web }, externalIPs: [192.0.2.7], ports: [{ port: 80, targetPort: 8080 }] }",
    accessible: true,
    reachable: true,
  },
  {
    name: "headless with external IPs",
    spec: "{ clusterIP: None, selector: { app: web }, externalIPs: [192.0.2.7], ports: [{ port: 80, targetPort: 8080 }] }",
    accessible: true,
    reachable: false,
  },
  {
    name: "NodePort",
    spec: "{ type: NodePort, selector: { app: web }, ports: [{ port: 80, targetPort: 8080 }] }",
    accessible: true,
    reachable: true,
  },
  {
    name: "LoadBalancer",
    spec: "{ type: LoadBalancer, selector: { app: web }, ports: [{ port: 80, targetPort: 8080 }] }",
    accessible: true,
    reachable: true,
  },
  {
    name: "ExternalName",
    spec: "{ type: ExternalName, externalName: db.example.com }",
    accessible: false,
    reachable: false,
  },
  {
    name: "ExternalName with external IPs",
    spec: "{ type: ExternalName, externalName: db.example.com, externalIPs: [192.0.2.7], ports: [{ port: 80 }] }",
    accessible: false,
    reachable: false,
  },
];

describe("reachable from outside: one predicate for analysis, diff and what-if", () => {
  it.each(SHAPES)("$name", ({ spec, accessible, reachable }) => {
    const text = service(spec);
    const model = load(text);
    const s = model.services.find((x) => x.key === "shop/s")!;
    expect(s).toBeDefined();
    expect(externallyAccessible(s)).toBe(accessible);
    expect(reachableFromOutside(s)).toBe(reachable);
    expect(hasExternalServices(model)).toBe(reachable);
    expect(externalFlowSpecs(model, EXTERNAL_CLIENT_IP).length > 0).toBe(reachable);
    const a = analyzeText(text, "m.yaml");
    expect(a.flows.some((f) => f.kind === "external")).toBe(reachable);
    expect(a.externalClients.length > 0).toBe(reachable);
    expect(a.services.find((x) => x.id === "service:shop/s")?.external).toBe(accessible);
    expect(diffKeys(text).some((k) => k.startsWith("external:"))).toBe(reachable);
    const w = whatIfTargets(text).services.find((x) => x.id === "shop/s");
    if (s.type !== "ExternalName") expect(w?.external).toBe(accessible);
  });
});

describe("analysis and diff enumerate the same Service flows", () => {
  it.each(SHAPES)("$name", ({ spec }) => {
    const text = service(spec);
    expect(analysisKeys(text)).toEqual(diffKeys(text));
  });

  it.each(SCENARIOS.map((s) => [s.id, s.manifests] as const))("%s", (_, text) => {
    const keys = analysisKeys(text);
    expect(keys).toEqual(diffKeys(text));
  });

  it("a pod that is an endpoint of the Service is its own flow (hairpin), the others share one", () => {
    const text = `${service("{ selector: { app: web }, ports: [{ port: 80, targetPort: 8080 }] }")}---
apiVersion: v1
kind: Pod
metadata: { name: web2, namespace: shop, labels: { app: web } }
spec: { nodeName: n1, containers: [{ name: c, ports: [{ containerPort: 8080 }] }] }
status: { podIP: 10.244.0.6 }
---
apiVersion: v1
kind: Pod
metadata: { name: client2, namespace: shop, labels: { app: client } }
spec: { nodeName: n2, containers: [{ name: c }] }
status: { podIP: 10.244.1.6 }
`;
    const model = load(text);
    const { policy, proxy } = side(model);
    const flows = serviceFlowSpecs(model, policy, proxy).filter((f) => f.to === "service:shop/s");
    expect(flows.map((f) => f.from).sort()).toEqual([
      ["pod:shop/client", "pod:shop/client2"],
      ["pod:shop/web"],
      ["pod:shop/web2"],
    ]);
  });
});

describe("serviceFlowCount: the budget check counts what serviceFlowSpecs lists", () => {
  const inputs: [string, string][] = [
    ...SCENARIOS.map((sc): [string, string] => [sc.id, sc.manifests]),
    ["bench S", (generate("S", 20240601) as { text: string }).text],
    ["bench S, seed 7", (generate("S", 7) as { text: string }).text],
  ];
  it.each(inputs)("%s", (_, text) => {
    const { model, policy, proxy } = side(load(text));
    expect(serviceFlowCount(model, policy, proxy)).toBe(serviceFlowSpecs(model, policy, proxy).length);
  });
});

describe("endpoint ids", () => {
  it.each([
    ["external:203.0.113.10@n1", { ip: "203.0.113.10", node: "n1" }, "external:203.0.113.10"],
    ["external:[2001:db8::1]@n1", { ip: "2001:db8::1", node: "n1" }, "external:2001:db8::1"],
    ["external:203.0.113.10", undefined, "external:203.0.113.10"],
    ["external:203.0.113.10@", undefined, "external:203.0.113.10@"],
    ["pod:shop/web", undefined, "pod:shop/web"],
  ])("%s", (id, parsed, graph) => {
    expect(parseExternalAtNode(id)).toEqual(parsed);
    expect(graphEndpointId(id)).toBe(graph);
    if (parsed) expect(parseExternalAtNode(externalAtNode(parsed.ip, parsed.node))).toEqual(parsed);
  });
});
