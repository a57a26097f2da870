/** NetworkPolicy objects -> NetworkPolicy, with the API's defaulting applied. */
import { refOf, type KObject } from "../parse/manifests.ts";
import { lineOf } from "../parse/yaml.ts";
import { arr, int, isObj, str, strList, type Json } from "../parse/values.ts";
import { parseLabelSelector } from "../model/labels.ts";
import { parseCidr, type Cidr } from "../model/ip.ts";
import type { Protocol } from "../model/types.ts";
import type { IPBlock, NetworkPolicy, PolicyPeer, PolicyPort, PolicyRule } from "./types.ts";

function parseProtocol(v: unknown): Protocol {
  const p = str(v);
  return p === "UDP" || p === "SCTP" ? p : "TCP";
}

function parseIPBlock(v: Json): IPBlock {
  const cidr = str(v.cidr) ?? "";
  const except = strList(v.except);
  const parsed = parseCidr(cidr).cidr;
  const exceptParsed = except.map((e) => parseCidr(e).cidr).filter((c): c is Cidr => c !== undefined);
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
    const port: PolicyPort = { index, line: lineOf(p) || lineOf(list, index), protocol: parseProtocol(p.protocol) };
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
    return { index, line: lineOf(r) || lineOf(list, index), peers: parsePeers(rule[peerKey]), ports: parsePorts(rule.ports) };
  });
}

export function parseNetworkPolicy(o: KObject): NetworkPolicy {
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
    source: { ...refOf(o), namespace },
    lines: {
      podSelector: lineOf(spec, "podSelector"),
      policyTypes: lineOf(spec, "policyTypes"),
      ingress: lineOf(spec, "ingress"),
      egress: lineOf(spec, "egress"),
    },
  };
}
