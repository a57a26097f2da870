/**
 * Taints and tolerations, as the scheduler and the DaemonSet controller read
 * them:
 * - k8s.io/api core/v1 Toleration.ToleratesTaint: an effect, when set, must
 *   equal the taint's; an empty key with Exists tolerates every key; Exists
 *   ignores the value, Equal (the default operator) compares it.
 * - scheduler plugin tainttoleration Filter: a pod fits a node when it
 *   tolerates every NoSchedule and NoExecute taint (PreferNoSchedule only
 *   scores). NodeUnschedulable: a cordoned node fits only pods tolerating
 *   node.kubernetes.io/unschedulable:NoSchedule, the taint the node lifecycle
 *   controller puts on it (modelled as one of its taints).
 * - pkg/controller/daemon NodeShouldRunDaemonPod (predicates): the same taint
 *   test, with the tolerations AddOrUpdateDaemonPodTolerations adds to every
 *   DaemonSet pod: not-ready and unreachable NoExecute; disk-pressure,
 *   memory-pressure, pid-pressure and unschedulable NoSchedule;
 *   network-unavailable NoSchedule for hostNetwork pods. None covers
 *   node-role.kubernetes.io/control-plane:NoSchedule.
 */
import { arr, isObj, str, type Json } from "../parse/values.ts";
import type { Taint, TaintEffect } from "./types.ts";

export const UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable";

export interface Toleration {
  key: string;
  operator: "Exists" | "Equal";
  value: string;
  /** "" tolerates every effect. */
  effect: string;
}

const EFFECTS = new Set<string>(["NoSchedule", "PreferNoSchedule", "NoExecute"]);

/** spec.taints of a Node; entries without a key or with an unknown effect are ignored (the apiserver rejects them). */
export function parseTaints(v: unknown): Taint[] {
  const out: Taint[] = [];
  for (const t of arr(v)) {
    if (!isObj(t)) continue;
    const key = str(t.key);
    const effect = str(t.effect);
    if (!key || !effect || !EFFECTS.has(effect)) continue;
    const taint: Taint = { key, effect: effect as TaintEffect };
    const value = str(t.value);
    if (value) taint.value = value;
    out.push(taint);
  }
  return out;
}

/** spec.tolerations of a pod template. */
export function parseTolerations(spec: Json): Toleration[] {
  const out: Toleration[] = [];
  for (const t of arr(spec.tolerations)) {
    if (!isObj(t)) continue;
    out.push({
      key: str(t.key) ?? "",
      operator: str(t.operator) === "Exists" ? "Exists" : "Equal",
      value: str(t.value) ?? "",
      effect: str(t.effect) ?? "",
    });
  }
  return out;
}

/** Toleration.ToleratesTaint. */
export function tolerates(t: Toleration, taint: Taint): boolean {
  if (t.effect !== "" && t.effect !== taint.effect) return false;
  if (t.key !== "" && t.key !== taint.key) return false;
  if (t.key === "" && t.operator !== "Exists") return false;
  return t.operator === "Exists" || t.value === (taint.value ?? "");
}

/** AddOrUpdateDaemonPodTolerations (pkg/controller/daemon/util/daemonset_util.go). */
export function daemonSetTolerations(hostNetwork: boolean): Toleration[] {
  const t = (key: string, effect: TaintEffect): Toleration => ({
    key,
    operator: "Exists",
    value: "",
    effect,
  });
  const out = [
    t("node.kubernetes.io/not-ready", "NoExecute"),
    t("node.kubernetes.io/unreachable", "NoExecute"),
    t("node.kubernetes.io/disk-pressure", "NoSchedule"),
    t("node.kubernetes.io/memory-pressure", "NoSchedule"),
    t("node.kubernetes.io/pid-pressure", "NoSchedule"),
    t(UNSCHEDULABLE_TAINT, "NoSchedule"),
  ];
  if (hostNetwork) out.push(t("node.kubernetes.io/network-unavailable", "NoSchedule"));
  return out;
}

/** The first NoSchedule or NoExecute taint no toleration covers (FindMatchingUntoleratedTaint), or undefined when the pod fits. */
export function untoleratedTaint(
  taints: readonly Taint[],
  tolerations: readonly Toleration[],
): Taint | undefined {
  return taints.find(
    (taint) => taint.effect !== "PreferNoSchedule" && !tolerations.some((t) => tolerates(t, taint)),
  );
}

export function taintText(t: Taint): string {
  return `${t.key}${t.value ? `=${t.value}` : ""}:${t.effect}`;
}
