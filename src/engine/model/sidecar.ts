/**
 * Istio sidecar injection: whether a pod runs an istio-proxy sidecar, as
 * Istio's injection webhook decides it (istio.io, "Installing the Sidecar",
 * "Controlling the injection policy": the namespace label
 * istio-injection=enabled or istio.io/rev, the pod label
 * sidecar.istio.io/inject, a host-network pod never; istio-injection=disabled
 * wins over the pod label), plus the cluster profile's assumption
 * (`assume.injection`): the namespaces the application's YAML leaves
 * unlabelled because the cluster labels them. A fact about what a cluster
 * holds (a container the webhook adds), so the model decides it and both
 * the L7 trace and the load step's checks ask here.
 */
import { arr, obj, str } from "../parse/values.ts";
import type { Model, Pod } from "./types.ts";

/** The namespaces the system runs in, never assumed injected by `*`. */
const SYSTEM_NAMESPACES = new Set(["kube-system", "kube-public", "kube-node-lease", "istio-system"]);

/** Whether the profile assumes injection in a namespace (`*`: every namespace but the system ones). */
export function injectionAssumed(model: Pick<Model, "profile">, namespace: string): boolean {
  const list = model.profile?.assume?.injection;
  if (!list?.length) return false;
  return list.includes(namespace) || (list.includes("*") && !SYSTEM_NAMESPACES.has(namespace));
}

export interface SidecarState {
  on: boolean;
  why: string;
  /** The sidecar comes from the profile's assumption, not from the input. */
  assumed?: boolean;
}

export function sidecarOf(pod: Pod, model: Pick<Model, "namespaces" | "profile">): SidecarState {
  const ns = model.namespaces.get(pod.namespace);
  const nsLabel = ns?.labels["istio-injection"];
  const podLabel = pod.labels["sidecar.istio.io/inject"] ?? pod.annotations["sidecar.istio.io/inject"];
  const containers = arr(obj(pod.raw.spec)?.containers).map((c) => str(obj(c)?.name));
  if (pod.hostNetwork) return { on: false, why: `${pod.key} uses the host network: no sidecar` };
  if (podLabel === "false") return { on: false, why: `${pod.key} is labelled sidecar.istio.io/inject=false` };
  if (nsLabel === "disabled")
    return { on: false, why: `namespace ${pod.namespace} is labelled istio-injection=disabled` };
  if (nsLabel === "enabled")
    return { on: true, why: `namespace ${pod.namespace} is labelled istio-injection=enabled` };
  if (ns?.labels["istio.io/rev"] !== undefined)
    return {
      on: true,
      why: `namespace ${pod.namespace} is labelled istio.io/rev=${ns.labels["istio.io/rev"]}`,
    };
  if (podLabel === "true") return { on: true, why: `${pod.key} is labelled sidecar.istio.io/inject=true` };
  if (containers.includes("istio-proxy"))
    return { on: true, why: `${pod.key} already runs an istio-proxy container` };
  if (injectionAssumed(model, pod.namespace))
    return {
      on: true,
      assumed: true,
      why: `the cluster profile assumes Istio injection in namespace ${pod.namespace} (the input does not label it istio-injection=enabled)`,
    };
  return {
    on: false,
    why: `namespace ${pod.namespace} has no istio-injection=enabled label: ${pod.key} has no sidecar`,
  };
}

/** Whether any pod of the model has a sidecar (a mesh route then has clients). */
export function anySidecar(model: Pick<Model, "pods" | "namespaces" | "profile">): boolean {
  return model.pods.some((p) => sidecarOf(p, model).on);
}
