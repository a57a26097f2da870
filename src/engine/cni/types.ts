/** What the CNI dialects share: the peer of a connection as they see it, and a verdict for one direction. */
import type { SourceRef } from "../parse/manifests.ts";
import type { Pod, Protocol } from "../model/types.ts";
import type { HttpRequest } from "../http/request.ts";

export type Direction = "ingress" | "egress";

/** The other end of a connection: an address, the pod behind it, or the node whose address it is. */
export interface CniPeer {
  ip: string;
  /** A pod (not hostNetwork) that owns `ip`. */
  pod?: Pod | undefined;
  /** The node whose address `ip` is (host traffic, hostNetwork pods). */
  node?: string | undefined;
  /** The DNS name the sender looked up to find `ip` (a `host:` destination), for Cilium's toFQDNs. */
  name?: string | undefined;
}

/** One connection seen from one end: `self` is the pod whose policy is judged. */
export interface CniConnection {
  direction: Direction;
  self: Pod;
  peer: CniPeer;
  port: number;
  protocol: Protocol;
  /** The destination pod (for named ports): self for ingress, peer.pod for egress. */
  dst: Pod | undefined;
  http?: HttpRequest | undefined;
}

/** Who decided: the dialect, a NetworkPolicy inside it, or a cluster tier around it (cni/stack.ts). */
export type CniLayer =
  | "CiliumNetworkPolicy"
  | "CalicoNetworkPolicy"
  | "NetworkPolicy"
  | "AdminNetworkPolicy"
  | "BaselineAdminNetworkPolicy";

export interface CniRef {
  kind: string;
  namespace?: string;
  name: string;
  /** e.g. "ingress[0]", "ingressDeny[1]", "end of tier security", "default deny". */
  rule?: string;
  line: number;
  file: string;
}

export interface CniVerdict {
  direction: Direction;
  /** The connection (L3/L4) is allowed. */
  allowed: boolean;
  /** Some policy of the dialect (NetworkPolicy included) governs this end for the direction. */
  isolated: boolean;
  /** Who decided: the dialect's own policy, or a NetworkPolicy evaluated inside it. */
  layer: CniLayer;
  reason: string;
  /** The policy, rule and line that decided (absent when nothing governs this end). */
  ref?: CniRef;
  /** Every applying Calico tier passed (the profile allows, unless a Baseline tier decides first). */
  passed?: boolean;
  /** Each policy or tier visited, in order, in words: the walkthrough. */
  steps: string[];
  /**
   * L7: the connection is allowed only for some HTTP requests. `rules`
   * describes them ("GET /path1$"); `request` is the verdict for the
   * request asked about (absent without --http).
   */
  l7?: { rules: string[]; ref?: CniRef; request?: { allowed: boolean; status: 200 | 403; reason: string } };
}

export function refTo(source: SourceRef, line: number, rule?: string): CniRef {
  const r: CniRef = { kind: source.kind, name: source.name, line: line || source.line, file: source.file };
  if (source.namespace) r.namespace = source.namespace;
  if (rule) r.rule = rule;
  return r;
}
