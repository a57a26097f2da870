/**
 * Near misses: for a connection that NetworkPolicy drops, the rules of the
 * isolating policies that fail by exactly one condition (one label of a
 * namespaceSelector or podSelector, the policy's own namespace, or the port),
 * each with what the rule asks, what the other end has, where both are
 * written, and the one-label edit that would make the rule match.
 *
 * The matching itself is peerMatches/portMatches (NetworkPolicyPeer: the
 * namespaceSelector AND the podSelector; without a namespaceSelector, the
 * policy's own namespace), so a near miss is a rule that would allow the
 * connection once its one failing requirement holds.
 */
import { lineOfPath } from "../parse/positions.ts";
import type { Model, Pod, Protocol } from "../model/types.ts";
import { failedRequirements, matchesSelector, type LabelSelector } from "../model/labels.ts";
import { peerMatches, portMatches, type Direction, type PeerEndpoint } from "./explain.ts";
import type { NetworkPolicy, PolicyPeer, PolicyPort } from "../model/networkpolicy.ts";

/** Where something is written (the trace's TraceRef shape). */
export interface NearMissRef {
  kind: string;
  namespace?: string;
  name: string;
  file: string;
  line: number;
  field?: string;
}

export interface NearMiss {
  /** The policy ("namespace/name") and its rule (0-based) in `direction`. */
  policy: string;
  direction: Direction;
  rule: number;
  /** The one condition that fails. */
  condition: "namespaceSelector" | "podSelector" | "namespace" | "port";
  /** The peer (0-based) whose condition fails, for selector conditions. */
  peer?: number;
  /** "rule 1 of payments/allow-checkout-and-web matches if namespace web has `team=web`; it has `team=storefront`" */
  text: string;
  /** The rule's failing condition in the policy. */
  ruleRef: NearMissRef;
  /** The object whose labels or port the rule does not match, where they are written. */
  objectRef?: NearMissRef;
  /** The smallest edit that makes the rule match: one label on a Namespace or Pod object of the input (a what-if action, whatif/). */
  edit?: LabelEdit;
}

/** Where an edit changes the text: the file, its YAML document (0-based) and line (1-based). */
export interface EditAt {
  file: string;
  doc: number;
  line: number;
}

/** Set one label of a Namespace or Pod object (`metadata.labels[key]: value`): a what-if action. */
export interface LabelEdit {
  kind: "label";
  target: { kind: "Namespace" | "Pod"; namespace?: string; name: string };
  key: string;
  value: string;
  at: EditAt;
}

/** Where `metadata.labels[key]` of an object is (or would be) written. */
function labelAt(
  model: Model,
  kind: string,
  namespace: string | undefined,
  name: string,
  key: string,
): EditAt | undefined {
  const o = objectOf(model, kind, namespace, name);
  if (!o) return undefined;
  const line =
    lineOfPath(o.raw, ["metadata", "labels", key]) ||
    lineOfPath(o.raw, ["metadata", "labels"]) ||
    lineOfPath(o.raw, ["metadata"]) ||
    o.line;
  return { file: o.file, doc: o.doc, line };
}

const MAX = 3;

function objectOf(model: Model, kind: string, namespace: string | undefined, name: string) {
  return model.objects.find(
    (o) =>
      o.kind === kind &&
      o.name === name &&
      (namespace === undefined || (o.namespace ?? "default") === namespace),
  );
}

function ref(
  model: Model,
  kind: string,
  namespace: string | undefined,
  name: string,
  path: (string | number)[],
  field: string,
): NearMissRef | undefined {
  const o = objectOf(model, kind, namespace, name);
  if (!o) return undefined;
  const r: NearMissRef = { kind, name, file: o.file, line: lineOfPath(o.raw, path) || o.line, field };
  if (namespace !== undefined) r.namespace = namespace;
  return r;
}

/** The one matchLabels key a selector fails on, for a label edit (expressions get no edit). */
function labelEdit(
  sel: LabelSelector,
  labels: Record<string, string>,
): { key: string; value: string } | undefined {
  const bad = Object.entries(sel.matchLabels).filter(([k, v]) => labels[k] !== v);
  if (bad.length !== 1 || sel.matchExpressions.length) return undefined;
  return { key: bad[0]![0], value: bad[0]![1] };
}

function portWords(ports: PolicyPort[]): string {
  return ports
    .map((p) => `${p.protocol}/${p.port ?? "any"}${p.endPort !== undefined ? `-${p.endPort}` : ""}`)
    .join(", ");
}

/**
 * The rules of `policies` (those isolating the pod `isolated` for `direction`) that miss the
 * connection to or from `other` on (port, protocol) by one condition.
 */
export function nearMisses(
  model: Model,
  direction: Direction,
  isolated: Pod,
  other: PeerEndpoint,
  port: number,
  protocol: Protocol,
  policies: readonly NetworkPolicy[],
): NearMiss[] {
  const out: NearMiss[] = [];
  const likely = new Map<NearMiss, number>();
  const dst = direction === "ingress" ? isolated : other.pod;
  const otherPod = other.pod && !other.pod.hostNetwork ? other.pod : undefined;
  for (const policy of policies) {
    const rules = direction === "ingress" ? policy.ingress : policy.egress;
    const list = direction === "ingress" ? "from" : "to";
    for (const rule of rules) {
      const name = `rule ${rule.index + 1} of ${policy.key}`;
      const peerOK =
        rule.peers === null || rule.peers.some((peer) => peerMatches(model, policy, peer, other));
      const portOK = rule.ports === null || rule.ports.some((p) => portMatches(p, port, protocol, dst));
      if (peerOK && portOK) continue;
      const base = { policy: policy.key, direction, rule: rule.index };
      const policyRef = (path: (string | number)[], field: string) =>
        ref(model, "NetworkPolicy", policy.namespace, policy.name, path, field);
      if (peerOK && rule.ports) {
        const r = policyRef(
          ["spec", direction, rule.index, "ports"],
          `spec.${direction}[${rule.index}].ports`,
        );
        if (!r) continue;
        out.push({
          ...base,
          condition: "port",
          text: `${name} matches ${direction === "ingress" ? "from" : "to"} this peer but only on ${portWords(rule.ports)}; the connection is ${protocol}/${port}`,
          ruleRef: r,
        });
        continue;
      }
      if (!portOK || !otherPod) continue;
      for (const peer of rule.peers ?? []) {
        const miss = peerMiss(model, policy, peer, otherPod);
        if (!miss) continue;
        const path = [
          "spec",
          direction,
          rule.index,
          list,
          peer.index,
          ...(miss.condition === "namespace" ? [] : [miss.condition]),
        ];
        const r = policyRef(
          path,
          `spec.${direction}[${rule.index}].${list}[${peer.index}]${miss.condition === "namespace" ? "" : `.${miss.condition}`}`,
        );
        if (!r) continue;
        const nm: NearMiss = {
          ...base,
          condition: miss.condition,
          peer: peer.index,
          text: `${name} matches if ${miss.text}`,
          ruleRef: r,
        };
        if (miss.objectRef) nm.objectRef = miss.objectRef;
        if (miss.edit) nm.edit = miss.edit;
        out.push(nm);
        likely.set(nm, miss.likely);
      }
    }
  }
  // Label mismatches first: a wrong label is the likelier mistake than a wrong port.
  const rank = (m: NearMiss) =>
    (m.condition === "port" ? 20 : m.condition === "namespace" ? 10 : 0) + (likely.get(m) ?? 5);
  return out.sort((a, b) => rank(a) - rank(b)).slice(0, MAX);
}

/** "This selector selects nothing in the input", once per model and selector. */
const NOTHING = new WeakMap<Model, Map<string, boolean>>();
function nothing(model: Model, what: string, sel: LabelSelector, compute: () => boolean): boolean {
  let m = NOTHING.get(model);
  if (!m) NOTHING.set(model, (m = new Map()));
  const k = `${what}|${sel.key}`;
  let v = m.get(k);
  if (v === undefined) m.set(k, (v = compute()));
  return v;
}

interface PeerMiss {
  /** Lower is likelier the mistake: a selector that selects nothing at all in the input, or asks for a value the other end has under another key. */
  likely: number;
  condition: NearMiss["condition"];
  text: string;
  objectRef?: NearMissRef;
  edit?: NearMiss["edit"];
}

/** The single condition by which `peer` misses `pod`, or undefined (it matches, or misses by more than one). */
function peerMiss(model: Model, policy: NetworkPolicy, peer: PolicyPeer, pod: Pod): PeerMiss | undefined {
  if (peer.ipBlock || (!peer.podSelector && !peer.namespaceSelector)) return undefined;
  const ns = model.namespaces.get(pod.namespace);
  const nsLabels = ns?.labels ?? { "kubernetes.io/metadata.name": pod.namespace };
  const nsFails = peer.namespaceSelector
    ? failedRequirements(peer.namespaceSelector, nsLabels)
    : pod.namespace === policy.namespace
      ? []
      : ["namespace"];
  const podFails = peer.podSelector ? failedRequirements(peer.podSelector, pod.labels) : [];
  if (nsFails.length + podFails.length !== 1) return undefined;
  if (peer.namespaceSelector?.invalid || peer.podSelector?.invalid) return undefined;
  if (nsFails.length) {
    if (!peer.namespaceSelector) {
      return {
        likely: 3,
        condition: "namespace",
        text: `${pod.key} were in namespace ${policy.namespace}: a peer without a namespaceSelector selects pods of the policy's own namespace only (add a namespaceSelector for namespace ${pod.namespace})`,
      };
    }
    const sel = peer.namespaceSelector;
    const selectsNothing = nothing(
      model,
      "ns",
      sel,
      () => ![...model.namespaces.values()].some((n) => matchesSelector(sel, n.labels)),
    );
    const miss: PeerMiss = {
      likely:
        (selectsNothing ? 0 : 2) + (nsFails[0]!.includes("(and") || nsFails[0]!.includes("but has") ? 0 : 1),
      condition: "namespaceSelector",
      text: `namespace ${pod.namespace} has label ${nsFails[0]!.replace(/ \(and `[^`]*`\)$/, "")}`,
    };
    const r = ref(model, "Namespace", undefined, pod.namespace, ["metadata", "labels"], "metadata.labels");
    if (r && ns && !ns.implied) {
      miss.objectRef = r;
      const e = labelEdit(peer.namespaceSelector, nsLabels);
      const at = e && labelAt(model, "Namespace", undefined, pod.namespace, e.key);
      if (e && at)
        miss.edit = { kind: "label", target: { kind: "Namespace", name: pod.namespace }, ...e, at };
    }
    return miss;
  }
  const podSel = peer.podSelector!;
  const podSelectsNothing = nothing(
    model,
    "pod",
    podSel,
    () => !model.pods.some((p) => matchesSelector(podSel, p.labels)),
  );
  const miss: PeerMiss = {
    likely:
      (podSelectsNothing ? 0 : 2) +
      (podFails[0]!.includes("(and") || podFails[0]!.includes("but has") ? 0 : 1),
    condition: "podSelector",
    text: `pod ${pod.key} has label ${podFails[0]!}`,
  };
  if (!pod.generated) {
    const r = ref(model, "Pod", pod.namespace, pod.name, ["metadata", "labels"], "metadata.labels");
    if (r) {
      miss.objectRef = r;
      const e = labelEdit(peer.podSelector!, pod.labels);
      const at = e && labelAt(model, "Pod", pod.namespace, pod.name, e.key);
      if (e && at)
        miss.edit = {
          kind: "label",
          target: { kind: "Pod", namespace: pod.namespace, name: pod.name },
          ...e,
          at,
        };
    }
  } else {
    miss.objectRef = {
      kind: pod.source.kind,
      name: pod.source.name,
      file: pod.source.file,
      line: pod.source.line,
      ...(pod.source.namespace !== undefined ? { namespace: pod.source.namespace } : {}),
    };
  }
  return miss;
}
