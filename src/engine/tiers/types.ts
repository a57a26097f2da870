/**
 * The cluster-scoped policy tiers of kubernetes-sigs/network-policy-api, as
 * the engine reads them: ClusterNetworkPolicy (policy.networking.k8s.io/v1alpha2,
 * tiers Admin and Baseline) and the older AdminNetworkPolicy /
 * BaselineAdminNetworkPolicy (v1alpha1), mapped onto the same shape.
 */
import type { SourceRef } from "../parse/manifests.ts";
import type { LabelSelector } from "../model/labels.ts";
import type { Cidr } from "../model/ip.ts";
import type { Protocol } from "../model/protocol.ts";

export type Tier = "Admin" | "Baseline";
/** v1alpha1's Allow is read as Accept. */
export type TierAction = "Accept" | "Deny" | "Pass";
export type ClusterPolicyKind = "ClusterNetworkPolicy" | "AdminNetworkPolicy" | "BaselineAdminNetworkPolicy";

/** namespaceSelector AND podSelector (the API's NamespacedPod). */
export interface NamespacedPods {
  namespaceSelector: LabelSelector;
  podSelector: LabelSelector;
}

export interface TierNetwork {
  cidr: string;
  /** Undefined when the CIDR does not parse (validation reports it): it then matches nothing. */
  parsed: Cidr | undefined;
}

/** A peer: exactly one of its fields is set in valid input. */
export interface TierPeer {
  index: number;
  line: number;
  namespaces?: LabelSelector;
  pods?: NamespacedPods;
  /** Egress only: node IPs of the matching nodes (status.addresses). */
  nodes?: LabelSelector;
  /** Egress only. */
  networks?: TierNetwork[];
  /** Egress only; a DNS name is not an address the engine can match: never matches (named in the verdict). */
  domainNames?: string[];
  /** No known field set: an unknown peer type, which the API says to fail closed on. */
  unknown?: boolean;
}

/** A port match: a number or range of one protocol, or a named container port of the destination. */
export interface TierPort {
  index: number;
  line: number;
  /** Absent for a named port: the container port's protocol decides. */
  protocol?: Protocol;
  /** First port (absent: every port of the protocol). */
  port?: number;
  /** Last port of a range (inclusive). */
  endPort?: number;
  /** A named container port of the destination pod. */
  name?: string;
}

export interface TierRule {
  /** 0-based index in spec.ingress or spec.egress. */
  index: number;
  line: number;
  /** The rule's `name` ("" when unnamed). */
  name: string;
  action: TierAction;
  peers: TierPeer[];
  /** null: no protocols/ports, every port of every protocol. */
  ports: TierPort[] | null;
}

export interface ClusterPolicy {
  kind: ClusterPolicyKind;
  apiVersion: string;
  name: string;
  /** `Kind/name`, unique in a model. */
  key: string;
  tier: Tier;
  /** 0..1000, lower first; a BaselineAdminNetworkPolicy has none (0). */
  priority: number;
  /** Exactly one is set in valid input; neither: the policy selects no pod. */
  subject: { namespaces?: LabelSelector; pods?: NamespacedPods };
  ingress: TierRule[];
  egress: TierRule[];
  source: SourceRef;
  /** Position in the input, the tie-break between policies of one tier and priority. */
  order: number;
  lines: { tier: number; priority: number; subject: number; ingress: number; egress: number };
}
