/**
 * The cluster tiers' CRDs as the apiserver validates them (OpenAPI schema and
 * CEL rules of network-policy-api's CRDs, errors worded as
 * apiextensions-apiserver's validation.ConvertErrors words kube-openapi's):
 * - ClusterNetworkPolicy v1alpha2: config/crd/standard (+ experimental for
 *   `nodes`, `domainNames` and the named-port CEL rule) at 0eec1b0e;
 * - AdminNetworkPolicy / BaselineAdminNetworkPolicy v1alpha1: config/crd/standard
 *   at 40eeb180 (v0.1.7).
 * And lint KTL611: two policies of one tier at one priority that can match the
 * same connection (the CRD's priority doc: the winner is then undefined).
 */
import type { KObject } from "../parse/manifests.ts";
import { isObj, type Json } from "../parse/values.ts";
import type { Model } from "../model/types.ts";
import type { ClusterPolicy } from "../tiers/types.ts";
import { subjectSelects } from "../tiers/layer.ts";
import { parseCidr } from "../model/ip.ts";
import {
  invalid,
  notSupported,
  required,
  tooLong,
  tooMany,
  type FieldError,
  type PathSegment,
} from "./errors.ts";
import { warning, type Warning } from "./findings.ts";
import { LABEL_SELECTOR, OBJECT_META, decode, type Schema } from "./decode.ts";

const CNP_CRD = "network-policy-api config/crd/standard/policy.networking.k8s.io_clusternetworkpolicies.yaml";
const ANP_CRD =
  "network-policy-api v0.1.7 config/crd/standard/policy.networking.k8s.io_adminnetworkpolicies.yaml";
const BANP_CRD =
  "network-policy-api v0.1.7 config/crd/standard/policy.networking.k8s.io_baselineadminnetworkpolicies.yaml";

interface Spec {
  crd: string;
  actions: readonly string[];
  /** maxItems of ingress/egress, of a rule's peers, of its ports/protocols. */
  maxRules: number;
  maxPeers: number;
  maxPorts: number;
  priority: boolean;
  tier: boolean;
  /** v1alpha2 `protocols` (tcp/udp/sctp + destinationNamedPort) or v1alpha1 `ports` (portNumber/namedPort/portRange). */
  portsKey: "protocols" | "ports";
  /** NamespacedPod requires namespaceSelector too in v1alpha1. */
  podsNeedNamespaceSelector: boolean;
}

const SPECS: Record<string, Spec> = {
  ClusterNetworkPolicy: {
    crd: CNP_CRD,
    actions: ["Accept", "Deny", "Pass"],
    maxRules: 25,
    maxPeers: 25,
    maxPorts: 25,
    priority: true,
    tier: true,
    portsKey: "protocols",
    podsNeedNamespaceSelector: false,
  },
  AdminNetworkPolicy: {
    crd: ANP_CRD,
    actions: ["Allow", "Deny", "Pass"],
    maxRules: 100,
    maxPeers: 100,
    maxPorts: 100,
    priority: true,
    tier: false,
    portsKey: "ports",
    podsNeedNamespaceSelector: true,
  },
  BaselineAdminNetworkPolicy: {
    crd: BANP_CRD,
    actions: ["Allow", "Deny"],
    maxRules: 100,
    maxPeers: 100,
    maxPorts: 100,
    priority: false,
    tier: false,
    portsKey: "ports",
    podsNeedNamespaceSelector: true,
  },
};

export const TIER_KINDS: ReadonlySet<string> = new Set(Object.keys(SPECS));

const dotted = (path: PathSegment[]) =>
  path.map((s, i) => (typeof s === "number" ? `[${s}]` : `${i ? "." : ""}${String(s)}`)).join("");

/** kube-openapi's Minimum/Maximum: `spec.priority in body should be less than or equal to 1000`. */
function range(path: PathSegment[], v: unknown, min: number, max: number, crd: string): FieldError[] {
  if (typeof v !== "number" || !Number.isInteger(v))
    return [invalid(path, v, `${dotted(path)} in body must be of type integer: "${typeof v}"`, crd)];
  if (v < min)
    return [invalid(path, v, `${dotted(path)} in body should be greater than or equal to ${min}`, crd)];
  if (v > max)
    return [invalid(path, v, `${dotted(path)} in body should be less than or equal to ${max}`, crd)];
  return [];
}

/** minItems/maxItems of a list (Invalid "should have at least N items", Too many). */
function items(path: PathSegment[], v: unknown, min: number, max: number, crd: string): FieldError[] {
  if (!Array.isArray(v)) return [];
  if (v.length < min)
    return [invalid(path, v.length, `${dotted(path)} in body should have at least ${min} items`, crd)];
  if (v.length > max) return [tooMany(path, v.length, max, crd)];
  return [];
}

/** minProperties/maxProperties 1: exactly one field. */
function exactlyOne(path: PathSegment[], v: Json, crd: string): FieldError[] {
  const n = Object.keys(v).length;
  if (n === 0) return [invalid(path, 0, `${dotted(path)} in body should have at least 1 properties`, crd)];
  if (n > 1) return [tooMany(path, n, 1, crd)];
  return [];
}

/**
 * The fields of `v` the CRD declares. The apiserver prunes the others before
 * validating (and kubectl's Strict field validation rejects them: KTL510), so
 * `destinationPort: {name: metrics}` is an empty port, not a port of one field.
 */
function declared(v: Json, fields: readonly string[]): Json {
  return Object.fromEntries(Object.entries(v).filter(([k]) => fields.includes(k)));
}

/** The fields of one port entry, per API version, and of a v1alpha2 destinationPort. */
const PORT_FIELDS = {
  protocols: ["tcp", "udp", "sctp", "destinationNamedPort"],
  ports: ["portNumber", "namedPort", "portRange"],
} as const;
const DESTINATION_PORT_FIELDS = ["number", "range"];

function port(path: PathSegment[], v: unknown, crd: string): FieldError[] {
  return range(path, v, 1, 65535, crd);
}

function ports(path: PathSegment[], list: unknown, s: Spec, peers: Json[]): FieldError[] {
  const errs = items(path, list, 1, s.maxPorts, s.crd);
  if (!Array.isArray(list)) return errs;
  list.forEach((p, i) => {
    const at = [...path, i];
    if (!isObj(p)) return;
    errs.push(...exactlyOne(at, declared(p, PORT_FIELDS[s.portsKey]), s.crd));
    if (s.portsKey === "protocols") {
      for (const proto of ["tcp", "udp", "sctp"]) {
        const x = p[proto];
        if (!isObj(x)) continue;
        const dp = x.destinationPort;
        if (!isObj(dp)) {
          errs.push(
            invalid(
              [...at, proto],
              0,
              `${dotted([...at, proto])} in body should have at least 1 properties`,
              s.crd,
            ),
          );
          continue;
        }
        const dpPath = [...at, proto, "destinationPort"];
        errs.push(...exactlyOne(dpPath, declared(dp, DESTINATION_PORT_FIELDS), s.crd));
        if (dp.number !== undefined) errs.push(...port([...dpPath, "number"], dp.number, s.crd));
        if (isObj(dp.range)) errs.push(...portRange([...dpPath, "range"], dp.range, s.crd));
      }
      if (p.destinationNamedPort !== undefined && peers.some((x) => x.networks || x.nodes || x.domainNames))
        errs.push(
          invalid(
            path.slice(0, -1),
            "object",
            "networks/nodes/domainNames peer cannot be set with namedPorts since there are no namedPorts for networks/nodes/domainNames",
            `${s.crd} (experimental channel CEL rule)`,
          ),
        );
    } else {
      if (isObj(p.portNumber)) {
        const pn = p.portNumber;
        const pp = [...at, "portNumber"];
        if (pn.port === undefined) errs.push(required([...pp, "port"], "", s.crd));
        else errs.push(...port([...pp, "port"], pn.port, s.crd));
        errs.push(...protocol([...pp, "protocol"], pn.protocol, s.crd));
      }
      if (isObj(p.portRange)) {
        const pr = p.portRange;
        const pp = [...at, "portRange"];
        errs.push(...portRange(pp, pr, s.crd, false));
        errs.push(...protocol([...pp, "protocol"], pr.protocol, s.crd));
      }
    }
  });
  return errs;
}

function protocol(path: PathSegment[], v: unknown, crd: string): FieldError[] {
  if (v === undefined || v === "TCP" || v === "UDP" || v === "SCTP") return [];
  return [notSupported(path, v, ["TCP", "UDP", "SCTP"], crd)];
}

/** start/end required; v1alpha2's CEL `self.start < self.end`. */
function portRange(path: PathSegment[], r: Json, crd: string, cel = true): FieldError[] {
  const errs: FieldError[] = [];
  if (r.start === undefined) errs.push(required([...path, "start"], "", crd));
  else errs.push(...port([...path, "start"], r.start, crd));
  if (r.end === undefined) errs.push(required([...path, "end"], "", crd));
  else errs.push(...port([...path, "end"], r.end, crd));
  if (
    cel &&
    errs.length === 0 &&
    typeof r.start === "number" &&
    typeof r.end === "number" &&
    !(r.start < r.end)
  )
    errs.push(invalid(path, "object", "Start port must be less than End port", crd));
  return errs;
}

function namespacedPods(path: PathSegment[], v: Json, s: Spec): FieldError[] {
  const errs: FieldError[] = [];
  if (s.podsNeedNamespaceSelector && v.namespaceSelector === undefined)
    errs.push(required([...path, "namespaceSelector"], "", s.crd));
  if (v.podSelector === undefined) errs.push(required([...path, "podSelector"], "", s.crd));
  return errs;
}

/** The peer fields each direction knows (others are pruned as unknown, so they count for nothing). */
const PEER_FIELDS = {
  ingress: ["namespaces", "pods"],
  egress: ["namespaces", "pods", "networks", "nodes", "domainNames"],
};

function peer(path: PathSegment[], v: unknown, s: Spec, egress: boolean): FieldError[] {
  if (!isObj(v)) return [];
  const known = PEER_FIELDS[egress ? "egress" : "ingress"];
  const errs = exactlyOne(path, declared(v, known), s.crd);
  if (isObj(v.pods)) errs.push(...namespacedPods([...path, "pods"], v.pods, s));
  if (egress && Array.isArray(v.networks)) {
    const np = [...path, "networks"];
    errs.push(...items(np, v.networks, 1, 25, s.crd));
    v.networks.forEach((c, i) => {
      if (typeof c !== "string") return;
      if (c.length > 43) errs.push(tooLong([...np, i], 43, s.crd));
      else if (!parseCidr(c).cidr)
        errs.push(invalid([...np, i], "string", "Invalid CIDR format provided", s.crd));
    });
  }
  return errs;
}

function rules(path: PathSegment[], list: unknown, s: Spec, egress: boolean): FieldError[] {
  const errs = items(path, list, 0, s.maxRules, s.crd);
  if (!Array.isArray(list)) return errs;
  const peersKey = egress ? "to" : "from";
  list.forEach((r, i) => {
    const at = [...path, i];
    if (!isObj(r)) return;
    if (r.action === undefined) errs.push(required([...at, "action"], "", s.crd));
    else if (typeof r.action !== "string" || !s.actions.includes(r.action))
      errs.push(notSupported([...at, "action"], r.action, s.actions, s.crd));
    if (typeof r.name === "string" && r.name.length > 100) errs.push(tooLong([...at, "name"], 100, s.crd));
    const peers = r[peersKey];
    if (peers === undefined) errs.push(required([...at, peersKey], "", s.crd));
    else {
      errs.push(...items([...at, peersKey], peers, 1, s.maxPeers, s.crd));
      if (Array.isArray(peers))
        peers.forEach((p, j) => errs.push(...peer([...at, peersKey, j], p, s, egress)));
    }
    const pk = s.portsKey;
    if (r[pk] !== undefined)
      errs.push(...ports([...at, pk], r[pk], s, Array.isArray(peers) ? peers.filter(isObj) : []));
  });
  return errs;
}

/** Every CRD error of one ClusterNetworkPolicy, AdminNetworkPolicy or BaselineAdminNetworkPolicy. */
export function validateClusterPolicy(o: KObject): FieldError[] {
  const s = SPECS[o.kind];
  if (!s) return [];
  const errs: FieldError[] = [];
  if (o.kind === "BaselineAdminNetworkPolicy" && o.name !== "default")
    errs.push({
      // A rule on the root schema: the apiserver's path is nil, printed "<nil>".
      ...invalid(
        ["<nil>"],
        "object",
        'Only one baseline admin network policy with metadata.name="default" can be created in the cluster',
        `${s.crd} (CEL rule self.metadata.name == 'default')`,
      ),
      at: ["metadata", "name"],
    });
  const spec = o.raw.spec;
  if (!isObj(spec)) return [...errs, required(["spec"], "", s.crd)];
  const p: PathSegment[] = ["spec"];
  if (s.tier) {
    if (spec.tier === undefined) errs.push(required([...p, "tier"], "", s.crd));
    else if (spec.tier !== "Admin" && spec.tier !== "Baseline")
      errs.push(notSupported([...p, "tier"], spec.tier, ["Admin", "Baseline"], s.crd));
  }
  if (s.priority) {
    if (spec.priority === undefined) errs.push(required([...p, "priority"], "", s.crd));
    else errs.push(...range([...p, "priority"], spec.priority, 0, 1000, s.crd));
  }
  if (spec.subject === undefined) errs.push(required([...p, "subject"], "", s.crd));
  else if (isObj(spec.subject)) {
    errs.push(...exactlyOne([...p, "subject"], declared(spec.subject, ["namespaces", "pods"]), s.crd));
    if (isObj(spec.subject.pods))
      errs.push(...namespacedPods([...p, "subject", "pods"], spec.subject.pods, s));
  }
  errs.push(...rules([...p, "ingress"], spec.ingress, s, false));
  errs.push(...rules([...p, "egress"], spec.egress, s, true));
  return errs;
}

/**
 * KTL611: two policies of one tier at one priority that can both match a
 * connection: one pod that both select for a direction where both have
 * rules. Upstream leaves the winner undefined (ClusterNetworkPolicySpec.priority).
 */
export function lintTierPriorities(model: Model, objects: ReadonlyMap<ClusterPolicy, KObject>): Warning[] {
  const out: Warning[] = [];
  const groups = new Map<string, ClusterPolicy[]>();
  for (const p of model.clusterPolicies) {
    if (p.kind === "BaselineAdminNetworkPolicy") continue;
    const k = `${p.tier}/${p.priority}`;
    (groups.get(k) ?? groups.set(k, []).get(k)!).push(p);
  }
  for (const list of groups.values()) {
    for (let i = 0; i < list.length; i++) {
      for (let j = 0; j < i; j++) {
        const a = list[j]!;
        const b = list[i]!;
        const both = model.pods.find(
          (pod) =>
            (["ingress", "egress"] as const).some((d) => a[d].length > 0 && b[d].length > 0) &&
            subjectSelects(model, a, pod) &&
            subjectSelects(model, b, pod),
        );
        const o = objects.get(b);
        if (!both || !o) continue;
        out.push(
          warning(
            o,
            ["spec", "priority"],
            "KTL611",
            `${b.kind} ${b.name} and ${a.kind} ${a.name} are both in the ${b.tier} tier at priority ${b.priority} and both select pod ${both.key}: which one applies first is undefined (network-policy-api leaves it to the implementation); ktl evaluates them in input order`,
            `Give one of them another priority (lower is checked first).`,
            "network-policy-api ClusterNetworkPolicySpec.priority",
          ),
        );
      }
    }
  }
  return out;
}

const NAMESPACED_POD: Schema = {
  struct: "NamespacedPod",
  fields: { namespaceSelector: LABEL_SELECTOR, podSelector: LABEL_SELECTOR },
};
const SUBJECT: Schema = { struct: "Subject", fields: { namespaces: LABEL_SELECTOR, pods: NAMESPACED_POD } };
const strings: Schema = { list: "any" };
const peerOf = (egress: boolean): Schema => ({
  struct: egress ? "EgressPeer" : "IngressPeer",
  fields: egress
    ? {
        namespaces: LABEL_SELECTOR,
        pods: NAMESPACED_POD,
        nodes: LABEL_SELECTOR,
        networks: strings,
        domainNames: strings,
      }
    : { namespaces: LABEL_SELECTOR, pods: NAMESPACED_POD },
});
const RANGE: Schema = { struct: "PortRange", fields: { start: "any", end: "any" } };
const PROTOCOL_PORT: Schema = {
  struct: "ProtocolPort",
  fields: { destinationPort: { struct: "Port", fields: { number: "any", range: RANGE } } },
};
const PORTS: Record<Spec["portsKey"], Schema> = {
  protocols: {
    list: {
      struct: "ProtocolPort",
      fields: { tcp: PROTOCOL_PORT, udp: PROTOCOL_PORT, sctp: PROTOCOL_PORT, destinationNamedPort: "any" },
    },
  },
  ports: {
    list: {
      struct: "AdminNetworkPolicyPort",
      fields: {
        portNumber: { struct: "Port", fields: { protocol: "any", port: "any" } },
        namedPort: "any",
        portRange: { struct: "PortRange", fields: { protocol: "any", start: "any", end: "any" } },
      },
    },
  },
};
const rulesOf = (s: Spec, egress: boolean): Schema => ({
  list: {
    struct: egress ? "EgressRule" : "IngressRule",
    fields: {
      name: "any",
      action: "any",
      [egress ? "to" : "from"]: { list: peerOf(egress) },
      [s.portsKey]: PORTS[s.portsKey],
    },
  },
});

/**
 * The fields of a tier policy its CRD does not declare (the CRD's structural
 * schema, from the CRD files named in SPECS): kubectl's Strict field
 * validation rejects the object ("strict decoding error: unknown field"),
 * other clients have them pruned. Types are the CRD validation's to word
 * (validateClusterPolicy), so only unknown fields come from here.
 */
export function unknownTierFields(o: KObject): PathSegment[][] {
  const s = SPECS[o.kind];
  if (!s) return [];
  const spec: Record<string, Schema> = {
    subject: SUBJECT,
    ingress: rulesOf(s, false),
    egress: rulesOf(s, true),
  };
  if (s.tier) spec.tier = "any";
  if (s.priority) spec.priority = "any";
  const schema: Schema = {
    struct: o.kind,
    fields: {
      apiVersion: "any",
      kind: "any",
      metadata: OBJECT_META,
      spec: { struct: `${o.kind}Spec`, fields: spec },
      status: "any",
    },
  };
  return decode(o.raw, schema).unknown;
}

/**
 * v1alpha1 portRange with its start above its end (network-policy-api
 * v0.1.x apis/v1alpha1/shared_types.go PortRange: "the Start value must be
 * less than End", a doc the CRD does not enforce, where v1alpha2's CEL rule
 * does): the apiserver stores it and the range holds no port. KTL452.
 */
export function tierPortWarnings(o: KObject): Warning[] {
  if (o.kind !== "AdminNetworkPolicy" && o.kind !== "BaselineAdminNetworkPolicy") return [];
  const out: Warning[] = [];
  const spec = isObj(o.raw.spec) ? o.raw.spec : {};
  for (const dir of ["ingress", "egress"] as const) {
    const rules = Array.isArray(spec[dir]) ? (spec[dir] as unknown[]) : [];
    rules.forEach((rule, i) => {
      const ports = isObj(rule) && Array.isArray(rule.ports) ? rule.ports : [];
      ports.forEach((p: unknown, j: number) => {
        const r = isObj(p) && isObj(p.portRange) ? p.portRange : undefined;
        if (!r || typeof r.start !== "number" || typeof r.end !== "number" || r.start <= r.end) return;
        out.push(
          warning(
            o,
            ["spec", dir, i, "ports", j, "portRange"],
            "KTL452",
            `start ${r.start} is above end ${r.end}: the apiserver stores it (v1alpha1's CRD leaves the order to its doc) and the range holds no port`,
            `Swap them: {start: ${r.end}, end: ${r.start}}.`,
            "network-policy-api apis/v1alpha1 PortRange (Start must be less than End)",
          ),
        );
      });
    });
  }
  return out;
}
