/**
 * The one spelling of every endpoint id the engine hands out: the graph's
 * element ids, the sources and destinations of flows (analysis, diff,
 * what-if marks), and `ktl trace --from` for an outside client. Parse them
 * here too: nothing else splits an id on `@` or `:`.
 *
 * Ids and indices that can be confused are branded: the same string or
 * number at run time (JSON unchanged), a different type at compile time, so
 * a pod key cannot be passed where a workload key or an endpoint id is
 * meant, nor an index into spec.ports where a valid-port slot is. Make them
 * with the constructors below; `ids.test-d.ts` holds what the type-check
 * rejects.
 */

/** Index of an entry in a list as written (`spec.ports[3]`): for field paths and lines only. */
export type SpecIndex = number & { readonly __brand: "SpecIndex" };
/**
 * Position of a port among a Service's valid ports (Service.ports), which is
 * not its SpecIndex when an earlier entry is invalid (a port outside
 * 1..65535, KTL501): the endpoint lists (proxy PortEndpoints) are indexed by
 * it. The hostile-input port-index crash was the two confused.
 */
export type PortSlot = number & { readonly __brand: "PortSlot" };
/** A pod: `NAMESPACE/NAME`. */
export type PodKey = string & { readonly __brand: "PodKey" };
/** A workload: `NAMESPACE/KIND/NAME`. */
export type WorkloadKey = string & { readonly __brand: "WorkloadKey" };
/** An element of the graph and a flow's end: `pod:KEY`, `node:NAME`, `service:KEY`, `external:IP[@NODE]`, `workload:KEY`. */
export type EndpointId = string & { readonly __brand: "EndpointId" };

export const specIndex = (i: number): SpecIndex => i as SpecIndex;
export const portSlot = (i: number): PortSlot => i as PortSlot;
export const podKey = (namespace: string, name: string): PodKey => `${namespace}/${name}` as PodKey;
/** A pod key read as text (a flag, a question, an Endpoint's pod): `NAMESPACE/NAME` as written, not checked here. */
export const asPodKey = (text: string): PodKey => text as PodKey;
/** An endpoint id read as text (a flag, a share link, a graph element): as written, not checked here. */
export const asEndpointId = (text: string): EndpointId => text as EndpointId;

/** The address the playground and `ktl diff` give the client outside the cluster (TEST-NET-3, RFC 5737). */
export const EXTERNAL_CLIENT_IP = "203.0.113.10";

export const podId = (key: PodKey): EndpointId => `pod:${key}` as EndpointId;
export const nodeId = (name: string): EndpointId => `node:${name}` as EndpointId;
export const serviceId = (key: string): EndpointId => `service:${key}` as EndpointId;

/** The graph's id of a client outside the cluster: one per address, whatever node it arrives at. */
export const externalId = (ip: string): EndpointId => `external:${ip}` as EndpointId;

/** An outside client arriving at one node: a flow's source and `ktl trace --from external:IP@NODE`. */
export const externalAtNode = (ip: string, node: string): EndpointId =>
  `external:${ip}@${node}` as EndpointId;

/** `external:IP@NODE` -> its address and node (an IPv6 address may be bracketed); undefined for any other id. */
export function parseExternalAtNode(id: string): { ip: string; node: string } | undefined {
  if (!id.startsWith("external:")) return undefined;
  const rest = id.slice("external:".length);
  const at = rest.lastIndexOf("@");
  if (at <= 0 || at === rest.length - 1) return undefined;
  return { ip: rest.slice(0, at).replace(/^\[(.*)\]$/, "$1"), node: rest.slice(at + 1) };
}

/** A flow end as the graph draws it: `external:IP@NODE` -> `external:IP`; any other id unchanged. */
export function graphEndpointId(id: EndpointId): EndpointId;
export function graphEndpointId(id: string): string;
export function graphEndpointId(id: string): string {
  const ext = parseExternalAtNode(id);
  return ext ? externalId(ext.ip) : id;
}

/** A workload: `NAMESPACE/KIND/NAME` (the what-if scale action's id). */
export const workloadKey = (w: { namespace: string; kind: string; name: string }): WorkloadKey =>
  `${w.namespace}/${w.kind}/${w.name}` as WorkloadKey;
/** A workload's graph id: `workload:NAMESPACE/KIND/NAME`. */
export const workloadId = (w: { namespace: string; kind: string; name: string }): EndpointId =>
  `workload:${workloadKey(w)}` as EndpointId;
