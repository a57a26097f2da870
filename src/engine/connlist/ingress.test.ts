import { describe, expect, it } from "vitest";
import { parseManifests } from "../parse/manifests.ts";
import type { Diagnostic } from "../parse/diagnostics.ts";
import type { ContainerPort } from "../model/types.ts";
import { backendPodPorts, backendService, parseIngressBackends, type IngressBackend } from "./ingress.ts";

const objects = (text: string) => parseManifests([{ name: "in.yaml", text }]).objects;

describe("Ingress and Route backends", () => {
  it("reads Ingress defaultBackend and every rule path (networking.k8s.io/v1 IngressBackend.service)", () => {
    const diags: Diagnostic[] = [];
    const b = parseIngressBackends(
      objects(`apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: ing, namespace: shop}
spec:
  defaultBackend: {service: {name: web, port: {name: http}}}
  rules:
  - http:
      paths:
      - {path: /a, pathType: Prefix, backend: {service: {name: api, port: {number: 8080}}}}
      - {path: /b, pathType: Prefix, backend: {resource: {kind: Bucket, name: b}}}
`),
      diags,
    );
    expect(b.map((x) => [x.namespace, x.serviceName, x.port, x.line])).toEqual([
      ["shop", "web", "http", 5],
      ["shop", "api", 8080, 9],
    ]);
  });

  it("reads Route spec.to and alternateBackends of kind Service, with spec.port.targetPort; warns about other kinds (demo_app_with_routes_and_ingress)", () => {
    const diags: Diagnostic[] = [];
    const b = parseIngressBackends(
      objects(`apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: r}
spec:
  to: {kind: Service, name: a}
  alternateBackends: [{name: b}, {kind: Other, name: c}]
  port: {targetPort: 8060}
`),
      diags,
    );
    expect(b.map((x) => [x.namespace, x.serviceName, x.port])).toEqual([
      ["default", "a", 8060],
      ["default", "b", 8060],
    ]);
    expect(diags.map((d) => d.code)).toEqual(["KTL701"]);
  });
});

describe("backendPodPorts: Service port -> targetPort -> container port (netpol-analyzer README item 16)", () => {
  const [svcObj] = objects(`apiVersion: v1
kind: Service
metadata: {name: s}
spec:
  selector: {app: x}
  ports:
  - {name: http, port: 80, targetPort: web}
  - {name: metrics, port: 9100}
  - {name: alt, port: 81, targetPort: 8081}
`);
  const svc = backendService(svcObj!);
  const pod: ContainerPort[] = [
    { name: "web", containerPort: 8080, protocol: "TCP" },
    { containerPort: 9100, protocol: "UDP" },
    { name: "udpweb", containerPort: 7000, protocol: "UDP" },
  ];
  const backend = (port?: number | string): IngressBackend => ({
    source: { kind: "Ingress", name: "i", file: "in.yaml", doc: 0, line: 1 },
    namespace: "default",
    serviceName: "s",
    line: 1,
    ...(port === undefined ? {} : { port }),
  });

  it.each<[string, number | string | undefined, number[]]>([
    [
      "acs-security-demos: a name matches the Service port of that name; its named targetPort resolves on the pod",
      "http",
      [8080],
    ],
    ["k8s_ingress_test: a number matches the Service port", 80, [8080]],
    ["a value equal to a targetPort matches too", "web", [8080]],
    ["targetPort unset: the Service port number, which the pod declares (of any protocol)", 9100, [9100]],
    ["a target the pod does not declare is dropped", 81, []],
    ["a name no Service port has reaches nothing", "nope", []],
    ["no port: every Service port (demo_app_with_routes_and_ingress Routes)", undefined, [8080, 9100]],
  ])("%s", (_, port, want) => {
    expect(backendPodPorts(backend(port), svc, pod)).toEqual(want);
  });

  it("a named targetPort must be a TCP container port", () => {
    const [o] = objects(
      "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {selector: {app: x}, ports: [{port: 70, targetPort: udpweb}]}\n",
    );
    expect(backendPodPorts(backend(70), backendService(o!), pod)).toEqual([]);
  });
});
