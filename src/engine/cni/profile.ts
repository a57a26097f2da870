/**
 * The cluster profile: which CNI enforces policy, where that changes an
 * answer. `generic` (the default) is upstream Kubernetes, which leaves
 * these open; ktl then says so in words instead of asserting one answer.
 *
 * What each profile decides (sources: projectcalico felix iptables rules,
 * the chain order of netfilter (filter FORWARD runs before nat POSTROUTING),
 * Cilium's Documentation/network/kubernetes/kubeproxy-free.rst and
 * security/policy/language.rst allow-localhost, flannel's README):
 * - calico: Felix filters in FORWARD, before kube-proxy's MASQUERADE in
 *   POSTROUTING, so ingress policy sees the client's own address;
 * - cilium (with kube-proxy): the endpoint's BPF ingress program runs after
 *   the node's iptables SNAT, so a packet masqueraded on the pod's own
 *   node comes from the host identity, which allow-localhost admits;
 * - cilium-kpr (kube-proxy replacement): the BPF service translation does
 *   not SNAT toward a local backend, so policy sees the client;
 * - flannel: enforces no NetworkPolicy at all.
 */
import type { KObject } from "../parse/manifests.ts";
import { isObj, str } from "../parse/values.ts";

export type CniName = "generic" | "calico" | "cilium" | "cilium-kpr" | "flannel";
export const CNI_NAMES: readonly CniName[] = ["generic", "calico", "cilium", "cilium-kpr", "flannel"];

/**
 * What the cluster holds around the application that its YAML leaves out,
 * assumed on request (`ktl trace --assume-istio-ingress`,
 * `--assume-injection NS,...`, the toolbar's switches): every answer that
 * an assumption changes says so.
 */
export interface ClusterAssumptions {
  /** Istio's ingress gateway, installed with Istio (istioctl, Helm): pods for each Istio Gateway selector that matches none. */
  istioIngress?: boolean;
  /** Namespaces where Istio injects sidecars although the input does not label them (`*`: every application namespace). */
  injection?: string[];
}

export interface ClusterProfile {
  cni: CniName;
  /** Assumptions about the cluster around the application (absent: none). */
  assume?: ClusterAssumptions;
  /** Where it comes from: the default, a flag or the toolbar, or an object of the input. */
  source: "default" | "chosen" | "input";
  /** The object it was read from ("ConfigMap kube-system/cilium-config, line 3"). */
  from?: string;
}

export const GENERIC: ClusterProfile = { cni: "generic", source: "default" };

export function parseCniName(text: string): CniName | { error: string } {
  const t = text.trim().toLowerCase();
  return (CNI_NAMES as readonly string[]).includes(t)
    ? (t as CniName)
    : { error: `unknown CNI "${text}": choose one of ${CNI_NAMES.join(", ")}` };
}

/**
 * The profile the input states: Cilium's `cilium-config` ConfigMap
 * (`kube-proxy-replacement: "true"` means cilium-kpr), Calico's
 * `calico-config` ConfigMap or a FelixConfiguration, flannel's
 * `kube-flannel-cfg`. Undefined when the input names no CNI.
 */
export function profileFromInput(objects: readonly KObject[]): ClusterProfile | undefined {
  for (const o of objects) {
    const at = `${o.kind} ${o.namespace ? `${o.namespace}/` : ""}${o.name}, line ${o.line}`;
    const data = isObj(o.raw.data) ? o.raw.data : {};
    if (o.kind === "ConfigMap" && o.name === "cilium-config") {
      const kpr = (str(data["kube-proxy-replacement"]) ?? "").toLowerCase();
      return { cni: kpr === "true" || kpr === "strict" ? "cilium-kpr" : "cilium", source: "input", from: at };
    }
    if (
      (o.kind === "ConfigMap" && o.name === "calico-config") ||
      (o.kind === "FelixConfiguration" && o.apiVersion.includes("projectcalico.org"))
    )
      return { cni: "calico", source: "input", from: at };
    if (o.kind === "ConfigMap" && o.name === "kube-flannel-cfg")
      return { cni: "flannel", source: "input", from: at };
  }
  return undefined;
}

/** The assumptions in words, for front ends ("" when none). */
export function describeAssumptions(a: ClusterAssumptions | undefined): string {
  if (!a) return "";
  const parts: string[] = [];
  if (a.istioIngress) parts.push("an Istio ingress gateway");
  if (a.injection?.length)
    parts.push(
      `Istio sidecar injection in ${a.injection.includes("*") ? "every application namespace" : `namespace${a.injection.length === 1 ? "" : "s"} ${a.injection.join(", ")}`}`,
    );
  return parts.length ? `assumed: ${parts.join("; ")}` : "";
}

export function describeProfile(p: ClusterProfile): string {
  const name = {
    generic: "generic Kubernetes",
    calico: "Calico",
    cilium: "Cilium (with kube-proxy)",
    "cilium-kpr": "Cilium (kube-proxy replacement)",
    flannel: "flannel",
  }[p.cni];
  return p.source === "input"
    ? `${name}, read from ${p.from}`
    : p.source === "chosen"
      ? `${name} (chosen)`
      : name;
}
