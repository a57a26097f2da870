/**
 * What connlist needs of the CNI dialects (Cilium, Calico) to cut ports and
 * addresses as it cuts them for NetworkPolicy: a verdict can change only at a
 * port or an address range some rule names, so each interval is probed once.
 */
import type { Cidr } from "../model/ip.ts";
import type { Pod, Protocol } from "../model/types.ts";
import { PROTOCOLS } from "../model/types.ts";
import type { CniPolicies } from "../cni/index.ts";
import type { CiliumPeerRule } from "../cni/cilium/policy.ts";
import type { CalicoPort } from "../cni/calico/policy.ts";
import type { AddressRange } from "./ipnodes.ts";
import { MAX_PORT, MIN_PORT } from "./ports.ts";

/**
 * `starts` plus every port bound of the dialects' rules: numbers and ranges
 * (Calico's "a:b", Cilium's endPort) on every protocol (a cut that changes
 * nothing only splits an interval), and named ports as the workloads' container
 * ports of that name resolve them.
 */
export function cniProbeCuts(
  cni: CniPolicies | undefined,
  pods: readonly Pod[],
  starts: Record<Protocol, number[]>,
): Record<Protocol, number[]> {
  if (!cni) return starts;
  const cuts = new Set<number>();
  const named = (name: string) => {
    for (const pod of pods)
      for (const cp of pod.ports)
        if (cp.name === name) {
          cuts.add(cp.containerPort);
          cuts.add(cp.containerPort + 1);
        }
  };
  const range = (from: number, to: number) => {
    cuts.add(from);
    cuts.add(to + 1);
  };
  const calico = (ports: readonly CalicoPort[] | null) => {
    for (const p of ports ?? []) {
      if ("name" in p) named(p.name);
      else range(p.from, p.to);
    }
  };
  for (const policy of cni.calico?.policies ?? [])
    for (const r of [...policy.ingress, ...policy.egress]) {
      calico(r.destination.ports);
      calico(r.destination.notPorts);
    }
  const cilium = (rules: readonly CiliumPeerRule[] | null) => {
    for (const r of rules ?? [])
      for (const pr of r.toPorts ?? [])
        for (const p of pr.ports) {
          if (p.name) named(p.name);
          else if (p.port > 0) range(p.port, p.endPort ?? p.port);
        }
  };
  for (const rule of cni.cilium?.rules ?? []) {
    cilium(rule.ingress);
    cilium(rule.ingressDeny);
    cilium(rule.egress);
    cilium(rule.egressDeny);
  }
  const out = {} as Record<Protocol, number[]>;
  for (const proto of PROTOCOLS)
    out[proto] = [...new Set([...starts[proto], ...cuts])]
      .filter((n) => n >= MIN_PORT && n <= MAX_PORT)
      .sort((a, b) => a - b);
  return out;
}

const v4 = (c: Cidr): AddressRange[] => (c.family === 4 ? [[Number(c.first), Number(c.last)]] : []);

/**
 * The dialects' address ranges as IP-node edges: Calico's `nets`/`notNets`
 * of the peer side (an ingress rule's source, an egress rule's destination),
 * Cilium's fromCIDR/fromCIDRSet and toCIDR/toCIDRSet with their excepts.
 */
export function cniNetworkRanges(cni: CniPolicies | undefined): {
  sources: AddressRange[];
  destinations: AddressRange[];
} {
  const sources: AddressRange[] = [];
  const destinations: AddressRange[] = [];
  for (const policy of cni?.calico?.policies ?? []) {
    for (const r of policy.ingress)
      for (const c of [...r.source.nets, ...r.source.notNets]) sources.push(...v4(c));
    for (const r of policy.egress)
      for (const c of [...r.destination.nets, ...r.destination.notNets]) destinations.push(...v4(c));
  }
  const cidrs = (rules: readonly CiliumPeerRule[] | null, out: AddressRange[]) => {
    for (const r of rules ?? [])
      for (const c of r.cidrs) for (const x of [c.cidr, ...c.except]) out.push(...v4(x));
  };
  for (const rule of cni?.cilium?.rules ?? []) {
    cidrs(rule.ingress, sources);
    cidrs(rule.ingressDeny, sources);
    cidrs(rule.egress, destinations);
    cidrs(rule.egressDeny, destinations);
  }
  return { sources, destinations };
}
