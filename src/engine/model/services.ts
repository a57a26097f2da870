/**
 * Services in the model, as the apiserver stores them after defaulting and
 * allocation (pkg/apis/core/v1/defaults.go SetDefaults_Service, the
 * ClusterIP and NodePort allocators), and their EndpointSlices
 * (model/endpointslices.ts).
 *
 * Rules followed:
 * 1. spec.type defaults to ClusterIP; ports default to protocol TCP and
 *    targetPort = port; sessionAffinity to None with a 10800 s ClientIP
 *    timeout; internalTrafficPolicy to Cluster; externalTrafficPolicy to
 *    Cluster for NodePort and LoadBalancer Services (and is meaningless
 *    elsewhere: pkg/api/v1/service ExternalPolicyLocal requires an
 *    externally accessible Service).
 * 2. `clusterIP: None` is headless: no virtual IP, DNS answers with the
 *    endpoints, kube-proxy programs nothing. ExternalName has no ClusterIP.
 * 3. ClusterIPs left out are allocated from the service CIDR of each family
 *    (ipFamilies, ipFamilyPolicy; PreferDualStack gets both families only on
 *    a dual-stack cluster). NodePorts (NodePort, LoadBalancer unless
 *    allocateLoadBalancerNodePorts is false) and the healthCheckNodePort
 *    (LoadBalancer with externalTrafficPolicy Local) left out are allocated
 *    from the node port range. Allocation is deterministic: a hash of the
 *    Service's namespace/name picks the start, collisions probe forward, and
 *    addresses or ports written in the input are reserved first. The
 *    apiserver allocates at random; only the determinism is ours.
 * 4. LoadBalancer addresses come from status.loadBalancer.ingress. kube-proxy
 *    captures only `ip` entries in VIP mode (ipMode absent or VIP,
 *    pkg/proxy/serviceport.go newBaseServiceInfo); hostname and Proxy-mode
 *    entries go through the cloud load balancer. A LoadBalancer Service with
 *    no ingress is pending (kubectl's <pending>): it has no address, so only
 *    its NodePorts reach it and loadBalancerSourceRanges filter nothing yet
 *    (spec.loadBalancerIP is only a request to the cloud provider).
 * 5. loadBalancerSourceRanges is spec.loadBalancerSourceRanges, trimmed:
 *    all kube-proxy reads (pkg/proxy/serviceport.go newBaseServiceInfo).
 *    The service.beta.kubernetes.io/load-balancer-source-ranges annotation
 *    is kept apart: only cloud providers read it, when the field is empty
 *    (k8s.io/cloud-provider service helpers GetLoadBalancerSourceRanges).
 */
import type { KObject } from "../parse/manifests.ts";
import { refOf } from "../parse/manifests.ts";
import type { Diagnostic } from "../parse/diagnostics.ts";
import { arr, bool, int, isObj, obj, str, strList, strMap, type Json } from "../parse/values.ts";
import { lineOf } from "../parse/positions.ts";
import type {
  Node,
  Pod,
  Protocol,
  ClusterConfig,
  ServiceType,
  IPFamily,
  TrafficPolicy,
  PortSlot,
  ServicePort,
  LoadBalancerIngress,
  ServiceLines,
  Service,
  EndpointHints,
  Endpoint,
  EndpointSlicePort,
  EndpointSlice,
  ServiceBuild,
} from "./types.ts";
import { fnv1a } from "./hash.ts";
import { formatIP, parseCidr, parseIP, type Cidr, type Family } from "./ip.ts";
import { buildEndpointSlices } from "./endpointslices.ts";
import { portSlot, specIndex } from "./ids.ts";

// The Service and EndpointSlice types live in types.ts with the rest of the model (no import cycle); named here too.
export type {
  ServiceType,
  IPFamily,
  TrafficPolicy,
  PortSlot,
  ServicePort,
  LoadBalancerIngress,
  ServiceLines,
  Service,
  EndpointHints,
  Endpoint,
  EndpointSlicePort,
  EndpointSlice,
  ServiceBuild,
};

const TOPOLOGY_MODE = "service.kubernetes.io/topology-mode";
const TOPOLOGY_AWARE_HINTS = "service.kubernetes.io/topology-aware-hints";
const LB_SOURCE_RANGES = "service.beta.kubernetes.io/load-balancer-source-ranges";
const DEFAULT_AFFINITY_TIMEOUT = 10800;

/**
 * pkg/api/v1/service ExternallyAccessible: the apiserver's notion (externalTrafficPolicy applies).
 * Whether an outside client really gets in is flows/ reachableFromOutside (kube-proxy skips headless).
 */
export function externallyAccessible(s: { type: string; externalIPs: readonly string[] }): boolean {
  return (
    s.type === "LoadBalancer" || s.type === "NodePort" || (s.type === "ClusterIP" && s.externalIPs.length > 0)
  );
}

/** pkg/api/v1/service ExternalPolicyLocal. */
export function externalPolicyLocal(s: Service): boolean {
  return externallyAccessible(s) && s.externalTrafficPolicy === "Local";
}

/** pkg/api/v1/service NeedsHealthCheck. */
export function needsHealthCheck(s: Service): boolean {
  return s.type === "LoadBalancer" && externalPolicyLocal(s);
}

function familyOf(ip: string): Family | undefined {
  return parseIP(ip)?.family;
}

function familyName(f: Family): IPFamily {
  return f === 4 ? "IPv4" : "IPv6";
}

function protocolOf(v: unknown): Protocol {
  const p = str(v);
  return p === "UDP" || p === "SCTP" ? p : "TCP";
}

function parsePorts(spec: Json): ServicePort[] {
  const list = arr(spec.ports);
  const out: ServicePort[] = [];
  list.forEach((p, index) => {
    if (!isObj(p)) return;
    const port = int(p.port);
    // The apiserver refuses a port outside 1..65535 (validateServicePort, KTL501): no traffic can use it, so the
    // model leaves it out rather than draw flows, offer questions or allocate a nodePort for it.
    if (port === undefined || port < 1 || port > 65535) return;
    const tp = p.targetPort;
    const targetPort =
      typeof tp === "number"
        ? tp
        : typeof tp === "string" && tp !== ""
          ? /^\d+$/.test(tp)
            ? Number(tp)
            : tp
          : port;
    const sp: ServicePort = {
      index: specIndex(index),
      slot: portSlot(out.length),
      name: str(p.name) ?? "",
      protocol: protocolOf(p.protocol),
      port,
      targetPort,
      line: lineOf(list, index) || lineOf(p),
    };
    const nodePort = int(p.nodePort);
    if (nodePort !== undefined && nodePort !== 0) sp.nodePort = nodePort;
    const app = str(p.appProtocol);
    if (app) sp.appProtocol = app;
    out.push(sp);
  });
  return out;
}

function parseIngress(status: Json | undefined): LoadBalancerIngress[] {
  const list = arr(obj(status?.loadBalancer)?.ingress);
  const out: LoadBalancerIngress[] = [];
  list.forEach((i, index) => {
    if (!isObj(i)) return;
    const ip = str(i.ip);
    const hostname = str(i.hostname);
    if (!ip && !hostname) return;
    const ing: LoadBalancerIngress = {
      ipMode: str(i.ipMode) === "Proxy" ? "Proxy" : "VIP",
      line: lineOf(list, index) || lineOf(i),
    };
    if (ip && parseIP(ip)) ing.ip = ip;
    if (hostname) ing.hostname = hostname;
    out.push(ing);
  });
  return out;
}

interface Draft {
  service: Service;
  /** ClusterIPs as written (may be empty: allocate). */
  givenIPs: string[];
  wantFamilies: Family[];
}

function parseService(o: KObject, dualStackCluster: boolean): Draft {
  const raw = o.raw;
  const meta = obj(raw.metadata) ?? {};
  const spec = obj(raw.spec) ?? {};
  const status = obj(raw.status);
  const annotations = strMap(meta.annotations);
  const namespace = o.namespace ?? "default";
  const typeText = str(spec.type);
  const type: ServiceType =
    typeText === "NodePort" || typeText === "LoadBalancer" || typeText === "ExternalName"
      ? typeText
      : "ClusterIP";
  const clusterIPText = str(spec.clusterIP);
  const clusterIPsText = strList(spec.clusterIPs);
  const headless = type !== "ExternalName" && (clusterIPText === "None" || clusterIPsText[0] === "None");
  const givenIPs =
    type === "ExternalName" || headless
      ? []
      : (clusterIPsText.length ? clusterIPsText : clusterIPText ? [clusterIPText] : []).filter((ip) =>
          parseIP(ip),
        );
  const policyText = str(spec.ipFamilyPolicy);
  const ipFamilyPolicy =
    policyText === "PreferDualStack" || policyText === "RequireDualStack" ? policyText : "SingleStack";
  const familiesText = strList(spec.ipFamilies).filter((f): f is IPFamily => f === "IPv4" || f === "IPv6");
  let wantFamilies: Family[];
  if (givenIPs.length) wantFamilies = givenIPs.map((ip) => familyOf(ip)!);
  else {
    const first: Family = familiesText[0] === "IPv6" ? 6 : 4;
    wantFamilies = [first];
    const both =
      ipFamilyPolicy === "RequireDualStack" || (ipFamilyPolicy === "PreferDualStack" && dualStackCluster);
    if (both || familiesText.length > 1) wantFamilies.push(first === 4 ? 6 : 4);
  }
  const selectorMap = isObj(spec.selector) ? strMap(spec.selector) : undefined;
  const externalIPs = strList(spec.externalIPs).filter((ip) => parseIP(ip));
  const ingress = type === "LoadBalancer" ? parseIngress(status) : [];
  const rangesField = strList(spec.loadBalancerSourceRanges)
    .map((r) => r.trim())
    .filter(Boolean);
  const rangesAnnotation = (annotations[LB_SOURCE_RANGES] ?? "")
    .split(",")
    .map((r) => r.trim())
    .filter(Boolean);
  const affinity = str(spec.sessionAffinity) === "ClientIP" ? "ClientIP" : "None";
  const timeout = int(obj(obj(spec.sessionAffinityConfig)?.clientIP)?.timeoutSeconds);
  const annLine = (k: string) => lineOf(meta.annotations, k);
  const topologyKey =
    TOPOLOGY_AWARE_HINTS in annotations
      ? TOPOLOGY_AWARE_HINTS
      : TOPOLOGY_MODE in annotations
        ? TOPOLOGY_MODE
        : undefined;
  const service: Service = {
    namespace,
    name: o.name,
    key: `${namespace}/${o.name}`,
    type,
    headless,
    clusterIPs: givenIPs,
    clusterIPsAllocated: false,
    ipFamilies: wantFamilies.map(familyName),
    ipFamilyPolicy,
    selector: selectorMap && Object.keys(selectorMap).length ? selectorMap : undefined,
    labels: strMap(meta.labels),
    ports: parsePorts(spec),
    externalIPs,
    loadBalancerIPs: [],
    loadBalancerIngress: ingress,
    loadBalancerPending: false,
    loadBalancerSourceRanges: rangesField,
    loadBalancerSourceRangesAnnotation: rangesAnnotation,
    internalTrafficPolicy: str(spec.internalTrafficPolicy) === "Local" ? "Local" : "Cluster",
    externalTrafficPolicy: str(spec.externalTrafficPolicy) === "Local" ? "Local" : "Cluster",
    sessionAffinity: affinity,
    sessionAffinityTimeoutSeconds: affinity === "ClientIP" ? (timeout ?? DEFAULT_AFFINITY_TIMEOUT) : 0,
    publishNotReadyAddresses: bool(spec.publishNotReadyAddresses) ?? false,
    allocateLoadBalancerNodePorts:
      type === "LoadBalancer" ? (bool(spec.allocateLoadBalancerNodePorts) ?? true) : false,
    lines: {
      spec: lineOf(raw, "spec") || o.line,
      type: lineOf(spec, "type"),
      selector: lineOf(spec, "selector"),
      clusterIP: lineOf(spec, "clusterIPs") || lineOf(spec, "clusterIP"),
      ports: lineOf(spec, "ports"),
      externalIPs: lineOf(spec, "externalIPs"),
      externalTrafficPolicy: lineOf(spec, "externalTrafficPolicy"),
      internalTrafficPolicy: lineOf(spec, "internalTrafficPolicy"),
      healthCheckNodePort: lineOf(spec, "healthCheckNodePort"),
      sessionAffinity: lineOf(spec, "sessionAffinity"),
      trafficDistribution: lineOf(spec, "trafficDistribution"),
      topologyMode: topologyKey ? annLine(topologyKey) : 0,
      publishNotReadyAddresses: lineOf(spec, "publishNotReadyAddresses"),
      loadBalancerSourceRanges: lineOf(spec, "loadBalancerSourceRanges"),
      loadBalancerSourceRangesAnnotation: annLine(LB_SOURCE_RANGES),
      loadBalancerIngress: lineOf(obj(status?.loadBalancer), "ingress"),
      externalName: lineOf(spec, "externalName"),
    },
    source: { ...refOf(o), namespace },
    raw,
  };
  const externalName = str(spec.externalName);
  if (type === "ExternalName" && externalName) service.externalName = externalName;
  const td = str(spec.trafficDistribution);
  if (td) service.trafficDistribution = td;
  if (topologyKey) service.topologyMode = annotations[topologyKey]!;
  const hc = int(spec.healthCheckNodePort);
  if (hc) service.healthCheckNodePort = hc;
  return { service, givenIPs, wantFamilies };
}

/** A deterministic allocator over a range: hash start, probe forward, skip reserved values. */
class HashAllocator {
  private readonly used = new Set<bigint>();
  constructor(
    private readonly first: bigint,
    private readonly size: bigint,
  ) {}
  reserve(v: bigint): void {
    this.used.add(v);
  }
  allocate(seed: string): bigint | undefined {
    if (this.size <= 0n) return undefined;
    const start = BigInt(fnv1a(seed)) % this.size;
    for (let i = 0n; i < this.size; i++) {
      const v = this.first + ((start + i) % this.size);
      if (!this.used.has(v)) {
        this.used.add(v);
        return v;
      }
    }
    return undefined;
  }
}

/** ClusterIP allocators per family: the CIDR minus its network address, the address the apiserver gives `kubernetes` (.1) and, for IPv4, broadcast. */
function ipAllocators(config: ClusterConfig): Map<Family, { cidr: Cidr; alloc: HashAllocator }> {
  const out = new Map<Family, { cidr: Cidr; alloc: HashAllocator }>();
  for (const text of config.serviceCIDRs) {
    const cidr = parseCidr(text).cidr;
    if (!cidr || out.has(cidr.family)) continue;
    const total = cidr.last - cidr.first + 1n;
    const usable = total - (cidr.family === 4 ? 3n : 2n);
    // Bounded so that allocation stays cheap on /64 service ranges.
    const size = usable > 1n << 24n ? 1n << 24n : usable;
    out.set(cidr.family, { cidr, alloc: new HashAllocator(cidr.first + 2n, size) });
  }
  return out;
}

function dualStack(pods: readonly Pod[], nodes: readonly Node[], drafts: readonly Draft[]): boolean {
  const families = new Set<Family>();
  for (const n of nodes)
    for (const c of n.podCIDRs) {
      const f = parseCidr(c).cidr?.family;
      if (f) families.add(f);
    }
  // Pod IPs are validated by the model builder: a colon tells the family.
  for (const p of pods) for (const ip of p.ips) families.add(ip.includes(":") ? 6 : 4);
  for (const d of drafts)
    for (const ip of d.givenIPs) {
      const f = familyOf(ip);
      if (f) families.add(f);
    }
  return families.size > 1;
}

/** Builds Services (defaulted and allocated) and their EndpointSlices. */
export function buildServices(
  objects: readonly KObject[],
  pods: readonly Pod[],
  nodes: readonly Node[],
  config: ClusterConfig,
  diagnostics: Diagnostic[],
): ServiceBuild {
  const serviceObjects = objects.filter((o) => o.kind === "Service");
  const firstPass = serviceObjects.map((o) => parseService(o, false));
  const dual = dualStack(pods, nodes, firstPass);
  const drafts = dual ? serviceObjects.map((o) => parseService(o, true)) : firstPass;

  // ClusterIPs: reserve what the input gives, then allocate in key order.
  const allocators = ipAllocators(config);
  for (const d of drafts)
    for (const ip of d.givenIPs) {
      const p = parseIP(ip);
      if (p) allocators.get(p.family)?.alloc.reserve(p.value);
    }
  const sorted = [...drafts].sort((a, b) =>
    a.service.key < b.service.key ? -1 : a.service.key > b.service.key ? 1 : 0,
  );
  for (const d of sorted) {
    const s = d.service;
    if (s.type === "ExternalName" || s.headless || d.givenIPs.length) continue;
    const ips: string[] = [];
    for (const f of d.wantFamilies) {
      const a = allocators.get(f);
      const v = a?.alloc.allocate(`${s.key}#${f}`);
      if (a && v !== undefined) ips.push(formatIP(f, v));
    }
    s.clusterIPs = ips;
    s.clusterIPsAllocated = ips.length > 0;
    s.ipFamilies = ips.map((ip) => familyName(familyOf(ip)!));
  }

  // NodePorts and healthCheckNodePorts share the node port range.
  const [lo, hi] = config.nodePortRange;
  const ports = new HashAllocator(BigInt(lo), BigInt(hi - lo + 1));
  for (const d of drafts) {
    for (const p of d.service.ports) if (p.nodePort) ports.reserve(BigInt(p.nodePort));
    if (d.service.healthCheckNodePort) ports.reserve(BigInt(d.service.healthCheckNodePort));
  }
  for (const d of sorted) {
    const s = d.service;
    const wantsNodePorts =
      s.type === "NodePort" || (s.type === "LoadBalancer" && s.allocateLoadBalancerNodePorts);
    if (wantsNodePorts) {
      // pkg/registry/core/service/storage/alloc.go initNodePorts: ports with
      // the same number share one node port; a port without one takes the
      // nodePort that another port of that number requests
      // (findRequestedNodePort), else the one allocated for that number.
      const byNumber = new Map<number, number>();
      for (const p of s.ports) {
        const shared = byNumber.get(p.port);
        if (shared === undefined) {
          const requested = p.nodePort ?? s.ports.find((q) => q.port === p.port && q.nodePort)?.nodePort;
          if (requested) {
            if (!p.nodePort) {
              p.nodePort = requested;
              p.nodePortAllocated = true;
            }
            byNumber.set(p.port, requested);
            continue;
          }
          const v = ports.allocate(`${s.key}:${p.index}:${p.protocol}`);
          if (v !== undefined) {
            p.nodePort = Number(v);
            p.nodePortAllocated = true;
            byNumber.set(p.port, p.nodePort);
          }
        } else if (!p.nodePort) {
          p.nodePort = shared;
          p.nodePortAllocated = true;
        }
      }
    } else if (s.type === "ClusterIP" || s.type === "ExternalName") {
      for (const p of s.ports) delete p.nodePort;
    }
    if (needsHealthCheck(s) && !s.healthCheckNodePort) {
      const v = ports.allocate(`${s.key}#healthCheckNodePort`);
      if (v !== undefined) {
        s.healthCheckNodePort = Number(v);
        s.healthCheckNodePortAllocated = true;
      }
    }
    if (!needsHealthCheck(s)) delete s.healthCheckNodePort;
  }

  // Load balancer addresses: kube-proxy captures VIP-mode IPs only.
  for (const d of sorted) {
    const s = d.service;
    if (s.type !== "LoadBalancer") continue;
    // No status.loadBalancer.ingress: the load balancer is pending (kubectl
    // shows <pending>); there is no address to reach or to filter.
    s.loadBalancerPending = s.loadBalancerIngress.length === 0;
    s.loadBalancerIPs = s.loadBalancerIngress.filter((i) => i.ip && i.ipMode === "VIP").map((i) => i.ip!);
  }

  const services = drafts.map((d) => d.service);
  const endpointSlices = buildEndpointSlices(objects, services, pods, nodes, diagnostics);
  return { services, endpointSlices };
}
