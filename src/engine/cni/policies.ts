/**
 * The CNI dialects' policies as the model holds them (Model.cni). Types over
 * the parsed objects, and whether an input holds any: the model and the
 * NetworkPolicy classes name them without importing the evaluators, so
 * model/types.ts, netpol/ and cni/ do not import each other.
 */
import type { NetworkPolicy } from "../model/networkpolicy.ts";
import type { CalicoPolicy, CalicoTier } from "./calico/policy.ts";
import type { CiliumRule } from "./cilium/policy.ts";

/** A policy of a Calico tier: Calico's own, or a Kubernetes NetworkPolicy (Calico puts it in the default tier at order 1000). */
export type CalicoMember =
  | { calico: CalicoPolicy; sortName: string; order: number | undefined }
  | { k8s: NetworkPolicy; sortName: string; order: number };

/** Calico's tiers in evaluation order, each with its policies in order (calico/evaluate.ts buildCalicoIndex). */
export interface CalicoIndex {
  tiers: { tier: CalicoTier; members: CalicoMember[] }[];
  policies: CalicoPolicy[];
}

export interface CniPolicies {
  calico: { policies: CalicoPolicy[]; tiers: CalicoTier[]; index: CalicoIndex } | undefined;
  cilium: { rules: CiliumRule[]; objects: number } | undefined;
}

/** Whether the input holds a CNI dialect's policies (Calico's or Cilium's): then that dialect enforces. */
export function hasCniPolicies(c: CniPolicies | undefined): c is CniPolicies {
  return !!c && (!!c.calico || !!c.cilium);
}
