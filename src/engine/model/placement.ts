/**
 * Objects -> placed pod inputs, as the controllers and the scheduler would:
 * workloads expanded into pods (a given pod standing in for the pod it
 * names), the nodes (given, named by pods, or synthesised), a DaemonSet's
 * pod per eligible node, and the other pods on the eligible node with the
 * fewest pods. The rules are in build.ts's header; build.ts calls these in
 * order.
 */
import type { KObject } from "../parse/manifests.ts";
import type { Diagnostic } from "../parse/diagnostics.ts";
import { obj, str } from "../parse/values.ts";
import { lineOf } from "../parse/positions.ts";
import { workloadKey } from "./ids.ts";
import { safeSuffix } from "./hash.ts";
import { taintText } from "./taints.ts";
import {
  controllerOf,
  expandWorkload,
  MAX_REPLICAS,
  podInput,
  requestedReplicas,
  WORKLOAD_KINDS,
  type PodSpecInput,
} from "./workloads.ts";
import type { Node } from "./types.ts";
import {
  MAX_PODS_PER_NODE,
  MAX_SYNTHESIZED_POD_CIDRS,
  blockingTaint,
  eligible,
  fillNodeAddresses,
  ineligibility,
  nodeFromObject,
  placementQueue,
  synthesizeNode,
} from "./nodes.ts";

/** Pods that workloads may generate in all; past it, workloads are cut with a KTL210 diagnostic. */
export const MAX_GENERATED_PODS = 250_000;

/** A pod input and where it runs: `name` is the pod's (a DaemonSet's per node), `nodeName` undefined while Pending. */
export interface PlacedPod {
  input: PodSpecInput;
  name: string;
  nodeName: string | undefined;
}

/** The pod a DaemonSet runs on a node: `<name>-<5 characters>`, stable per node. */
const daemonPodName = (namespace: string, daemonSet: string, node: string) =>
  `${daemonSet}-${safeSuffix(`${namespace}/${daemonSet}@${node}`, 5)}`;

/**
 * Workloads that must not generate pods, as in `kubectl get -o yaml` dumps
 * that list a Deployment, its ReplicaSets and their pods together:
 * - a ReplicaSet or Job whose controller (ownerReference) is a Deployment or
 *   CronJob in the input: its owner's expansion stands for it;
 * - a workload whose pods the input already lists (through the pods'
 *   controller chain; a ReplicaSet missing from the input belongs to the
 *   Deployment named by stripping the pods' pod-template-hash). A given pod
 *   bearing exactly a generated name is a stand-in instead (handled by the
 *   caller), so a single written-out pod does not stop its siblings.
 */
function runningWorkloads(
  expansions: ReadonlyMap<KObject, PodSpecInput[]>,
  given: readonly PodSpecInput[],
  diagnostics: Diagnostic[],
): Set<KObject> {
  const byKey = new Map<string, KObject>();
  for (const o of expansions.keys())
    byKey.set(workloadKey({ kind: o.kind, namespace: o.namespace ?? "default", name: o.name }), o);
  const ownerOf = (o: KObject): KObject | undefined => {
    const c = controllerOf(obj(o.raw.metadata) ?? {}, o.namespace ?? "default", o.name);
    return c.kind === "Pod" ? undefined : byKey.get(workloadKey(c));
  };
  const skip = new Set<KObject>();
  for (const o of byKey.values()) if (ownerOf(o)) skip.add(o);
  // The names the controllers generate, which a given pod may already hold (only asked when pods are given).
  const generated = new Set<string>();
  if (given.length > 0)
    for (const pods of expansions.values())
      for (const g of pods) if (!g.daemonSet) generated.add(`${g.namespace}/${g.name}`);
  const counts = new Map<KObject, number>();
  for (const p of given) {
    const w = p.workload;
    if (generated.has(`${p.namespace}/${p.name}`)) continue;
    const node = str(p.spec.nodeName);
    if (w.kind === "DaemonSet" && node && p.name === daemonPodName(w.namespace, w.name, node)) continue;
    let top = byKey.get(workloadKey(w));
    const hash = p.labels["pod-template-hash"];
    if (!top && w.kind === "ReplicaSet" && hash && w.name.endsWith(`-${hash}`))
      top = byKey.get(
        workloadKey({ kind: "Deployment", namespace: w.namespace, name: w.name.slice(0, -hash.length - 1) }),
      );
    for (let up = top && ownerOf(top); up; up = ownerOf(up)) top = up;
    if (top) counts.set(top, (counts.get(top) ?? 0) + 1);
  }
  for (const [o, n] of counts) {
    skip.add(o);
    diagnostics.push({
      code: "KTL206",
      severity: "info",
      file: o.file,
      doc: o.doc,
      line: o.line,
      column: 1,
      kind: o.kind,
      namespace: o.namespace ?? "default",
      name: o.name,
      message: `${o.kind} ${o.namespace ?? "default"}/${o.name}: the input lists ${n} of its pods, so the model uses them and generates none`,
    });
  }
  return skip;
}

/**
 * Pod inputs, given pods first, then workloads in input order (`standIns`:
 * the given pods that stand for a pod a workload names).
 */
export function podInputs(
  objects: readonly KObject[],
  diagnostics: Diagnostic[],
): { inputs: PodSpecInput[]; givenByKey: Map<string, PodSpecInput>; standIns: Set<PodSpecInput> } {
  // A given pod
  // that bears the name a workload gives one of its pods stands in for that
  // pod, in its place: a controller creates no second pod of a name that
  // exists (StatefulSet identity; a written-out pod of `kubectl get -o yaml`),
  // and the other pods keep their nodes and IPs.
  const given = objects.filter((o) => o.kind === "Pod").map(podInput);
  const givenByKey = new Map(given.map((p) => [`${p.namespace}/${p.name}`, p]));
  const standIns = new Set<PodSpecInput>();
  const expanded: PodSpecInput[] = [];
  const expansions = new Map<KObject, PodSpecInput[]>();
  let generated = 0;
  for (const o of objects) {
    if (!WORKLOAD_KINDS.has(o.kind)) continue;
    let pods = expandWorkload(o);
    const asked = requestedReplicas(o);
    const where = {
      file: o.file,
      doc: o.doc,
      line: o.line,
      column: 1,
      kind: o.kind,
      namespace: o.namespace ?? "default",
      name: o.name,
    };
    if (asked > MAX_REPLICAS) {
      diagnostics.push({
        code: "KTL210",
        severity: "warning",
        ...where,
        message: `${o.kind} ${o.namespace ?? "default"}/${o.name} asks for ${asked} pods; ktl models the first ${MAX_REPLICAS}`,
        hint: "Lower replicas (or parallelism) to model every pod.",
      });
    }
    if (generated + pods.length > MAX_GENERATED_PODS) {
      const keep = Math.max(0, MAX_GENERATED_PODS - generated);
      diagnostics.push({
        code: "KTL210",
        severity: "warning",
        ...where,
        message: `workloads generate more than ${MAX_GENERATED_PODS} pods in all: ktl models ${keep} of the ${pods.length} of ${o.kind} ${o.namespace ?? "default"}/${o.name}`,
        hint: "Split the input, or lower replicas.",
      });
      pods = pods.slice(0, keep);
    }
    generated += pods.length;
    expansions.set(o, pods);
  }
  const skip = runningWorkloads(expansions, given, diagnostics);
  for (const [o, pods] of expansions) {
    if (skip.has(o)) continue;
    for (const g of pods) {
      const twin =
        g.daemonSet || givenByKey.size === 0 ? undefined : givenByKey.get(`${g.namespace}/${g.name}`);
      if (twin && !standIns.has(twin)) {
        standIns.add(twin);
        expanded.push(twin);
      } else expanded.push(g);
    }
  }
  const inputs: PodSpecInput[] = [...given.filter((p) => !standIns.has(p)), ...expanded];

  return { inputs, givenByKey, standIns };
}

/** The nodes: given ones, then those pods name, else as many as kubelet's 110 pods each needs; addresses filled. */
export function clusterNodes(
  objects: readonly KObject[],
  inputs: readonly PodSpecInput[],
  diagnostics: Diagnostic[],
): { nodes: Node[]; nodesByName: Map<string, Node> } {
  const nodes: Node[] = objects.filter((o) => o.kind === "Node").map(nodeFromObject);
  const nodesByName = new Map(nodes.map((n) => [n.name, n]));
  for (const p of inputs) {
    const want = str(p.spec.nodeName);
    if (want && !nodesByName.has(want)) {
      const n = synthesizeNode(want);
      nodes.push(n);
      nodesByName.set(want, n);
      if (nodes.some((x) => !x.synthesized)) {
        diagnostics.push({
          code: "KTL202",
          severity: "warning",
          file: p.source.file,
          doc: p.source.doc,
          line: lineOf(p.spec, "nodeName") || p.line,
          column: 1,
          kind: p.source.kind,
          namespace: p.namespace,
          name: p.source.name,
          message: `pod ${p.namespace}/${p.name} runs on node "${want}", which the input does not define; a node of that name is assumed`,
        });
      }
    }
  }
  if (nodes.length === 0) {
    // As many nodes as kubelet's default of 110 pods each needs, and at least two.
    const unpinned = inputs.filter((p) => !p.daemonSet && !str(p.spec.nodeName)).length;
    const count = Math.max(2, Math.ceil(unpinned / MAX_PODS_PER_NODE));
    for (let i = 1; i <= count; i++) {
      const n = synthesizeNode(`node-${i}`);
      nodes.push(n);
      nodesByName.set(n.name, n);
    }
  }
  const noCIDR = fillNodeAddresses(nodes);
  if (noCIDR.length) {
    const n = noCIDR[0]!;
    diagnostics.push({
      code: "KTL211",
      severity: "warning",
      file: n.source?.file ?? "",
      doc: n.source?.doc ?? 0,
      line: n.source?.line ?? 0,
      column: 1,
      message: `${noCIDR.length} node(s), ${n.name} first, get no synthesised podCIDR: the ${MAX_SYNTHESIZED_POD_CIDRS} /24 networks from 10.244.1.0 to 10.255.255.0 are used up, so their pods get no IP`,
      hint: "Give the nodes spec.podCIDR, or model fewer nodes.",
    });
  }

  return { nodes, nodesByName };
}

/** Every pod on its node (DaemonSet pods per eligible node), in input order. */
export function placePods(
  inputs: readonly PodSpecInput[],
  nodes: readonly Node[],
  givenByKey: ReadonlyMap<string, PodSpecInput>,
  standIns: Set<PodSpecInput>,
  diagnostics: Diagnostic[],
): PlacedPod[] {
  // DaemonSet pods that a given pod stands in for, by DaemonSet input and node.
  const daemonName = (p: PodSpecInput, n: Node) => daemonPodName(p.namespace, p.name, n.name);
  const daemonTwins = new Map<string, PodSpecInput>();
  const daemonStandIns = new Set<PodSpecInput>();
  for (const p of inputs) {
    if (!p.daemonSet) continue;
    for (const n of nodes) {
      const twin = givenByKey.get(`${p.namespace}/${daemonName(p, n)}`);
      if (twin && !standIns.has(twin) && eligible(p.spec, n, true)) {
        standIns.add(twin);
        daemonStandIns.add(twin);
        daemonTwins.set(`${p.namespace}/${p.name}@${n.name}`, twin);
      }
    }
  }

  // Placement: pinned pods first so the spread sees them (stand-ins count in their workload's place).
  const load = new Map<string, number>(nodes.map((n) => [n.name, 0]));
  const placed: PlacedPod[] = [];
  for (const p of inputs) {
    if (p.daemonSet || standIns.has(p)) continue;
    const pinned = str(p.spec.nodeName);
    if (pinned) load.set(pinned, (load.get(pinned) ?? 0) + 1);
  }
  const leastLoaded = placementQueue(nodes, load);
  for (const p of inputs) {
    if (p.daemonSet) {
      const tainted: string[] = [];
      for (const n of nodes) {
        if (!eligible(p.spec, n, true)) {
          const t = blockingTaint(p.spec, n, true);
          if (t) tainted.push(`${n.name} (${taintText(t)})`);
          continue;
        }
        const twin = daemonTwins.get(`${p.namespace}/${p.name}@${n.name}`);
        placed.push(
          twin
            ? { input: twin, name: twin.name, nodeName: str(twin.spec.nodeName) ?? n.name }
            : { input: p, name: daemonName(p, n), nodeName: n.name },
        );
        load.set(n.name, (load.get(n.name) ?? 0) + 1);
      }
      if (tainted.length) {
        diagnostics.push({
          code: "KTL208",
          severity: "info",
          file: p.source.file,
          doc: p.source.doc,
          line: p.line,
          column: 1,
          kind: p.source.kind,
          namespace: p.namespace,
          name: p.source.name,
          message: `DaemonSet ${p.namespace}/${p.name} runs no pod on ${tainted.length === 1 ? "node" : "nodes"} ${tainted.join(", ")}: the taint is not tolerated, and a DaemonSet's automatic tolerations cover only node conditions and cordons (NodeShouldRunDaemonPod)`,
          hint: "Add a toleration to the pod template (for example key node-role.kubernetes.io/control-plane, operator Exists, effect NoSchedule) if the DaemonSet should run there.",
        });
      }
      continue;
    }
    if (daemonStandIns.has(p)) continue;
    let nodeName = str(p.spec.nodeName);
    if (nodeName && standIns.has(p)) load.set(nodeName, (load.get(nodeName) ?? 0) + 1);
    if (!nodeName) {
      const best = leastLoaded(p.spec);
      if (best) {
        nodeName = best.name;
        load.set(best.name, load.get(best.name)! + 1);
      } else {
        diagnostics.push({
          code: "KTL203",
          severity: "warning",
          file: p.source.file,
          doc: p.source.doc,
          line: p.line,
          column: 1,
          kind: p.source.kind,
          namespace: p.namespace,
          name: p.source.name,
          message: `no node can run pod ${p.namespace}/${p.name}: ${nodes
            .slice(0, 3)
            .map((n) => ineligibility(p.spec, n, false) ?? `${n.name} is full`)
            .join(
              "; ",
            )}${nodes.length > 3 ? `; and ${nodes.length - 3} more nodes` : ""}. It stays Pending with no IP`,
        });
      }
    }
    placed.push({ input: p, name: p.name, nodeName });
  }

  return placed;
}
