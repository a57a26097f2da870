/**
 * Exposure analysis as netpol-analyzer reports it (`list --exposure`, its
 * docs/exposure_analysis.md): besides the connlist lines, per workload and
 * direction, the connections to and from peers that are not workloads of
 * the input but that the policies' rules would match:
 *
 * - `entire-cluster`: any pod in any namespace;
 * - a representative peer per distinct (namespaceSelector, podSelector) of
 *   the rules: `backend/[all pods]`, `hello-world/[pod with {app=x}]`,
 *   `[namespace with {env=prod}]/[all pods]`, ...;
 * - the workload's own connlist lines with IP ranges;
 * - a workload no policy selects in a direction is "not protected" there.
 *
 * No verdict is made here: every connection is the decider's (decide/),
 * asked about the workload's own side (its ingress or its egress) toward a
 * synthetic pod that stands for the peer: for `entire-cluster` a pod without
 * labels in a namespace no input names; for a selector pair, a pod whose
 * labels are the least that satisfy the pod selector (matchLabels, In's
 * first value, Exists with an empty value; NotIn and DoesNotExist keys left
 * out) in a namespace built the same way from the namespace selector. A
 * selector pair no such pod satisfies (contradictory requirements) is named
 * in `unjudged`, never guessed.
 *
 * Upstream's conventions kept: a representative whose connections equal the
 * workload's `entire-cluster` ones is not listed; one that an input workload
 * matches exactly (matchLabels only, both selectors non-empty) is dropped;
 * an unprotected workload gets `entire-cluster` and its IP lines.
 */
import type { Model, Namespace, Pod, Protocol } from "../model/types.ts";
import { PROTOCOLS } from "../model/types.ts";
import { asPodKey } from "../model/ids.ts";
import { isEmptySelector, labelsKey, matchesSelector, type LabelSelector } from "../model/labels.ts";
import { subjectSelects } from "../tiers/layer.ts";
import { deciderOf } from "../decide/index.ts";
import { connlistProbeStarts, connlistView, probeIntervals, type ConnList } from "./index.ts";
import { addRange, emptyPortSet, formatPortSet, isEmptyPortSet, type PortSet } from "./ports.ts";

export const ENTIRE_CLUSTER = "entire-cluster";
const NS_NAME = "kubernetes.io/metadata.name";

/** One exposure line: `peer` is the input's workload, `other` the representative or IP range. */
export interface ExposureLine {
  peer: string;
  other: string;
  conns: PortSet;
  /** netpol-analyzer's grammar; "No Connections" for a representative the entire-cluster exposure excludes. */
  conn: string;
}

export interface Exposure {
  /** Sorted by workload, then peer, byte by byte. */
  egress: ExposureLine[];
  ingress: ExposureLine[];
  /** "ns/name[Kind] is not protected on Ingress|Egress", sorted. */
  unprotected: string[];
  /** Every workload with any exposure line or unprotected direction (upstream pads the text columns to the longest). */
  exposed: string[];
  /** What the decider could not be asked about, in words (named in every format). */
  unjudged: string[];
}

/** A rule's peer, as a selector pair (undefined namespace selector: the policy's namespace). */
interface SelectorPair {
  ns: LabelSelector;
  pod: LabelSelector;
}

const selector = (matchLabels: Record<string, string>): LabelSelector => ({
  matchLabels,
  matchExpressions: [],
  key: Object.keys(matchLabels).length ? JSON.stringify(matchLabels) : "",
});

/** upstream's one representative for equivalent rules: `key In [v]` is `key=v` (exposure_test_different_but_equiv_rules). */
function canonical(s: LabelSelector): LabelSelector {
  const matchLabels = { ...s.matchLabels };
  const matchExpressions = s.matchExpressions.filter((r) => {
    if (r.operator !== "In" || r.values?.length !== 1 || r.key in matchLabels) return true;
    matchLabels[r.key] = r.values[0]!;
    return false;
  });
  return { ...s, matchLabels, matchExpressions };
}

/** Go's `labels.SelectorFromSet(...).String()` and its LabelSelectorRequirement text, as upstream prints a selector. */
function selectorText(s: LabelSelector, sorted = false): string {
  const parts: string[] = [];
  const keys = Object.keys(s.matchLabels).sort();
  if (keys.length) parts.push(keys.map((k) => `${k}=${s.matchLabels[k]}`).join(","));
  if (s.matchExpressions.length) {
    const reqs = s.matchExpressions
      .map(
        (r) =>
          `{Key:${r.key},Operator:${r.operator},Values:[${(sorted ? [...(r.values ?? [])].sort() : (r.values ?? [])).join(" ")}],}`,
      )
      .sort();
    parts.push(reqs.join(","));
  }
  return parts.join(",");
}

/** upstream's name of a representative peer: `ns/[all pods]`, `[namespace with {..}]/[pod with {..}]`. */
export function representativeName(pair: SelectorPair, sorted = false): string {
  const nsKeys = Object.keys(pair.ns.matchLabels);
  const ns =
    nsKeys.length === 1 && nsKeys[0] === NS_NAME && pair.ns.matchExpressions.length === 0
      ? pair.ns.matchLabels[NS_NAME]!
      : isEmptySelector(pair.ns)
        ? "[all namespaces]"
        : `[namespace with {${selectorText(pair.ns, sorted)}}]`;
  const pod = isEmptySelector(pair.pod) ? "[all pods]" : `[pod with {${selectorText(pair.pod, sorted)}}]`;
  return `${ns}/${pod}`;
}

/** A value no selector can name (label values have no braces): a key that is set, to nothing any rule expects. */
const FRESH = "{any}";

/** The keys the rules' selectors of one side (namespaces or pods) name, with every value they name. */
type Universe = Map<string, Set<string>>;

function universeOf(selectors: readonly LabelSelector[]): Universe {
  const u: Universe = new Map();
  const add = (k: string, v?: string) => {
    let set = u.get(k);
    if (!set) u.set(k, (set = new Set()));
    if (v !== undefined) set.add(v);
  };
  for (const s of selectors) {
    for (const [k, v] of Object.entries(s.matchLabels)) add(k, v);
    for (const r of s.matchExpressions) {
      add(r.key);
      for (const v of r.values ?? []) add(r.key, v);
    }
  }
  return u;
}

/**
 * The labels of a pod (or namespace) that as few requirements as possible
 * match, standing for "any pod, whatever its labels": a key some rule
 * requires NotIn gets one of those values, a key some rule requires
 * DoesNotExist a fresh value, any other key is absent. Only selectors
 * that match everything are sure to match it (upstream's entire-cluster).
 */
function adversarialLabels(selectors: readonly LabelSelector[]): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const s of selectors)
    for (const r of s.matchExpressions) {
      if (r.operator === "NotIn" && r.values?.length) labels[r.key] = r.values[0]!;
      else if (r.operator === "DoesNotExist" && !(r.key in labels)) labels[r.key] = FRESH;
    }
  return labels;
}

/**
 * Label sets that satisfy `s`: the least one (matchLabels, In's first value,
 * Exists a fresh value, NotIn and DoesNotExist keys absent), then that one
 * with one key at a time absent, fresh or set to each value some rule names.
 * A peer "any pod with these selectors" gets what every one of them gets.
 * Undefined when not even the least one satisfies `s`.
 */
function labelVariants(s: LabelSelector, universe: Universe): Record<string, string>[] | undefined {
  if (s.invalid) return undefined;
  const base: Record<string, string> = { ...s.matchLabels };
  for (const r of s.matchExpressions) {
    if (r.key in base) continue;
    if (r.operator === "In" && r.values?.length) base[r.key] = [...r.values].sort()[0]!;
    else if (r.operator === "Exists") base[r.key] = FRESH;
  }
  if (!matchesSelector(s, base)) return undefined;
  const out = [base];
  const seen = new Set([JSON.stringify(base)]);
  for (const [key, values] of universe) {
    for (const v of [undefined, FRESH, ...values]) {
      const l = Object.fromEntries(Object.entries(base).filter(([k]) => k !== key));
      if (v !== undefined) l[key] = v;
      const id = JSON.stringify(l);
      if (seen.has(id) || !matchesSelector(s, l)) continue;
      seen.add(id);
      out.push(l);
    }
  }
  return out;
}

/** Every selector pair the rules of NetworkPolicies and the cluster tiers name (ipBlocks and networks are IP nodes already). */
function rulePairs(model: Model): SelectorPair[] {
  const out = new Map<string, SelectorPair>();
  const add = (ns: LabelSelector, pod: LabelSelector) => {
    if (isEmptySelector(ns) && isEmptySelector(pod)) return; // the entire cluster
    // Equivalent rules make one representative, named as the first of them spells it.
    const key = representativeName({ ns: canonical(ns), pod: canonical(pod) }, true);
    if (!out.has(key)) out.set(key, { ns, pod });
  };
  for (const p of model.policies)
    for (const r of [...p.ingress, ...p.egress])
      for (const peer of r.peers ?? []) {
        if (peer.ipBlock) continue;
        add(peer.namespaceSelector ?? selector({ [NS_NAME]: p.namespace }), peer.podSelector ?? selector({}));
      }
  for (const p of model.clusterPolicies)
    for (const r of [...p.ingress, ...p.egress])
      for (const peer of r.peers) {
        if (peer.namespaces) add(peer.namespaces, selector({}));
        if (peer.pods) add(peer.pods.namespaceSelector, peer.pods.podSelector);
      }
  return [...out.values()];
}

const onlyMatchLabels = (s: LabelSelector) => s.matchExpressions.length === 0 && !isEmptySelector(s);

function nsLabelsOf(model: Model, ns: string): Record<string, string> {
  return model.namespaces.get(ns)?.labels ?? { [NS_NAME]: ns };
}

function syntheticPod(name: string, namespace: string, labels: Record<string, string>, index: number): Pod {
  return {
    index,
    namespace,
    name,
    key: asPodKey(name),
    labels,
    annotations: {},
    nodeName: undefined,
    ips: [],
    ipsSynthesized: false,
    hostNetwork: false,
    serviceAccount: "default",
    phase: "Running",
    ready: true,
    terminating: false,
    ports: [],
    workload: { kind: "Pod", namespace, name },
    generated: true,
    source: { kind: "Pod", name, file: "", doc: 0, line: 0 },
    raw: {},
  };
}

const byteOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const samePorts = (a: PortSet, b: PortSet) => formatPortSet(a) === formatPortSet(b);

export function computeExposure(model: Model, list: ConnList): Exposure {
  const { view, reprs } = connlistView(model);
  const unjudged: string[] = [];
  const namespaces = new Map<string, Namespace>(view.namespaces);
  const pairs = rulePairs(view);
  const nsUniverse = universeOf(pairs.map((p) => p.ns));
  const podUniverse = universeOf(pairs.map((p) => p.pod));
  let podIndex = reprs.length;
  /** The synthetic pods standing for `pair`, or a reason none can. */
  const standIns = (name: string, pair: SelectorPair): Pod[] | string => {
    const podSets = labelVariants(pair.pod, podUniverse);
    const nsSets = labelVariants(pair.ns, nsUniverse);
    if (!podSets || !nsSets) return "no pod satisfies its selectors";
    const nsNames: string[] = [];
    for (const labels of nsSets) {
      const nsName = labels[NS_NAME] ?? `{${labelsKey(labels)}}`; // braces: no real namespace has the name
      const real = view.namespaces.get(nsName);
      if (real || labels[NS_NAME] !== undefined) {
        // A named namespace has the labels the input gives it (or only its name).
        if (!matchesSelector(pair.ns, nsLabelsOf(view, nsName))) continue;
      } else namespaces.set(nsName, { name: nsName, labels, implied: true });
      if (!nsNames.includes(nsName)) nsNames.push(nsName);
    }
    if (nsNames.length === 0)
      return "its namespace selector names a namespace whose labels it does not match";
    const pods = podSets.map((labels) => syntheticPod(name, nsNames[0]!, labels, podIndex++));
    for (const ns of nsNames.slice(1)) pods.push(syntheticPod(name, ns, podSets[0]!, podIndex++));
    return pods;
  };

  // The stand-ins: entire-cluster first, then one set per representative the input's workloads do not already stand for.
  const stand: { name: string; pods: Pod[] }[] = [];
  // Its namespace's name is its own: a rule that names a namespace never singles it out.
  const clusterNsLabels = Object.fromEntries(
    Object.entries(adversarialLabels(pairs.map((p) => p.ns))).filter(([k]) => k !== NS_NAME),
  );
  const clusterNs = `{${ENTIRE_CLUSTER}}`; // braces: no real namespace has the name
  namespaces.set(clusterNs, {
    name: clusterNs,
    labels: { ...clusterNsLabels, [NS_NAME]: clusterNs },
    implied: true,
  });
  const clusterPod = syntheticPod(
    ENTIRE_CLUSTER,
    clusterNs,
    adversarialLabels(pairs.map((p) => p.pod)),
    podIndex++,
  );
  stand.push({ name: ENTIRE_CLUSTER, pods: [clusterPod] });
  for (const pair of pairs) {
    const name = representativeName(pair);
    const redundant =
      onlyMatchLabels(pair.ns) &&
      onlyMatchLabels(pair.pod) &&
      reprs.some(
        (w) => matchesSelector(pair.pod, w.labels) && matchesSelector(pair.ns, nsLabelsOf(view, w.namespace)),
      );
    if (redundant) continue;
    const pods = standIns(name, pair);
    if (typeof pods === "string") unjudged.push(`${name}: ${pods}, so the decider was not asked about it`);
    else stand.push({ name, pods });
  }

  const exposedView: Model = { ...view, namespaces };
  const decider = deciderOf(exposedView);
  if (decider.enforcement.kind === "cni")
    unjudged.push(
      "representative peers come from NetworkPolicy and cluster-tier rules only; the CNI dialect's own selectors add none (its verdicts do apply)",
    );
  const named = new Set<string>();
  for (const p of view.policies)
    for (const r of p.egress)
      for (const port of r.ports ?? []) if (typeof port.port === "string") named.add(port.port);
  for (const p of view.clusterPolicies)
    for (const r of p.egress)
      for (const port of r.ports ?? []) if (port.name !== undefined) named.add(port.name);
  if (named.size)
    unjudged.push(
      `egress on named ports (${[...named].sort().join(", ")}) to entire-cluster and representative peers: their container ports are unknown, so those ports are not listed (upstream lists them by name)`,
    );
  const starts = connlistProbeStarts(exposedView, reprs, decider);
  /** What the workload's own side admits toward every one of the stand-ins (a port is in only if each of them gets it). */
  const side = (self: Pod, others: readonly Pod[], direction: "ingress" | "egress"): PortSet => {
    const conns = emptyPortSet();
    for (const proto of PROTOCOLS as readonly Protocol[])
      for (const [first, last] of probeIntervals(starts[proto])) {
        const ok = others.every((other) =>
          direction === "ingress"
            ? decider.ingress(self, { ip: "", pod: other }, first, proto)
            : decider.egress(self, { ip: "", pod: other }, first, proto),
        );
        if (ok) addRange(conns, proto, first, last);
      }
    return conns;
  };
  const protectedOn = (w: Pod, direction: "ingress" | "egress"): boolean => {
    if (decider.enforcement.kind === "none") return false;
    const { index } = decider;
    const policies =
      direction === "ingress"
        ? index.ingressPolicies[index.classOf[w.index]!]
        : index.egressPolicies[index.classOf[w.index]!];
    if (policies && policies.length > 0) return true;
    return view.clusterPolicies.some((p) => p[direction].length > 0 && subjectSelects(exposedView, p, w));
  };

  const out: Exposure = { egress: [], ingress: [], unprotected: [], exposed: [], unjudged };
  const line = (peer: string, other: string, conns: PortSet): ExposureLine => ({
    peer,
    other,
    conns,
    conn: isEmptyPortSet(conns) ? "No Connections" : formatPortSet(conns),
  });
  for (const w of reprs) {
    let exposed = false;
    for (const direction of ["egress", "ingress"] as const) {
      const lines = direction === "egress" ? out.egress : out.ingress;
      const before = lines.length;
      const entire = side(w, stand[0]!.pods, direction);
      if (!protectedOn(w, direction)) {
        out.unprotected.push(
          `${w.key} is not protected on ${direction === "ingress" ? "Ingress" : "Egress"}`,
        );
        lines.push(line(w.key, ENTIRE_CLUSTER, entire));
      } else {
        if (!isEmptyPortSet(entire)) lines.push(line(w.key, ENTIRE_CLUSTER, entire));
        for (const s of stand.slice(1)) {
          const conns = side(w, s.pods, direction);
          if (samePorts(conns, entire)) continue;
          lines.push(line(w.key, s.name, conns));
        }
      }
      if (lines.length > before) exposed = true;
    }
    if (!exposed) continue;
    out.exposed.push(w.key);
    // An exposed workload's own lines with IP ranges follow, in both directions, whichever
    // direction exposed it (upstream's getXgressExposureConnsAsSingleConnFieldsArray, anp_banp_blog_demo).
    for (const l of list.lines) {
      if (l.src === w.key && l.dst.endsWith("[External]")) out.egress.push(line(w.key, l.dst, l.conns));
      if (l.dst === w.key && l.src.endsWith("[External]")) out.ingress.push(line(w.key, l.src, l.conns));
    }
  }
  const order = (a: ExposureLine, b: ExposureLine) =>
    byteOrder(a.peer, b.peer) || byteOrder(a.other, b.other);
  out.egress.sort(order);
  out.ingress.sort(order);
  out.unprotected.sort(byteOrder);
  return out;
}
