/**
 * The objects of kube-proxy's nftables table (knftables' Table, Set, Map,
 * Chain, Rule, Element as pkg/proxy/nftables/proxier.go adds them in one
 * transaction) and the writer that adds them in creation order, which is
 * the order `nft list table` prints them. nftables.ts builds the table's
 * base objects, nftservice.ts each Service port's.
 */
import type { RuleOrigin } from "./types.ts";
import { parseIP } from "../model/ip.ts";

export interface NftElement {
  key: string;
  value?: string;
  comment?: string;
}

export interface NftSet {
  kind: "set" | "map";
  name: string;
  type: string;
  flags?: string[];
  timeoutSeconds?: number;
  comment?: string;
  elements: NftElement[];
}

export interface NftRule {
  id: string;
  text: string;
  comment?: string;
  origin: RuleOrigin;
}

export interface NftChain {
  name: string;
  base?: { type: string; hook: string; priority: number };
  comment?: string;
  rules: NftRule[];
}

export interface NftTable {
  family: "ip" | "ip6";
  name: string;
  comment: string;
  sets: NftSet[];
  chains: NftChain[];
  node: string;
}

/** A set of values as nft prints it: a single element as the plain value. */
export function anonSet(values: readonly string[]): string {
  return values.length === 1 ? values[0]! : `{ ${values.join(", ")} }`;
}

/** The table being built: a set, map or chain is created once, where it is first named. */
export class Table {
  readonly sets: NftSet[] = [];
  readonly chains: NftChain[] = [];
  private readonly chainByName = new Map<string, NftChain>();
  private readonly setByName = new Map<string, NftSet>();
  chain(name: string, extra: Partial<NftChain> = {}): NftChain {
    let c = this.chainByName.get(name);
    if (!c) {
      c = { name, rules: [], ...extra };
      this.chainByName.set(name, c);
      this.chains.push(c);
    }
    return c;
  }
  set(s: NftSet): NftSet {
    const have = this.setByName.get(s.name);
    if (have) return have;
    this.setByName.set(s.name, s);
    this.sets.push(s);
    return s;
  }
  elem(name: string, e: NftElement): void {
    const s = this.setByName.get(name);
    if (s && !s.elements.some((x) => x.key === e.key)) s.elements.push(e);
  }
  rule(chain: string, text: string, origin: RuleOrigin, comment?: string): void {
    const c = this.chain(chain);
    const r: NftRule = { id: `nft/${chain}/${c.rules.length + 1}`, text, origin };
    if (comment) r.comment = comment;
    c.rules.push(r);
  }
}

export function familyOf(ip: string): "IPv4" | "IPv6" | undefined {
  const p = parseIP(ip);
  return p ? (p.family === 4 ? "IPv4" : "IPv6") : undefined;
}
