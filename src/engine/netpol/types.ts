/** NetworkPolicy (networking.k8s.io/v1) as the engine reads it. */
import type { SourceRef } from "../parse/manifests.ts";
import type { LabelSelector } from "../model/labels.ts";
import type { Cidr } from "../model/ip.ts";
import type { Protocol } from "../model/types.ts";

export interface IPBlock {
  cidr: string;
  except: string[];
  /** Undefined when `cidr` does not parse (the apiserver would reject it): the block then matches nothing. */
  parsed: Cidr | undefined;
  exceptParsed: Cidr[];
}

export interface PolicyPeer {
  index: number;
  line: number;
  /** Absent: the peer does not restrict pods by label (with a namespaceSelector: all pods there). */
  podSelector?: LabelSelector;
  /** Absent: the policy's own namespace. */
  namespaceSelector?: LabelSelector;
  ipBlock?: IPBlock;
}

export interface PolicyPort {
  index: number;
  line: number;
  /** Defaults to TCP (the apiserver's defaulting). */
  protocol: Protocol;
  /** Absent: every port of the protocol. A string is a named container port of the destination pod. */
  port?: number | string;
  endPort?: number;
}

export interface PolicyRule {
  /** 0-based index in spec.ingress or spec.egress. */
  index: number;
  line: number;
  /** null: `from`/`to` empty or absent, the rule matches every peer. */
  peers: PolicyPeer[] | null;
  /** null: `ports` empty or absent, the rule matches every port and protocol. */
  ports: PolicyPort[] | null;
}

export interface NetworkPolicy {
  namespace: string;
  name: string;
  key: string;
  podSelector: LabelSelector;
  /** Effective policyTypes after the API's defaulting. */
  ingressIsolation: boolean;
  egressIsolation: boolean;
  ingress: PolicyRule[];
  egress: PolicyRule[];
  source: SourceRef;
  /** Lines of spec.podSelector, spec.policyTypes, spec.ingress, spec.egress (0 when absent). */
  lines: { podSelector: number; policyTypes: number; ingress: number; egress: number };
}
