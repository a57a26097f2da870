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
 * - pkg/controller/nodelifecycle: the node's conditions become taints.
 *   TaintNodesByCondition (nodeConditionToTaintKeyStatusMap) puts NoSchedule
 *   taints: Ready False -> not-ready, Ready Unknown -> unreachable,
 *   MemoryPressure/DiskPressure/PIDPressure/NetworkUnavailable True -> their
 *   keys; doNoExecuteTaintingPass adds not-ready:NoExecute or
 *   unreachable:NoExecute (NotReadyTaintTemplate, UnreachableTaintTemplate).
 * - plugin/pkg/admission/defaulttolerationseconds: every pod that does not
 *   already tolerate them gets not-ready:NoExecute and unreachable:NoExecute
 *   tolerations (operator Exists) with tolerationSeconds 300.
 * - pkg/controller/tainteviction (getMinTolerationTime): on a NoExecute taint
 *   a pod that tolerates it stays for the smallest tolerationSeconds of the
 *   tolerations that match (forever without one), and one that does not is
 *   evicted at once.
 */
import { arr, isObj, str, type Json } from "../parse/values.ts";
import type { Taint, TaintEffect } from "./types.ts";

export const UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable";
export const NOT_READY_TAINT = "node.kubernetes.io/not-ready";
export const UNREACHABLE_TAINT = "node.kubernetes.io/unreachable";
/** The DefaultTolerationSeconds admission plugin's default (--default-not-ready-toleration-seconds, --default-unreachable-toleration-seconds). */
export const DEFAULT_TOLERATION_SECONDS = 300;

export interface Toleration {
  key: string;
  operator: "Exists" | "Equal";
  value: string;
  /** "" tolerates every effect. */
  effect: string;
  /** For NoExecute: how long the pod stays once the taint is there; absent: forever. */
  tolerationSeconds?: number;
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
    const tol: Toleration = {
      key: str(t.key) ?? "",
      operator: str(t.operator) === "Exists" ? "Exists" : "Equal",
      value: str(t.value) ?? "",
      effect: str(t.effect) ?? "",
    };
    if (typeof t.tolerationSeconds === "number" && Number.isFinite(t.tolerationSeconds))
      tol.tolerationSeconds = t.tolerationSeconds;
    out.push(tol);
  }
  return out;
}

/**
 * The taints the node lifecycle controller derives from a node's
 * status.conditions (TaintNodesByCondition, doNoExecuteTaintingPass), in the
 * order it adds them, leaving out those spec.taints already has.
 */
export function conditionTaints(conditions: unknown, written: readonly Taint[]): Taint[] {
  const status = new Map<string, string>();
  for (const c of arr(conditions)) {
    if (!isObj(c)) continue;
    const type = str(c.type);
    const st = c.status === true ? "True" : c.status === false ? "False" : str(c.status);
    if (type && st) status.set(type, st);
  }
  const out: Taint[] = [];
  const add = (key: string, effect: TaintEffect) => {
    if (
      !written.some((t) => t.key === key && t.effect === effect) &&
      !out.some((t) => t.key === key && t.effect === effect)
    )
      out.push({ key, effect });
  };
  const ready = status.get("Ready");
  if (ready === "False") add(NOT_READY_TAINT, "NoSchedule");
  if (ready === "Unknown") add(UNREACHABLE_TAINT, "NoSchedule");
  if (status.get("MemoryPressure") === "True") add("node.kubernetes.io/memory-pressure", "NoSchedule");
  if (status.get("DiskPressure") === "True") add("node.kubernetes.io/disk-pressure", "NoSchedule");
  if (status.get("PIDPressure") === "True") add("node.kubernetes.io/pid-pressure", "NoSchedule");
  if (status.get("NetworkUnavailable") === "True")
    add("node.kubernetes.io/network-unavailable", "NoSchedule");
  if (ready === "False") add(NOT_READY_TAINT, "NoExecute");
  if (ready === "Unknown") add(UNREACHABLE_TAINT, "NoExecute");
  return out;
}

/**
 * DefaultTolerationSeconds (plugin/pkg/admission/defaulttolerationseconds
 * admission.go Admit): the pod's tolerations plus not-ready and unreachable
 * NoExecute for 300 s, each unless a toleration of the pod already names that
 * key with effect NoExecute or any effect.
 */
export function withDefaultTolerations(tolerations: readonly Toleration[]): Toleration[] {
  const out = [...tolerations];
  const has = (key: string) =>
    tolerations.some((t) => t.key === key && (t.effect === "" || t.effect === "NoExecute"));
  for (const key of [NOT_READY_TAINT, UNREACHABLE_TAINT])
    if (!has(key))
      out.push({
        key,
        operator: "Exists",
        value: "",
        effect: "NoExecute",
        tolerationSeconds: DEFAULT_TOLERATION_SECONDS,
      });
  return out;
}

/**
 * What the taint-eviction controller does with a pod bound to a node with
 * NoExecute taints (tainteviction controller processPodOnNode,
 * getMinTolerationTime): undefined when the node has none; `evicted` names the
 * first NoExecute taint not tolerated (the pod goes at once); else `stays` is
 * the smallest tolerationSeconds among the tolerations that match (seconds
 * after the taint appeared; undefined: forever), with the taint it is for.
 */
export function noExecuteOutcome(
  taints: readonly Taint[],
  tolerations: readonly Toleration[],
): { evicted: Taint } | { stays: number | undefined; taint: Taint } | undefined {
  const noExecute = taints.filter((t) => t.effect === "NoExecute");
  if (noExecute.length === 0) return undefined;
  const untolerated = noExecute.find((taint) => !tolerations.some((t) => tolerates(t, taint)));
  if (untolerated) return { evicted: untolerated };
  let min: { stays: number | undefined; taint: Taint } | undefined;
  for (const taint of noExecute)
    for (const t of tolerations) {
      if (!tolerates(t, taint) || t.tolerationSeconds === undefined) continue;
      const secs = Math.max(0, t.tolerationSeconds);
      if (!min || min.stays === undefined || secs < min.stays) min = { stays: secs, taint };
    }
  return min ?? { stays: undefined, taint: noExecute[0]! };
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
