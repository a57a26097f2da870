/**
 * What the parts of kube-proxy's iptables sync share (pkg/proxy/iptables/
 * proxier.go): the chain names (its constants), the rule buffers that
 * syncProxyRules fills (proxier.filterChains/filterRules, natChains/natRules)
 * and the state it computes once per sync before writing any Service port
 * (the masquerade mark, largeClusterMode). build.ts writes the base chains
 * and the tail, servicePort.ts each Service port; both take a SyncContext.
 */
import type { NodeDataplaneInput, ProxyConfig, RuleOrigin } from "../types.ts";
import { parseIP } from "../../model/ip.ts";
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

/** metrics.IPTablesCTStateInvalidDroppedNFAcctCounter / LocalhostNodePortAcceptedNFAcctCounter. */
export const NFACCT_INVALID = "ct_state_invalid_dropped_pkts";
export const NFACCT_LOCALHOST_NODEPORTS = "localhost_nps_accepted_pkts";

/** The kube-proxy comment argument: kube-proxy wraps comments with spaces in literal quotes. */
export const q = (s: string): string => `"${s}"`;

export function familyOf(ip: string): "IPv4" | "IPv6" | undefined {
  const p = parseIP(ip);
  return p ? (p.family === 4 ? "IPv4" : "IPv6") : undefined;
}

/** The filter and nat tables as syncProxyRules writes them, rule ids numbered per chain. */
export class Writer {
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

/** One sync's state, known before the first Service port is written. */
export interface SyncContext {
  readonly w: Writer;
  readonly input: NodeDataplaneInput;
  readonly config: ProxyConfig;
  readonly isIPv6: boolean;
  /** The masquerade mark, "0x004000" (masqueradeMark). */
  readonly mark: string;
  /** iptables.localhostNodePorts as NewProxier leaves it: IPv4 only, loopback inside nodePortAddresses. */
  readonly localhostNodePorts: boolean;
  /** Over largeClusterEndpointsThreshold endpoints: no per-endpoint comments. */
  readonly largeClusterMode: boolean;
  /** The comment match of a Service-to-endpoint rule, or nothing in large-cluster mode. */
  readonly comment: (c: string) => string[];
  /** The origin of the rules that belong to no Service. */
  readonly base: RuleOrigin;
}
