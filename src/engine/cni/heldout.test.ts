/**
 * Four answers a held-out round found wrong, each a documented behaviour,
 * asked through the one decider and the trace as every surface asks them:
 * (a) Calico: a notSelector alone scopes a namespaced policy's rule to its
 *     namespace (libcalico-go updateprocessors/rules.go getEndpointSelector);
 * (b) Calico: a host's traffic to its own workloads is not policed, without
 *     a HostEndpoint (felix/rules/static.go filterOutputChain);
 * (c) Cilium: the kube-apiserver entity covers an API server outside the
 *     cluster, the endpoints of default/kubernetes (Documentation/security/
 *     policy/language.rst, "Entities Based");
 * (d) Istio: a sidecar with outboundTrafficPolicy ALLOW_ANY does not bypass
 *     the pod's egress NetworkPolicy (istio.io, Egress Gateways, "Additional
 *     security considerations": Kubernetes network policies must block what
 *     the mesh lets out), so the connection is dropped.
 */
import { describe, expect, it } from "vitest";
import { cluster, type PodSpec } from "./testkit.ts";
import { deciderOf } from "../decide/index.ts";
import { asPodKey } from "../model/ids.ts";
import { buildProxyIndex } from "../proxy/index.ts";
import { traceRequest } from "../trace/index.ts";
import { loadModel } from "../load/index.ts";
import { parseAnyDestination, traceL7 } from "../l7/index.ts";
import { parseHttpRequestLine } from "../http/request.ts";
import type { Model } from "../model/types.ts";

const pair = (m: Model, from: string, to: string, port = 80) =>
  deciderOf(m).explain(m.podsByKey.get(asPodKey(from))!, m.podsByKey.get(asPodKey(to))!, port, "TCP").allowed;

describe("(a) Calico notSelector in a namespaced policy (getEndpointSelector)", () => {
  const pods: PodSpec[] = [
    { ns: "a", name: "server", labels: { app: "server" } },
    { ns: "a", name: "client", labels: { app: "client" }, node: 2 },
    { ns: "a", name: "bad", labels: { role: "bad" }, node: 2 },
    { ns: "b", name: "client", labels: { app: "client" }, node: 2 },
  ];
  const policy = (kind: string, ns: string) =>
    `apiVersion: projectcalico.org/v3\nkind: ${kind}\nmetadata: {name: p${ns ? `, namespace: ${ns}` : ""}}\nspec:\n  selector: app == 'server'\n  types: [Ingress]\n  ingress: [{action: Allow, source: {notSelector: role == 'bad'}}]`;
  it.each([
    [
      "a namespaced NetworkPolicy: only its namespace's endpoints pass",
      policy("NetworkPolicy", "a"),
      [true, false, false],
    ],
    ["a GlobalNetworkPolicy: every namespace passes", policy("GlobalNetworkPolicy", ""), [true, false, true]],
  ] as const)("%s", (_, text, [sameNs, bad, otherNs]) => {
    const m = cluster(pods, text);
    expect([
      pair(m, "a/client", "a/server"),
      pair(m, "a/bad", "a/server"),
      pair(m, "b/client", "a/server"),
    ]).toEqual([sameNs, bad, otherNs]);
  });
  it("an address outside the cluster does not pass a namespaced notSelector (it needs an endpoint of the namespace)", () => {
    const m = cluster(pods, policy("NetworkPolicy", "a"));
    const server = m.podsByKey.get(asPodKey("a/server"))!;
    expect(deciderOf(m).ingress(server, { ip: "203.0.113.9" }, 80, "TCP")).toBe(false);
  });
});

describe("(b) Calico lets a host's traffic reach its own workloads (filterOutputChain)", () => {
  const pods: PodSpec[] = [
    { ns: "a", name: "server", labels: { app: "server" }, node: 1 },
    { ns: "a", name: "agent", labels: { app: "agent" }, node: 1, hostNetwork: true },
    { ns: "a", name: "agent2", labels: { app: "agent" }, node: 2, hostNetwork: true },
  ];
  const denyAll =
    "apiVersion: projectcalico.org/v3\nkind: GlobalNetworkPolicy\nmetadata: {name: deny-all}\nspec:\n  selector: all()\n  types: [Ingress]";
  it.each([
    ["a host-network pod on the server's node", "a/agent", true],
    ["a host-network pod on another node", "a/agent2", false],
  ] as const)("%s", (_, from, allowed) => {
    expect(pair(cluster(pods, denyAll), from, "a/server")).toBe(allowed);
  });
  it.each([
    ["node:node-1", "allow"],
    ["node:node-2", "drop"],
  ] as const)("the trace from %s", (from, verdict) => {
    const m = cluster(pods, denyAll);
    const t = traceRequest(m, buildProxyIndex(m), from, "pod:a/server:80", "TCP");
    expect(t.verdict).toBe(verdict);
    if (verdict === "allow")
      expect(t.hops.find((h) => h.step === "ingress policy at backend")?.detail).toMatch(
        /Felix does not police/,
      );
  });
});

describe("(c) Cilium's kube-apiserver entity covers an API server outside the cluster (language.rst)", () => {
  const text = `apiVersion: v1
kind: Pod
metadata: {name: app, namespace: a, labels: {app: app}}
spec: {nodeName: node-1, containers: [{name: c, image: i}]}
---
apiVersion: v1
kind: Service
metadata: {name: kubernetes, namespace: default}
spec: {clusterIP: 10.96.0.1, ports: [{name: https, port: 443, targetPort: 6443}]}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: kubernetes, namespace: default, labels: {kubernetes.io/service-name: kubernetes}}
addressType: IPv4
endpoints: [{addresses: [198.51.100.10]}]
ports: [{name: https, port: 6443, protocol: TCP}]
---
apiVersion: cilium.io/v2
kind: CiliumNetworkPolicy
metadata: {name: to-apiserver, namespace: a}
spec:
  endpointSelector: {}
  egress: [{toEntities: [kube-apiserver]}]
`;
  it.each([
    ["the API server's address (outside the cluster)", "ip:198.51.100.10:6443", "allow"],
    ["the kubernetes Service, to the same endpoint", "service:default/kubernetes:443", "allow"],
    ["any other outside address", "ip:198.51.100.11:6443", "drop"],
  ] as const)("%s", (_, to, verdict) => {
    const m = loadModel([{ name: "a.yaml", text }], { cni: "cilium" });
    expect(traceRequest(m, buildProxyIndex(m), "pod:a/app", to, "TCP").verdict).toBe(verdict);
  });
});

describe("(d) an Istio sidecar with ALLOW_ANY does not bypass the pod's egress NetworkPolicy", () => {
  const text = (egress: string) => `apiVersion: v1
kind: Namespace
metadata: {name: shop, labels: {istio-injection: enabled}}
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: shop, labels: {app: web}}
spec: {nodeName: node-1, containers: [{name: c, image: i}]}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: egress, namespace: shop}
spec:
  podSelector: {}
  policyTypes: [Egress]
  egress: ${egress}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: istio, namespace: istio-system}
data: {mesh: "outboundTrafficPolicy:\\n  mode: ALLOW_ANY\\n"}
`;
  it.each([
    [
      "egress to DNS only: dropped by the NetworkPolicy",
      "[{ports: [{protocol: UDP, port: 53}]}]",
      "drop",
      "NetworkPolicy",
    ],
    ["egress to every address on 80: allowed", "[{ports: [{protocol: TCP, port: 80}]}]", "allow", undefined],
    ["egress to 0.0.0.0/0: allowed", "[{to: [{ipBlock: {cidr: 0.0.0.0/0}}]}]", "allow", undefined],
  ] as const)("%s", (_, egress, verdict, layer) => {
    const m = loadModel([{ name: "a.yaml", text: text(egress) }]);
    const to = parseAnyDestination("host:httpbin.org:80");
    if ("error" in to) throw new Error(to.error);
    const req = parseHttpRequestLine("GET /");
    if ("error" in req) throw new Error(req.error);
    const t = traceL7(m, buildProxyIndex(m), "pod:shop/web", to, "TCP", req);
    expect([t.verdict, t.decidedBy?.layer]).toEqual([verdict, layer]);
    // The mesh's own decision is still shown: the sidecar lets it out.
    expect(t.hops.some((h) => h.step === "outbound traffic policy" && h.verdict === "pass")).toBe(true);
  });
});
