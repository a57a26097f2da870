/** The sender as the trace sees it. */
import type { SourceRef } from "../parse/manifests.ts";
import type { Model, Node, Pod } from "../model/types.ts";
import type { Family } from "../model/ip.ts";
import { nodeAddress } from "../proxy/index.ts";
import type { TraceSource } from "./types.ts";
import { familyOf } from "./format.ts";

export interface Client {
  kind: "pod" | "node" | "external";
  name: string;
  pod?: Pod;
  /** The node the sender is on (pod, node) or whose interface the packet arrives at (external). */
  node: Node;
  /** Sends from the node's network namespace (node, hostNetwork pod). */
  host: boolean;
  ip(family: Family): string | undefined;
  ref?: SourceRef;
}

export function resolveClient(model: Model, from: TraceSource): Client | { error: string } {
  if (from.kind === "pod") {
    const pod = model.podsByKey.get(from.pod);
    if (!pod) return { error: `--from pod:${from.pod}: no pod ${from.pod} in the input` };
    const node = pod.nodeName ? model.nodesByName.get(pod.nodeName) : undefined;
    if (!node)
      return { error: `--from pod:${from.pod}: the pod is not scheduled on any node, so it sends nothing` };
    return {
      kind: "pod",
      name: pod.key,
      pod,
      node,
      host: pod.hostNetwork,
      ref: pod.source,
      ip: (f) =>
        pod.ips.find((ip) => familyOf(ip) === f) ?? (pod.hostNetwork ? nodeAddress(node, f) : undefined),
    };
  }
  if (from.kind === "node") {
    const node = model.nodesByName.get(from.node);
    if (!node)
      return {
        error: `--from node:${from.node}: no node ${from.node} in the input (nodes: ${model.nodes.map((n) => n.name).join(", ")})`,
      };
    const c: Client = { kind: "node", name: node.name, node, host: true, ip: (f) => nodeAddress(node, f) };
    if (node.source) c.ref = node.source;
    return c;
  }
  const node = model.nodesByName.get(from.node);
  if (!node)
    return {
      error: `--from external:${from.ip}@${from.node}: no node ${from.node} in the input (nodes: ${model.nodes.map((n) => n.name).join(", ")})`,
    };
  const fam = familyOf(from.ip);
  return { kind: "external", name: from.ip, node, host: false, ip: (f) => (f === fam ? from.ip : undefined) };
}
