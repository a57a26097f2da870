/**
 * NetworkPolicy (networking.k8s.io/v1) as the engine reads it, and the
 * parser from objects, with the API's defaulting applied. The model owns
 * the objects; netpol/ decides on them.
 */
import type { KObject, SourceRef } from "../parse/manifests.ts";
import { lineOf } from "../parse/positions.ts";
import { groupOf } from "../parse/kinds.ts";
import { arr, int, isObj, str, strList, type Json } from "../parse/values.ts";
import { parseLabelSelector, type LabelSelector } from "./labels.ts";
import { parseLegacyCidr, type Cidr } from "./ip.ts";
import type { Protocol } from "./protocol.ts";

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

function parseProtocol(v: unknown): Protocol {
  const p = str(v);
  return p === "UDP" || p === "SCTP" ? p : "TCP";
}

function parseIPBlock(v: Json): IPBlock {
  const cidr = str(v.cidr) ?? "";
  const except = strList(v.except);
  // As the apiserver stored them (a legacy field: leading zeros read as decimal, with a warning).
  const parsed = parseLegacyCidr(cidr);
  const exceptParsed = except.map((e) => parseLegacyCidr(e)).filter((c): c is Cidr => c !== undefined);
  return { cidr, except, parsed, exceptParsed };
}

function parsePeers(list: unknown): PolicyPeer[] | null {
  const items = arr(list);
  if (items.length === 0) return null;
  return items.filter(isObj).map((p, index) => {
    const peer: PolicyPeer = { index, line: lineOf(p) || lineOf(list, index) };
    // `podSelector: null` is an absent field in the API (a nil pointer), not an empty selector.
    if (isObj(p.podSelector)) peer.podSelector = parseLabelSelector(p.podSelector);
    if (isObj(p.namespaceSelector)) peer.namespaceSelector = parseLabelSelector(p.namespaceSelector);
    if (isObj(p.ipBlock)) peer.ipBlock = parseIPBlock(p.ipBlock);
    return peer;
  });
}

function parsePorts(list: unknown): PolicyPort[] | null {
  const items = arr(list);
  if (items.length === 0) return null;
  return items.filter(isObj).map((p, index) => {
    const port: PolicyPort = {
      index,
      line: lineOf(p) || lineOf(list, index),
      protocol: parseProtocol(p.protocol),
    };
    const n = int(p.port);
    const s = str(p.port);
    // IntOrString: a quoted "80" is a string, so a port name (the apiserver rejects it as one); it matches no container port.
    if (n !== undefined) port.port = n;
    else if (s !== undefined) port.port = s;
    const end = int(p.endPort);
    if (end !== undefined) port.endPort = end;
    return port;
  });
}

function parseRules(list: unknown, peerKey: "from" | "to"): PolicyRule[] {
  return arr(list).map((r, index) => {
    const rule = isObj(r) ? r : {};
    return {
      index,
      line: lineOf(r) || lineOf(list, index),
      peers: parsePeers(rule[peerKey]),
      ports: parsePorts(rule.ports),
    };
  });
}

/**
 * Kubernetes' NetworkPolicy (networking.k8s.io, or extensions of old), not
 * Calico's projectcalico.org type of the same kind (cni/calico reads those).
 * An item of a typed list without apiVersion is taken at its kind.
 */
export function isKubernetesNetworkPolicy(o: { apiVersion: string; kind: string }): boolean {
  return (
    o.kind === "NetworkPolicy" && ["", "networking.k8s.io", "extensions"].includes(groupOf(o.apiVersion))
  );
}

/**
 * Policies read from unchanged docs, by their parsed value (which the parse cache keeps from one text to the
 * next); a policy is taken again when its doc stands where it stood (its `source`: the same file, doc, line,
 * kind and namespace, each compared, no key built): an edit reads again only the policies it changed or moved.
 */
const read = new WeakMap<object, NetworkPolicy>();

export function parseNetworkPolicy(o: KObject): NetworkPolicy {
  const hit = read.get(o.raw);
  if (
    hit &&
    hit.source.file === o.file &&
    hit.source.doc === o.doc &&
    hit.source.line === o.line &&
    hit.source.kind === o.kind &&
    hit.source.namespace === (o.namespace ?? "default")
  )
    return hit;
  const policy = readNetworkPolicy(o);
  read.set(o.raw, policy);
  return policy;
}

function readNetworkPolicy(o: KObject): NetworkPolicy {
  const spec = isObj(o.raw.spec) ? o.raw.spec : {};
  const namespace = o.namespace ?? "default";
  const types = strList(spec.policyTypes);
  // Defaulting (networking/v1 SetDefaults_NetworkPolicy): without policyTypes, Ingress always,
  // and Egress when the policy has egress rules.
  const hasTypes = types.length > 0;
  const egressRules = arr(spec.egress);
  return {
    namespace,
    name: o.name,
    key: `${namespace}/${o.name}`,
    podSelector: parseLabelSelector(spec.podSelector ?? {}),
    ingressIsolation: hasTypes ? types.includes("Ingress") : true,
    egressIsolation: hasTypes ? types.includes("Egress") : egressRules.length > 0,
    ingress: parseRules(spec.ingress, "from"),
    egress: parseRules(spec.egress, "to"),
    source: { kind: o.kind, name: o.name, file: o.file, doc: o.doc, line: o.line, namespace },
    lines: {
      podSelector: lineOf(spec, "podSelector"),
      policyTypes: lineOf(spec, "policyTypes"),
      ingress: lineOf(spec, "ingress"),
      egress: lineOf(spec, "egress"),
    },
  };
}
