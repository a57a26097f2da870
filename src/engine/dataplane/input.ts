/**
 * From the model to what the dataplane printers take, through the proxy
 * module's own decisions: its endpoint view (servicePortEndpoints), its
 * per-port traits (portTraits) and its CategorizeEndpoints
 * (proxy/topology.ts). The trace reads the same functions, so the rules and
 * the trace agree by construction.
 *
 * And the proxy configuration: kube-proxy's defaults (KubeProxyConfiguration
 * v1alpha1 SetDefaults: masqueradeBit 14, detectLocalMode ClusterCIDR,
 * localhostNodePorts true, ipvs.scheduler "" meaning rr), overridden by a
 * KubeProxyConfiguration (or kubeadm's kube-system/kube-proxy ConfigMap) and
 * by command-line flags.
 */
import type { Model } from "../model/types.ts";
import { cidrContains, formatIP, parseCidr, parseIP, type Family } from "../model/ip.ts";
import { str, num, bool, arr, obj, type Json } from "../parse/values.ts";
import {
  categorizeEndpoints,
  nodeAddress,
  portEndpoints,
  portTraits,
  skipped,
  type ProxyEndpoint,
  type ProxyIndex,
} from "../proxy/index.ts";
import type {
  DataplaneEndpoint,
  DataplaneServicePort,
  IPFamily,
  LocalDetector,
  NodeDataplaneInput,
  ProxyConfig,
} from "./types.ts";

const famNum = (f: IPFamily): Family => (f === "IPv4" ? 4 : 6);

function familyOf(ip: string): Family | undefined {
  return parseIP(ip)?.family;
}

function toEndpoint(e: ProxyEndpoint, nodeName: string): DataplaneEndpoint {
  const out: DataplaneEndpoint = {
    ip: e.ip,
    port: e.port,
    isLocal: !!e.nodeName && e.nodeName === nodeName,
    ready: e.ready,
    serving: e.serving,
    terminating: e.terminating,
  };
  if (e.pod) out.pod = e.pod;
  if (e.nodeName) out.nodeName = e.nodeName;
  return out;
}

/** Every Service port kube-proxy on `nodeName` programs for `family`, with its endpoint categories. */
export function nodeDataplaneInput(
  index: ProxyIndex,
  nodeName: string,
  family: IPFamily,
): NodeDataplaneInput {
  const model = index.model;
  const f = famNum(family);
  const node = model.nodesByName.get(nodeName);
  const zone = node?.zone ?? "";
  const servicePorts: DataplaneServicePort[] = [];
  for (const { service: s, ports } of index.services.values()) {
    if (skipped(s)) continue;
    const clusterIP = s.clusterIPs.find((ip) => familyOf(ip) === f);
    if (!clusterIP) continue;
    for (const p of s.ports) {
      const all = portEndpoints({ ports }, p)[f === 4 ? "v4" : "v6"];
      const traits = portTraits(s, p, f);
      const cat = categorizeEndpoints(all, traits, nodeName, zone);
      const map = (l: readonly ProxyEndpoint[] | null) => (l ?? []).map((e) => toEndpoint(e, nodeName));
      const sp: DataplaneServicePort = {
        namespace: s.namespace,
        name: s.name,
        portName: p.name,
        protocol: p.protocol,
        clusterIP,
        port: p.port,
        nodePort: p.nodePort ?? 0,
        externalIPs: s.externalIPs.filter((ip) => familyOf(ip) === f),
        loadBalancerVIPs: s.loadBalancerIPs.filter((ip) => familyOf(ip) === f),
        loadBalancerSourceRanges: s.loadBalancerSourceRanges.filter(
          (r) => parseCidr(r.trim()).cidr?.family === f,
        ),
        healthCheckNodePort:
          s.type === "LoadBalancer" && traits.externalPolicyLocal ? (s.healthCheckNodePort ?? 0) : 0,
        internalPolicyLocal: traits.internalPolicyLocal,
        externalPolicyLocal: traits.externalPolicyLocal,
        externallyAccessible: traits.externallyAccessible,
        allEndpoints: map(all),
        clusterEndpoints: map(cat.clusterEndpoints),
        localEndpoints: map(cat.localEndpoints),
        allLocallyReachableEndpoints: map(cat.allReachableEndpoints),
        hasEndpoints: cat.hasAnyEndpoints,
        source: { ...s.source, line: p.line || s.source.line },
      };
      if (s.sessionAffinity === "ClientIP") sp.stickyMaxAgeSeconds = s.sessionAffinityTimeoutSeconds;
      servicePorts.push(sp);
    }
  }
  const nodeIPs = (node?.addresses ?? []).map((a) => a.address).filter((ip) => familyOf(ip) !== undefined);
  return { nodeName, nodeIP: nodeAddress(node, f) ?? "", nodeIPs: [...new Set(nodeIPs)], servicePorts };
}

/** Settings a user can give (CLI flags or a KubeProxyConfiguration); everything else takes kube-proxy's default. */
export interface ProxyConfigOverrides {
  mode?: "iptables" | "nftables" | "ipvs";
  detectLocalMode?: "ClusterCIDR" | "NodeCIDR" | "BridgeInterface" | "InterfaceNamePrefix";
  clusterCIDR?: string;
  bridgeInterface?: string;
  interfaceNamePrefix?: string;
  masqueradeAll?: boolean;
  masqueradeBit?: number;
  localhostNodePorts?: boolean;
  nodePortAddresses?: string[];
  ipvsScheduler?: string;
  nfacct?: boolean;
  conntrackTCPBeLiberal?: boolean;
  iptablesVersion?: string;
}

export interface ResolvedProxyConfig {
  config: ProxyConfig;
  /** How a setting was chosen when the input did not say (shown to the user). */
  notes: string[];
}

/** The smallest CIDR holding every address (for a cluster CIDR the input does not give). */
function coveringCidr(ips: readonly string[], f: Family): string | undefined {
  const vals = ips
    .map((ip) => parseIP(ip))
    .filter((p) => p && p.family === f)
    .map((p) => p!.value);
  if (vals.length === 0) return undefined;
  const width = f === 4 ? 32 : 128;
  let lo = vals[0]!,
    hi = vals[0]!;
  for (const v of vals) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  let prefix = width;
  while (prefix > 0 && lo >> BigInt(width - prefix) !== hi >> BigInt(width - prefix)) prefix--;
  const net = (lo >> BigInt(width - prefix)) << BigInt(width - prefix);
  return `${formatIP(f, net)}/${prefix}`;
}

/**
 * kube-proxy's configuration for `nodeName`: defaults, then `overrides`.
 * Without a cluster CIDR, detectLocalMode ClusterCIDR uses the model's
 * cluster CIDR when it holds every pod IP; otherwise the smallest CIDR that
 * holds them (a cluster whose pods sit outside the default range, such as
 * Azure CNI's node subnet), so that pod traffic is recognised as the trace
 * assumes.
 */
export function resolveProxyConfig(
  model: Model,
  nodeName: string,
  family: IPFamily,
  overrides: ProxyConfigOverrides = {},
): ResolvedProxyConfig {
  const f = famNum(family);
  const notes: string[] = [];
  let detector: LocalDetector;
  const mode = overrides.detectLocalMode ?? "ClusterCIDR";
  const podIPs = model.pods
    .filter((p) => !p.hostNetwork)
    .flatMap((p) => p.ips)
    .filter((ip) => familyOf(ip) === f);
  if (mode === "BridgeInterface") detector = { mode, interfaceName: overrides.bridgeInterface ?? "cbr0" };
  else if (mode === "InterfaceNamePrefix")
    detector = { mode, prefix: overrides.interfaceNamePrefix ?? "veth" };
  else if (mode === "NodeCIDR") {
    const node = model.nodesByName.get(nodeName);
    const cidr = node?.podCIDRs.find((c) => parseCidr(c).cidr?.family === f);
    detector = cidr ? { mode, cidr } : { mode: "None" };
    if (!cidr)
      notes.push(
        `detectLocalMode NodeCIDR: node ${nodeName} has no ${family} podCIDR, so kube-proxy writes no local-traffic rule`,
      );
  } else {
    let cidr = overrides.clusterCIDR
      ?.split(",")
      .map((c) => c.trim())
      .find((c) => parseCidr(c).cidr?.family === f);
    if (!cidr) {
      const configured = model.config.clusterCIDRs.find((c) => parseCidr(c).cidr?.family === f);
      const c = configured ? parseCidr(configured).cidr : undefined;
      const outside = podIPs.filter((ip) => !c || !cidrContains(c, parseIP(ip)!));
      if (configured && outside.length === 0) cidr = configured;
      else {
        cidr = coveringCidr(podIPs, f) ?? configured;
        if (cidr && cidr !== configured)
          notes.push(
            `clusterCIDR ${cidr} inferred from the pod IPs (${configured ?? "no default"} does not hold ${outside.slice(0, 3).join(", ")}${outside.length > 3 ? ", ..." : ""}); pass --cluster-cidr to set it`,
          );
      }
    }
    detector = cidr ? { mode: "ClusterCIDR", cidr } : { mode: "None" };
  }
  const config: ProxyConfig = {
    family,
    masqueradeBit: overrides.masqueradeBit ?? 14,
    masqueradeAll: overrides.masqueradeAll ?? false,
    localDetector: detector,
    localhostNodePorts: overrides.localhostNodePorts ?? true,
    nfacct: overrides.nfacct ?? true,
    conntrackTCPBeLiberal: overrides.conntrackTCPBeLiberal ?? false,
    nodePortAddresses: (overrides.nodePortAddresses ?? []).filter(
      (c) => parseCidr(c).cidr?.family === f || c === "primary",
    ),
    randomFully: true,
    ipvsScheduler: overrides.ipvsScheduler || "rr",
    serviceCIDRs: model.config.serviceCIDRs.filter((c) => parseCidr(c).cidr?.family === f),
    iptablesVersion: overrides.iptablesVersion ?? "1.8.7",
  };
  // nodePortAddresses "primary" means the node's primary IPs (kube-proxy 1.29+).
  if ((overrides.nodePortAddresses ?? []).includes("primary")) {
    const ip = nodeAddress(model.nodesByName.get(nodeName), f);
    config.nodePortAddresses = ip ? [`${ip}/${f === 4 ? 32 : 128}`] : [];
  }
  return { config, notes };
}

/**
 * Reads a KubeProxyConfiguration (kubeproxy.config.k8s.io/v1alpha1), given
 * as an object or as kubeadm's ConfigMap kube-system/kube-proxy with its
 * `config.conf`, into overrides. Unknown fields are ignored.
 */
export function kubeProxyConfigurationOverrides(raw: Json): ProxyConfigOverrides {
  const out: ProxyConfigOverrides = {};
  const mode = str(raw.mode);
  if (mode === "iptables" || mode === "nftables" || mode === "ipvs") out.mode = mode;
  const dlm = str(raw.detectLocalMode);
  if (
    dlm === "ClusterCIDR" ||
    dlm === "NodeCIDR" ||
    dlm === "BridgeInterface" ||
    dlm === "InterfaceNamePrefix"
  )
    out.detectLocalMode = dlm;
  const cc = str(raw.clusterCIDR);
  if (cc) out.clusterCIDR = cc;
  const dl = obj(raw.detectLocal);
  const bridge = str(dl?.bridgeInterface);
  if (bridge) out.bridgeInterface = bridge;
  const prefix = str(dl?.interfaceNamePrefix);
  if (prefix) out.interfaceNamePrefix = prefix;
  const modeCfg = obj(raw[mode === "nftables" ? "nftables" : "iptables"]);
  const ma = bool(raw.masqueradeAll) ?? bool(modeCfg?.masqueradeAll);
  if (ma !== undefined) out.masqueradeAll = ma;
  const mb = num(modeCfg?.masqueradeBit) ?? num(obj(raw.iptables)?.masqueradeBit);
  if (mb !== undefined) out.masqueradeBit = mb;
  const lnp = bool(obj(raw.iptables)?.localhostNodePorts);
  if (lnp !== undefined) out.localhostNodePorts = lnp;
  const npa = arr(raw.nodePortAddresses)
    .map((x) => str(x))
    .filter((x): x is string => !!x);
  if (npa.length) out.nodePortAddresses = npa;
  const sched = str(obj(raw.ipvs)?.scheduler);
  if (sched) out.ipvsScheduler = sched;
  return out;
}
