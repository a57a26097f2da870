/**
 * One input whose verdict changes with the cluster profile: an external
 * client on a NodePort with externalTrafficPolicy Cluster, the only
 * endpoint on the receiving node, a deny-all ingress NetworkPolicy.
 * kube-proxy masquerades the packet to the node's address. Calico (Felix
 * filters in FORWARD, before nat POSTROUTING) sees the client and denies;
 * Cilium with kube-proxy sees the local host, which allow-localhost
 * admits; Cilium's kube-proxy replacement does not SNAT toward a local
 * backend and denies; generic Kubernetes leaves it undefined and says so.
 */
import { describe, expect, it } from "vitest";
import { buildProxyIndex, loadModel } from "../index.ts";
import { traceRequest } from "../trace/index.ts";
import type { CniName } from "./profile.ts";

const INPUT = `apiVersion: v1
kind: Node
metadata: {name: node-1}
spec: {podCIDR: 10.244.1.0/24}
status: {addresses: [{type: InternalIP, address: 172.18.0.2}]}
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: shop, labels: {app: web}}
spec: {nodeName: node-1, containers: [{name: c, image: x, ports: [{containerPort: 8080}]}]}
status: {phase: Running, podIP: 10.244.1.10, podIPs: [{ip: 10.244.1.10}], conditions: [{type: Ready, status: "True"}]}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec: {type: NodePort, selector: {app: web}, ports: [{port: 80, targetPort: 8080, nodePort: 30080}]}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny-all, namespace: shop}
spec: {podSelector: {}, policyTypes: [Ingress]}
`;

function trace(cni?: CniName, extra = "") {
  const model = loadModel([{ name: "in.yaml", text: INPUT + extra }], cni ? { cni } : {});
  return traceRequest(model, buildProxyIndex(model), "external:203.0.113.7@node-1", "service:shop/web:80");
}

describe("the cluster profile decides what Kubernetes leaves to the CNI", () => {
  it.each<[CniName, "allow" | "drop", string]>([
    ["generic", "allow", "depends on the CNI: with Calico, denied"],
    ["calico", "drop", "Felix filters before kube-proxy's MASQUERADE"],
    ["cilium", "allow", "allow-localhost admits the local host"],
    ["cilium-kpr", "drop", "does not masquerade toward a local backend"],
    ["flannel", "allow", "enforces no NetworkPolicy"],
  ])("%s: %s", (cni, verdict, words) => {
    const t = trace(cni);
    expect(t.verdict).toBe(verdict);
    expect(JSON.stringify(t.hops)).toContain(words);
  });
  it("reads the profile from a cilium-config ConfigMap", () => {
    const t = trace(
      undefined,
      `---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cilium-config, namespace: kube-system}\ndata: {kube-proxy-replacement: "true"}\n`,
    );
    expect(t.profile).toContain(
      "Cilium (kube-proxy replacement), read from ConfigMap kube-system/cilium-config",
    );
    expect(t.verdict).toBe("drop");
  });
});
