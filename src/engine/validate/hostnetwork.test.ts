/**
 * A host-network pod that a NetworkPolicy selects by its labels: the policy
 * does select it; the network plugin is what leaves it out. kubernetes.io,
 * Network Policies, "NetworkPolicy and hostNetwork pods": "NetworkPolicy
 * behaviour for hostNetwork pods is undefined", and in "the most common
 * implementation" the plugin "ignores hostNetwork pods when matching
 * podSelector and namespaceSelector", their traffic being the node's. ktl
 * answers by that implementation; lint and trace say why, instead of
 * "namespace default has no pods" and "no NetworkPolicy selects it".
 */
import { describe, expect, it } from "vitest";
import { loadModel } from "../load/index.ts";
import { validateModel } from "./index.ts";
import { buildProxyIndex } from "../proxy/index.ts";
import { traceRequest } from "../trace/index.ts";

const input = (agentLabels: string, hostNetwork = true) => `apiVersion: v1
kind: Pod
metadata: {name: agent, namespace: default, labels: ${agentLabels}}
spec: {hostNetwork: ${hostNetwork}, nodeName: node-1, containers: [{name: c, image: i, ports: [{containerPort: 9100}]}]}
---
apiVersion: v1
kind: Pod
metadata: {name: client, namespace: other, labels: {app: client}}
spec: {nodeName: node-2, containers: [{name: c, image: i}]}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: agent-ingress, namespace: default}
spec:
  podSelector: {matchLabels: {app: agent}}
  policyTypes: [Ingress]
  ingress: [{from: [{podSelector: {matchLabels: {app: prometheus}}}]}]
`;

describe("a NetworkPolicy over a host-network pod", () => {
  it.each([
    {
      name: "selects only host-network pods: lint says so and names the CNI's host policy",
      text: input("{app: agent}"),
      message: /selects only host-network pods \(default\/agent\)/,
      hint: /hostNetwork: false|HostEndpoint/,
    },
    {
      name: "selects nothing, with a host-network pod of other labels: no 'has no pods'",
      text: input("{app: other}"),
      message: /no pods on the pod network \(only 1 host-network pod/,
      hint: /Create the policy in the namespace/,
    },
  ])("$name", ({ text, message, hint }) => {
    const w = validateModel(loadModel([{ name: "a.yaml", text }])).warnings.find((x) => x.code === "KTL601");
    expect(w?.detail).toMatch(message);
    expect(w?.hint).toMatch(hint);
    expect(w?.detail).not.toMatch(/namespace default has no pods\)/);
  });

  it.each([
    {
      name: "on the host network: allowed, and the trace names the policy that selects it",
      text: input("{app: agent}"),
      verdict: "allow",
      reason:
        /default\/agent uses the host network: NetworkPolicy default\/agent-ingress selects it for ingress by its labels, but the network plugin cannot tell/,
    },
    {
      name: "the same pod on the pod network: the policy isolates it",
      text: input("{app: agent}", false),
      verdict: "drop",
      reason: /isolated for ingress by default\/agent-ingress/,
    },
  ])("$name", ({ text, verdict, reason }) => {
    const m = loadModel([{ name: "a.yaml", text }]);
    const t = traceRequest(m, buildProxyIndex(m), "pod:other/client", "pod:default/agent:9100", "TCP");
    expect(t.verdict).toBe(verdict);
    const hop = t.hops.find((h) => h.step === "ingress policy at backend");
    expect(hop?.detail).toMatch(reason);
    expect(hop?.detail).not.toMatch(/no NetworkPolicy selects/);
  });
});
