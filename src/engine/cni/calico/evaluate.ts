/**
 * Calico's verdict for one direction at one workload endpoint (a pod that
 * is not hostNetwork), as Felix renders it (felix/rules/endpoints.go, the
 * tier guide tigera/docs calico/reference/resources/tier.mdx "How policy is
 * evaluated"):
 * 1. Tiers in order (lower first, no order last, ties by name). A tier
 *    applies to the endpoint when one of its policies selects it for the
 *    direction; a tier that does not apply is skipped.
 * 2. In an applying tier, policies in order (lower first, none last, ties by
 *    name), rules in order: the first Allow or Deny is final; Pass skips to
 *    the next tier; Log goes on. A tier whose policies all end without a
 *    verdict ends in its defaultAction: Deny (the default) or Pass.
 * 3. When every applying tier passes, or none applies, the namespace's
 *    profile `kns.<namespace>` allows (Kubernetes datastore).
 * 4. Kubernetes NetworkPolicies are policies of the default tier at order
 *    1000 named knp.default.<name> whose rules Allow
 *    (libcalico-go k8s/conversion K8sNetworkPolicyToCalico).
 * 5. A rule matches when its protocol, its source (the peer for ingress,
 *    the endpoint for egress) and its destination (with the destination's
 *    ports) all match. A selector needs a workload endpoint: in a
 *    namespaced policy, of the policy's namespace unless namespaceSelector
 *    says otherwise (_selector-scopes.mdx). notSelector only excludes
 *    endpoints it matches, so addresses outside the cluster pass it
 *    (_entityrule.mdx "Understanding notSelector"), except in a namespaced
 *    policy, where any selector field, notSelector included, limits the
 *    rule to the policy's namespace (libcalico-go getEndpointSelector).
 * 6. Endpoint labels carry projectcalico.org/namespace,
 *    projectcalico.org/orchestrator and projectcalico.org/serviceaccount;
 *    namespace labels carry projectcalico.org/name.
 */
import type { Model, Pod } from "../../model/types.ts";
import { cidrContains, parseIP } from "../../model/ip.ts";
import type { NetworkPolicy } from "../../model/networkpolicy.ts";
import { peerMatches, portMatches, selects } from "../../netpol/index.ts";
import { evaluateSelector, type CalicoSelector } from "./selector.ts";
import type { CalicoEntityRule, CalicoPolicy, CalicoPort, CalicoRule, CalicoTier } from "./policy.ts";
import {
  refTo,
  type CniConnection,
  type CniPeer,
  type CniRef,
  type CniVerdict,
  type Direction,
} from "../types.ts";
import type { CalicoIndex, CalicoMember } from "../policies.ts";

export const KNP_ORDER = 1000;
/** Calico >= 3.29 gives the default tier this order; older releases leave it unset (last). */
export const DEFAULT_TIER_ORDER = 1_000_000;

type Member = CalicoMember;
export type { CalicoIndex };

const byOrder = (
  a: { order: number | undefined; name: string },
  b: { order: number | undefined; name: string },
) => {
  const x = a.order ?? Infinity,
    y = b.order ?? Infinity;
  if (x !== y) return x < y ? -1 : 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
};

export function buildCalicoIndex(
  policies: CalicoPolicy[],
  tiers: CalicoTier[],
  k8s: readonly NetworkPolicy[],
): CalicoIndex {
  const byName = new Map<string, CalicoTier>();
  for (const t of tiers) byName.set(t.name, t);
  if (!byName.has("default"))
    byName.set("default", { name: "default", order: DEFAULT_TIER_ORDER, defaultAction: "Deny" });
  for (const p of policies)
    if (!byName.has(p.tier)) byName.set(p.tier, { name: p.tier, order: undefined, defaultAction: "Deny" });
  const sorted = [...byName.values()].sort(byOrder);
  const out = sorted.map((tier) => {
    const members: Member[] = [];
    for (const p of policies)
      if (p.tier === tier.name) members.push({ calico: p, sortName: p.name, order: p.order });
    if (tier.name === "default")
      for (const k of k8s) members.push({ k8s: k, sortName: `knp.default.${k.name}`, order: KNP_ORDER });
    members.sort((a, b) =>
      byOrder({ order: a.order, name: a.sortName }, { order: b.order, name: b.sortName }),
    );
    return { tier, members };
  });
  return { tiers: out, policies };
}

export function calicoEndpointLabels(model: Model, pod: Pod): Record<string, string> {
  const sa = pod.serviceAccount;
  return {
    ...pod.labels,
    "projectcalico.org/namespace": pod.namespace,
    "projectcalico.org/orchestrator": "k8s",
    "projectcalico.org/serviceaccount": sa,
  };
}

function namespaceLabels(model: Model, ns: string): Record<string, string> {
  return {
    ...(model.namespaces.get(ns)?.labels ?? { "kubernetes.io/metadata.name": ns }),
    "projectcalico.org/name": ns,
  };
}

const isEndpoint = (pod: Pod | undefined): pod is Pod => !!pod && !pod.hostNetwork;

function selectorMatches(model: Model, s: CalicoSelector, pod: Pod): boolean {
  return evaluateSelector(s.root, calicoEndpointLabels(model, pod));
}

/** Does the policy select the endpoint for the direction? */
export function calicoApplies(model: Model, p: CalicoPolicy, pod: Pod, direction: Direction): boolean {
  if (!isEndpoint(pod)) return false;
  if (!(direction === "ingress" ? p.ingressType : p.egressType)) return false;
  if (p.namespace !== undefined && p.namespace !== pod.namespace) return false;
  if (
    p.namespaceSelector &&
    !evaluateSelector(p.namespaceSelector.root, namespaceLabels(model, pod.namespace))
  )
    return false;
  if (
    p.serviceAccountSelector &&
    !evaluateSelector(p.serviceAccountSelector.root, { "projectcalico.org/name": pod.serviceAccount })
  )
    return false;
  return selectorMatches(model, p.selector, pod);
}

function portIn(p: CalicoPort, port: number, c: CniConnection): boolean {
  if ("from" in p) return port >= p.from && port <= p.to;
  // A named port: the destination endpoint's container port of that name and protocol (Felix named-port ipsets).
  return (
    !!c.dst &&
    c.dst.ports.some((cp) => cp.name === p.name && cp.protocol === c.protocol && cp.containerPort === port)
  );
}

function entityMatches(
  model: Model,
  policy: CalicoPolicy,
  e: CalicoEntityRule,
  x: CniPeer,
  c: CniConnection,
  withPorts: boolean,
): boolean {
  const pod = isEndpoint(x.pod) ? x.pod : undefined;
  const inScope = (p: Pod) =>
    e.namespaceSelector
      ? evaluateSelector(e.namespaceSelector.root, namespaceLabels(model, p.namespace))
      : policy.namespace === undefined || p.namespace === policy.namespace;
  // In a namespaced policy a notSelector alone scopes the rule too: Calico turns it into the
  // namespace's selector plus the notSelector (libcalico-go updateprocessors/rules.go
  // getEndpointSelector: "endpoints for a namespaced policy being limited to the namespace ... as
  // soon as _any_ of the selector fields are used, including NotSelector").
  const scoped = !!e.notSelector && policy.namespace !== undefined;
  if (e.selector || e.namespaceSelector || e.serviceAccountNames || e.serviceAccountSelector || scoped) {
    if (!pod || !inScope(pod)) return false;
    if (e.selector && !selectorMatches(model, e.selector, pod)) return false;
    if (e.serviceAccountNames && !e.serviceAccountNames.includes(pod.serviceAccount)) return false;
    if (
      e.serviceAccountSelector &&
      !evaluateSelector(e.serviceAccountSelector.root, { "projectcalico.org/name": pod.serviceAccount })
    )
      return false;
  }
  if (e.notSelector && pod && inScope(pod) && selectorMatches(model, e.notSelector, pod)) return false;
  if (e.nets.length || e.notNets.length) {
    const ip = parseIP(x.ip);
    if (e.nets.length && (!ip || !e.nets.some((n) => cidrContains(n, ip)))) return false;
    if (ip && e.notNets.some((n) => cidrContains(n, ip))) return false;
  }
  if (withPorts) {
    if (e.ports !== null && !e.ports.some((p) => portIn(p, c.port, c))) return false;
    if (e.notPorts.some((p) => portIn(p, c.port, c))) return false;
  }
  return true;
}

export function calicoRuleMatches(
  model: Model,
  policy: CalicoPolicy,
  rule: CalicoRule,
  c: CniConnection,
): boolean {
  if (rule.protocol && rule.protocol !== c.protocol) return false;
  if (rule.notProtocol && rule.notProtocol === c.protocol) return false;
  const self: CniPeer = { ip: c.self.ips[0] ?? "", pod: c.self };
  const [src, dst] = c.direction === "ingress" ? [c.peer, self] : [self, c.peer];
  return (
    entityMatches(model, policy, rule.source, src, c, false) &&
    entityMatches(model, policy, rule.destination, dst, c, true)
  );
}

function k8sRuleMatches(model: Model, p: NetworkPolicy, c: CniConnection): number {
  const rules = c.direction === "ingress" ? p.ingress : p.egress;
  for (const r of rules) {
    if (
      r.peers !== null &&
      !r.peers.some((peer) => peerMatches(model, p, peer, { ip: c.peer.ip, pod: c.peer.pod }))
    )
      continue;
    if (r.ports !== null && !r.ports.some((port) => portMatches(port, c.port, c.protocol, c.dst))) continue;
    return r.index;
  }
  return -1;
}

const label = (m: Member) =>
  "calico" in m
    ? `${m.calico.kind} ${m.calico.key}`
    : `NetworkPolicy ${m.k8s.key} (knp.default.${m.k8s.name}, order ${KNP_ORDER})`;

/**
 * Traffic from a host to its own workloads: Felix does not police it
 * (felix/rules/static.go filterOutputChain: "We don't currently police host
 * -> endpoint according to the endpoint's ingress policy ... it's generally
 * very useful to be able to contact any local workload from the host"; the
 * packet leaves through OUTPUT and returns before any policy chain). So a
 * process on the node, or a host-network pod there, reaches the node's pods
 * whatever their ingress policy says, in every Calico tier (the Admin and
 * Baseline tiers live in Calico's tiers too). A HostEndpoint's egress policy
 * does not apply to it either (the same rule comes first); connections that
 * kube-proxy's IPVS mode forwards are the one exception Felix makes, which
 * ktl does not model. Undefined for any other connection.
 */
export function calicoHostToLocal(c: CniConnection): CniVerdict | undefined {
  if (c.direction !== "ingress" || c.peer.node === undefined || c.peer.node !== c.self.nodeName)
    return undefined;
  const from = c.peer.pod
    ? `host-network pod ${c.peer.pod.key} on node ${c.peer.node}`
    : `node ${c.peer.node}`;
  return {
    direction: "ingress",
    allowed: true,
    isolated: false,
    layer: "CalicoNetworkPolicy",
    reason: `${from} is ${c.self.key}'s own host: Felix does not police traffic from a host to its local workloads (felix/rules/static.go), so no ingress policy applies`,
    steps: [
      `${c.peer.ip} is the address of ${c.self.key}'s own node: Felix lets host traffic to local workloads through`,
    ],
  };
}

/** The order of Calico's `kube-admin` tier, where the Admin tier's policies live (cni/stack.ts). */
export const KUBE_ADMIN_ORDER = 1000;

/**
 * Calico (with Kubernetes NetworkPolicy inside its default tier) for one direction at `c.self`.
 * `range` evaluates only the tiers before the cluster Admin tier (order < 1000) or only those after
 * it, for the policy stack (cni/stack.ts); a range where every applying tier passes says `passed`.
 */
export function explainCalico(
  model: Model,
  index: CalicoIndex,
  c: CniConnection,
  range?: "before-admin" | "after-admin",
): CniVerdict {
  const { direction, self } = c;
  const steps: string[] = [];
  let applied = false;
  const other = c.peer.pod ? c.peer.pod.key : c.peer.ip;
  const what = `${c.protocol}/${c.port} ${direction === "ingress" ? "from" : "to"} ${other}`;
  for (const { tier, members } of index.tiers) {
    if (range && (tier.order ?? Infinity) < KUBE_ADMIN_ORDER !== (range === "before-admin")) continue;
    const applying = members.filter((m) =>
      "calico" in m
        ? calicoApplies(model, m.calico, self, direction)
        : (direction === "ingress" ? m.k8s.ingressIsolation : m.k8s.egressIsolation) && selects(m.k8s, self),
    );
    if (applying.length === 0) continue;
    applied = true;
    let passed: CniRef | undefined;
    for (const m of applying) {
      if ("k8s" in m) {
        const i = k8sRuleMatches(model, m.k8s, c);
        if (i >= 0) {
          const rule = (direction === "ingress" ? m.k8s.ingress : m.k8s.egress)[i]!;
          steps.push(`tier ${tier.name}: ${label(m)} ${direction} rule ${i + 1} allows ${what}`);
          return {
            direction,
            allowed: true,
            isolated: true,
            layer: "NetworkPolicy",
            reason: `allowed by ${m.k8s.key} ${direction} rule ${i + 1} (tier ${tier.name}, order ${KNP_ORDER})`,
            ref: refTo(m.k8s.source, rule.line, `${direction}[${i}]`),
            steps,
          };
        }
        steps.push(`tier ${tier.name}: ${label(m)}: no rule matches`);
        continue;
      }
      const p = m.calico;
      let verdict: CniVerdict | undefined;
      for (const rule of direction === "ingress" ? p.ingress : p.egress) {
        if (!calicoRuleMatches(model, p, rule, c)) continue;
        const where = `${p.kind} ${p.key} ${direction} rule ${rule.index + 1} (${rule.action}, tier ${tier.name}, order ${p.order ?? "none"})`;
        const ref = refTo(p.source, rule.line, `${direction}[${rule.index}]`);
        const caveat =
          rule.unmodelled.length || rule.source.unmodelled.length || rule.destination.unmodelled.length
            ? ` (assuming ${[...rule.unmodelled, ...rule.source.unmodelled, ...rule.destination.unmodelled].join(", ")} match: ktl does not evaluate them)`
            : "";
        if (rule.action === "Log") {
          steps.push(`${where}: logs and goes on`);
          continue;
        }
        if (rule.action === "Pass") {
          steps.push(`${where}: passes ${what} to the next tier${caveat}`);
          passed = ref;
          break;
        }
        steps.push(`${where}: ${rule.action === "Allow" ? "allows" : "denies"} ${what}${caveat}`);
        verdict = {
          direction,
          allowed: rule.action === "Allow",
          isolated: true,
          layer: "CalicoNetworkPolicy",
          reason: `${rule.action === "Allow" ? "allowed" : "denied"} by Calico ${where}${caveat}`,
          ref,
          steps,
        };
        break;
      }
      if (verdict) return verdict;
      if (passed) break;
      steps.push(`tier ${tier.name}: ${label(m)}: no rule matches`);
    }
    if (passed) continue;
    if (tier.defaultAction === "Pass") {
      steps.push(
        `tier ${tier.name}: no policy decides; its defaultAction Pass hands ${what} to the next tier`,
      );
      continue;
    }
    const calicoOnes = applying.filter((m): m is Extract<Member, { calico: CalicoPolicy }> => "calico" in m);
    const names = applying.map((m) => ("calico" in m ? m.calico.key : m.k8s.key)).join(", ");
    steps.push(`tier ${tier.name}: no policy decides; end of tier: Deny`);
    const last = calicoOnes[calicoOnes.length - 1];
    const k8sOnly = calicoOnes.length === 0;
    const ref = last
      ? refTo(last.calico.source, last.calico.lines.selector, `end of tier ${tier.name}`)
      : (() => {
          const k = (applying[0] as { k8s: NetworkPolicy }).k8s;
          return refTo(k.source, k.lines.podSelector, `end of tier ${tier.name}`);
        })();
    return {
      direction,
      allowed: false,
      isolated: true,
      layer: k8sOnly ? "NetworkPolicy" : "CalicoNetworkPolicy",
      reason: `${self.key} is selected for ${direction} in Calico tier ${tier.name} (by ${names}) and no rule there allows or passes ${what}: the tier ends in Deny`,
      ref,
      steps,
    };
  }
  if (!applied) {
    return {
      direction,
      allowed: true,
      isolated: false,
      layer: "CalicoNetworkPolicy",
      reason: `no Calico policy or NetworkPolicy selects ${self.key} for ${direction}: its namespace profile kns.${self.namespace} allows`,
      steps: [`no tier applies to ${self.key} for ${direction}; profile kns.${self.namespace} allows`],
    };
  }
  steps.push(`every applying tier passed; profile kns.${self.namespace} allows`);
  return {
    direction,
    allowed: true,
    isolated: true,
    ...(range ? { passed: true } : {}),
    layer: "CalicoNetworkPolicy",
    reason: `every Calico tier that selects ${self.key} passes ${what} on: its namespace profile kns.${self.namespace} allows`,
    steps,
  };
}
