/**
 * The endpoints kube-proxy knows for each service port, as its
 * EndpointSliceCache builds them (pkg/proxy/endpointslicecache.go,
 * endpointInfoByServicePort and addEndpoints):
 *
 * 1. Only slices labelled kubernetes.io/service-name, for that Service.
 * 2. Endpoints group by the slice port's name and protocol
 *    (ServicePortName): a Service port gets the endpoints of every slice
 *    port with the same name and protocol, at that slice port's number. A
 *    slice port without a number is ignored.
 * 3. Only the first address of an endpoint is used, and only when it is of
 *    the proxier's IP family (IPv4 and IPv6 are separate proxiers).
 * 4. The same ip:port from several slices is kept once (the first one).
 *    Upstream keeps the copy whose nodeName is kube-proxy's own node when
 *    there is one (addEndpoints: "we favor a true value" of isLocal); this
 *    list is shared by every node, so the two differ only when one ip:port
 *    is listed for two different nodes.
 * 5. The list is sorted by Endpoint.String() ("ip:port", "[ip]:port" for
 *    IPv6): kube-proxy's rule order.
 */
import type { SourceRef } from "../parse/manifests.ts";
import type { Model, PodKey, Protocol } from "../model/types.ts";
import type { EndpointSlice, Service } from "../model/services.ts";
import { parseIP, type Family } from "../model/ip.ts";

export interface ProxyEndpoint {
  ip: string;
  port: number;
  family: Family;
  /** Endpoint.String(): "ip:port", "[ip]:port" for IPv6. */
  key: string;
  ready: boolean;
  serving: boolean;
  terminating: boolean;
  nodeName?: string;
  zone?: string;
  /** hints.forZones names; empty when the endpoint has none. */
  zoneHints: string[];
  /** hints.forNodes names; empty when the endpoint has none. */
  nodeHints: string[];
  /** "namespace/name" of the pod behind the endpoint, when the model has it. */
  pod?: PodKey;
  /** "namespace/name" of the EndpointSlice. */
  slice: string;
  sliceOrigin: EndpointSlice["origin"];
  /** Where the endpoint is written (the slice's endpoint, the Endpoints address or the pod). */
  ref: SourceRef;
}

export interface PortEndpoints {
  /** The Service port's name and protocol (the ServicePortName). */
  name: string;
  protocol: Protocol;
  v4: ProxyEndpoint[];
  v6: ProxyEndpoint[];
}

export function endpointKey(ip: string, port: number, family: Family): string {
  return family === 6 ? `[${ip}]:${port}` : `${ip}:${port}`;
}

function byKey(a: ProxyEndpoint, b: ProxyEndpoint): number {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/**
 * kube-proxy's endpoints for every port of `service`, in spec.ports order.
 * `slices` are the Service's own slices (same namespace, service-name label).
 */
export function servicePortEndpoints(
  model: Model,
  service: Service,
  slices: readonly EndpointSlice[],
): PortEndpoints[] {
  const byPortName = new Map<string, { v4: Map<string, ProxyEndpoint>; v6: Map<string, ProxyEndpoint> }>();
  for (const slice of slices) {
    if (slice.addressType === "FQDN") continue;
    for (const sp of slice.ports) {
      if (sp.port === undefined || sp.port === 0) continue;
      const name = `${sp.name}/${sp.protocol}`;
      let sets = byPortName.get(name);
      if (!sets) byPortName.set(name, (sets = { v4: new Map(), v6: new Map() }));
      for (const ep of slice.endpoints) {
        const ip = ep.addresses[0];
        const parsed = ip ? parseIP(ip) : undefined;
        if (!ip || !parsed) continue;
        const key = endpointKey(ip, sp.port, parsed.family);
        const set = parsed.family === 4 ? sets.v4 : sets.v6;
        if (set.has(key)) continue;
        let pod = ep.pod && model.podsByKey.has(ep.pod) ? ep.pod : undefined;
        if (!pod) pod = model.podsByIP.get(ip)?.key;
        const pe: ProxyEndpoint = {
          ip,
          port: sp.port,
          family: parsed.family,
          key,
          ready: ep.ready,
          serving: ep.serving,
          terminating: ep.terminating,
          zoneHints: ep.hints?.forZones ?? [],
          nodeHints: ep.hints?.forNodes ?? [],
          slice: `${slice.namespace}/${slice.name}`,
          sliceOrigin: slice.origin,
          ref: ep.ref,
        };
        if (ep.nodeName) pe.nodeName = ep.nodeName;
        if (ep.zone) pe.zone = ep.zone;
        if (pod) pe.pod = pod;
        set.set(key, pe);
      }
    }
  }
  return service.ports.map((p) => {
    const sets = byPortName.get(`${p.name}/${p.protocol}`);
    return {
      name: p.name,
      protocol: p.protocol,
      v4: sets ? [...sets.v4.values()].sort(byKey) : [],
      v6: sets ? [...sets.v6.values()].sort(byKey) : [],
    };
  });
}
