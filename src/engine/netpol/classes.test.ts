/**
 * Classes leave out the labels no selector reads (buildPolicyIndex): a
 * StatefulSet's replicas, told apart only by their pod-name label, share a
 * class, unless something that judges senders reads that label.
 */
import { describe, expect, it } from "vitest";
import { buildPolicyIndex, loadModel } from "../index.ts";

const REPLICAS = `apiVersion: v1
kind: Node
metadata: {name: n1}
spec: {podCIDR: 10.244.1.0/24}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: shop}
spec:
  replicas: 3
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {nodeName: n1, containers: [{name: c, ports: [{containerPort: 5432}]}]}
---
apiVersion: v1
kind: Pod
metadata: {name: lone-1, namespace: shop, labels: {app: lone, n: "1"}}
spec: {nodeName: n1, containers: [{name: c}]}
---
apiVersion: v1
kind: Pod
metadata: {name: lone-2, namespace: shop, labels: {app: lone, n: "2"}}
spec: {nodeName: n1, containers: [{name: c}]}
`;

const policy = (podSelector: string) => `---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: p, namespace: shop}
spec: {podSelector: ${podSelector}, policyTypes: [Ingress]}
`;

/** Pod names by class, each class's names sorted. */
function classesOf(text: string): string[][] {
  const index = buildPolicyIndex(loadModel([{ name: "c.yaml", text }]));
  return index.classes.map((c) => c.pods.map((p) => p.name).sort());
}

describe("classes key pods by the labels some selector reads", () => {
  it("puts a StatefulSet's replicas in one class, and pods of no controller apart when their labels differ", () => {
    // Bare pods whose labels differ stay apart even where no selector reads the label (the graph groups senders by class).
    expect(classesOf(REPLICAS + policy("{matchLabels: {app: db}}"))).toEqual([
      ["db-0", "db-1", "db-2"],
      ["lone-1"],
      ["lone-2"],
    ]);
  });

  it("splits them again when a selector reads the pod-name label", () => {
    const text = REPLICAS + policy("{matchLabels: {statefulset.kubernetes.io/pod-name: db-1}}");
    expect(classesOf(text)).toEqual([["db-0"], ["db-1"], ["db-2"], ["lone-1"], ["lone-2"]]);
  });

  it("keeps every label when a CNI dialect or Istio may judge senders by one", () => {
    const cilium = `---
apiVersion: cilium.io/v2
kind: CiliumNetworkPolicy
metadata: {name: one, namespace: shop}
spec:
  endpointSelector: {matchLabels: {app: db}}
  ingress: [{fromEndpoints: [{matchLabels: {statefulset.kubernetes.io/pod-name: db-1}}]}]
`;
    const istio = `---
apiVersion: networking.istio.io/v1
kind: Sidecar
metadata: {name: s, namespace: shop}
spec: {workloadSelector: {labels: {statefulset.kubernetes.io/pod-name: db-1}}}
`;
    for (const extra of [cilium, istio])
      expect(classesOf(REPLICAS + extra)).toEqual([["db-0"], ["db-1"], ["db-2"], ["lone-1"], ["lone-2"]]);
  });
});
