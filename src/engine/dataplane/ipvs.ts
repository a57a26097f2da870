/**
 * kube-proxy v1.35 in IPVS mode on one node (pkg/proxy/ipvs/proxier.go
 * syncService/syncEndpoint) and `ipvsadm -Ln` as ipvsadm prints it.
 *
 * Virtual servers: one per Service port for the ClusterIP, each externalIP,
 * each load-balancer VIP, and the NodePort on each node address (all local
 * addresses, or those in nodePortAddresses). Real servers: the ClusterIP
 * uses internalTrafficPolicy's endpoints, the external ones
 * externalTrafficPolicy's (CategorizeEndpoints' cluster or local list; a
 * Local policy without local endpoints falls back to the cluster list,
 * syncEndpoint since PR #97081, unlike iptables and nftables modes, which drop);
 * forwarding is masquerading, weight 1. The scheduler is ipvs.scheduler
 * (rr when empty); ClientIP session affinity is "persistent <timeout>".
 *
 * ipvsadm (ipvsadm.c list_all/print_service_entry, libipvs
 * ipvs_cmp_services/ipvs_cmp_dests) sorts services by protocol number, then
 * address, then port, and real servers by address then port, and prints
 * "%s  %s %s" for a service and "  -> %-28s %-7s %-6d %-10u %-10u" for a
 * real server.
 */
import type { Model } from "../model/types.ts";
import { parseIP } from "../model/ip.ts";
import type { DataplaneEndpoint, NodeDataplaneInput, ProxyConfig } from "./types.ts";
import { nodePortIPs } from "./iptables/build.ts";
import { servicePortNameString } from "./names.ts";
import type { SavedLine } from "./iptables/save.ts";

export interface IpvsVirtualServer {
  protocol: "TCP" | "UDP" | "SCTP";
  address: string;
  port: number;
  scheduler: string;
  persistentSeconds?: number;
  /** Which Service port and frontend it implements. */
  servicePort: string;
  frontend: "clusterIP" | "externalIP" | "loadBalancer" | "nodePort";
  realServers: { address: string; port: number; weight: number }[];
}

const PROTO_NUMBER = { TCP: 6, UDP: 17, SCTP: 132 } as const;

function addrValue(ip: string): bigint {
  return parseIP(ip)?.value ?? 0n;
}

function hostPort(ip: string, port: number): string {
  return ip.includes(":") ? `[${ip}]:${port}` : `${ip}:${port}`;
}

function familyOf(ip: string): "IPv4" | "IPv6" | undefined {
  const p = parseIP(ip);
  return p ? (p.family === 4 ? "IPv4" : "IPv6") : undefined;
}

export function buildIpvs(input: NodeDataplaneInput, config: ProxyConfig): IpvsVirtualServer[] {
  const out: IpvsVirtualServer[] = [];
  const nodeIPs =
    config.nodePortAddresses.length === 0
      ? input.nodeIPs.filter((ip) => familyOf(ip) === config.family)
      : nodePortIPs(input, config).filter((ip) => !ip.startsWith("127."));
  for (const s of input.servicePorts) {
    if (familyOf(s.clusterIP) !== config.family) continue;
    const spn = servicePortNameString(s.namespace, s.name, s.portName);
    const rs = (eps: readonly DataplaneEndpoint[]) =>
      eps.map((e) => ({ address: e.ip, port: e.port, weight: 1 }));
    // syncEndpoint: a Local policy uses the node's endpoints, and, when it has
    // none, the cluster's (PR #97081: local pods still reach the Service;
    // an external client's reply comes back from the pod's address and is lost).
    const pick = (local: boolean) =>
      rs(local && s.localEndpoints.length > 0 ? s.localEndpoints : s.clusterEndpoints);
    const internal = pick(s.internalPolicyLocal);
    const external = pick(s.externalPolicyLocal);
    const vs = (
      address: string,
      port: number,
      frontend: IpvsVirtualServer["frontend"],
      realServers: IpvsVirtualServer["realServers"],
    ) => {
      const v: IpvsVirtualServer = {
        protocol: s.protocol,
        address,
        port,
        scheduler: config.ipvsScheduler,
        servicePort: spn,
        frontend,
        realServers,
      };
      if (s.stickyMaxAgeSeconds !== undefined) v.persistentSeconds = s.stickyMaxAgeSeconds;
      out.push(v);
    };
    vs(s.clusterIP, s.port, "clusterIP", internal);
    for (const ip of s.externalIPs)
      if (familyOf(ip) === config.family) vs(ip, s.port, "externalIP", external);
    for (const ip of s.loadBalancerVIPs)
      if (familyOf(ip) === config.family) vs(ip, s.port, "loadBalancer", external);
    if (s.nodePort) for (const ip of nodeIPs) vs(ip, s.nodePort, "nodePort", external);
  }
  const cmp = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);
  out.sort(
    (a, b) =>
      PROTO_NUMBER[a.protocol] - PROTO_NUMBER[b.protocol] ||
      cmp(addrValue(a.address), addrValue(b.address)) ||
      a.port - b.port,
  );
  for (const v of out)
    v.realServers.sort((a, b) => cmp(addrValue(a.address), addrValue(b.address)) || a.port - b.port);
  return out;
}

const pad = (s: string, n: number) => s.padEnd(n, " ");

export function listIpvs(
  input: NodeDataplaneInput,
  config: ProxyConfig,
  _model?: Model,
): { text: string; lines: SavedLine[]; servers: IpvsVirtualServer[] } {
  const servers = buildIpvs(input, config);
  const lines: SavedLine[] = [
    { text: "IP Virtual Server version 1.2.1 (size=4096)" },
    { text: "Prot LocalAddress:Port Scheduler Flags" },
    { text: `  -> ${pad("RemoteAddress:Port", 28)} Forward Weight ActiveConn InActConn` },
  ];
  servers.forEach((v, i) => {
    lines.push({
      text: `${v.protocol}  ${hostPort(v.address, v.port)} ${v.scheduler}${v.persistentSeconds !== undefined ? ` persistent ${v.persistentSeconds}` : ""}`,
      ruleId: `ipvs/${i + 1}`,
    });
    v.realServers.forEach((r, j) => {
      lines.push({
        text: `  -> ${pad(hostPort(r.address, r.port), 28)} ${pad("Masq", 7)} ${pad(String(r.weight), 6)} ${pad("0", 10)} ${pad("0", 10)}`.trimEnd(),
        ruleId: `ipvs/${i + 1}/${j + 1}`,
      });
    });
  });
  return { text: lines.map((l) => l.text).join("\n") + "\n", lines, servers };
}

export interface IpvsWalkStep {
  /** `ipvs/N` for the virtual server's line, `ipvs/N/M` for a real server's. */
  ruleId: string;
  chain: string;
  line: string;
  action: "match" | "dnat" | "reject";
  /** The chance the scheduler picks this real server for a new connection. */
  chance?: number;
}

export interface IpvsWalkBranch {
  probability: number;
  verdict: "accept" | "reject";
  steps: IpvsWalkStep[];
  dnat?: string;
  stoppedBy?: IpvsWalkStep;
}

/**
 * Where IPVS sends a new connection to `dst:dport/protocol`: the virtual
 * server with that address, port and protocol (ip_vs_service_find), then one
 * of its real servers, which the scheduler picks (rr and the other
 * schedulers spread new connections evenly over servers of equal weight,
 * and kube-proxy gives every real server weight 1). A virtual server with no
 * real server answers ICMP port unreachable for TCP and UDP alike: the
 * scheduler finds no destination, ip_vs_schedule leaves `ignored` at 0 and
 * ip_vs_in calls ip_vs_leave (net/netfilter/ipvs/ip_vs_core.c), which sends
 * ICMP_DEST_UNREACH/ICMP_PORT_UNREACH (ICMPv6 port unreachable for IPv6) and
 * returns NF_DROP: a reject. Its two exits do not apply to kube-proxy's
 * virtual servers: the cache_bypass entry is for fwmark services (kube-proxy
 * writes address:port ones) and the FTP exit needs a port other than the
 * virtual server's (the lookup is by that port). Upstream confirmed it when
 * the iptables proxier gained its REJECT for Services without endpoints:
 * "IPVS proxier doesn't need this similar change" (kubernetes PR #72534).
 * No virtual server: IPVS does not touch the packet.
 */
export function walkIpvs(
  listing: { lines: readonly SavedLine[]; servers: readonly IpvsVirtualServer[] },
  packet: { dst: string; dport: number; protocol: string },
): { server?: IpvsVirtualServer; branches: IpvsWalkBranch[] } {
  const want = parseIP(packet.dst);
  const i = listing.servers.findIndex((v) => {
    const a = parseIP(v.address);
    return (
      v.protocol === packet.protocol &&
      v.port === packet.dport &&
      !!a &&
      !!want &&
      a.family === want.family &&
      a.value === want.value
    );
  });
  if (i < 0) return { branches: [] };
  const v = listing.servers[i]!;
  const text = (id: string) => listing.lines.find((l) => l.ruleId === id)?.text.trim() ?? id;
  const vsId = `ipvs/${i + 1}`;
  if (v.realServers.length === 0) {
    const stop: IpvsWalkStep = { ruleId: vsId, chain: "ipvs", line: text(vsId), action: "reject" };
    return { server: v, branches: [{ probability: 1, verdict: "reject", steps: [stop], stoppedBy: stop }] };
  }
  const n = v.realServers.length;
  return {
    server: v,
    branches: v.realServers.map((r, j) => {
      const rsId = `ipvs/${i + 1}/${j + 1}`;
      return {
        probability: 1 / n,
        verdict: "accept",
        dnat: hostPort(r.address, r.port),
        steps: [
          { ruleId: vsId, chain: "ipvs", line: text(vsId), action: "match" },
          { ruleId: rsId, chain: "ipvs", line: text(rsId), action: "dnat", chance: 1 / n },
        ],
      };
    }),
  };
}
