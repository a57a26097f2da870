/**
 * One Service port's part of kube-proxy's nftables table: the body of
 * syncProxyRules' loop over proxier.svcPortMap (pkg/proxy/nftables/
 * proxier.go), in its order and under its comments' names: the chains, the
 * captures in the @cluster-ips, @service-ips, @no-endpoint-services,
 * @firewall-ips and node-port maps, the internal and external traffic
 * chains, the firewall chain, the affinity sets, the policy chains
 * (writeServiceToEndpointRules) and the per-endpoint chains.
 */
import type { DataplaneServicePort, NodeDataplaneInput, ProxyConfig, RuleOrigin } from "./types.ts";
import { planServicePort, type ServicePortPlan } from "./iptables/build.ts";
import { nftEndpointBase, nftServiceBase } from "./names.ts";
import { parseCidr, parseIP } from "../model/ip.ts";
import { anonSet, familyOf, type Table } from "./nfttable.ts";

const SERVICE_PREFIX = "service-";
const LOCAL_PREFIX = "local-";
const EXTERNAL_PREFIX = "external-";
const ENDPOINT_PREFIX = "endpoint-";
const AFFINITY_PREFIX = "affinity-";
const FIREWALL_PREFIX = "firewall-";

/** LocalTrafficDetector.IfLocalNFT / IfNotLocalNFT (pkg/proxy/util/localdetector.go). */
function detectorNFT(config: ProxyConfig, local: boolean): string | undefined {
  const d = config.localDetector;
  const ipX = config.family === "IPv4" ? "ip" : "ip6";
  const op = local ? "" : "!= ";
  switch (d.mode) {
    case "ClusterCIDR":
    case "NodeCIDR":
      return `${ipX} saddr ${op}${d.cidr}`;
    case "BridgeInterface":
      return `iifname ${op}"${d.interfaceName}"`;
    case "InterfaceNamePrefix":
      return `iifname ${op}"${d.prefix}*"`;
    case "None":
      return undefined;
  }
}

/** What every Service port's elements and rules share: the table being built and the proxier's family. */
export interface NftSync {
  t: Table;
  config: ProxyConfig;
  input: NodeDataplaneInput;
  /** "ip" or "ip6" */
  ipX: string;
  /** "ipv4_addr" or "ipv6_addr" */
  addrType: string;
}

/** The Service port being added: its plan, its chains and what each of its elements and rules repeats. */
interface NftServicePort extends NftSync {
  s: DataplaneServicePort;
  plan: ServicePortPlan;
  spn: string;
  protocol: string;
  /** The Service port, as a set key. */
  port: string;
  clusterChain: string;
  localChain: string;
  externalChain: string;
  fwChain: string;
  /** The load-balancer IPs of this proxier's family. */
  lbIPs: string[];
  /** nftables/proxier.go: the firewall chain exists whenever LB IPs and source ranges do. */
  usesFWChain: boolean;
  /** sessionAffinity ClientIP. */
  sticky: boolean;
  /** The endpoint's chain and affinity set name, without its prefix. */
  epBase: (ip: string, port: number) => string;
  o: (role: string, endpoint?: string) => RuleOrigin;
}

const epKey = (ip: string, port: number) => (ip.includes(":") ? `[${ip}]:${port}` : `${ip}:${port}`);

/** A no-endpoint verdict-map element's verdict: REJECT through reject-chain, or drop. */
const filterVerdict = (f: { target: "REJECT" | "DROP" } | undefined) =>
  f?.target === "REJECT" ? "goto reject-chain" : "drop";

/** syncProxyRules' loop body for one Service port (nftables/proxier.go), part by part in kube-proxy's order. */
export function addService(sync: NftSync, s: DataplaneServicePort): void {
  const plan = planServicePort(s);
  const { protocol, spn } = plan;
  const baseName = nftServiceBase(s.namespace, s.name, protocol, s.portName);
  const service = `${s.namespace}/${s.name}`;
  const lbIPs = s.loadBalancerVIPs.filter((ip) => familyOf(ip) === sync.config.family);
  const c: NftServicePort = {
    ...sync,
    s,
    plan,
    spn,
    protocol,
    port: String(s.port),
    clusterChain: SERVICE_PREFIX + baseName,
    localChain: LOCAL_PREFIX + baseName,
    externalChain: EXTERNAL_PREFIX + baseName,
    fwChain: FIREWALL_PREFIX + baseName,
    lbIPs,
    usesFWChain: lbIPs.length > 0 && s.loadBalancerSourceRanges.length > 0,
    sticky: s.stickyMaxAgeSeconds !== undefined,
    epBase: (ip, port) => nftEndpointBase(s.namespace, s.name, protocol, s.portName, ip, port),
    o: (role, endpoint) => ({ service, servicePort: spn, role, ...(endpoint ? { endpoint } : {}) }),
  };
  ensureServiceChains(c);
  captureClusterIP(c);
  captureExternalIPs(c);
  captureLoadBalancerIngress(c);
  captureNodePort(c);
  writeInternalTraffic(c);
  writeExternalTrafficChain(c);
  writeFirewallChain(c);
  addAffinitySets(c);
  if (plan.usesClusterPolicyChain) writeServiceToEndpointRules(c, c.clusterChain, s.clusterEndpoints);
  if (plan.usesLocalPolicyChain) writeServiceToEndpointRules(c, c.localChain, s.localEndpoints);
  writeEndpointChains(c);
}

/** The chains this port uses, endpoint chains first (their order is the table's listing order). */
function ensureServiceChains(c: NftServicePort): void {
  const { t, s, plan, epBase } = c;
  for (const ep of s.allLocallyReachableEndpoints) t.chain(ENDPOINT_PREFIX + epBase(ep.ip, ep.port));
  if (plan.usesClusterPolicyChain) t.chain(c.clusterChain);
  if (plan.usesLocalPolicyChain) t.chain(c.localChain);
  if (plan.usesExternalTrafficChain) t.chain(c.externalChain);
  if (c.usesFWChain) t.chain(c.fwChain);
}

/** The chain internal (ClusterIP) traffic goes to: internalTrafficPolicy's. */
const internalChainOf = ({ s, localChain, clusterChain }: NftServicePort) =>
  s.internalPolicyLocal ? localChain : clusterChain;

/** "Capture the clusterIP": @cluster-ips, and @service-ips or @no-endpoint-services. */
function captureClusterIP(c: NftServicePort): void {
  const { t, s, plan, protocol, port, spn } = c;
  t.elem("cluster-ips", { key: s.clusterIP });
  if (plan.hasInternalEndpoints)
    t.elem("service-ips", {
      key: `${s.clusterIP} . ${protocol} . ${port}`,
      value: `goto ${internalChainOf(c)}`,
    });
  else
    t.elem("no-endpoint-services", {
      key: `${s.clusterIP} . ${protocol} . ${port}`,
      value: filterVerdict(plan.internalFilter),
      comment: spn,
    });
}

/** "Capture externalIPs": to the external chain, or @no-endpoint-services without (local) endpoints. */
function captureExternalIPs({
  t,
  s,
  plan,
  protocol,
  port,
  spn,
  config,
  externalChain,
}: NftServicePort): void {
  for (const ip of s.externalIPs.filter((x) => familyOf(x) === config.family)) {
    if (s.hasEndpoints)
      t.elem("service-ips", { key: `${ip} . ${protocol} . ${port}`, value: `goto ${externalChain}` });
    if (!plan.hasExternalEndpoints)
      t.elem("no-endpoint-services", {
        key: `${ip} . ${protocol} . ${port}`,
        value: filterVerdict(plan.externalFilter),
        comment: spn,
      });
  }
}

/** "Capture load-balancer ingress": to the external chain, @firewall-ips, @no-endpoint-services. */
function captureLoadBalancerIngress(c: NftServicePort): void {
  const { t, s, plan, protocol, port, spn, lbIPs } = c;
  for (const ip of lbIPs) {
    if (s.hasEndpoints)
      t.elem("service-ips", { key: `${ip} . ${protocol} . ${port}`, value: `goto ${c.externalChain}` });
    if (c.usesFWChain)
      t.elem("firewall-ips", { key: `${ip} . ${protocol} . ${port}`, value: `goto ${c.fwChain}` });
  }
  if (!plan.hasExternalEndpoints)
    for (const ip of lbIPs)
      t.elem("no-endpoint-services", {
        key: `${ip} . ${protocol} . ${port}`,
        value: filterVerdict(plan.externalFilter),
        comment: spn,
      });
}

/** "Capture nodeports": @service-nodeports to the external chain, or @no-endpoint-nodeports. */
function captureNodePort({ t, s, plan, protocol, spn, externalChain }: NftServicePort): void {
  if (s.nodePort === 0) return;
  if (s.hasEndpoints)
    t.elem("service-nodeports", { key: `${protocol} . ${s.nodePort}`, value: `goto ${externalChain}` });
  if (!plan.hasExternalEndpoints)
    t.elem("no-endpoint-nodeports", {
      key: `${protocol} . ${s.nodePort}`,
      value: filterVerdict(plan.externalFilter),
      comment: spn,
    });
}

/** "Set up internal traffic handling": masquerade ClusterIP traffic that is not local (or all, with masqueradeAll). */
function writeInternalTraffic(c: NftServicePort): void {
  const { t, s, plan, config, ipX, o } = c;
  if (!plan.hasInternalEndpoints) return;
  const internalChain = internalChainOf(c);
  const notLocal = detectorNFT(config, false);
  if (config.masqueradeAll)
    t.rule(internalChain, `${ipX} daddr ${s.clusterIP} jump mark-for-masquerade`, o("masquerade"));
  else if (notLocal)
    t.rule(
      internalChain,
      `${ipX} daddr ${s.clusterIP} ${notLocal} jump mark-for-masquerade`,
      o("masquerade"),
    );
}

/**
 * "Set up external traffic handling": the external chain masquerades
 * (Cluster policy) or short-circuits pod and node traffic to the Cluster
 * endpoints (Local policy), then goes to the external policy chain.
 */
function writeExternalTrafficChain(c: NftServicePort): void {
  const { t, s, plan, config, o } = c;
  if (!plan.usesExternalTrafficChain) return;
  const externalChain = c.externalChain;
  if (!s.externalPolicyLocal) t.rule(externalChain, "jump mark-for-masquerade", o("masquerade"));
  else {
    const local = detectorNFT(config, true);
    if (local)
      t.rule(
        externalChain,
        `${local} goto ${c.clusterChain}`,
        o("short-circuit"),
        "short-circuit pod traffic",
      );
    t.rule(
      externalChain,
      "fib saddr type local jump mark-for-masquerade",
      o("masquerade"),
      "masquerade local traffic",
    );
    t.rule(
      externalChain,
      `fib saddr type local goto ${c.clusterChain}`,
      o("short-circuit"),
      "short-circuit local traffic",
    );
  }
  const externalPolicyChain = s.externalPolicyLocal ? c.localChain : c.clusterChain;
  if (plan.hasExternalEndpoints) t.rule(externalChain, `goto ${externalPolicyChain}`, o("jump"));
}

/**
 * "Set up firewall chain, if needed": drop sources outside
 * loadBalancerSourceRanges (the LB IPs themselves admitted when the node IP
 * is in a range: allowFromNode).
 */
function writeFirewallChain(c: NftServicePort): void {
  const { t, s, input, ipX, lbIPs, o } = c;
  if (!c.usesFWChain) return;
  const sources = s.loadBalancerSourceRanges.map((r) => r.trim());
  const nodeIP = parseIP(input.nodeIP);
  const allowFromNode = sources.some((r) => {
    const cidr = parseCidr(r).cidr;
    return (
      !!cidr &&
      !!nodeIP &&
      cidr.family === nodeIP.family &&
      nodeIP.value >= cidr.first &&
      nodeIP.value <= cidr.last
    );
  });
  if (allowFromNode) sources.push(...lbIPs);
  t.rule(c.fwChain, `${ipX} saddr != ${anonSet(sources)} drop`, o("firewall"));
}

/** "Generate the per-endpoint affinity sets" (sessionAffinity ClientIP). */
function addAffinitySets({ t, s, sticky, addrType, epBase }: NftServicePort): void {
  if (!sticky) return;
  for (const ep of s.allLocallyReachableEndpoints) {
    t.set({
      kind: "set",
      name: AFFINITY_PREFIX + epBase(ep.ip, ep.port),
      type: addrType,
      flags: ["timeout", "dynamic"],
      timeoutSeconds: s.stickyMaxAgeSeconds!,
      elements: [],
    });
  }
}

/** writeServiceToEndpointRules: a policy chain's affinity checks, then numgen over its endpoints. */
function writeServiceToEndpointRules(
  { t, sticky, ipX, epBase, o }: NftServicePort,
  chain: string,
  eps: DataplaneServicePort["clusterEndpoints"],
): void {
  if (sticky)
    for (const ep of eps)
      t.rule(
        chain,
        `${ipX} saddr @${AFFINITY_PREFIX}${epBase(ep.ip, ep.port)} goto ${ENDPOINT_PREFIX}${epBase(ep.ip, ep.port)}`,
        o("affinity", epKey(ep.ip, ep.port)),
      );
  const elements = eps.map((ep, i) => `${i} : goto ${ENDPOINT_PREFIX}${epBase(ep.ip, ep.port)}`).join(", ");
  t.rule(chain, `numgen random mod ${eps.length} vmap { ${elements} }`, o("load-balance"));
}

/** "Generate the per-endpoint chains": mark hairpin traffic for masquerade, record affinity, DNAT. */
function writeEndpointChains({ t, s, sticky, ipX, protocol, epBase, o }: NftServicePort): void {
  for (const ep of s.allLocallyReachableEndpoints) {
    const chain = ENDPOINT_PREFIX + epBase(ep.ip, ep.port);
    const k = epKey(ep.ip, ep.port);
    t.rule(chain, `${ipX} saddr ${ep.ip} jump mark-for-masquerade`, o("hairpin", k));
    if (sticky)
      t.rule(chain, `update @${AFFINITY_PREFIX}${epBase(ep.ip, ep.port)} { ${ipX} saddr }`, o("affinity", k));
    t.rule(chain, `meta l4proto ${protocol} dnat to ${k}`, o("dnat", k));
  }
}
