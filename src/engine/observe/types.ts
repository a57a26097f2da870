/**
 * Observed flows as ktl reads them, whatever wrote them (Hubble, Calico, a
 * CSV): one record each, both ends as described (names, labels, addresses),
 * not yet matched to the model. Plain, JSON-safe data.
 */
import type { Protocol } from "../model/protocol.ts";

export type FlowFormat = "hubble" | "calico" | "csv";

/** One end of an observed flow, as the record describes it. */
export interface FlowEnd {
  namespace?: string;
  /** A pod's name, or (aggregated) the prefix its pods share: Calico's `nginx-86c57db685-*`. */
  name?: string;
  /** `name` is a prefix of pod names (Calico's aggregated names), not one pod. */
  aggregated?: boolean;
  /** The pod's labels as the record gives them (Hubble's `k8s:` source prefix removed). */
  labels?: Record<string, string>;
  /** Hubble's `workloads` (kind and name of the pod's controllers), a CSV's `NS/KIND/NAME`. */
  workloads?: { kind?: string; name: string }[];
  /** A Service named by the record (a CSV's `service:NS/NAME`). */
  service?: string;
  ip?: string;
  /** Not a pod by the record's own word (Hubble's `reserved:world`, Calico's `net` or `pub`): why it matches none. */
  outside?: string;
  /** How the record wrote it, for the unmatched list. */
  text: string;
}

/** The policy a flow log names as deciding (Hubble's `*_denied_by` / `*_allowed_by`, Calico's `policies`). */
export interface ObservedPolicy {
  kind?: string;
  namespace?: string;
  name: string;
  /** Calico's tier. */
  tier?: string;
}

export interface ObservedFlow {
  file: string;
  /** 1-based line of the record. */
  line: number;
  format: FlowFormat;
  src: FlowEnd;
  dst: FlowEnd;
  port: number;
  protocol: Protocol;
  verdict: "forwarded" | "dropped";
  /** How many flows the record stands for (Calico's num_flows, a CSV's count; 1 for a Hubble event). */
  count: number;
  /**
   * Which end saw it: Calico's `reporter` (src: the pod that opened the
   * connection, dst: the one that received it), Hubble's `traffic_direction`
   * (EGRESS at the source, INGRESS at the destination). Undefined: unknown.
   */
  reporter?: "src" | "dst";
  /** Hubble's drop_reason_desc (POLICY_DENIED, ...). */
  dropReason?: string;
  /** The policy the record names as deciding, when it names one. */
  policy?: ObservedPolicy;
}

/** A record read but left out of the comparison, with why (a reply, an L7 record, ICMP). */
export interface SkippedFlow {
  file: string;
  line: number;
  reason: string;
}

/** A record that could not be read at all: `ktl observe` exits 2 naming each. */
export interface FlowError {
  file: string;
  line: number;
  message: string;
}

export interface FlowSet {
  flows: ObservedFlow[];
  skipped: SkippedFlow[];
  errors: FlowError[];
  /** Records per format, for the summary line. */
  formats: Partial<Record<FlowFormat, number>>;
}
