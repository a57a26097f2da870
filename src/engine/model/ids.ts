/**
 * The one spelling of every endpoint id the engine hands out: the graph's
 * element ids, the sources and destinations of flows (analysis, diff,
 * what-if marks), and `ktl trace --from` for an outside client. Parse them
 * here too: nothing else splits an id on `@` or `:`.
 */

/** The address the playground and `ktl diff` give the client outside the cluster (TEST-NET-3, RFC 5737). */
export const EXTERNAL_CLIENT_IP = "203.0.113.10";

export const podId = (key: string): string => `pod:${key}`;
export const nodeId = (name: string): string => `node:${name}`;
export const serviceId = (key: string): string => `service:${key}`;

/** The graph's id of a client outside the cluster: one per address, whatever node it arrives at. */
export const externalId = (ip: string): string => `external:${ip}`;

/** An outside client arriving at one node: a flow's source and `ktl trace --from external:IP@NODE`. */
export const externalAtNode = (ip: string, node: string): string => `external:${ip}@${node}`;

/** `external:IP@NODE` -> its address and node (an IPv6 address may be bracketed); undefined for any other id. */
export function parseExternalAtNode(id: string): { ip: string; node: string } | undefined {
  if (!id.startsWith("external:")) return undefined;
  const rest = id.slice("external:".length);
  const at = rest.lastIndexOf("@");
  if (at <= 0 || at === rest.length - 1) return undefined;
  return { ip: rest.slice(0, at).replace(/^\[(.*)\]$/, "$1"), node: rest.slice(at + 1) };
}

/** A flow end as the graph draws it: `external:IP@NODE` -> `external:IP`; any other id unchanged. */
export function graphEndpointId(id: string): string {
  const ext = parseExternalAtNode(id);
  return ext ? externalId(ext.ip) : id;
}

/** A workload: `NAMESPACE/KIND/NAME` (the what-if scale action's id). */
export const workloadKey = (w: { namespace: string; kind: string; name: string }): string =>
  `${w.namespace}/${w.kind}/${w.name}`;
/** A workload's graph id: `workload:NAMESPACE/KIND/NAME`. */
export const workloadId = (w: { namespace: string; kind: string; name: string }): string =>
  `workload:${workloadKey(w)}`;
