/**
 * The iptables rules kube-proxy 1.35 (iptables mode) writes on one node, in
 * the order it writes them: pkg/proxy/iptables/proxier.go syncProxyRules
 * (full sync) and writeServiceToEndpointRules, plus the jump rules it ensures
 * in the built-in chains (iptablesJumpChains, iptablesKubeletJumpChains).
 *
 * kube-proxy walks its service map in Go map order; rules here follow the
 * Service port names in sorted order (as upstream's tests sort them), which
 * changes nothing about what a packet matches: each rule of KUBE-SERVICES
 * matches a distinct destination.
 */
import type {
  DataplaneEndpoint,
  DataplaneServicePort,
  NodeDataplaneInput,
  ProxyConfig,
  RuleOrigin,
} from "../types.ts";
import {
  endpointString,
  serviceClusterChain,
  serviceEndpointChain,
  serviceExternalChain,
  serviceFirewallChain,
  serviceLocalChain,
  servicePortNameString,
} from "../names.ts";
import { kubeProxyProbability } from "../probability.ts";
import { parseCidr, parseIP } from "../../model/ip.ts";
import { parseRule, type ParsedRule } from "./rule.ts";

export type IptablesTableName = "filter" | "nat";

export interface IptablesRule {
  /** Stable id: table/chain/index within the chain. */
  id: string;
  table: IptablesTableName;
  chain: string;
  /** The rule as kube-proxy writes it to iptables-restore ("-A", chain, options...). */
  args: string[];
  parsed: ParsedRule;
  origin: RuleOrigin;
}

export interface IptablesTable {
  name: IptablesTableName;
  /** Built-in chains and their policies, in hook order. */
  builtins: [string, string][];
  /** User chains that exist in the table. */
  chains: Set<string>;
  rules: IptablesRule[];
}

export interface IptablesRuleset {
  nodeName: string;
  config: ProxyConfig;
  tables: Record<IptablesTableName, IptablesTable>;
}

// Chain names (iptables/proxier.go constants).
export const KUBE_SERVICES = "KUBE-SERVICES";
export const KUBE_EXTERNAL_SERVICES = "KUBE-EXTERNAL-SERVICES";
export const KUBE_NODEPORTS = "KUBE-NODEPORTS";
export const KUBE_POSTROUTING = "KUBE-POSTROUTING";
export const KUBE_MARK_MASQ = "KUBE-MARK-MASQ";
export const KUBE_FORWARD = "KUBE-FORWARD";
export const KUBE_PROXY_FIREWALL = "KUBE-PROXY-FIREWALL";
export const KUBE_PROXY_CANARY = "KUBE-PROXY-CANARY";
export const KUBE_FIREWALL = "KUBE-FIREWALL";

/** largeClusterEndpointsThreshold: above it kube-proxy drops per-endpoint comments. */
const LARGE_CLUSTER_ENDPOINTS = 1000;

/** metrics.IPTablesCTStateInvalidDroppedNFAcctCounter / LocalhostNodePortAcceptedNFAcctCounter. */
const NFACCT_INVALID = "ct_state_invalid_dropped_pkts";
const NFACCT_LOCALHOST_NODEPORTS = "localhost_nps_accepted_pkts";

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

/** fmt.Sprintf("%#08x", 1 << masqueradeBit): kube-proxy's mark, e.g. "0x004000". */
export function masqueradeMark(config: ProxyConfig): string {
  const v = (1 << config.masqueradeBit) >>> 0;
  return `0x${v.toString(16).padStart(6, "0")}`;
}

/** The kube-proxy comment argument: kube-proxy wraps comments with spaces in literal quotes. */
const q = (s: string): string => `"${s}"`;

class Writer {
  readonly tables: Record<IptablesTableName, IptablesTable>;
  private readonly counts = new Map<string, number>();
  constructor() {
    this.tables = {
      filter: {
        name: "filter",
        builtins: [
          ["INPUT", "ACCEPT"],
          ["FORWARD", "ACCEPT"],
          ["OUTPUT", "ACCEPT"],
        ],
        chains: new Set(),
        rules: [],
      },
      nat: {
        name: "nat",
        builtins: [
          ["PREROUTING", "ACCEPT"],
          ["INPUT", "ACCEPT"],
          ["OUTPUT", "ACCEPT"],
          ["POSTROUTING", "ACCEPT"],
        ],
        chains: new Set(),
        rules: [],
      },
    };
  }
  chain(table: IptablesTableName, name: string): void {
    this.tables[table].chains.add(name);
  }
  rule(table: IptablesTableName, chain: string, args: string[], origin: RuleOrigin): void {
    const key = `${table}/${chain}`;
    const n = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, n);
    const full = ["-A", chain, ...args];
    this.tables[table].rules.push({
      id: `${key}/${n}`,
      table,
      chain,
      args: full,
      parsed: parseRule(full),
      origin,
    });
  }
}

function familyOf(ip: string): "IPv4" | "IPv6" | undefined {
  const p = parseIP(ip);
  return p ? (p.family === 4 ? "IPv4" : "IPv6") : undefined;
}

/**
 * UsesClusterEndpoints / UsesLocalEndpoints (pkg/proxy/serviceport.go): a port
 * that accepts external traffic at all needs the Cluster endpoints, even with
 * externalTrafficPolicy Local, for the short-circuit of pod and node traffic.
 */
export function usesClusterEndpoints(s: DataplaneServicePort): boolean {
  return !s.internalPolicyLocal || s.externallyAccessible;
}
export function usesLocalEndpoints(s: DataplaneServicePort): boolean {
  return s.internalPolicyLocal || (s.externallyAccessible && s.externalPolicyLocal);
}

/** Which chains and filter verdicts syncProxyRules derives for one Service port on this node. */
export interface ServicePortPlan {
  spn: string;
  protocol: string;
  clusterPolicyChain: string;
  localPolicyChain: string;
  externalChain: string;
  firewallChain: string;
  usesClusterPolicyChain: boolean;
  usesLocalPolicyChain: boolean;
  internalTrafficChain: string;
  hasInternalEndpoints: boolean;
  externalPolicyChain: string;
  hasExternalEndpoints: boolean;
  usesExternalTrafficChain: boolean;
  usesFWChain: boolean;
  loadBalancerTrafficChain: string;
  internalFilter?: { target: "REJECT" | "DROP"; comment: string };
  externalFilter?: { target: "REJECT" | "DROP"; comment: string };
}

/** The chain choices at the top of syncProxyRules' per-service loop, shared by the iptables walk and the nftables printer. */
export function planServicePort(s: DataplaneServicePort): ServicePortPlan {
  const spn = servicePortNameString(s.namespace, s.name, s.portName);
  const protocol = s.protocol.toLowerCase();
  const clusterPolicyChain = serviceClusterChain(spn, protocol);
  const localPolicyChain = serviceLocalChain(spn, protocol);
  const externalChain = serviceExternalChain(spn, protocol);
  const firewallChain = serviceFirewallChain(spn, protocol);
  const usesClusterPolicyChain = s.clusterEndpoints.length > 0 && usesClusterEndpoints(s);
  const usesLocalPolicyChain = s.localEndpoints.length > 0 && usesLocalEndpoints(s);

  let internalPolicyChain = clusterPolicyChain;
  let hasInternalEndpoints = s.hasEndpoints;
  if (s.internalPolicyLocal) {
    internalPolicyChain = localPolicyChain;
    if (s.localEndpoints.length === 0) hasInternalEndpoints = false;
  }
  let externalPolicyChain = clusterPolicyChain;
  let hasExternalEndpoints = s.hasEndpoints;
  if (s.externalPolicyLocal) {
    externalPolicyChain = localPolicyChain;
    if (s.localEndpoints.length === 0) hasExternalEndpoints = false;
  }
  const usesExternalTrafficChain = s.hasEndpoints && s.externallyAccessible;
  const usesFWChain =
    s.hasEndpoints && s.loadBalancerVIPs.length > 0 && s.loadBalancerSourceRanges.length > 0;

  const plan: ServicePortPlan = {
    spn,
    protocol,
    clusterPolicyChain,
    localPolicyChain,
    externalChain,
    firewallChain,
    usesClusterPolicyChain,
    usesLocalPolicyChain,
    internalTrafficChain: internalPolicyChain,
    hasInternalEndpoints,
    externalPolicyChain,
    hasExternalEndpoints,
    usesExternalTrafficChain,
    usesFWChain,
    loadBalancerTrafficChain: usesFWChain ? firewallChain : externalChain,
  };
  if (!s.hasEndpoints) {
    plan.internalFilter = { target: "REJECT", comment: `${spn} has no endpoints` };
    plan.externalFilter = plan.internalFilter;
  } else {
    if (!hasInternalEndpoints)
      plan.internalFilter = { target: "DROP", comment: `${spn} has no local endpoints` };
    if (!hasExternalEndpoints)
      plan.externalFilter = { target: "DROP", comment: `${spn} has no local endpoints` };
  }
  return plan;
}

function sortServicePorts(ports: readonly DataplaneServicePort[]): DataplaneServicePort[] {
  const key = (s: DataplaneServicePort) =>
    `${servicePortNameString(s.namespace, s.name, s.portName)}\u0000${s.protocol}`;
  return [...ports].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/** Builds every rule kube-proxy (iptables mode) writes on the node. */
export function buildIptables(input: NodeDataplaneInput, config: ProxyConfig): IptablesRuleset {
  const w = new Writer();
  const isIPv6 = config.family === "IPv6";
  const mark = masqueradeMark(config);
  const localhostNodePorts = config.localhostNodePorts && !isIPv6 && nodePortAddressesIncludeLoopback(config);

  // Jump rules from the built-in chains. kube-proxy prepends each one
  // (EnsureRule(Prepend)), so later entries of iptablesJumpChains end up
  // first; kubelet created its KUBE-FIREWALL jumps before kube-proxy started.
  const jump = (table: "filter" | "nat", src: string, dst: string, comment: string, extra: string[]) => ({
    table,
    src,
    dst,
    comment,
    extra,
  });
  const ctNew = ["-m", "conntrack", "--ctstate", "NEW"];
  const jumps = [
    jump("filter", "INPUT", KUBE_EXTERNAL_SERVICES, "kubernetes externally-visible service portals", ctNew),
    jump("filter", "FORWARD", KUBE_EXTERNAL_SERVICES, "kubernetes externally-visible service portals", ctNew),
    jump("filter", "INPUT", KUBE_NODEPORTS, "kubernetes health check service ports", []),
    jump("filter", "FORWARD", KUBE_SERVICES, "kubernetes service portals", ctNew),
    jump("filter", "OUTPUT", KUBE_SERVICES, "kubernetes service portals", ctNew),
    jump("filter", "FORWARD", KUBE_FORWARD, "kubernetes forwarding rules", []),
    jump("filter", "INPUT", KUBE_PROXY_FIREWALL, "kubernetes load balancer firewall", ctNew),
    jump("filter", "OUTPUT", KUBE_PROXY_FIREWALL, "kubernetes load balancer firewall", ctNew),
    jump("filter", "FORWARD", KUBE_PROXY_FIREWALL, "kubernetes load balancer firewall", ctNew),
    jump("nat", "OUTPUT", KUBE_SERVICES, "kubernetes service portals", []),
    jump("nat", "PREROUTING", KUBE_SERVICES, "kubernetes service portals", []),
    jump("nat", "POSTROUTING", KUBE_POSTROUTING, "kubernetes postrouting rules", []),
  ];
  for (const [table, builtins] of [
    ["filter", ["INPUT", "FORWARD", "OUTPUT"]],
    ["nat", ["PREROUTING", "OUTPUT", "POSTROUTING"]],
  ] as const) {
    for (const src of builtins) {
      for (const j of [...jumps].reverse()) {
        if (j.table !== table || j.src !== src) continue;
        w.rule(table, src, [...j.extra, "-m", "comment", "--comment", q(j.comment), "-j", j.dst], {
          role: "jump",
        });
      }
      if (table === "filter" && (src === "INPUT" || src === "OUTPUT"))
        w.rule(table, src, ["-j", KUBE_FIREWALL], { role: "jump" });
    }
  }
  // ipt.Monitor's canary chain, in each table kube-proxy watches.
  w.chain("filter", KUBE_PROXY_CANARY);
  w.chain("nat", KUBE_PROXY_CANARY);

  for (const c of [
    KUBE_SERVICES,
    KUBE_EXTERNAL_SERVICES,
    KUBE_FORWARD,
    KUBE_NODEPORTS,
    KUBE_PROXY_FIREWALL,
    KUBE_FIREWALL,
  ])
    w.chain("filter", c);
  for (const c of [KUBE_SERVICES, KUBE_NODEPORTS, KUBE_POSTROUTING, KUBE_MARK_MASQ]) w.chain("nat", c);

  const base: RuleOrigin = { role: "base" };
  w.rule("nat", KUBE_POSTROUTING, ["-m", "mark", "!", "--mark", `${mark}/${mark}`, "-j", "RETURN"], base);
  w.rule("nat", KUBE_POSTROUTING, ["-j", "MARK", "--xor-mark", mark], base);
  w.rule(
    "nat",
    KUBE_POSTROUTING,
    [
      "-m",
      "comment",
      "--comment",
      q("kubernetes service traffic requiring SNAT"),
      "-j",
      "MASQUERADE",
      ...(config.randomFully ? ["--random-fully"] : []),
    ],
    { role: "masquerade" },
  );
  w.rule("nat", KUBE_MARK_MASQ, ["-j", "MARK", "--or-mark", mark], { role: "masquerade" });
  if (localhostNodePorts) {
    w.rule(
      "filter",
      KUBE_FIREWALL,
      [
        "-m",
        "comment",
        "--comment",
        q("block incoming localnet connections"),
        "-d",
        "127.0.0.0/8",
        "!",
        "-s",
        "127.0.0.0/8",
        "-m",
        "conntrack",
        "!",
        "--ctstate",
        "RELATED,ESTABLISHED,DNAT",
        "-j",
        "DROP",
      ],
      base,
    );
  }

  const ports = sortServicePorts(input.servicePorts).filter((s) => familyOf(s.clusterIP) === config.family);
  const totalEndpoints = ports.reduce((n, s) => n + s.allEndpoints.length, 0);
  const largeClusterMode = totalEndpoints > LARGE_CLUSTER_ENDPOINTS;
  const comment = (c: string): string[] => (largeClusterMode ? [] : ["-m", "comment", "--comment", c]);

  for (const s of ports) {
    const p = planServicePort(s);
    const { spn, protocol } = p;
    const service = `${s.namespace}/${s.name}`;
    const o = (role: string, endpoint?: string): RuleOrigin => ({
      service,
      servicePort: spn,
      role,
      ...(endpoint ? { endpoint } : {}),
    });
    const proto = ["-m", protocol, "-p", protocol];
    const port = String(s.port);
    const ofFamily = (ips: readonly string[]) => ips.filter((ip) => familyOf(ip) === config.family);

    // Capture the clusterIP.
    if (p.hasInternalEndpoints) {
      w.rule(
        "nat",
        KUBE_SERVICES,
        [
          "-m",
          "comment",
          "--comment",
          q(`${spn} cluster IP`),
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
        o(f.target === "REJECT" ? "no-endpoints" : "no-local-endpoints"),
      );
    }

    // Capture externalIPs.
    for (const ip of ofFamily(s.externalIPs)) {
      if (s.hasEndpoints) {
        w.rule(
          "nat",
          KUBE_SERVICES,
          [
            "-m",
            "comment",
            "--comment",
            q(`${spn} external IP`),
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
          o(f.target === "REJECT" ? "no-endpoints" : "no-local-endpoints"),
        );
      }
    }

    // Capture load-balancer ingress.
    const lbIPs = ofFamily(s.loadBalancerVIPs);
    for (const ip of lbIPs) {
      if (s.hasEndpoints) {
        w.rule(
          "nat",
          KUBE_SERVICES,
          [
            "-m",
            "comment",
            "--comment",
            q(`${spn} loadbalancer IP`),
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
            q(`${spn} traffic not accepted by ${p.firewallChain}`),
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
          o(f.target === "REJECT" ? "no-endpoints" : "no-local-endpoints"),
        );
      }
    }

    // Capture nodeports.
    if (s.nodePort !== 0) {
      const np = String(s.nodePort);
      if (s.hasEndpoints) {
        if (localhostNodePorts && config.nfacct) {
          w.rule(
            "nat",
            KUBE_NODEPORTS,
            [
              "-m",
              "comment",
              "--comment",
              spn,
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
          ["-m", "comment", "--comment", spn, ...proto, "--dport", np, "-j", p.externalChain],
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
          o(f.target === "REJECT" ? "no-endpoints" : "no-local-endpoints"),
        );
      }
    }

    // Capture healthCheckNodePorts.
    if (s.healthCheckNodePort !== 0) {
      w.rule(
        "filter",
        KUBE_NODEPORTS,
        [
          "-m",
          "comment",
          "--comment",
          q(`${spn} health check node port`),
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

    // Set up internal traffic handling.
    if (p.hasInternalEndpoints) {
      const args = [
        "-m",
        "comment",
        "--comment",
        q(`${spn} cluster IP`),
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

    // Set up external traffic handling.
    if (p.usesExternalTrafficChain) {
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

    // Set up firewall chain, if needed.
    if (p.usesFWChain) {
      w.chain("nat", p.firewallChain);
      const args = ["-m", "comment", "--comment", q(`${spn} loadbalancer IP`)];
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
        ["-m", "comment", "--comment", q(`other traffic to ${spn} will be dropped by KUBE-PROXY-FIREWALL`)],
        o("firewall"),
      );
    }

    if (p.usesClusterPolicyChain) {
      w.chain("nat", p.clusterPolicyChain);
      writeServiceToEndpointRules(w, s, spn, protocol, p.clusterPolicyChain, s.clusterEndpoints, comment, o);
    }
    if (p.usesLocalPolicyChain) {
      w.chain("nat", p.localPolicyChain);
      writeServiceToEndpointRules(w, s, spn, protocol, p.localPolicyChain, s.localEndpoints, comment, o);
    }

    // Generate the per-endpoint chains.
    for (const ep of s.allLocallyReachableEndpoints) {
      const epStr = endpointString(ep.ip, ep.port);
      const chain = serviceEndpointChain(spn, protocol, epStr);
      w.chain("nat", chain);
      const head = largeClusterMode ? [] : ["-m", "comment", "--comment", spn];
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

  // Finally, tail-call to the nodePorts chain.
  if (config.nodePortAddresses.length === 0) {
    const dest = ["-m", "addrtype", "--dst-type", "LOCAL"];
    if (isIPv6) dest.push("!", "-d", "::1/128");
    else if (!localhostNodePorts) dest.push("!", "-d", "127.0.0.0/8");
    w.rule(
      "nat",
      KUBE_SERVICES,
      [
        "-m",
        "comment",
        "--comment",
        q("kubernetes service nodeports; NOTE: this must be the last rule in this chain"),
        ...dest,
        "-j",
        KUBE_NODEPORTS,
      ],
      { role: "nodeport" },
    );
  } else {
    for (const ip of nodePortIPs(input, config)) {
      w.rule(
        "nat",
        KUBE_SERVICES,
        [
          "-m",
          "comment",
          "--comment",
          q("kubernetes service nodeports; NOTE: this must be the last rule in this chain"),
          "-d",
          ip,
          "-j",
          KUBE_NODEPORTS,
        ],
        { role: "nodeport" },
      );
    }
  }

  if (!config.conntrackTCPBeLiberal) {
    w.rule(
      "filter",
      KUBE_FORWARD,
      [
        "-m",
        "conntrack",
        "--ctstate",
        "INVALID",
        ...(config.nfacct ? ["-m", "nfacct", "--nfacct-name", NFACCT_INVALID] : []),
        "-j",
        "DROP",
      ],
      base,
    );
  }
  w.rule(
    "filter",
    KUBE_FORWARD,
    [
      "-m",
      "comment",
      "--comment",
      q("kubernetes forwarding rules"),
      "-m",
      "mark",
      "--mark",
      `${mark}/${mark}`,
      "-j",
      "ACCEPT",
    ],
    base,
  );
  w.rule(
    "filter",
    KUBE_FORWARD,
    [
      "-m",
      "comment",
      "--comment",
      q("kubernetes forwarding conntrack rule"),
      "-m",
      "conntrack",
      "--ctstate",
      "RELATED,ESTABLISHED",
      "-j",
      "ACCEPT",
    ],
    base,
  );

  return { nodeName: input.nodeName, config, tables: w.tables };
}

function writeServiceToEndpointRules(
  w: Writer,
  s: DataplaneServicePort,
  spn: string,
  protocol: string,
  chain: string,
  endpoints: readonly DataplaneEndpoint[],
  comment: (c: string) => string[],
  o: (role: string, endpoint?: string) => RuleOrigin,
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

/** nodePortAddresses.MatchAll()/GetNodeIPs: the node's addresses inside the configured CIDRs. */
export function nodePortIPs(input: NodeDataplaneInput, config: ProxyConfig): string[] {
  const cidrs = config.nodePortAddresses.map((c) => parseCidr(c).cidr).filter((c) => c !== undefined);
  const out: string[] = [];
  for (const ip of [...input.nodeIPs, "127.0.0.1", "::1"]) {
    const p = parseIP(ip);
    if (!p || familyOf(ip) !== config.family) continue;
    if (!cidrs.some((c) => c.family === p.family && p.value >= c.first && p.value <= c.last)) continue;
    if ((ip === "127.0.0.1" && !config.localhostNodePorts) || ip === "::1") continue;
    if (!out.includes(ip)) out.push(ip);
  }
  return out;
}

/** NewProxier: localhostNodePorts is turned off when nodePortAddresses excludes IPv4 loopback. */
function nodePortAddressesIncludeLoopback(config: ProxyConfig): boolean {
  if (config.nodePortAddresses.length === 0) return true;
  const lo = parseIP("127.0.0.1")!;
  return config.nodePortAddresses.some((c) => {
    const x = parseCidr(c).cidr;
    return !!x && x.family === 4 && lo.value >= x.first && lo.value <= x.last;
  });
}
