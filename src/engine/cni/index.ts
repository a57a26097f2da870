/**
 * The CNI's own policy dialects, each with Kubernetes NetworkPolicy inside
 * it as that CNI enforces it: Calico (projectcalico.org/v3, tiers, order,
 * Pass) and Cilium (cilium.io/v2, deny rules, entities, L7 HTTP). A model
 * whose input has objects of a dialect is judged by that dialect's rules
 * for every pod, in place of plain NetworkPolicy: both CNIs enforce
 * NetworkPolicy themselves, and the answer differs only where their own
 * policies add to it.
 */
import type { KObject } from "../parse/manifests.ts";
import type { Diagnostic } from "../parse/diagnostics.ts";
import type { Model, Pod, Protocol } from "../model/types.ts";
import type { NetworkPolicy } from "../model/networkpolicy.ts";
import type { HttpRequest } from "../http/request.ts";
import { CALICO_KINDS, isCalicoObject, parseCalicoPolicy, parseCalicoTier } from "./calico/policy.ts";
import { buildCalicoIndex, calicoHostToLocal, explainCalico, KUBE_ADMIN_ORDER } from "./calico/evaluate.ts";
import { hasTiers, stackCni } from "./stack.ts";
import { isCiliumObject, parseCiliumPolicy } from "./cilium/policy.ts";
import { explainCilium } from "./cilium/evaluate.ts";
import type { CniPeer, CniVerdict, Direction } from "./types.ts";
import type { CniPolicies } from "./policies.ts";

export type { CniVerdict, CniPeer, CniRef, CniLayer, CniConnection, Direction } from "./types.ts";
export { isCalicoObject } from "./calico/policy.ts";
export { isCiliumObject } from "./cilium/policy.ts";
export { parseCalicoSelector, isSelectorError } from "./calico/selector.ts";

export type { CniPolicies };

/** Kinds of the CNI dialects, for the parser's list of modelled kinds. */
export const CNI_KINDS = [
  "CiliumNetworkPolicy",
  "CiliumClusterwideNetworkPolicy",
  "GlobalNetworkPolicy",
  "Tier",
];

/** Is this a CNI dialect's object (rather than a Kubernetes one of the same kind, such as Calico's NetworkPolicy)? */
export function isCniObject(o: { apiVersion: string; kind: string }): boolean {
  return (isCalicoObject(o) && CALICO_KINDS.has(o.kind)) || isCiliumObject(o);
}

export function buildCniPolicies(
  objects: readonly KObject[],
  k8s: readonly NetworkPolicy[],
  diagnostics: Diagnostic[],
): CniPolicies {
  const calicoObjects = objects.filter((o) => isCalicoObject(o) && CALICO_KINDS.has(o.kind));
  const ciliumObjects = objects.filter(isCiliumObject);
  let calico: CniPolicies["calico"];
  if (calicoObjects.length) {
    const policies = calicoObjects
      .filter((o) => o.kind !== "Tier")
      .map((o) => parseCalicoPolicy(o, diagnostics));
    const tiers = calicoObjects.filter((o) => o.kind === "Tier").map(parseCalicoTier);
    calico = { policies, tiers, index: buildCalicoIndex(policies, tiers, k8s) };
  }
  const cilium = ciliumObjects.length
    ? {
        rules: ciliumObjects.flatMap((o) => parseCiliumPolicy(o, diagnostics)),
        objects: ciliumObjects.length,
      }
    : undefined;
  return { calico, cilium };
}

export { hasCniPolicies } from "./policies.ts";

/**
 * One direction at `self`, by every dialect in the input (NetworkPolicy
 * inside each). With both dialects present (two CNIs cannot both enforce;
 * ktl says so in a diagnostic), a connection needs both to allow.
 */
export function explainCniDirection(
  model: Model,
  cni: CniPolicies,
  direction: Direction,
  self: Pod,
  peer: CniPeer,
  port: number,
  protocol: Protocol,
  http?: HttpRequest,
): CniVerdict {
  const c = { direction, self, peer, port, protocol, dst: direction === "ingress" ? self : peer.pod, http };
  // Under Calico, a host's traffic to its own workloads is never policed, by any tier (calico/evaluate.ts).
  const hostToLocal = cni.calico && !cni.cilium ? calicoHostToLocal(c) : undefined;
  if (hostToLocal) return hostToLocal;
  const tiers = hasTiers(model);
  const dialect = () => {
    const verdicts: CniVerdict[] = [];
    if (cni.cilium) verdicts.push(explainCilium(model, cni.cilium.rules, model.policies, c));
    if (cni.calico)
      verdicts.push(explainCalico(model, cni.calico.index, c, tiers ? "after-admin" : undefined));
    const denied = verdicts.find((v) => !v.allowed || v.l7?.request?.allowed === false);
    return denied ?? verdicts.find((v) => v.l7) ?? verdicts.find((v) => v.isolated) ?? verdicts[0]!;
  };
  // With cluster tiers, the stack: Calico tiers ordered before kube-admin, Admin, the dialect, Baseline (cni/stack.ts).
  const calico = cni.calico;
  const pre =
    tiers && calico?.index.tiers.some((t) => (t.tier.order ?? Infinity) < KUBE_ADMIN_ORDER)
      ? () => explainCalico(model, calico.index, c, "before-admin")
      : undefined;
  return stackCni(model, c, dialect, pre);
}

/** The peer as a CNI sees an address: the pod behind it, or the node it belongs to. */
export function peerOf(model: Model, ip: string, pod?: Pod): CniPeer {
  if (pod && !pod.hostNetwork) return { ip, pod };
  const node = pod?.hostNetwork
    ? pod.nodeName
    : model.nodes.find((n) => n.addresses.some((a) => a.address === ip))?.name;
  return node ? { ip, node, ...(pod ? { pod } : {}) } : { ip, ...(pod ? { pod } : {}) };
}

/** Pod to pod by the destination's primary IP: egress at the source (when it is a CNI endpoint) and ingress at the destination. */
export function cniPairAllowed(
  model: Model,
  cni: CniPolicies,
  src: Pod,
  dst: Pod,
  port: number,
  protocol: Protocol,
): boolean {
  if (!src.hostNetwork) {
    const e = explainCniDirection(
      model,
      cni,
      "egress",
      src,
      peerOf(model, dst.ips[0] ?? "", dst),
      port,
      protocol,
    );
    if (!e.allowed) return false;
  }
  if (dst.hostNetwork) return true;
  return explainCniDirection(model, cni, "ingress", dst, peerOf(model, src.ips[0] ?? "", src), port, protocol)
    .allowed;
}

/** "Cilium", "Calico" or both, for front ends. */
export function cniName(cni: CniPolicies): string {
  return [cni.cilium ? "Cilium" : "", cni.calico ? "Calico" : ""].filter(Boolean).join(" and ");
}

export interface CniClassMatrix {
  port: number;
  protocol: Protocol;
  /** Pods that no CNI policy can tell apart share a class. */
  classes: Pod[][];
  classOf: Int32Array;
  /** allowed[a][b]: from class a to class b, decided on one pod of each. */
  allowed: Uint8Array[];
  isolatedIngress: number;
  isolatedEgress: number;
}

/** Pods that no CNI rule can tell apart, the same for every port. */
export interface CniClasses {
  classes: Pod[][];
  classOf: Int32Array;
}

/**
 * The class path: pods are grouped by everything a CNI rule can test
 * (namespace, labels, service account, container ports, hostNetwork; the
 * IP when a rule names addresses; the node when host-network pods exist, as
 * `host` and allow-localhost depend on it), and each pair of classes is
 * decided once. `cniPairAllowed` on every pod pair is the other path; the
 * property tests check that both agree.
 */
export function cniClasses(model: Model, cni: CniPolicies): CniClasses {
  const byAddress =
    model.policies.some((p) => [...p.ingress, ...p.egress].some((r) => r.peers?.some((x) => x.ipBlock))) ||
    !!cni.calico?.policies.some((p) =>
      [...p.ingress, ...p.egress].some(
        (r) =>
          r.source.nets.length ||
          r.source.notNets.length ||
          r.destination.nets.length ||
          r.destination.notNets.length,
      ),
    );
  const tierNets = model.clusterPolicies.some((p) =>
    [...p.ingress, ...p.egress].some((r) => r.peers.some((x) => x.networks || x.nodes)),
  );
  const hostPods = model.pods.some((p) => p.hostNetwork);
  const keys = new Map<string, number>();
  const classes: Pod[][] = [];
  const classOf = new Int32Array(model.pods.length);
  for (const pod of model.pods) {
    const labels = Object.keys(pod.labels)
      .sort()
      .map((k) => `${k}=${pod.labels[k]}`)
      .join(",");
    const ports = pod.ports
      .map((p) => `${p.name ?? ""}:${p.containerPort}/${p.protocol}`)
      .sort()
      .join(",");
    const key = [
      pod.namespace,
      labels,
      pod.serviceAccount,
      ports,
      pod.hostNetwork ? "h" : "",
      byAddress || tierNets || pod.hostNetwork ? (pod.ips[0] ?? "") : "",
      hostPods ? (pod.nodeName ?? "") : "",
    ].join("\0");
    let c = keys.get(key);
    if (c === undefined) {
      keys.set(key, (c = classes.length));
      classes.push([]);
    }
    classes[c]!.push(pod);
    classOf[pod.index] = c;
  }
  return { classes, classOf };
}

export function cniClassMatrix(
  model: Model,
  cni: CniPolicies,
  port: number,
  protocol: Protocol,
  grouping: CniClasses = cniClasses(model, cni),
): CniClassMatrix {
  const { classes, classOf } = grouping;
  const allowed = classes.map((a) =>
    Uint8Array.from(classes, (b) => (cniPairAllowed(model, cni, a[0]!, b[0]!, port, protocol) ? 1 : 0)),
  );
  let isolatedIngress = 0,
    isolatedEgress = 0;
  for (const c of classes) {
    const pod = c[0]!;
    if (pod.hostNetwork) continue;
    const world = { ip: "" };
    if (explainCniDirection(model, cni, "ingress", pod, world, port, protocol).isolated)
      isolatedIngress += c.length;
    if (explainCniDirection(model, cni, "egress", pod, world, port, protocol).isolated)
      isolatedEgress += c.length;
  }
  return { port, protocol, classes, classOf, allowed, isolatedIngress, isolatedEgress };
}

export function cniPodMatrix(m: CniClassMatrix): boolean[][] {
  const n = m.classOf.length;
  const out: boolean[][] = [];
  for (let i = 0; i < n; i++) {
    const row = m.allowed[m.classOf[i]!]!;
    const r: boolean[] = new Array(n);
    for (let j = 0; j < n; j++) r[j] = row[m.classOf[j]!] === 1;
    out.push(r);
  }
  return out;
}
