/**
 * Keys of what the class matrices read, so that an analysis reuses the
 * previous one's matrices when an edit changed none of it (analysis/flows.ts
 * for NetworkPolicy's, analysis/tiers.ts for the policy stack's).
 */
import type { Model } from "../model/types.ts";
import type { PolicyIndex } from "../netpol/index.ts";
import type { NetworkPolicy, PolicyRule } from "../model/networkpolicy.ts";
import type { LabelSelector } from "../model/labels.ts";

const selectorKey = (s: LabelSelector | undefined) => (s ? `${s.key}${s.invalid ? "!" : ""}` : "-");

/**
 * Everything classMatrix reads (netpol/index.ts): each class's namespace,
 * labels, hostNetwork, its representative's container ports (named ports)
 * and IP (ipBlock), the namespaces' labels (namespaceSelector), and each
 * policy's selector, isolation, peers and ports in order. Equal keys give
 * equal matrices, so an edit that changes none of these (a replica count, a
 * Service, an image) reuses the previous analysis's matrices.
 */
export function matrixInputsKey(index: PolicyIndex): string {
  let key = keys.get(index);
  if (key === undefined) keys.set(index, (key = inputsKeyOf(index)));
  return key;
}

const keys = new WeakMap<PolicyIndex, string>();

function inputsKeyOf(index: PolicyIndex): string {
  return `${classKeysOf(index).join("\n")}\n\u0001\n${surroundKeyOf(index)}`;
}

/**
 * Per class, what classMatrix reads of it: its namespace, labels, hostNetwork,
 * its representative's container ports (named ports), and its IP when some
 * ipBlock peer can read it. Classes of two indexes with equal keys are told
 * apart by no NetworkPolicy.
 */
export function classKeysOf(index: PolicyIndex): readonly string[] {
  let k = classKeys.get(index);
  if (k === undefined) classKeys.set(index, (k = classKeysFor(index)));
  return k;
}

const classKeys = new WeakMap<PolicyIndex, string[]>();

function classKeysFor(index: PolicyIndex): string[] {
  // Pod IPs matter only to ipBlock peers; without them an edit that shifts allocated IPs keeps the key.
  const ipBlocks = index.model.policies.some((pol) =>
    [...pol.ingress, ...pol.egress].some((r) => r.peers?.some((x) => x.ipBlock)),
  );
  return index.classes.map((c) => {
    const ports = c.repr.ports.map((p) => `${p.name ?? ""}:${p.containerPort}/${p.protocol}`).join(",");
    return `${c.namespace}\0${JSON.stringify(c.labels)}\0${c.hostNetwork ? "h" : ""}\0${ports}\0${ipBlocks ? (c.repr.ips[0] ?? "") : ""}`;
  });
}

/** What classMatrix reads besides the classes: the namespaces' labels, and each policy's selector, isolation, peers and ports in order. */
function surroundKeyOf(index: PolicyIndex): string {
  let k = surroundKeys.get(index);
  if (k === undefined)
    surroundKeys.set(
      index,
      (k = `${namespacesKey(index.model)}\n\u0001\n${index.model.policies.map(policyKey).join("\n")}`),
    );
  return k;
}

const surroundKeys = new WeakMap<PolicyIndex, string>();

const namespacesKey = (model: Model) =>
  [...model.namespaces.values()].map((n) => `${n.name}\0${JSON.stringify(n.labels)}`).join("\n");

/**
 * What classMatrix reads of one policy: its namespace, selector, isolation, and each rule's peers and ports in
 * order. Kept per policy object (a policy whose doc an edit left alone is the same object).
 */
function policyKey(pol: NetworkPolicy): string {
  let k = policyKeys.get(pol);
  if (k === undefined) policyKeys.set(pol, (k = policyKeyFor(pol)));
  return k;
}

const policyKeys = new WeakMap<NetworkPolicy, string>();

function policyKeyFor(pol: NetworkPolicy): string {
  const rule = (r: PolicyRule) => {
    const peers =
      r.peers === null
        ? "*"
        : r.peers
            .map((x) =>
              x.ipBlock
                ? `ip:${x.ipBlock.cidr}|${x.ipBlock.except.join(",")}`
                : `${selectorKey(x.namespaceSelector)}|${selectorKey(x.podSelector)}`,
            )
            .join(";");
    // A quoted number is a port's name (model/networkpolicy.ts), not the number: the key tells them apart.
    const ports =
      r.ports === null
        ? "*"
        : r.ports
            .map(
              (x) =>
                `${x.protocol}:${typeof x.port === "string" ? `n:${x.port}` : (x.port ?? "")}-${x.endPort ?? ""}`,
            )
            .join(";");
    return `${peers}>${ports}`;
  };
  return `${pol.namespace}\0${selectorKey(pol.podSelector)}\0${pol.ingressIsolation ? "i" : ""}${pol.egressIsolation ? "e" : ""}\0${pol.ingress.map(rule).join("\0")}\0\0${pol.egress.map(rule).join("\0")}`;
}

/**
 * What a class matrix's rows share across analyses, kept by the caller (analysis/flows.ts, tiers.ts):
 * `universe` is all classMatrix reads but the policies (the classes in order, the namespaces), and the
 * policies that select each class per direction.
 */
export interface RowInputs {
  universe: string;
  ingress: readonly (readonly NetworkPolicy[])[];
  egress: readonly (readonly NetworkPolicy[])[];
}

export function rowInputsOf(index: PolicyIndex): RowInputs {
  let r = rowInputs.get(index);
  if (r === undefined)
    rowInputs.set(
      index,
      (r = {
        universe: `${classKeysOf(index).join("\n")}\n\u0001\n${namespacesKey(index.model)}`,
        ingress: index.ingressPolicies,
        egress: index.egressPolicies,
      }),
    );
  return r;
}

const rowInputs = new WeakMap<PolicyIndex, RowInputs>();

/**
 * Which classes' rows an index can take from an earlier one's matrices: none unless the two have the same
 * classes in order and the same namespaces (`universe`); then a class whose policies for a direction read
 * alike (`policyKey`, one by one in order) keeps its row for that direction.
 */
export function keptRows(
  before: RowInputs,
  after: RowInputs,
): { ingress: Uint8Array; egress: Uint8Array } | undefined {
  if (before.universe !== after.universe) return undefined;
  const flags = (a: RowInputs["ingress"], b: RowInputs["ingress"]) => {
    const out = new Uint8Array(b.length);
    for (let c = 0; c < b.length; c++) {
      const x = a[c]!;
      const y = b[c]!;
      if (x.length !== y.length) continue;
      let same = true;
      for (let i = 0; i < x.length && same; i++)
        same = x[i] === y[i] || policyKey(x[i]!) === policyKey(y[i]!);
      if (same) out[c] = 1;
    }
    return out;
  };
  return { ingress: flags(before.ingress, after.ingress), egress: flags(before.egress, after.egress) };
}

/**
 * Everything the stack's class matrices read: what NetworkPolicy's do
 * (`matrixInputsKey`) and the rest of the stack (`tierWorldKey`, given when
 * the caller has it).
 */
export function tierInputsKey(model: Model, index: PolicyIndex, world = tierWorldKey(model, index)): string {
  return `${matrixInputsKey(index)}\u0002${world}`;
}

/**
 * What the stack's class matrices read besides NetworkPolicy's inputs: each
 * cluster policy but its positions in the text (its order among the policies
 * stays: it breaks ties of priority), the classes' representative IPs when a
 * rule names networks or nodes, and the nodes' labels and addresses when a
 * rule names nodes.
 */
export function tierWorldKey(model: Model, index: PolicyIndex): string {
  const drop = new Set(["source", "lines", "line", "parsed"]);
  const parts = [JSON.stringify(model.clusterPolicies, (k, v: unknown) => (drop.has(k) ? undefined : v))];
  const { nodes, addresses } = tierPeersRead(model);
  if (addresses) parts.push(index.classes.map((c) => c.repr.ips[0] ?? "").join(","));
  if (nodes) parts.push(nodesKey(model));
  return parts.join("\u0002");
}

/** Whether a cluster policy's peer names nodes, and whether one names nodes or networks (then pod addresses matter). */
function tierPeersRead(model: Model): { nodes: boolean; addresses: boolean } {
  const peers = model.clusterPolicies.flatMap((p) => [...p.ingress, ...p.egress].flatMap((r) => r.peers));
  const nodes = peers.some((x) => x.nodes);
  return { nodes, addresses: nodes || peers.some((x) => x.networks) };
}

const nodesKey = (model: Model) =>
  model.nodes.map((n) => `${n.name}\0${JSON.stringify(n.labels)}\0${JSON.stringify(n.addresses)}`).join("\n");

/**
 * The keys under which one exact walk of the policy stack (NetworkPolicy and the
 * two tiers: policy/index.ts explainStackPair) between two classes gives the
 * same tier step in two analyses, but for where its policy stands in the text.
 * `world` is everything the walk reads besides the two classes and the
 * NetworkPolicies that select them: the namespaces, each cluster policy with
 * its lines counted from its first (so a policy whose doc only moved keeps the
 * key, and its step moves with it: walks.ts), the nodes when a rule names
 * them, and the cluster profile. `classes` is, per class, what the walk reads
 * of it: `classKeysOf`, with its representative's IP when a tier rule names
 * networks or nodes; `selecting`, per class and direction, what the walk reads
 * of the NetworkPolicies that select it (`policyKey`, in order). A policy edit
 * changes the keys of the classes it selects (or selected), not the world.
 */
export function tierWalkKeys(
  model: Model,
  index: PolicyIndex,
): {
  world: string;
  classes: readonly string[];
  selecting: { ingress: readonly (readonly string[])[]; egress: readonly (readonly string[])[] };
} {
  const policies = model.clusterPolicies.map((p) => {
    // A line is counted from the doc's first; 0 is a field the doc does not have, and stays 0.
    const from = (n: unknown) => (typeof n === "number" && n > 0 ? n - p.source.line : n);
    return JSON.stringify(p, (k, v: unknown) =>
      k === "parsed" || k === "source"
        ? undefined
        : k === "line"
          ? from(v)
          : k === "lines" && typeof v === "object" && v
            ? Object.entries(v).map(([f, n]) => [f, from(n)])
            : v,
    );
  });
  const { nodes, addresses } = tierPeersRead(model);
  const world = [
    namespacesKey(model),
    policies.join("\n"),
    nodes ? nodesKey(model) : "",
    JSON.stringify(model.profile ?? null),
  ];
  const own = classKeysOf(index);
  const classes = addresses ? own.map((k, c) => `${k}\0${index.classes[c]!.repr.ips[0] ?? ""}`) : own;
  const keys = (lists: readonly (readonly NetworkPolicy[])[]) => lists.map((l) => l.map(policyKey));
  return {
    world: world.join("\u0002"),
    classes,
    selecting: { ingress: keys(index.ingressPolicies), egress: keys(index.egressPolicies) },
  };
}
