/**
 * Keys of what the class matrices read, so that an analysis reuses the
 * previous one's matrices when an edit changed none of it (analysis/flows.ts
 * for NetworkPolicy's, analysis/tiers.ts for the policy stack's).
 */
import type { Model } from "../model/types.ts";
import type { PolicyIndex } from "../netpol/index.ts";
import type { PolicyRule } from "../model/networkpolicy.ts";
import type { LabelSelector } from "../model/labels.ts";

const selectorKey = (s: LabelSelector | undefined) => (s ? `${s.key}${s.invalid ? "!" : ""}` : "-");

/**
 * Everything classMatrix reads (netpol/index.ts): each class's namespace,
 * labels, hostNetwork, its representative's container ports (named ports)
 * and IP (ipBlock), the namespaces' labels (namespaceSelector), and each
 * policy's selector, isolation, peers and ports in order. Equal keys give
 * equal matrices, so an edit that changes none of these (a replica count, a
 * Service, an image) reuses the previous analysis's matrices.
 */
export function matrixInputsKey(index: PolicyIndex): string {
  let key = keys.get(index);
  if (key === undefined) keys.set(index, (key = inputsKeyOf(index)));
  return key;
}

const keys = new WeakMap<PolicyIndex, string>();

function inputsKeyOf(index: PolicyIndex): string {
  const parts: string[] = [];
  // Pod IPs matter only to ipBlock peers; without them an edit that shifts allocated IPs keeps the key.
  const ipBlocks = index.model.policies.some((pol) =>
    [...pol.ingress, ...pol.egress].some((r) => r.peers?.some((x) => x.ipBlock)),
  );
  for (const c of index.classes) {
    const ports = c.repr.ports.map((p) => `${p.name ?? ""}:${p.containerPort}/${p.protocol}`).join(",");
    parts.push(
      `${c.namespace}\0${JSON.stringify(c.labels)}\0${c.hostNetwork ? "h" : ""}\0${ports}\0${ipBlocks ? (c.repr.ips[0] ?? "") : ""}`,
    );
  }
  parts.push("\u0001");
  for (const n of index.model.namespaces.values()) parts.push(`${n.name}\0${JSON.stringify(n.labels)}`);
  parts.push("\u0001");
  const rule = (r: PolicyRule) => {
    const peers =
      r.peers === null
        ? "*"
        : r.peers
            .map((x) =>
              x.ipBlock
                ? `ip:${x.ipBlock.cidr}|${x.ipBlock.except.join(",")}`
                : `${selectorKey(x.namespaceSelector)}|${selectorKey(x.podSelector)}`,
            )
            .join(";");
    const ports =
      r.ports === null
        ? "*"
        : r.ports.map((x) => `${x.protocol}:${x.port ?? ""}-${x.endPort ?? ""}`).join(";");
    return `${peers}>${ports}`;
  };
  for (const pol of index.model.policies)
    parts.push(
      `${pol.namespace}\0${selectorKey(pol.podSelector)}\0${pol.ingressIsolation ? "i" : ""}${pol.egressIsolation ? "e" : ""}\0${pol.ingress.map(rule).join("\0")}\0\0${pol.egress.map(rule).join("\0")}`,
    );
  return parts.join("\n");
}

/**
 * Everything the stack's class matrices read: what NetworkPolicy's do
 * (`matrixInputsKey`), each cluster policy but its positions in the text
 * (its order among the policies stays: it breaks ties of priority), the
 * classes' representative IPs when a rule names networks or nodes, and the
 * nodes' labels and addresses when a rule names nodes.
 */
export function tierInputsKey(model: Model, index: PolicyIndex): string {
  const drop = new Set(["source", "lines", "line", "parsed"]);
  const policies = JSON.stringify(model.clusterPolicies, (k, v: unknown) => (drop.has(k) ? undefined : v));
  const parts = [matrixInputsKey(index), policies];
  const peers = model.clusterPolicies.flatMap((p) => [...p.ingress, ...p.egress].flatMap((r) => r.peers));
  const nodes = peers.some((x) => x.nodes);
  if (nodes || peers.some((x) => x.networks))
    parts.push(index.classes.map((c) => c.repr.ips[0] ?? "").join(","));
  if (nodes)
    for (const n of model.nodes)
      parts.push(`${n.name}\0${JSON.stringify(n.labels)}\0${JSON.stringify(n.addresses)}`);
  return parts.join("\u0002");
}
