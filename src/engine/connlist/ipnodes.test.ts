import { describe, expect, it } from "vitest";
import { parseCidr, type Cidr } from "../model/ip.ts";
import type { IPBlock, NetworkPolicy, PolicyRule } from "../model/networkpolicy.ts";
import { parseLabelSelector } from "../model/labels.ts";
import { blockRanges, ipRangeNodes, partitionIPv4 } from "./ipnodes.ts";

function block(cidr: string, except: string[] = []): IPBlock {
  return {
    cidr,
    except,
    parsed: parseCidr(cidr).cidr,
    exceptParsed: except.map((e) => parseCidr(e).cidr).filter((c): c is Cidr => !!c),
  };
}

function policy(name: string, ingress: IPBlock[], egress: IPBlock[] = []): NetworkPolicy {
  const rule = (b: IPBlock, index: number): PolicyRule => ({
    index,
    line: 0,
    peers: [{ index: 0, line: 0, ipBlock: b }],
    ports: null,
  });
  return {
    namespace: "default",
    name,
    key: `default/${name}`,
    podSelector: parseLabelSelector({}),
    ingressIsolation: true,
    egressIsolation: egress.length > 0,
    ingress: ingress.map(rule),
    egress: egress.map(rule),
    source: { kind: "NetworkPolicy", name, file: "t.yaml", doc: 0, line: 1 },
    lines: { podSelector: 0, policyTypes: 0, ingress: 0, egress: 0 },
  };
}

const names = (b: IPBlock[]) => partitionIPv4(b.flatMap(blockRanges)).map((n) => n.name);

describe("IP-range cutting (netpol-analyzer README item 7)", () => {
  const ipblockstest = block("0.0.0.0/0", ["10.0.0.0/8", "172.21.0.0/16", "172.30.0.0/16"]);

  it("ipblockstest: 0.0.0.0/0 except three CIDRs gives the 7 source nodes of the worked example", () => {
    expect(names([ipblockstest])).toEqual([
      "0.0.0.0-9.255.255.255",
      "10.0.0.0-10.255.255.255",
      "11.0.0.0-172.20.255.255",
      "172.21.0.0-172.21.255.255",
      "172.22.0.0-172.29.255.255",
      "172.30.0.0-172.30.255.255",
      "172.31.0.0-255.255.255.255",
    ]);
  });

  it("ipblockstest_3: an except written as two /9s cuts like one /8 (no cut where the holes meet)", () => {
    const split = block("0.0.0.0/0", ["10.0.0.0/9", "10.128.0.0/9", "172.21.0.0/16", "172.30.0.0/16"]);
    expect(blockRanges(split)).toEqual(blockRanges(ipblockstest));
    expect(names([split])).toEqual(names([ipblockstest]));
  });

  it("semanticDiff-different-topologies-policy-a-with-ipblock: 10.0.0.0/8 except 10.10.0.0/16 gives 5 nodes", () => {
    expect(names([block("10.0.0.0/8", ["10.10.0.0/16"])])).toEqual([
      "0.0.0.0-9.255.255.255",
      "10.0.0.0-10.9.255.255",
      "10.10.0.0-10.10.255.255",
      "10.11.0.0-10.255.255.255",
      "11.0.0.0-255.255.255.255",
    ]);
  });

  it("with no ipBlock there is one node for the whole space (netpol-analysis-example-minimal)", () => {
    expect(names([])).toEqual(["0.0.0.0-255.255.255.255"]);
    expect(partitionIPv4([])[0]).toMatchObject({ first: 0, last: 2 ** 32 - 1, probe: "0.0.0.0" });
  });

  it("a single address is still a range, and neighbours are not merged (README items 7, 8)", () => {
    expect(names([block("1.2.3.4/32"), block("1.2.3.5/32")])).toEqual([
      "0.0.0.0-1.2.3.3",
      "1.2.3.4-1.2.3.4",
      "1.2.3.5-1.2.3.5",
      "1.2.3.6-255.255.255.255",
    ]);
  });

  it("IPv6 and unparsable blocks add no cut (IPv4 only)", () => {
    expect(blockRanges(block("fd00::/64"))).toEqual([]);
    expect(blockRanges(block("10.0.0.0/33"))).toEqual([]);
  });

  it("ipblockstest: sources come from ingress blocks, destinations from egress blocks, of every policy", () => {
    const nodes = ipRangeNodes([policy("a", [ipblockstest]), policy("b", [], [block("192.168.0.0/16")])]);
    expect(nodes.sources).toHaveLength(7);
    expect(nodes.destinations.map((n) => n.name)).toEqual([
      "0.0.0.0-192.167.255.255",
      "192.168.0.0-192.168.255.255",
      "192.169.0.0-255.255.255.255",
    ]);
  });
});
