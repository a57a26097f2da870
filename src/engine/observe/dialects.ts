/**
 * A suggested policy written in the dialect of the cluster's profile: the
 * Kubernetes NetworkPolicy, Cilium's CiliumNetworkPolicy (cilium.io/v2) or
 * Calico's NetworkPolicy (projectcalico.org/v3). One subject (a workload, by
 * its stable labels), one direction, the peers seen and their ports, and,
 * for egress, the DNS rule its lookups need once its egress is isolated.
 *
 * What each dialect means by it, as its documentation says:
 * - Cilium: a rule in a direction puts the endpoint in default deny for that
 *   direction; peers in a namespaced policy are of its namespace unless the
 *   selector names `k8s:io.kubernetes.pod.namespace`; `toPorts` take numbers
 *   or the pods' port names; the DNS rule carries `rules.dns` so the DNS proxy
 *   sees the lookups (toFQDNs rules need it). An endpoint that accepts
 *   nothing gets an empty rule (`ingress: [{}]`), Cilium's default deny.
 * - Calico: `types` names the direction; a selected endpoint with no rule that
 *   allows is denied at the end of the tier; one protocol per rule; selectors
 *   are Calico's expressions (`app == 'web'`), peers of another namespace by
 *   `namespaceSelector` on `kubernetes.io/metadata.name`.
 * The proof (suggest.ts) parses the YAML again under the same profile, so a
 * dialect written wrong fails it rather than shipping.
 */
import type { Protocol, Workload } from "../model/types.ts";
import type { CniName } from "../cni/profile.ts";
import { stableLabels } from "./match.ts";

export type PolicyDialect = "NetworkPolicy" | "CiliumNetworkPolicy" | "CalicoNetworkPolicy";

/** The dialect a profile's CNI enforces its own policies in (NetworkPolicy when it has none of its own). */
export function dialectOf(cni: CniName | undefined): PolicyDialect {
  if (cni === "cilium" || cni === "cilium-kpr") return "CiliumNetworkPolicy";
  if (cni === "calico") return "CalicoNetworkPolicy";
  return "NetworkPolicy";
}

export interface PortRef {
  protocol: Protocol;
  port: number;
}

export interface PolicyPeer {
  peer: Workload;
  ports: Iterable<PortRef>;
}

/** kube-dns by its conventional labels. */
export const DNS = { namespace: "kube-system", labels: { "k8s-app": "kube-dns" } };

/** The name every pod of the workload gives this port, if they all give the same one. */
function portName(w: Workload, p: PortRef): string | undefined {
  let name: string | undefined;
  for (const pod of w.pods) {
    const c = pod.ports.find((x) => x.containerPort === p.port && x.protocol === p.protocol);
    if (!c?.name || (name !== undefined && c.name !== name)) return undefined;
    name = c.name;
  }
  return name;
}

const sorted = (ports: Iterable<PortRef>) =>
  [...ports].sort((a, b) => a.port - b.port || (a.protocol < b.protocol ? -1 : 1));

/** A port as the policy names it: the pods' name for it where they all give one, else the number. */
const named = (p: PortRef, w: Workload) => portName(w, p) ?? p.port;

/** Writes one policy; `rules` counts what it admits (DNS included). */
export function writePolicy(
  dialect: PolicyDialect,
  direction: "ingress" | "egress",
  subject: Workload,
  name: string,
  peers: readonly PolicyPeer[],
): { value: Record<string, unknown>; rules: number } {
  const metadata = { name, namespace: subject.namespace };
  if (dialect === "CiliumNetworkPolicy") return cilium(direction, subject, metadata, peers);
  if (dialect === "CalicoNetworkPolicy") return calico(direction, subject, metadata, peers);
  return networkPolicy(direction, subject, metadata, peers);
}

function networkPolicy(
  direction: "ingress" | "egress",
  subject: Workload,
  metadata: { name: string; namespace: string },
  peers: readonly PolicyPeer[],
) {
  const peerOf = (peer: Workload): Record<string, unknown> => {
    const out: Record<string, unknown> = { podSelector: { matchLabels: stableLabels(peer.labels) } };
    if (peer.namespace !== subject.namespace)
      out.namespaceSelector = { matchLabels: { "kubernetes.io/metadata.name": peer.namespace } };
    return out;
  };
  // NetworkPolicy sees the destination's port: named by the destination's pods.
  const rules: Record<string, unknown>[] = peers.map(({ peer, ports }) => ({
    [direction === "ingress" ? "from" : "to"]: [peerOf(peer)],
    ports: sorted(ports).map((p) => ({
      protocol: p.protocol,
      port: named(p, direction === "ingress" ? subject : peer),
    })),
  }));
  if (direction === "egress")
    rules.push({
      to: [
        {
          namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": DNS.namespace } },
          podSelector: { matchLabels: DNS.labels },
        },
      ],
      ports: [
        { protocol: "UDP", port: 53 },
        { protocol: "TCP", port: 53 },
      ],
    });
  return {
    value: {
      apiVersion: "networking.k8s.io/v1",
      kind: "NetworkPolicy",
      metadata,
      spec: {
        podSelector: { matchLabels: stableLabels(subject.labels) },
        policyTypes: [direction === "ingress" ? "Ingress" : "Egress"],
        [direction]: rules,
      },
    },
    rules: rules.length,
  };
}

function cilium(
  direction: "ingress" | "egress",
  subject: Workload,
  metadata: { name: string; namespace: string },
  peers: readonly PolicyPeer[],
) {
  // A peer of another namespace names it: a namespaced policy's selectors are of its own namespace otherwise.
  const endpointOf = (peer: Workload) => ({
    matchLabels: {
      ...stableLabels(peer.labels),
      ...(peer.namespace !== subject.namespace ? { "k8s:io.kubernetes.pod.namespace": peer.namespace } : {}),
    },
  });
  const rules: Record<string, unknown>[] = peers.map(({ peer, ports }) => ({
    [direction === "ingress" ? "fromEndpoints" : "toEndpoints"]: [endpointOf(peer)],
    toPorts: [
      {
        ports: sorted(ports).map((p) => ({
          port: String(named(p, direction === "ingress" ? subject : peer)),
          protocol: p.protocol,
        })),
      },
    ],
  }));
  if (direction === "egress")
    // The DNS proxy sees the lookups it admits (rules.dns): toFQDNs rules depend on it.
    rules.push({
      toEndpoints: [{ matchLabels: { "k8s:io.kubernetes.pod.namespace": DNS.namespace, ...DNS.labels } }],
      toPorts: [{ ports: [{ port: "53", protocol: "ANY" }], rules: { dns: [{ matchPattern: "*" }] } }],
    });
  // Nothing admitted: an empty rule, Cilium's default deny for the direction.
  if (rules.length === 0) rules.push({});
  return {
    value: {
      apiVersion: "cilium.io/v2",
      kind: "CiliumNetworkPolicy",
      metadata,
      spec: { endpointSelector: { matchLabels: stableLabels(subject.labels) }, [direction]: rules },
    },
    rules: peers.length + (direction === "egress" ? 1 : 0),
  };
}

/** A Calico selector expression for labels: `app == 'web' && tier == 'api'`. */
export function calicoSelector(labels: Record<string, string>): string {
  return Object.entries(labels)
    .map(([k, v]) => `${k} == '${v.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`)
    .join(" && ");
}

function calico(
  direction: "ingress" | "egress",
  subject: Workload,
  metadata: { name: string; namespace: string },
  peers: readonly PolicyPeer[],
) {
  const entityOf = (peer: Workload) => ({
    selector: calicoSelector(stableLabels(peer.labels)),
    ...(peer.namespace !== subject.namespace
      ? { namespaceSelector: calicoSelector({ "kubernetes.io/metadata.name": peer.namespace }) }
      : {}),
  });
  const rules: Record<string, unknown>[] = [];
  for (const { peer, ports } of peers) {
    // One protocol a rule.
    const byProtocol = new Map<Protocol, PortRef[]>();
    for (const p of sorted(ports)) byProtocol.set(p.protocol, [...(byProtocol.get(p.protocol) ?? []), p]);
    const dst = direction === "ingress" ? subject : peer;
    for (const [protocol, list] of byProtocol) {
      const portsOf = list.map((p) => named(p, dst));
      rules.push(
        direction === "ingress"
          ? { action: "Allow", protocol, source: entityOf(peer), destination: { ports: portsOf } }
          : { action: "Allow", protocol, destination: { ...entityOf(peer), ports: portsOf } },
      );
    }
  }
  if (direction === "egress")
    for (const protocol of ["UDP", "TCP"] as const)
      rules.push({
        action: "Allow",
        protocol,
        destination: {
          selector: calicoSelector(DNS.labels),
          namespaceSelector: calicoSelector({ "kubernetes.io/metadata.name": DNS.namespace }),
          ports: [53],
        },
      });
  return {
    value: {
      apiVersion: "projectcalico.org/v3",
      kind: "NetworkPolicy",
      metadata,
      spec: {
        selector: calicoSelector(stableLabels(subject.labels)),
        types: [direction === "ingress" ? "Ingress" : "Egress"],
        [direction]: rules,
      },
    },
    rules: rules.length,
  };
}
