/**
 * Asked by workload, the lit path is every pod's: each pod's first part with
 * its own verdict, and a part the pods share (the Service to one backend)
 * partial when their traces judge it differently. Here the backend admits
 * only node-a's pod CIDR (NetworkPolicyPeer ipBlock), so the client pod on
 * node-a is allowed and the one on node-b is not.
 */
import { describe, expect, it } from "vitest";
import { openAnalysis } from "./index.ts";

const text = `apiVersion: v1
kind: Node
metadata: {name: node-a}
spec: {podCIDR: 10.244.1.0/24}
---
apiVersion: v1
kind: Node
metadata: {name: node-b}
spec: {podCIDR: 10.244.2.0/24}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: client, namespace: shop}
spec:
  selector: {matchLabels: {app: client}}
  template:
    metadata: {labels: {app: client}}
    spec: {containers: [{name: c, image: x}]}
---
apiVersion: v1
kind: Pod
metadata: {name: db, namespace: shop, labels: {app: db}}
spec: {nodeName: node-a, containers: [{name: c, image: x, ports: [{containerPort: 5432}]}]}
---
apiVersion: v1
kind: Service
metadata: {name: db, namespace: shop}
spec:
  selector: {app: db}
  ports: [{port: 5432}]
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: only-node-a, namespace: shop}
spec:
  podSelector: {matchLabels: {app: db}}
  ingress: [{from: [{ipBlock: {cidr: 10.244.1.0/24}}]}]
`;

describe("a workload question lights every pod's path", () => {
  it("each pod's own verdict, and the shared Service-to-backend part partial", () => {
    const session = openAnalysis([{ name: "m.yaml", text }]);
    const t = session.trace({ from: "workload:shop/client", to: "service:shop/db:5432", protocol: "TCP" });
    expect(t.error).toBeUndefined();
    expect(t.workload?.verdict).toBe("partial");
    const pods = t.workload!.pairs.map((p) => [p.from, p.verdict]);
    expect(pods.map(([, v]) => v).sort()).toEqual(["allow", "drop"]);
    const rep = t.workload!.representative.from;
    const parts = t.edges.map((e) => [e.source, e.target, e.verdict]);
    // The traced (refused) pod's part first; then the other pod's; the shared part once, partial.
    expect(parts[0]).toEqual([rep, "service:shop/db", "drop"]);
    expect(parts).toEqual(
      expect.arrayContaining([
        ...pods.map(([from, v]) => [from, "service:shop/db", v]),
        ["service:shop/db", "pod:shop/db", "partial"],
      ]),
    );
    expect(parts).toHaveLength(3);
    const shared = t.edges.find((e) => e.target === "pod:shop/db")!;
    expect(shared.reason).toContain("; ");
    expect(shared.decidedBy.length).toBeGreaterThan(0);
    expect(t.path).toEqual(
      expect.arrayContaining([...pods.map(([from]) => from), "service:shop/db", "pod:shop/db"]),
    );
  });
});
