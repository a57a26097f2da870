/** Small clusters for the CNI tests: two nodes, pods given by namespace/name and labels. */
import { loadModel } from "../index.ts";
import type { Model } from "../model/types.ts";

export interface PodSpec {
  ns: string;
  name: string;
  labels?: Record<string, string>;
  node?: 1 | 2;
  ports?: { name: string; port: number; protocol?: string }[];
  sa?: string;
  hostNetwork?: boolean;
}

let ipSeq = 0;

export function cluster(
  pods: PodSpec[],
  policies: string,
  namespaces: Record<string, Record<string, string>> = {},
): Model {
  ipSeq = 0;
  const docs: string[] = [];
  for (const n of [1, 2]) {
    docs.push(`apiVersion: v1
kind: Node
metadata: {name: node-${n}}
spec: {podCIDR: 10.244.${n}.0/24}
status: {addresses: [{type: InternalIP, address: 172.18.0.${n + 1}}]}`);
  }
  const nss = new Set([...pods.map((p) => p.ns), ...Object.keys(namespaces)]);
  for (const ns of nss)
    docs.push(
      `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${ns}\n  labels: ${JSON.stringify({ "kubernetes.io/metadata.name": ns, ...(namespaces[ns] ?? {}) })}`,
    );
  for (const p of pods) {
    const node = p.node ?? 1;
    const ip = p.hostNetwork ? `172.18.0.${node + 1}` : `10.244.${node}.${10 + ipSeq++}`;
    const ports = (p.ports ?? [{ name: "http", port: 80 }]).map((x) => ({
      name: x.name,
      containerPort: x.port,
      protocol: x.protocol ?? "TCP",
    }));
    docs.push(`apiVersion: v1
kind: Pod
metadata: {name: ${p.name}, namespace: ${p.ns}, labels: ${JSON.stringify(p.labels ?? {})}}
spec: {nodeName: node-${node}, serviceAccountName: ${p.sa ?? "default"}, hostNetwork: ${p.hostNetwork ?? false}, containers: [{name: c, image: x, ports: ${JSON.stringify(ports)}}]}
status: {phase: Running, podIP: ${ip}, podIPs: [{ip: ${ip}}], conditions: [{type: Ready, status: "True"}]}`);
  }
  return loadModel([{ name: "test.yaml", text: `${docs.join("\n---\n")}\n---\n${policies}` }]);
}
