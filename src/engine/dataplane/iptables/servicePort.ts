/**
 * One Service port's rules in kube-proxy's iptables mode: the body of
 * syncProxyRules' loop over proxier.svcPortMap (pkg/proxy/iptables/
 * proxier.go), in its order and under its comments' names: the chain choices
 * (plan.ts), the captures in KUBE-SERVICES, KUBE-EXTERNAL-SERVICES,
 * KUBE-NODEPORTS and KUBE-PROXY-FIREWALL, the internal and external traffic
 * chains, the firewall chain, the policy chains (writeServiceToEndpointRules)
 * and the per-endpoint chains.
 */
import type { DataplaneEndpoint, DataplaneServicePort, ProxyConfig, RuleOrigin } from "../types.ts";
import { endpointString, serviceEndpointChain } from "../names.ts";
import { kubeProxyProbability } from "../probability.ts";
import { parseCidr, parseIP } from "../../model/ip.ts";
import {
  familyOf,
  KUBE_EXTERNAL_SERVICES,
  KUBE_MARK_MASQ,
  KUBE_NODEPORTS,
  KUBE_PROXY_FIREWALL,
  KUBE_SERVICES,
  NFACCT_LOCALHOST_NODEPORTS,
  q,
  type SyncContext,
} from "./sync.ts";
import { planServicePort, type ServicePortPlan } from "./plan.ts";

/** LocalTrafficDetector.IfLocal / IfNotLocal (pkg/proxy/util/localdetector.go). */
export function detectorArgs(config: ProxyConfig, local: boolean): string[] | undefined {
  const d = config.localDetector;
  const not = local ? [] : ["!"];
  switch (d.mode) {
    case "ClusterCIDR":
    case "NodeCIDR":
      return [...not, "-s", d.cidr];
    case "BridgeInterface":
      return [...not, "-i", d.interfaceName];
    case "InterfaceNamePrefix":
      return [...not, "-i", `${d.prefix}+`];
    case "None":
      return undefined;
  }
}

/** The Service port being written: its plan and what each of its rules repeats. */
interface PortContext {
  s: DataplaneServicePort;
  p: ServicePortPlan;
  spn: string;
  protocol: string;
  /** "-m tcp -p tcp" */
  proto: string[];
  /** The Service port, as --dport. */
  port: string;
  /** The load-balancer IPs of this proxier's family. */
  lbIPs: string[];
  o: (role: string, endpoint?: string) => RuleOrigin;
}

/** The role of a REJECT ("has no endpoints") or DROP ("has no local endpoints") filter rule. */
const filterRole = (f: { target: "REJECT" | "DROP" }): string =>
  f.target === "REJECT" ? "no-endpoints" : "no-local-endpoints";

/** syncProxyRules' loop body for one Service port, part by part in kube-proxy's order. */
export function writeServicePort(ctx: SyncContext, s: DataplaneServicePort): void {
  const p = planServicePort(s);
  const { spn, protocol } = p;
  const service = `${s.namespace}/${s.name}`;
  const sp: PortContext = {
    s,
    p,
    spn,
    protocol,
    proto: ["-m", protocol, "-p", protocol],
    port: String(s.port),
    lbIPs: s.loadBalancerVIPs.filter((ip) => familyOf(ip) === ctx.config.family),
    o: (role, endpoint) => ({ service, servicePort: spn, role, ...(endpoint ? { endpoint } : {}) }),
  };
  captureClusterIP(ctx, sp);
  captureExternalIPs(ctx, sp);
  captureLoadBalancerIngress(ctx, sp);
  captureNodePort(ctx, sp);
  captureHealthCheckNodePort(ctx, sp);
  writeInternalTrafficRules(ctx, sp);
  writeExternalTrafficChain(ctx, sp);
  writeFirewallChain(ctx, sp);
  writePolicyChains(ctx, sp);
  writeEndpointChains(ctx, sp);
}

/** "Capture the clusterIP": to the internal traffic chain, or the filter's REJECT/DROP. */
function captureClusterIP({ w }: SyncContext, { s, p, proto, port, o }: PortContext): void {
  if (p.hasInternalEndpoints) {
    w.rule(
      "nat",
      KUBE_SERVICES,
      [
        "-m",
        "comment",
        "--comment",
        q(`${p.spn} cluster IP`),
        ...proto,
        "-d",
        s.clusterIP,
        "--dport",
        port,
        "-j",
        p.internalTrafficChain,
      ],
      o("cluster-ip"),
    );
  } else {
    const f = p.internalFilter!;
    w.rule(
      "filter",
      KUBE_SERVICES,
      [
        "-m",
        "comment",
        "--comment",
        q(f.comment),
        ...proto,
        "-d",
        s.clusterIP,
        "--dport",
        port,
        "-j",
        f.target,
      ],
      o(filterRole(f)),
    );
  }
}

/** "Capture externalIPs": to the external chain, and KUBE-EXTERNAL-SERVICES' REJECT/DROP without (local) endpoints. */
function captureExternalIPs({ w, config }: SyncContext, { s, p, proto, port, o }: PortContext): void {
  for (const ip of s.externalIPs.filter((x) => familyOf(x) === config.family)) {
    if (s.hasEndpoints) {
      w.rule(
        "nat",
        KUBE_SERVICES,
        [
          "-m",
          "comment",
          "--comment",
          q(`${p.spn} external IP`),
          ...proto,
          "-d",
          ip,
          "--dport",
          port,
          "-j",
          p.externalChain,
        ],
        o("external-ip"),
      );
    }
    if (!p.hasExternalEndpoints) {
      const f = p.externalFilter!;
      w.rule(
        "filter",
        KUBE_EXTERNAL_SERVICES,
        ["-m", "comment", "--comment", q(f.comment), ...proto, "-d", ip, "--dport", port, "-j", f.target],
        o(filterRole(f)),
      );
    }
  }
}

/** "Capture load-balancer ingress": to the firewall or external chain, KUBE-PROXY-FIREWALL's DROP, the filter's REJECT/DROP. */
function captureLoadBalancerIngress({ w }: SyncContext, { s, p, proto, port, lbIPs, o }: PortContext): void {
  for (const ip of lbIPs) {
    if (s.hasEndpoints) {
      w.rule(
        "nat",
        KUBE_SERVICES,
        [
          "-m",
          "comment",
          "--comment",
          q(`${p.spn} loadbalancer IP`),
          ...proto,
          "-d",
          ip,
          "--dport",
          port,
          "-j",
          p.loadBalancerTrafficChain,
        ],
        o("load-balancer"),
      );
    }
    if (p.usesFWChain) {
      w.rule(
        "filter",
        KUBE_PROXY_FIREWALL,
        [
          "-m",
          "comment",
          "--comment",
          q(`${p.spn} traffic not accepted by ${p.firewallChain}`),
          ...proto,
          "-d",
          ip,
          "--dport",
          port,
          "-j",
          "DROP",
        ],
        o("firewall"),
      );
    }
  }
  if (!p.hasExternalEndpoints) {
    const f = p.externalFilter!;
    for (const ip of lbIPs) {
      w.rule(
        "filter",
        KUBE_EXTERNAL_SERVICES,
        ["-m", "comment", "--comment", q(f.comment), ...proto, "-d", ip, "--dport", port, "-j", f.target],
        o(filterRole(f)),
      );
    }
  }
}

/** "Capture nodeports": KUBE-NODEPORTS to the external chain (localhost ones counted by nfacct), the filter's REJECT/DROP. */
function captureNodePort(ctx: SyncContext, { s, p, proto, o }: PortContext): void {
  if (s.nodePort === 0) return;
  const { w } = ctx;
  const np = String(s.nodePort);
  if (s.hasEndpoints) {
    if (ctx.localhostNodePorts && ctx.config.nfacct) {
      w.rule(
        "nat",
        KUBE_NODEPORTS,
        [
          "-m",
          "comment",
          "--comment",
          p.spn,
          ...proto,
          "-d",
          "127.0.0.0/8",
          "--dport",
          np,
          "-m",
          "nfacct",
          "--nfacct-name",
          NFACCT_LOCALHOST_NODEPORTS,
          "-j",
          p.externalChain,
        ],
        o("nodeport"),
      );
    }
    w.rule(
      "nat",
      KUBE_NODEPORTS,
      ["-m", "comment", "--comment", p.spn, ...proto, "--dport", np, "-j", p.externalChain],
      o("nodeport"),
    );
  }
  if (!p.hasExternalEndpoints) {
    const f = p.externalFilter!;
    w.rule(
      "filter",
      KUBE_EXTERNAL_SERVICES,
      [
        "-m",
        "comment",
        "--comment",
        q(f.comment),
        "-m",
        "addrtype",
        "--dst-type",
        "LOCAL",
        ...proto,
        "--dport",
        np,
        "-j",
        f.target,
      ],
      o(filterRole(f)),
    );
  }
}

/** "Capture healthCheckNodePorts": the filter accepts the load balancer's health checks. */
function captureHealthCheckNodePort({ w }: SyncContext, { s, p, o }: PortContext): void {
  if (s.healthCheckNodePort === 0) return;
  w.rule(
    "filter",
    KUBE_NODEPORTS,
    [
      "-m",
      "comment",
      "--comment",
      q(`${p.spn} health check node port`),
      "-m",
      "tcp",
      "-p",
      "tcp",
      "--dport",
      String(s.healthCheckNodePort),
      "-j",
      "ACCEPT",
    ],
    o("health-check"),
  );
}

/** "Set up internal traffic handling": masquerade ClusterIP traffic that is not local (or all, with masqueradeAll). */
function writeInternalTrafficRules({ w, config }: SyncContext, { s, p, proto, port, o }: PortContext): void {
  if (!p.hasInternalEndpoints) return;
  const args = [
    "-m",
    "comment",
    "--comment",
    q(`${p.spn} cluster IP`),
    ...proto,
    "-d",
    s.clusterIP,
    "--dport",
    port,
  ];
  const notLocal = detectorArgs(config, false);
  if (config.masqueradeAll)
    w.rule("nat", p.internalTrafficChain, [...args, "-j", KUBE_MARK_MASQ], o("masquerade"));
  else if (notLocal)
    w.rule("nat", p.internalTrafficChain, [...args, ...notLocal, "-j", KUBE_MARK_MASQ], o("masquerade"));
}

/**
 * "Set up external traffic handling": the KUBE-EXT chain masquerades (Cluster
 * policy) or short-circuits pod and node traffic to the Cluster endpoints
 * (Local policy), then jumps to the external policy chain.
 */
function writeExternalTrafficChain({ w, config }: SyncContext, { s, p, o }: PortContext): void {
  if (!p.usesExternalTrafficChain) return;
  const spn = p.spn;
  w.chain("nat", p.externalChain);
  if (!s.externalPolicyLocal) {
    w.rule(
      "nat",
      p.externalChain,
      [
        "-m",
        "comment",
        "--comment",
        q(`masquerade traffic for ${spn} external destinations`),
        "-j",
        KUBE_MARK_MASQ,
      ],
      o("masquerade"),
    );
  } else {
    const local = detectorArgs(config, true);
    if (local) {
      w.rule(
        "nat",
        p.externalChain,
        [
          "-m",
          "comment",
          "--comment",
          q(`pod traffic for ${spn} external destinations`),
          ...local,
          "-j",
          p.clusterPolicyChain,
        ],
        o("short-circuit"),
      );
    }
    w.rule(
      "nat",
      p.externalChain,
      [
        "-m",
        "comment",
        "--comment",
        q(`masquerade LOCAL traffic for ${spn} external destinations`),
        "-m",
        "addrtype",
        "--src-type",
        "LOCAL",
        "-j",
        KUBE_MARK_MASQ,
      ],
      o("masquerade"),
    );
    w.rule(
      "nat",
      p.externalChain,
      [
        "-m",
        "comment",
        "--comment",
        q(`route LOCAL traffic for ${spn} external destinations`),
        "-m",
        "addrtype",
        "--src-type",
        "LOCAL",
        "-j",
        p.clusterPolicyChain,
      ],
      o("short-circuit"),
    );
  }
  if (p.hasExternalEndpoints) w.rule("nat", p.externalChain, ["-j", p.externalPolicyChain], o("jump"));
}

/**
 * "Set up firewall chain, if needed": loadBalancerSourceRanges go on to the
 * external chain (and the LB IPs themselves when the node IP is in a range:
 * allowFromNode); anything else falls through to KUBE-PROXY-FIREWALL's DROP.
 */
function writeFirewallChain({ w, input }: SyncContext, { s, p, lbIPs, o }: PortContext): void {
  if (!p.usesFWChain) return;
  w.chain("nat", p.firewallChain);
  const args = ["-m", "comment", "--comment", q(`${p.spn} loadbalancer IP`)];
  let allowFromNode = false;
  const nodeIP = parseIP(input.nodeIP);
  for (const range of s.loadBalancerSourceRanges) {
    const cidr = range.trim();
    w.rule("nat", p.firewallChain, [...args, "-s", cidr, "-j", p.externalChain], o("firewall"));
    const c = parseCidr(cidr).cidr;
    if (c && nodeIP && c.family === nodeIP.family && nodeIP.value >= c.first && nodeIP.value <= c.last)
      allowFromNode = true;
  }
  if (allowFromNode)
    for (const ip of lbIPs)
      w.rule("nat", p.firewallChain, [...args, "-s", ip, "-j", p.externalChain], o("firewall"));
  w.rule(
    "nat",
    p.firewallChain,
    ["-m", "comment", "--comment", q(`other traffic to ${p.spn} will be dropped by KUBE-PROXY-FIREWALL`)],
    o("firewall"),
  );
}

/** The KUBE-SVC (Cluster) and KUBE-SVL (Local) policy chains, when in use. */
function writePolicyChains(ctx: SyncContext, sp: PortContext): void {
  const { w } = ctx;
  const { s, p } = sp;
  if (p.usesClusterPolicyChain) {
    w.chain("nat", p.clusterPolicyChain);
    writeServiceToEndpointRules(ctx, sp, p.clusterPolicyChain, s.clusterEndpoints);
  }
  if (p.usesLocalPolicyChain) {
    w.chain("nat", p.localPolicyChain);
    writeServiceToEndpointRules(ctx, sp, p.localPolicyChain, s.localEndpoints);
  }
}

/**
 * writeServiceToEndpointRules: with ClientIP affinity, first a `recent
 * --rcheck` jump per endpoint; then the statistic cascade, 1/(n-i) for the
 * i-th endpoint and none for the last.
 */
function writeServiceToEndpointRules(
  { w, comment }: SyncContext,
  { s, spn, protocol, o }: PortContext,
  chain: string,
  endpoints: readonly DataplaneEndpoint[],
): void {
  if (s.stickyMaxAgeSeconds !== undefined) {
    for (const ep of endpoints) {
      const epStr = endpointString(ep.ip, ep.port);
      const sep = serviceEndpointChain(spn, protocol, epStr);
      w.rule(
        "nat",
        chain,
        [
          ...comment(q(`${spn} -> ${epStr}`)),
          "-m",
          "recent",
          "--name",
          sep,
          "--rcheck",
          "--seconds",
          String(s.stickyMaxAgeSeconds),
          "--reap",
          "-j",
          sep,
        ],
        o("affinity", epStr),
      );
    }
  }
  const n = endpoints.length;
  endpoints.forEach((ep, i) => {
    const epStr = endpointString(ep.ip, ep.port);
    const sep = serviceEndpointChain(spn, protocol, epStr);
    const stat =
      i < n - 1 ? ["-m", "statistic", "--mode", "random", "--probability", kubeProxyProbability(n - i)] : [];
    w.rule("nat", chain, [...comment(q(`${spn} -> ${epStr}`)), ...stat, "-j", sep], o("load-balance", epStr));
  });
}

/** "Generate the per-endpoint chains": KUBE-SEP marks hairpin traffic for masquerade, then DNATs (recording affinity). */
function writeEndpointChains({ w, comment }: SyncContext, { s, spn, protocol, proto, o }: PortContext): void {
  for (const ep of s.allLocallyReachableEndpoints) {
    const epStr = endpointString(ep.ip, ep.port);
    const chain = serviceEndpointChain(spn, protocol, epStr);
    w.chain("nat", chain);
    const head = comment(spn);
    w.rule("nat", chain, [...head, "-s", ep.ip, "-j", KUBE_MARK_MASQ], o("hairpin", epStr));
    const affinity = s.stickyMaxAgeSeconds !== undefined ? ["-m", "recent", "--name", chain, "--set"] : [];
    w.rule(
      "nat",
      chain,
      [...head, ...affinity, ...proto, "-j", "DNAT", "--to-destination", epStr],
      o("dnat", epStr),
    );
  }
}
