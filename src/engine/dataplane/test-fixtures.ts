/**
 * Builders for dataplane tests: Service ports with their endpoints already
 * categorized the way pkg/proxy/topology.go CategorizeEndpoints does for the
 * simple cases upstream's proxier tests use (no topology hints, every
 * endpoint ready).
 */
import type { DataplaneEndpoint, DataplaneServicePort, ProxyConfig } from "./types.ts";

export function ep(ip: string, port: number, isLocal = false): DataplaneEndpoint {
  return { ip, port, isLocal, ready: true, serving: true, terminating: false };
}

export interface PortSpec {
  ns: string;
  name: string;
  portName?: string;
  protocol?: "TCP" | "UDP" | "SCTP";
  clusterIP: string;
  port?: number;
  nodePort?: number;
  externalIPs?: string[];
  lbIPs?: string[];
  sourceRanges?: string[];
  hcNodePort?: number;
  affinity?: number;
  itpLocal?: boolean;
  etpLocal?: boolean;
  endpoints?: DataplaneEndpoint[];
}

/** A Service port with CategorizeEndpoints applied (all endpoints ready, no topology). */
export function servicePort(s: PortSpec): DataplaneServicePort {
  const endpoints = [...(s.endpoints ?? [])].sort((a, b) =>
    `${a.ip}:${a.port}` < `${b.ip}:${b.port}` ? -1 : 1,
  );
  const externallyAccessible =
    (s.nodePort ?? 0) !== 0 || (s.externalIPs ?? []).length > 0 || (s.lbIPs ?? []).length > 0;
  const internalPolicyLocal = s.itpLocal ?? false;
  const externalPolicyLocal = externallyAccessible && (s.etpLocal ?? false);
  const usesCluster = !internalPolicyLocal || externallyAccessible;
  const usesLocal = internalPolicyLocal || (externallyAccessible && externalPolicyLocal);
  const clusterEndpoints = usesCluster ? endpoints : [];
  const localEndpoints = usesLocal ? endpoints.filter((e) => e.isLocal) : [];
  const all = endpoints.filter((e) => clusterEndpoints.includes(e) || localEndpoints.includes(e));
  const out: DataplaneServicePort = {
    namespace: s.ns,
    name: s.name,
    portName: s.portName ?? "p80",
    protocol: s.protocol ?? "TCP",
    clusterIP: s.clusterIP,
    port: s.port ?? 80,
    nodePort: s.nodePort ?? 0,
    externalIPs: s.externalIPs ?? [],
    loadBalancerVIPs: s.lbIPs ?? [],
    loadBalancerSourceRanges: s.sourceRanges ?? [],
    healthCheckNodePort: s.hcNodePort ?? 0,
    internalPolicyLocal,
    externalPolicyLocal,
    externallyAccessible,
    allEndpoints: endpoints,
    clusterEndpoints,
    localEndpoints,
    allLocallyReachableEndpoints: all,
    hasEndpoints: endpoints.length > 0,
  };
  if (s.affinity !== undefined) out.stickyMaxAgeSeconds = s.affinity;
  return out;
}

/** NewFakeProxier's settings in pkg/proxy/iptables/proxier_test.go. */
export const upstreamTestConfig: ProxyConfig = {
  family: "IPv4",
  masqueradeBit: 14,
  masqueradeAll: false,
  localDetector: { mode: "ClusterCIDR", cidr: "10.0.0.0/8" },
  localhostNodePorts: true,
  nfacct: true,
  conntrackTCPBeLiberal: false,
  nodePortAddresses: [],
  randomFully: false,
  ipvsScheduler: "rr",
  serviceCIDRs: ["172.30.0.0/16"],
  iptablesVersion: "1.8.7",
};
