/**
 * Cilium's verdict for one direction at one endpoint (a pod that is not
 * hostNetwork), with Kubernetes NetworkPolicy imported into the same
 * repository (Documentation/network/kubernetes/policy.rst). Default agent
 * configuration: enforcement mode `default`, allow-localhost, host firewall
 * off, policy-cidr-match-mode unset.
 * 1. A rule selects an endpoint by endpointSelector: a
 *    CiliumNetworkPolicy only pods of its namespace, a clusterwide one any
 *    pod. A rule with a nodeSelector is a host policy (host firewall: off).
 * 2. Default deny per direction: once a selecting rule has an ingress (or
 *    ingressDeny) section, or a NetworkPolicy isolates the pod, ingress is
 *    allow-list only; egress likewise. `enableDefaultDeny: {ingress: false}`
 *    keeps a rule from turning it on (pkg/policy/repository.go
 *    computePolicyEnforcementAndRules; Documentation/security/policy/intro.rst).
 * 3. Deny rules (ingressDeny/egressDeny) win over every allow, of any kind
 *    (language.rst "Deny Policies").
 * 4. fromEndpoints/toEndpoints select pods; in a CiliumNetworkPolicy
 *    a selector without io.kubernetes.pod.namespace means the policy's own
 *    namespace; in a clusterwide one, any namespace (pkg/k8s/apis/cilium.io
 *    /utils getEndpointSelector). Identity labels add
 *    io.kubernetes.pod.namespace, io.cilium.k8s.policy.serviceaccount,
 *    io.cilium.k8s.policy.cluster and io.cilium.k8s.namespace.labels.*.
 * 5. Entities: world (outside the cluster), cluster (pods and nodes), host
 *    (the endpoint's own node), remote-node (other nodes), all.
 *    kube-apiserver and the rest name addresses the input does not have.
 * 6. CIDR rules (fromCIDR, fromCIDRSet with except) match only addresses
 *    outside the cluster: never pods or nodes.
 * 7. A rule with no L3 peer field and toPorts allows every peer on those
 *    ports; a rule with neither allows nothing. toPorts: port (0 or
 *    absent: all), endPort (inclusive range), protocol TCP/UDP/SCTP or ANY,
 *    named ports of the destination.
 * 8. L7 HTTP: a connection that only rules with `rules.http` allow opens at
 *    L4, and each request must match one HTTP rule (method, path and host
 *    as whole-value regexes, headers present or equal), or the proxy answers
 *    403 (language.rst "Layer 7 Examples"). A rule without L7 rules for the
 *    same peer and port lifts the restriction.
 * 9. allow-localhost: the endpoint's own node may always reach it.
 * 10. toFQDNs (language.rst "DNS based"; pkg/policy/api/fqdn.go): an egress
 *    rule admits the IPs that DNS answered for names its selectors match,
 *    as Cilium's DNS proxy saw the answers ("Obtaining DNS data for use by
 *    toFQDNs"). The proxy sees a lookup only when an egress rule of the same
 *    endpoint has an L7 DNS rule (`toPorts` port 53, `rules.dns`) whose
 *    selector covers the name: without one the toFQDNs rule matches
 *    nothing. Only a `host:` destination names a lookup; an address asked
 *    for directly was never looked up, so toFQDNs does not match it. Not
 *    modelled: DNS TTLs (tofqdns-min-ttl), the DNS server the rule points at
 *    (any L7 DNS rule on port 53 counts), `**.` patterns, names the cluster
 *    resolves itself (toFQDNs does not select in-cluster IPs).
 */
import type { Model, Pod } from "../../model/types.ts";
import { matchesSelector, type LabelSelector } from "../../model/labels.ts";
import { cidrContains, parseIP } from "../../model/ip.ts";
import type { NetworkPolicy } from "../../model/networkpolicy.ts";
import { peerMatches, portMatches, selects } from "../../netpol/index.ts";
import { formatHttpRequest, type HttpRequest } from "../../http/request.ts";
import type {
  CiliumFqdnSelector,
  CiliumHttpRule,
  CiliumPeerRule,
  CiliumPortRule,
  CiliumRule,
} from "./policy.ts";
import { refTo, type CniConnection, type CniPeer, type CniRef, type CniVerdict } from "../types.ts";

const NS_KEY = "io.kubernetes.pod.namespace";

export function ciliumIdentityLabels(model: Model, pod: Pod): Record<string, string> {
  const sa = pod.serviceAccount;
  const out: Record<string, string> = {
    ...pod.labels,
    [NS_KEY]: pod.namespace,
    "io.cilium.k8s.policy.serviceaccount": sa,
    "io.cilium.k8s.policy.cluster": "default",
  };
  const nsLabels = model.namespaces.get(pod.namespace)?.labels ?? {
    "kubernetes.io/metadata.name": pod.namespace,
  };
  for (const [k, v] of Object.entries(nsLabels)) out[`io.cilium.k8s.namespace.labels.${k}`] = v;
  return out;
}

type Entity = "pod" | "host" | "remote-node" | "world";

/** What the peer is to Cilium, seen from the endpoint `self`. */
export function entityOf(model: Model, self: Pod, peer: CniPeer): Entity {
  if (peer.pod && !peer.pod.hostNetwork) return "pod";
  const node = peer.node ?? (peer.pod?.hostNetwork ? peer.pod.nodeName : undefined);
  if (node) return node === self.nodeName ? "host" : "remote-node";
  return "world";
}

const mentionsNamespace = (s: LabelSelector) =>
  Object.hasOwn(s.matchLabels, NS_KEY) || s.matchExpressions.some((e) => e.key === NS_KEY);
const reservedKeys = (s: LabelSelector) =>
  [...Object.keys(s.matchLabels), ...s.matchExpressions.map((e) => e.key)].filter((k) =>
    k.startsWith("reserved:"),
  );

function selectorMatchesPeer(
  model: Model,
  rule: CiliumRule,
  s: LabelSelector,
  peer: CniPeer,
  entity: Entity,
): boolean {
  const reserved = reservedKeys(s);
  if (reserved.length) {
    const labels: Record<string, string> = {};
    if (entity !== "pod") labels[`reserved:${entity}`] = "";
    return matchesSelector(s, labels);
  }
  if (entity !== "pod" || !peer.pod) return false;
  if (rule.namespace !== undefined && !mentionsNamespace(s) && peer.pod.namespace !== rule.namespace)
    return false;
  return matchesSelector(s, ciliumIdentityLabels(model, peer.pod));
}

/**
 * The addresses Cilium gives the kube-apiserver identity: those of the
 * endpoints of Service default/kubernetes, wherever the API server runs
 * (language.rst, Entities Based: "both deployments of the kube-apiserver:
 * within the cluster and outside of the cluster"; the agent labels the IPs
 * of that Service's endpoints reserved:kube-apiserver).
 */
const apiServerCache = new WeakMap<Model, ReadonlySet<string>>();
export function apiServerAddresses(model: Model): ReadonlySet<string> {
  let set = apiServerCache.get(model);
  if (!set) {
    const out = new Set<string>();
    for (const slice of model.endpointSlices)
      if (slice.namespace === "default" && slice.serviceName === "kubernetes")
        for (const ep of slice.endpoints) for (const a of ep.addresses) out.add(a);
    apiServerCache.set(model, (set = out));
  }
  return set;
}

function entityMatches(model: Model, name: string, entity: Entity, ip: string): boolean {
  switch (name) {
    case "all":
      return true;
    case "kube-apiserver":
      return ip !== "" && apiServerAddresses(model).has(ip);
    case "world":
      return entity === "world";
    case "world-ipv4":
      return entity === "world" && !ip.includes(":");
    case "world-ipv6":
      return entity === "world" && ip.includes(":");
    case "cluster":
      return entity !== "world";
    case "host":
      return entity === "host";
    case "remote-node":
      return entity === "remote-node";
    default:
      return false;
  }
}

/** A toPorts entry on port 53 (or every port) with L7 DNS rules: the one thing that sends the endpoint's lookups through the DNS proxy. */
const dnsPort = (e: CiliumPortRule) =>
  e.ports.length === 0 ||
  e.ports.some(
    (p) => p.port === 0 || p.port === 53 || (p.endPort !== undefined && p.port <= 53 && p.endPort >= 53),
  );

/** The L7 DNS selectors of the egress rules that select the endpoint (rule 10). */
function dnsRulesOf(selecting: readonly CiliumRule[]): CiliumFqdnSelector[] {
  return selecting.flatMap((r) =>
    (r.egress ?? []).flatMap((pr) => (pr.toPorts ?? []).filter(dnsPort).flatMap((e) => e.dns ?? [])),
  );
}

function fqdnMatches(
  pr: CiliumPeerRule,
  c: CniConnection,
  entity: Entity,
  dns: readonly CiliumFqdnSelector[],
): boolean {
  const name = c.peer.name;
  if (!name || entity !== "world" || c.direction !== "egress") return false;
  return pr.fqdns.some((f) => f.test(name)) && dns.some((d) => d.test(name));
}

function l3Matches(
  model: Model,
  rule: CiliumRule,
  pr: CiliumPeerRule,
  c: CniConnection,
  entity: Entity,
  dns: readonly CiliumFqdnSelector[] = [],
): boolean {
  if (!pr.hasL3) return pr.toPorts !== null;
  if (pr.fqdns.length && fqdnMatches(pr, c, entity, dns)) return true;
  if (pr.endpoints?.some((s) => selectorMatchesPeer(model, rule, s, c.peer, entity))) return true;
  if (pr.entities.some((e) => entityMatches(model, e, entity, c.peer.ip))) return true;
  if (entity === "world" && pr.cidrs.length) {
    const ip = parseIP(c.peer.ip);
    if (ip && pr.cidrs.some((x) => cidrContains(x.cidr, ip) && !x.except.some((e) => cidrContains(e, ip))))
      return true;
  }
  return false;
}

/** Why a toFQDNs rule of the endpoint did not admit the connection, when one names the destination or could (rule 10). */
function fqdnMiss(
  selecting: readonly CiliumRule[],
  c: CniConnection,
  entity: Entity,
  dns: readonly CiliumFqdnSelector[],
): string {
  const rules = selecting.flatMap((r) =>
    (r.egress ?? []).filter((pr) => pr.fqdns.length).map((pr) => ({ r, pr })),
  );
  // toFQDNs never selects in-cluster addresses (pkg/fqdn: "toFQDNs cannot handle in-cluster IPs").
  if (!rules.length || entity !== "world") return "";
  const name = c.peer.name;
  const at = (x: { r: CiliumRule; pr: CiliumPeerRule }) =>
    `${ruleName(x.r)} egress rule ${x.pr.index + 1} (toFQDNs ${x.pr.fqdns.map((f) => f.text).join(", ")})`;
  if (!name)
    return `; ${at(rules[0]!)} admits only addresses Cilium's DNS proxy saw in answers to a lookup, and ${c.peer.ip} was asked for directly, never looked up (trace host:NAME:PORT for a name)`;
  const named = rules.filter((x) => x.pr.fqdns.some((f) => f.test(name)));
  if (!named.length) return `; no toFQDNs selector matches ${name} (${rules.map(at).join("; ")})`;
  if (!dns.some((d) => d.test(name)))
    return `; ${at(named[0]!)} matches ${name}, but no egress rule of ${c.self.key} has an L7 DNS rule (toPorts port 53 with rules.dns${dns.length ? ` covering ${name}; those present: ${dns.map((d) => d.text).join(", ")}` : ""}), so Cilium's DNS proxy never sees the lookup and toFQDNs learns no address for it`;
  return `; ${at(named[0]!)} matches ${name}, but not on ${c.protocol}/${c.port} (its toPorts)`;
}

/** The toPorts entry that admits the connection's port; undefined when none does; null when the rule has no toPorts. */
function portEntry(pr: CiliumPeerRule, c: CniConnection): CiliumPortRule | null | undefined {
  if (pr.toPorts === null) return null;
  return pr.toPorts.find((e) => {
    if (e.ports.length === 0) return true;
    return e.ports.some((p) => {
      if (p.protocol !== "ANY" && p.protocol !== c.protocol) return false;
      if (p.name !== undefined)
        return (
          !!c.dst &&
          c.dst.ports.some(
            (cp) =>
              cp.name === p.name &&
              cp.containerPort === c.port &&
              (p.protocol === "ANY" || cp.protocol === c.protocol),
          )
        );
      if (p.port === 0) return true;
      return p.endPort !== undefined && p.endPort >= p.port
        ? c.port >= p.port && c.port <= p.endPort
        : c.port === p.port;
    });
  });
}

export function httpRuleMatches(h: CiliumHttpRule, req: HttpRequest, host: string): boolean {
  if (h.method && !h.method.test(req.method)) return false;
  if (h.path && !h.path.test(req.path)) return false;
  if (h.host && !h.host.test(req.headers.host ?? host)) return false;
  return h.headers.every((x) =>
    x.value === undefined ? Object.hasOwn(req.headers, x.name) : req.headers[x.name] === x.value,
  );
}

export function ciliumSelects(rule: CiliumRule, model: Model, pod: Pod): boolean {
  if (pod.hostNetwork || !rule.endpointSelector || rule.nodeSelector) return false;
  if (rule.namespace !== undefined && rule.namespace !== pod.namespace) return false;
  return matchesSelector(rule.endpointSelector, ciliumIdentityLabels(model, pod));
}

function k8sAllows(model: Model, p: NetworkPolicy, c: CniConnection): number {
  for (const r of c.direction === "ingress" ? p.ingress : p.egress) {
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

const ruleName = (r: CiliumRule) => `${r.kind} ${r.key}${r.specIndex >= 0 ? ` specs[${r.specIndex}]` : ""}`;

/** The first deny rule of the selecting policies that matches `c` (rule 3: deny rules win over every allow). */
function deniedBy(
  model: Model,
  selecting: readonly CiliumRule[],
  c: CniConnection,
  entity: ReturnType<typeof entityOf>,
  what: string,
  steps: string[],
): CniVerdict | undefined {
  const { direction } = c;
  const denyKey = direction === "ingress" ? "ingressDeny" : "egressDeny";
  for (const r of selecting) {
    for (const pr of r[denyKey] ?? []) {
      if (!l3Matches(model, r, pr, c, entity) || portEntry(pr, c) === undefined) continue;
      steps.push(`${ruleName(r)} ${denyKey} rule ${pr.index + 1} denies ${what}`);
      return {
        direction,
        allowed: false,
        isolated: true,
        layer: "CiliumNetworkPolicy",
        reason: `denied by ${ruleName(r)} ${denyKey} rule ${pr.index + 1}: deny rules win over every allow`,
        ref: refTo(r.source, pr.line, `${r.field}.${denyKey}[${pr.index}]`),
        steps,
      };
    }
  }
  return undefined;
}

/** Cilium (with NetworkPolicy in the same repository) for one direction at `c.self`. */
export function explainCilium(
  model: Model,
  rules: readonly CiliumRule[],
  k8s: readonly NetworkPolicy[],
  c: CniConnection,
): CniVerdict {
  const { direction, self } = c;
  const steps: string[] = [];
  const entity = entityOf(model, self, c.peer);
  const other =
    c.peer.pod && !c.peer.pod.hostNetwork
      ? c.peer.pod.key
      : `${c.peer.ip} (${entity === "pod" ? "pod" : entity})`;
  const what = `${c.protocol}/${c.port} ${direction === "ingress" ? "from" : "to"} ${other}`;
  const selecting = rules.filter((r) => ciliumSelects(r, model, self));
  const nps = k8s.filter(
    (p) => (direction === "ingress" ? p.ingressIsolation : p.egressIsolation) && selects(p, self),
  );
  const allowKey = direction === "ingress" ? "ingress" : "egress";
  const denyKey = direction === "ingress" ? "ingressDeny" : "egressDeny";
  // Rule 3: deny first.
  const denied = deniedBy(model, selecting, c, entity, what, steps);
  if (denied) return denied;
  const enforcing = selecting.filter(
    (r) => (r[allowKey] !== null || r[denyKey] !== null) && r.enableDefaultDeny[direction] !== false,
  );
  const defaultDeny = enforcing.length > 0 || nps.length > 0;
  if (direction === "ingress" && entity === "host") {
    steps.push(`${other} is ${self.key}'s own node: allow-localhost admits it`);
    return {
      direction,
      allowed: true,
      isolated: defaultDeny,
      layer: "CiliumNetworkPolicy",
      reason: `${c.peer.ip} is the address of ${self.key}'s own node: Cilium always admits the local host (allow-localhost)`,
      steps,
    };
  }
  // Allows: every matching rule, to find out whether L7 restricts the connection.
  type Allow = { ref: CniRef; text: string; http?: CiliumHttpRule[]; portRule?: CiliumPortRule };
  const allows: Allow[] = [];
  const dns = direction === "egress" ? dnsRulesOf(selecting) : [];
  for (const r of selecting) {
    for (const pr of r[allowKey] ?? []) {
      if (!l3Matches(model, r, pr, c, entity, dns)) continue;
      const e = portEntry(pr, c);
      if (e === undefined) continue;
      const a: Allow = {
        ref: refTo(r.source, e?.line || pr.line, `${r.field}.${allowKey}[${pr.index}]`),
        text: `${ruleName(r)} ${allowKey} rule ${pr.index + 1}`,
      };
      if (e && e.http && e.http.length) {
        a.http = e.http;
        a.portRule = e;
      }
      allows.push(a);
    }
  }
  for (const p of nps) {
    const i = k8sAllows(model, p, c);
    if (i >= 0)
      allows.push({
        ref: refTo(p.source, (direction === "ingress" ? p.ingress : p.egress)[i]!.line, `${direction}[${i}]`),
        text: `NetworkPolicy ${p.key} ${direction} rule ${i + 1}`,
      });
  }
  if (!defaultDeny) {
    steps.push(`no rule puts ${self.key} in default deny for ${direction}`);
    return {
      direction,
      allowed: true,
      isolated: false,
      layer: "CiliumNetworkPolicy",
      reason: selecting.length
        ? `the Cilium rules that select ${self.key} have no ${direction} section (or disable default deny): not isolated for ${direction}`
        : `no CiliumNetworkPolicy or NetworkPolicy selects ${self.key} for ${direction}`,
      steps,
    };
  }
  if (allows.length === 0) {
    const cnp = enforcing[0];
    const names = [...enforcing.map(ruleName), ...nps.map((p) => `NetworkPolicy ${p.key}`)].join(", ");
    steps.push(`${self.key} is in default deny for ${direction} (${names}) and no rule allows ${what}`);
    const fqdn = direction === "egress" ? fqdnMiss(selecting, c, entity, dns) : "";
    const ref = cnp
      ? refTo(cnp.source, cnp.line, `${cnp.field} (default deny)`)
      : refTo(nps[0]!.source, nps[0]!.lines.podSelector, "default deny");
    return {
      direction,
      allowed: false,
      isolated: true,
      layer: cnp ? "CiliumNetworkPolicy" : "NetworkPolicy",
      reason: `${self.key} is in default deny for ${direction} (selected by ${names}) and no rule allows ${what}${fqdn}`,
      ref,
      steps,
    };
  }
  const open = allows.find((a) => !a.http);
  if (open) {
    steps.push(`${open.text} allows ${what}`);
    return {
      direction,
      allowed: true,
      isolated: true,
      layer: open.text.startsWith("NetworkPolicy") ? "NetworkPolicy" : "CiliumNetworkPolicy",
      reason: `allowed by ${open.text}`,
      ref: open.ref,
      steps,
    };
  }
  // Rule 8: only L7 rules allow it.
  const httpRules = allows.flatMap((a) => a.http!);
  const v: CniVerdict = {
    direction,
    allowed: true,
    isolated: true,
    layer: "CiliumNetworkPolicy",
    reason: `allowed at L4 by ${allows.map((a) => a.text).join(", ")}, for HTTP requests matching its L7 rules only (${httpRules.map((h) => h.text).join("; ")})`,
    ref: allows[0]!.ref,
    steps,
    l7: { rules: httpRules.map((h) => h.text), ref: allows[0]!.ref },
  };
  steps.push(`${allows[0]!.text} allows ${what} at L4; the Cilium proxy judges each HTTP request`);
  if (c.http) {
    const host =
      c.peer.ip && direction === "ingress" ? `${self.ips[0] ?? ""}:${c.port}` : `${c.peer.ip}:${c.port}`;
    const hit = httpRules.find((h) => httpRuleMatches(h, c.http!, host));
    const req = formatHttpRequest(c.http);
    if (hit) {
      v.l7!.request = { allowed: true, status: 200, reason: `${req} matches the L7 rule ${hit.text}` };
      v.l7!.ref = { ...v.l7!.ref!, line: hit.line };
      steps.push(`${req} matches ${hit.text}`);
    } else {
      v.l7!.request = {
        allowed: false,
        status: 403,
        reason: `${req} matches none of the L7 rules (${httpRules.map((h) => h.text).join("; ")}): the Cilium proxy answers 403`,
      };
      steps.push(`${req} matches no L7 rule: 403`);
    }
  }
  return v;
}
