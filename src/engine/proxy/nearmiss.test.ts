/**
 * Near misses for kube-proxy drops: the one Service edit that would give it an endpoint.
 * Upstream: the EndpointSlice controller selects with labels.SelectorFromSet in the Service's namespace and
 * resolves a named targetPort with podutil.FindPort (pkg/controller/endpointslice reconciler); kube-proxy
 * DROPs "has no local endpoints" under a Local traffic policy (pkg/proxy/topology.go CategorizeEndpoints).
 */
import { describe, expect, it } from "vitest";
import { loadModel } from "../index.ts";
import { buildProxyIndex } from "./index.ts";
import { traceRequest } from "../trace/index.ts";

const nodes = `
apiVersion: v1
kind: Node
metadata: {name: node-a}
status: {addresses: [{type: InternalIP, address: 192.168.0.2}]}
---
apiVersion: v1
kind: Node
metadata: {name: node-b}
status: {addresses: [{type: InternalIP, address: 192.168.0.3}]}
---
apiVersion: v1
kind: Pod
metadata: {name: client, namespace: shop}
spec: {nodeName: node-a, containers: [{name: c, image: x}]}
`;
const web = (ns: string, labels: string, ports: string, node = "node-b") => `
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: ${ns}}
spec:
  replicas: 1
  selector: {matchLabels: ${labels}}
  template:
    metadata:
      labels: ${labels}
    spec:
      nodeName: ${node}
      containers: [{name: c, image: x, ports: ${ports}}]
`;
const svc = (spec: string) => `
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec:
${spec}
`;

function missesOf(text: string) {
  const model = loadModel([{ name: "m.yaml", text }]);
  const t = traceRequest(model, buildProxyIndex(model), "pod:shop/client", "service:shop/web:80");
  const hop = t.hops.find((h) => h.step === "kube-proxy")!;
  return { t, hop, misses: hop.cause.layer === "kube-proxy" ? (hop.cause.nearMisses ?? []) : [] };
}

describe("kube-proxy near misses", () => {
  it.each([
    [
      "a selector one label off: change its value to the pods'",
      nodes +
        web("shop", "{app: webapp, tier: front}", "[{name: http, containerPort: 8080}]") +
        svc("  selector: {app: web, tier: front}\n  ports: [{port: 80, targetPort: http}]"),
      {
        condition: "selector",
        text: "the selector of Service shop/web matches the pods of Deployment shop/web but for one label: it asks `app=web`; they have `app=webapp`",
        edit: { field: "spec.selector.app", value: "webapp" },
        ruleLine: "  selector:",
      },
    ],
    [
      "a targetPort name the pods do not declare: change it to theirs",
      nodes +
        web("shop", "{app: web}", "[{name: web, containerPort: 8080}]") +
        svc("  selector: {app: web}\n  ports: [{port: 80, targetPort: http}]"),
      {
        condition: "targetPort",
        text: "targetPort `http` of Service shop/web port 80 names no TCP container port of the pods of Deployment shop/web; they declare `web` (8080)",
        edit: { field: "spec.ports[0].targetPort", value: "web" },
        ruleLine: "  ports:",
      },
    ],
    [
      "pods of another namespace: named, no one-line edit",
      nodes +
        web("other", "{app: web}", "[{containerPort: 8080}]") +
        svc("  selector: {app: web}\n  ports: [{port: 80, targetPort: 8080}]"),
      {
        condition: "namespace",
        text: "the pods of Deployment other/web match the selector of Service shop/web, but a Service selects pods of its own namespace (shop), not other",
        edit: undefined,
        ruleLine: "  selector:",
      },
    ],
    [
      "internalTrafficPolicy Local with the only endpoint on another node: Cluster",
      nodes +
        web("shop", "{app: web}", "[{containerPort: 8080}]") +
        svc(
          "  selector: {app: web}\n  internalTrafficPolicy: Local\n  ports: [{port: 80, targetPort: 8080}]",
        ),
      {
        condition: "trafficPolicy",
        text: "internalTrafficPolicy Local keeps the packet on node-a, which has no endpoint; the ready endpoint is on node-b (shop/web-",
        edit: { field: "spec.internalTrafficPolicy", value: "Cluster" },
        ruleLine: "  internalTrafficPolicy:",
      },
    ],
  ])("%s", (_what, text, want) => {
    const { t, misses } = missesOf(text);
    expect(t.verdict).toBe("drop");
    expect(misses).toHaveLength(1);
    const m = misses[0]!;
    expect(m.condition).toBe(want.condition);
    expect(m.text.startsWith(want.text)).toBe(true);
    expect(m.edit ? { field: m.edit.field, value: m.edit.value } : undefined).toEqual(want.edit);
    // The Service's own line for the field: its selector, its port, its traffic policy.
    let line = 0;
    text.split("\n").forEach((l, i) => {
      if (l.startsWith(want.ruleLine)) line = i + 1;
    });
    expect(m.ruleRef).toMatchObject({ kind: "Service", namespace: "shop", name: "web", line });
    expect(m.objectRef).toBeDefined();
  });

  it("no near miss when the Service works, or when nothing is close", () => {
    const ok = missesOf(
      nodes +
        web("shop", "{app: web}", "[{containerPort: 8080}]") +
        svc("  selector: {app: web}\n  ports: [{port: 80, targetPort: 8080}]"),
    );
    expect(ok.t.verdict).toBe("allow");
    expect(ok.misses).toEqual([]);
    const far = missesOf(
      nodes +
        web("shop", "{app: a, tier: b}", "[{containerPort: 8080}]") +
        svc("  selector: {app: x, tier: y}\n  ports: [{port: 80}]"),
    );
    expect(far.t.verdict).toBe("drop");
    expect(far.misses).toEqual([]);
  });
});
