/** One backend of a traced connection, as kube-proxy's choice gives it to the policy checks (policy.ts). */
import type { SourceRef } from "../parse/manifests.ts";
import type { Pod, PodKey } from "../model/types.ts";

export interface Backend {
  ip: string;
  port: number;
  pod?: Pod;
  podKey?: PodKey;
  node?: string;
  zone?: string;
  probability: number;
  /** The source address the backend sees. */
  sourceIP: string;
  /** That address is the client's own. */
  preserved: boolean;
  /** Why it is not (masquerade, hairpin). */
  snatNote?: string;
  /** What egress policy at the source sees when the DNAT happens on another node (rule 1a). */
  egressTo?: { ip: string; port: number; pod?: Pod; note: string };
  ready?: boolean;
  serving?: boolean;
  terminating?: boolean;
  local?: boolean;
  ref?: SourceRef;
}
