import { describe, expect, it } from "vitest";
import { loadModel } from "../index.ts";
import { validateModelUpdate } from "./update.ts";

const model = (text: string) => loadModel([{ name: "m.yaml", text }]);
const svc = (spec: string, meta = "") =>
  `apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: ns${meta}}\nspec:\n${spec}`;
const errorsOf = (oldText: string, newText: string) => {
  const r = validateModelUpdate(model(oldText), model(newText));
  return {
    errors: r.errors.map((e) => `${e.field}: ${e.type}: ${e.detail}`),
    warnings: r.warnings.map((w) => w.code),
    updated: r.updated,
  };
};
const P = "  selector: {app: web}\n  ports: [{name: http, port: 80}]\n";

describe("Service updates (pkg/registry/core/service/storage patchAllocatedValues, normalizeClusterIPs; validation.go ValidateServiceUpdate)", () => {
  it.each<[string, string, string, string[], string[]]>([
    [
      "removing clusterIP: None keeps the stored None: accepted, still headless (patchAllocatedValues)",
      `  clusterIP: None\n${P}`,
      P,
      [],
      ["KTL620"],
    ],
    [
      "an explicit new clusterIP on a headless Service is rejected (validateUpgradeDowngradeClusterIPs)",
      `  clusterIP: None\n${P}`,
      `  clusterIP: 10.96.0.50\n${P}`,
      ["spec.clusterIPs[0]: Invalid value: may not change once set"],
      [],
    ],
    ["leaving an allocated clusterIP out keeps it", `  clusterIP: 10.96.0.20\n${P}`, P, [], []],
    [
      "changing a clusterIP is rejected",
      `  clusterIP: 10.96.0.20\n${P}`,
      `  clusterIP: 10.96.0.21\n${P}`,
      ["spec.clusterIPs[0]: Invalid value: may not change once set"],
      [],
    ],
    [
      "changing the IP family is rejected (validateUpgradeDowngradeIPFamilies)",
      `  clusterIP: 10.96.0.20\n  ipFamilies: [IPv4]\n${P}`,
      `  clusterIP: 10.96.0.20\n  ipFamilies: [IPv6]\n${P}`,
      [
        "spec.clusterIPs[0]: Invalid value: expected an IPv6 value as indicated by `ipFamilies[0]`",
        "spec.ipFamilies[0]: Invalid value: may not change once set",
      ],
      [],
    ],
    [
      "loadBalancerClass may not change on a LoadBalancer (validateLoadBalancerClassField)",
      `  type: LoadBalancer\n  loadBalancerClass: example.com/a\n${P}`,
      `  type: LoadBalancer\n  loadBalancerClass: example.com/b\n${P}`,
      ["spec.loadBalancerClass: Invalid value: may not change once set"],
      [],
    ],
    [
      "healthCheckNodePort may not change while externalTrafficPolicy stays Local (updateHealthCheckNodePort)",
      `  type: LoadBalancer\n  externalTrafficPolicy: Local\n  healthCheckNodePort: 32000\n${P}`,
      `  type: LoadBalancer\n  externalTrafficPolicy: Local\n  healthCheckNodePort: 32001\n${P}`,
      [
        "spec.healthCheckNodePort: Invalid value: cannot change healthCheckNodePort on loadBalancer service with externalTraffic=Local during update",
      ],
      [],
    ],
    [
      "a nodePort left out keeps the stored one; a NodePort turned ClusterIP must drop its nodePorts",
      `  type: NodePort\n  selector: {app: web}\n  ports: [{name: http, port: 80, nodePort: 30080}]\n`,
      `  type: NodePort\n${P}`,
      [],
      [],
    ],
  ])("%s", (_, before, after, errors, warnings) => {
    const r = errorsOf(svc(before), svc(after));
    expect(r.errors.map((e) => e.replace(/: \[.*?\]|: "[^"]*"|: \d+(?=:)|: null/g, ""))).toEqual(
      errors.map((e) => e.replace(/^(.*?): (Invalid value)/, "$1: $2")),
    );
    expect(r.warnings.filter((w) => w.startsWith("KTL62"))).toEqual(warnings);
    expect(r.updated).toEqual(["Service ns/web"]);
  });

  it("a Service only in NEW is a create", () => {
    const r = errorsOf(
      svc(P),
      `${svc(P)}---\napiVersion: v1\nkind: Service\nmetadata: {name: other, namespace: ns}\nspec:\n${P}`,
    );
    expect(r.updated).toEqual(["Service ns/web"]);
    expect(r.errors).toEqual([]);
  });
});

describe("immutable fields of other kinds", () => {
  it("EndpointSlice addressType (ValidateEndpointSliceUpdate)", () => {
    const es = (t: string) =>
      `apiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata: {name: s, namespace: ns, labels: {kubernetes.io/service-name: web}}\naddressType: ${t}\nendpoints: []\n`;
    expect(errorsOf(es("IPv4"), es("IPv6")).errors).toEqual([
      "addressType: Invalid value: field is immutable",
    ]);
  });
  it("Deployment spec.selector (ValidateDeploymentUpdate); template changes are fine", () => {
    const d = (sel: string, image: string) =>
      `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: ns}\nspec:\n  selector: {matchLabels: {app: ${sel}}}\n  template: {metadata: {labels: {app: ${sel}}}, spec: {containers: [{name: c, image: ${image}}]}}\n`;
    expect(errorsOf(d("a", "x"), d("b", "x")).errors).toEqual([
      "spec.selector: Invalid value: field is immutable",
    ]);
    expect(errorsOf(d("a", "x"), d("a", "y")).errors).toEqual([]);
  });
  it("StatefulSet: only replicas, ordinals, template, updateStrategy, ... may change (ValidateStatefulSetUpdate)", () => {
    const ss = (svcName: string, replicas: number) =>
      `apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db, namespace: ns}\nspec:\n  serviceName: ${svcName}\n  replicas: ${replicas}\n  selector: {matchLabels: {app: db}}\n  template: {metadata: {labels: {app: db}}, spec: {containers: [{name: c, image: x}]}}\n`;
    expect(errorsOf(ss("db", 1), ss("db", 3)).errors).toEqual([]);
    expect(errorsOf(ss("db", 1), ss("db2", 1)).errors[0]).toMatch(
      /^spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template'/,
    );
  });
});
