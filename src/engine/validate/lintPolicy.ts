/**
 * The lint rules about NetworkPolicy: KTL601 a policy selects no pod, KTL610
 * a rule's peer selects nothing, KTL606 egress isolation without DNS, KTL607
 * ipBlock rules for clients that kube-proxy masquerades. The shared context
 * is lintContext.ts; the rule list is lint.ts's header.
 */
import type { KObject } from "../parse/manifests.ts";
import { obj } from "../parse/values.ts";
import { formatSelector, matchesSelector } from "../model/labels.ts";
import { peerMatches, portMatches } from "../netpol/index.ts";
import type { NetworkPolicy, PolicyPort } from "../model/networkpolicy.ts";
import type { PathSegment } from "./errors.ts";
import { warning, type Warning } from "./findings.ts";
import { externallyAccessible, parseIPSloppy, type Svc } from "./service.ts";
import { cidrHas, parseCIDRSloppy } from "../model/ip.ts";
import {
  backendsOf,
  dedupeWorkloads,
  holdsPodIP,
  labelsOf,
  list,
  nearestMatches,
  nearestWords,
  type Ctx,
} from "./lintContext.ts";

/** Policies that select each pod class, by direction, from the index. */
export function selectedClasses(ctx: Ctx): Map<NetworkPolicy, number[]> {
  const m = new Map<NetworkPolicy, number[]>();
  const add = (p: NetworkPolicy, c: number) => {
    const l = m.get(p);
    if (!l) m.set(p, [c]);
    else if (l[l.length - 1] !== c) l.push(c);
  };
  ctx.index.classes.forEach((c) => {
    for (const p of ctx.index.ingressPolicies[c.index]!) add(p, c.index);
    for (const p of ctx.index.egressPolicies[c.index]!) add(p, c.index);
  });
  return m;
}

/** KTL601 */
export function lintPolicySelectsNothing(
  ctx: Ctx,
  selected: Map<NetworkPolicy, number[]>,
  out: Warning[],
): void {
  const hints = new Map<string, Map<string, string>>();
  for (const p of ctx.model.policies) {
    const o = ctx.policyObjects.get(p.key);
    if (!o || p.podSelector.invalid || selected.has(p)) continue;
    const all = ctx.podsByNs.get(p.namespace) ?? [];
    const inNs = all.filter((pod) => !pod.hostNetwork);
    // The policy does select host-network pods by their labels; the CNI is what leaves them out
    // (kubernetes.io, Network Policies, "NetworkPolicy and hostNetwork pods").
    const host = all.filter((pod) => pod.hostNetwork && matchesSelector(p.podSelector, pod.labels));
    if (host.length) {
      const names =
        host
          .slice(0, 3)
          .map((pod) => pod.key)
          .join(", ") + (host.length > 3 ? ", ..." : "");
      out.push(
        warning(
          o,
          ["spec", "podSelector"],
          "KTL601",
          `this policy selects only host-network pods (${names}): the network plugin cannot tell their traffic from their node's and applies no NetworkPolicy to them (the common implementation; Kubernetes leaves it undefined), so it isolates nothing`,
          "Run the pod on the pod network (hostNetwork: false) to protect it with NetworkPolicy, or use the CNI's host policy (Calico: a HostEndpoint and a GlobalNetworkPolicy; Cilium: the host firewall and a CiliumClusterwideNetworkPolicy with nodeSelector).",
          "NetworkPolicy and hostNetwork pods (kubernetes.io, Network Policies)",
        ),
      );
      continue;
    }
    const why =
      inNs.length === 0
        ? all.length
          ? `namespace ${p.namespace} has no pods on the pod network (only ${all.length} host-network pod(s), which its selector does not match either)`
          : `namespace ${p.namespace} has no pods`
        : `none of the ${inNs.length} pods of namespace ${p.namespace} has its labels`;
    // Policies of a namespace repeat their selectors: the nearest pods are looked for once per selector.
    let inNamespace = hints.get(p.namespace);
    if (!inNamespace) hints.set(p.namespace, (inNamespace = new Map()));
    let hint = inNamespace.get(p.podSelector.key);
    if (hint === undefined) {
      const near = dedupeWorkloads(nearestMatches(p.podSelector, inNs, (pod) => pod.labels));
      hint = near.length
        ? `${nearestWords(near, (pod) => `pod ${pod.key}`)} Match the labels of the pods to protect.`
        : inNs.length
          ? `Match the labels of the pods to protect, e.g. ${labelsOf(inNs[0]!)}.`
          : `Create the policy in the namespace of the pods it should protect (metadata.namespace).`;
      inNamespace.set(p.podSelector.key, hint);
    }
    out.push(
      warning(
        o,
        ["spec", "podSelector"],
        "KTL601",
        `this policy selects no pod (${why}), so it isolates nothing and allows nothing`,
        hint,
        "NetworkPolicy spec.podSelector semantics",
      ),
    );
  }
}
/** KTL610: a peer of a policy rule whose selectors select no namespace or no pod of the input. */
export function lintPeersSelectNothing(ctx: Ctx, out: Warning[]): void {
  const namespaces = [...ctx.model.namespaces.values()];
  const up = "NetworkPolicyPeer semantics (namespaceSelector AND podSelector)";
  // Policies repeat a few selectors: each namespace selector and (namespaces, pod selector) pair is matched once.
  const namespacesOf = new Map<string, string[]>();
  // By the namespaces the peer reads (its namespace selector's key, or the policy's namespace), then its pod selector's key.
  const peers = new Map<string, Map<string, { matched: boolean; words?: { where: string; hint: string } }>>();
  for (const p of ctx.model.policies) {
    const o = ctx.policyObjects.get(p.key);
    if (!o) continue;
    for (const [dir, rules] of [
      ["ingress", p.ingress],
      ["egress", p.egress],
    ] as const) {
      const field = dir === "ingress" ? "from" : "to";
      for (const rule of rules) {
        for (const peer of rule.peers ?? []) {
          if (peer.ipBlock) continue;
          const at: PathSegment[] = ["spec", dir, rule.index, field, peer.index];
          const where = `rule ${rule.index + 1} of ${dir}`;
          let nsList: string[];
          if (peer.namespaceSelector) {
            const sel = peer.namespaceSelector;
            if (sel.invalid) continue;
            let known = namespacesOf.get(sel.key);
            if (!known)
              namespacesOf.set(
                sel.key,
                (known = namespaces.filter((n) => matchesSelector(sel, n.labels)).map((n) => n.name)),
              );
            nsList = known;
            if (nsList.length === 0) {
              // Namespaces another peer of the rule already selects are not the ones this peer was meant for.
              const others = new Set(
                namespaces
                  .filter((n) =>
                    (rule.peers ?? []).some(
                      (q) =>
                        q !== peer &&
                        !q.ipBlock &&
                        q.namespaceSelector &&
                        matchesSelector(q.namespaceSelector, n.labels),
                    ),
                  )
                  .map((n) => n.name),
              );
              const fresh = namespaces.filter((n) => !others.has(n.name));
              const near = nearestMatches(sel, fresh.length ? fresh : namespaces, (n) => n.labels);
              const detail = `the namespaceSelector ${formatSelector(sel)} of ${where} matches no namespace in the input, so this peer allows nothing`;
              const hint = near.length
                ? `${nearestWords(near, (n) => `namespace ${n.name}`)} Fix the selector or label the namespace.`
                : `Define the Namespace with these labels, or select it by \`kubernetes.io/metadata.name\`.`;
              out.push(warning(o, [...at, "namespaceSelector"], "KTL610", detail, hint, up));
              continue;
            }
          } else nsList = [p.namespace];
          const sel = peer.podSelector;
          if (!sel || sel.invalid) continue;
          const nsKey = peer.namespaceSelector ? `s${peer.namespaceSelector.key}` : `n${p.namespace}`;
          let bySelector = peers.get(nsKey);
          if (!bySelector) peers.set(nsKey, (bySelector = new Map()));
          let known = bySelector.get(sel.key);
          if (!known)
            bySelector.set(
              sel.key,
              (known = {
                matched: nsList.some((n) =>
                  (ctx.podsByNs.get(n) ?? []).some((pod) => matchesSelector(sel, pod.labels)),
                ),
              }),
            );
          if (known.matched) continue;
          // The same peer written in many policies: its nearest pods are looked for once.
          if (!known.words) {
            const pods = nsList.flatMap((n) => ctx.podsByNs.get(n) ?? []);
            const near = nearestMatches(sel, pods, (pod) => pod.labels);
            known.words = {
              where: peer.namespaceSelector
                ? `the ${nsList.length} selected namespace(s) (${list(nsList)})`
                : `namespace ${p.namespace}`,
              hint: near.length
                ? `${nearestWords(dedupeWorkloads(near), (pod) => `pod ${pod.key}`)} Fix the selector or the pod's labels.`
                : peer.namespaceSelector
                  ? `No pod runs in ${list(nsList)}: select the namespace of the pods this rule is for.`
                  : `No pod runs in namespace ${p.namespace}: a podSelector without a namespaceSelector only selects pods of the policy's own namespace; add a namespaceSelector.`,
            };
          }
          const words = known.words;
          const detail = `the podSelector ${formatSelector(sel)} of ${where} matches no pod in ${words.where}, so this peer allows nothing`;
          out.push(warning(o, [...at, "podSelector"], "KTL610", detail, words.hint, up));
        }
      }
    }
  }
}

function allowsUDP53(p: PolicyPort): boolean {
  if (p.protocol !== "UDP") return false;
  if (p.port === undefined) return true;
  if (typeof p.port === "number")
    return p.endPort !== undefined ? 53 >= p.port && 53 <= p.endPort : p.port === 53;
  return true;
}

/** KTL606 */
export function lintDNS(ctx: Ctx, out: Warning[]): void {
  const { model, index } = ctx;
  const dnsPods = (ctx.podsByNs.get("kube-system") ?? []).filter(
    (p) => (p.labels["k8s-app"] === "kube-dns" || p.labels["k8s-app"] === "coredns") && p.ips.length,
  );
  // Per class isolated for egress: does some rule of its policies allow UDP/53 (to a DNS pod when the input has them)?
  const lacks = index.classes.map((c) => {
    const policies = index.egressPolicies[c.index]!;
    if (policies.length === 0) return false;
    return !policies.some((p) =>
      p.egress.some((r) => {
        if (dnsPods.length === 0) return r.ports === null || r.ports.some(allowsUDP53);
        return dnsPods.some(
          (d) =>
            (r.ports === null || r.ports.some((port) => portMatches(port, 53, "UDP", d))) &&
            (r.peers === null ||
              r.peers.some((peer) => peerMatches(model, p, peer, { ip: d.ips[0]!, pod: d }))),
        );
      }),
    );
  });
  const lackingByPolicy = new Map<NetworkPolicy, number[]>();
  index.classes.forEach((c) => {
    if (!lacks[c.index]) return;
    for (const p of index.egressPolicies[c.index]!) {
      const l = lackingByPolicy.get(p);
      if (l) l.push(c.index);
      else lackingByPolicy.set(p, [c.index]);
    }
  });
  for (const p of model.policies) {
    if (!p.egressIsolation) continue;
    const o = ctx.policyObjects.get(p.key);
    if (!o) continue;
    const lacking = (lackingByPolicy.get(p) ?? []).flatMap((c) => index.classes[c]!.pods);
    if (lacking.length === 0) continue;
    const spec = obj(o.raw.spec) ?? {};
    const at =
      "egress" in spec ? ["spec", "egress"] : "policyTypes" in spec ? ["spec", "policyTypes"] : ["spec"];
    out.push(
      warning(
        o,
        at,
        "KTL606",
        `egress is isolated for ${lacking.length} pod(s) (${list(lacking.map((x) => x.key))}) and no egress rule allows DNS (UDP/53): name lookups fail, so connections by name fail even where allowed`,
        "Add an egress rule: `- to: [{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: kube-system}}, podSelector: {matchLabels: {k8s-app: kube-dns}}}]` with `ports: [{protocol: UDP, port: 53}, {protocol: TCP, port: 53}]`.",
        "NetworkPolicy egress isolation (policyTypes: [Egress])",
        at,
      ),
    );
  }
}

/** KTL607 */
export function lintMasquerade(ctx: Ctx, services: Map<KObject, Svc>, out: Warning[]): void {
  const { model, index } = ctx;
  // Policies isolating (for ingress) the backends of Services reached from outside through kube-proxy's SNAT.
  const via = new Map<NetworkPolicy, Set<string>>();
  for (const s of services.values()) {
    if (!externallyAccessible(s) || s.externalTrafficPolicy === "Local") continue;
    const classes = new Set(backendsOf(ctx, s).map((pod) => index.classOf[pod.index]!));
    for (const c of classes) {
      for (const p of index.ingressPolicies[c]!) {
        const l = via.get(p) ?? new Set<string>();
        l.add(`${s.namespace}/${s.name}`);
        via.set(p, l);
      }
    }
  }
  if (!via.size) return;
  const nodeIPs = model.nodes
    .flatMap((n) => n.addresses.map((a) => parseIPSloppy(a.address)))
    .filter((x) => x !== undefined);
  for (const [p, svcNames] of via) {
    const o = ctx.policyObjects.get(p.key);
    if (!o) continue;
    const names = [...svcNames];
    for (const rule of p.ingress) {
      for (const peer of rule.peers ?? []) {
        const b = peer.ipBlock;
        if (!b) continue;
        const c = parseCIDRSloppy(b.cidr);
        if (!c || nodeIPs.some((ip) => cidrHas(c, ip)) || holdsPodIP(ctx, c.family, c.first, c.last))
          continue;
        out.push(
          warning(
            o,
            ["spec", "ingress", rule.index, "from", peer.index, "ipBlock"],
            "KTL607",
            `ipBlock ${b.cidr} will not see external clients of ${list(names)}: with externalTrafficPolicy Cluster kube-proxy masquerades them to a node IP, so this rule never matches their traffic`,
            `Set externalTrafficPolicy: Local on ${list(names)} to keep client source IPs (then clients must reach nodes with a backend), or allow the node addresses instead.`,
            "kube-proxy masquerade for externalTrafficPolicy Cluster (pkg/proxy/iptables/proxier.go KUBE-MARK-MASQ)",
          ),
        );
      }
    }
  }
}
