/**
 * What the dataplane printers take: for one node and one IP family, every
 * Service port kube-proxy programs and the endpoints it chose for each
 * traffic policy. These values come from the proxy module's decisions
 * (src/engine/proxy), the same ones the trace uses, so the printed rules and
 * the trace cannot disagree.
 */
import type { PodKey, Protocol } from "../model/types.ts";
import type { SourceRef } from "../parse/manifests.ts";

export type IPFamily = "IPv4" | "IPv6";

/**
 * kube-proxy's local-traffic detector (pkg/proxy/util/localdetector.go,
 * KubeProxyConfiguration detectLocalMode): how it tells pod traffic from
 * traffic that entered the node from elsewhere.
 */
export type LocalDetector =
  | { mode: "ClusterCIDR" | "NodeCIDR"; cidr: string }
  | { mode: "BridgeInterface"; interfaceName: string }
  | { mode: "InterfaceNamePrefix"; prefix: string }
  /** No cluster CIDR known: kube-proxy uses NoOpLocalDetector and writes no masquerade rule for it. */
  | { mode: "None" };

export interface ProxyConfig {
  family: IPFamily;
  /** iptables.masqueradeBit / nftables.masqueradeBit, default 14 (mark 0x4000). */
  masqueradeBit: number;
  /** masqueradeAll: SNAT every packet sent to a ClusterIP. */
  masqueradeAll: boolean;
  localDetector: LocalDetector;
  /** iptables.localhostNodePorts, default true (IPv4 only). */
  localhostNodePorts: boolean;
  /** The kernel has nfacct (kube-proxy then counts dropped INVALID and localhost NodePort packets). */
  nfacct: boolean;
  /** net.netfilter.nf_conntrack_tcp_be_liberal is set: kube-proxy then writes no INVALID drop rule. */
  conntrackTCPBeLiberal: boolean;
  /** nodePortAddresses; empty means every local address. */
  nodePortAddresses: string[];
  /** iptables supports --random-fully (iptables >= 1.6.2 and the kernel). */
  randomFully: boolean;
  /** ipvs.scheduler, default "rr". */
  ipvsScheduler: string;
  /** Service CIDRs of this family (nftables drops traffic to unallocated ClusterIPs in them). */
  serviceCIDRs: string[];
  /** The iptables-save version whose output format is printed. */
  iptablesVersion: string;
}

export interface DataplaneEndpoint {
  ip: string;
  port: number;
  /** On this node (EndpointSlice nodeName equals the node's name). */
  isLocal: boolean;
  ready: boolean;
  serving: boolean;
  terminating: boolean;
  /** "namespace/name" of the pod behind it, when known. */
  pod?: PodKey;
  nodeName?: string;
}

/** One Service port as kube-proxy's ServicePort sees it (pkg/proxy/serviceport.go), for one IP family. */
export interface DataplaneServicePort {
  namespace: string;
  name: string;
  /** The Service port's name ("" when unnamed). */
  portName: string;
  protocol: Protocol;
  clusterIP: string;
  port: number;
  /** 0 when none. */
  nodePort: number;
  externalIPs: string[];
  /** status.loadBalancer.ingress IPs kube-proxy programs (ipMode VIP), of this family. */
  loadBalancerVIPs: string[];
  loadBalancerSourceRanges: string[];
  /** 0 unless a LoadBalancer with externalTrafficPolicy Local. */
  healthCheckNodePort: number;
  /** sessionAffinity ClientIP timeout in seconds; undefined for None. */
  stickyMaxAgeSeconds?: number;
  /** internalTrafficPolicy is Local. */
  internalPolicyLocal: boolean;
  /** externalTrafficPolicy is Local and the Service is externally accessible. */
  externalPolicyLocal: boolean;
  /** Has a NodePort, an external IP or a load-balancer IP. */
  externallyAccessible: boolean;
  /** Every endpoint of this port and family (kube-proxy's endpointsMap entry), sorted by "ip:port". */
  allEndpoints: DataplaneEndpoint[];
  /** proxy.CategorizeEndpoints (pkg/proxy/topology.go) on this node: */
  clusterEndpoints: DataplaneEndpoint[];
  localEndpoints: DataplaneEndpoint[];
  allLocallyReachableEndpoints: DataplaneEndpoint[];
  hasEndpoints: boolean;
  source?: SourceRef;
}

export interface NodeDataplaneInput {
  nodeName: string;
  /** The node's primary IP of this family (used for loadBalancerSourceRanges "allowFromNode"). */
  nodeIP: string;
  /** Every address of the node, for addrtype LOCAL. */
  nodeIPs: string[];
  servicePorts: DataplaneServicePort[];
}

/** What a rule is for, so a view can link it back to the Service, the endpoint and the trace hop. */
export interface RuleOrigin {
  /** "namespace/name" of the Service, when the rule belongs to one. */
  service?: string;
  /** proxy.ServicePortName string ("ns/name:port"). */
  servicePort?: string;
  /** "ip:port" of the endpoint a KUBE-SEP or load-balancing rule belongs to. */
  endpoint?: string;
  /** A short role: "jump", "cluster-ip", "external-ip", "load-balancer", "nodeport", "no-endpoints",
   *  "no-local-endpoints", "masquerade", "load-balance", "affinity", "dnat", "hairpin", "firewall", "health-check", "base". */
  role: string;
}
