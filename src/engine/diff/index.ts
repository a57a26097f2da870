/**
 * What changes between two inputs (before and after an edit): flows gained
 * and lost, and endpoints that appear or vanish, with a one-line summary
 * ("3 flows lost, 1 gained"). Every verdict is the engine's own: pod flows
 * and workload connectivity from the one decider (decide/: the profile, the
 * CNI dialects, the tiers, NetworkPolicy), Service flows from the trace
 * (trace/index.ts traceRequest), endpoints from kube-proxy's choice on each
 * node (proxy chooseEndpoints).
 *
 * 1. Pods are matched by namespace/name. A pod only one side has is paired,
 *    when it can be, with an unmatched pod of the same workload on the same
 *    node, then of the same workload anywhere (a Deployment whose template
 *    changed renames its pods): the pair is one pod, renamed.
 * 2. A pod flow is a source pod, a destination pod and one of the ports the
 *    destination declares (port/protocol): allowed or not by the decider.
 *    A pod to itself is left out. Connectivity on every other port, and of
 *    pods that declare none, is the workload comparison's (workloads.ts:
 *    each workload pair over every port and protocol, as netpol-analyzer's
 *    diff compares it).
 * 3. A Service flow is the flow model's (flows/, the flows the playground
 *    draws): a pod, or an external client arriving at a node for a Service
 *    reachable from outside, to one Service port, with the trace's verdict
 *    (allow, partial or drop; a trace that cannot run is a drop). Pods of one
 *    NetworkPolicy class on one node share one trace; a pod that is itself an
 *    endpoint of the port (hairpin) is traced on its own.
 * 4. A flow is gained when its verdict rises (absent or drop < partial <
 *    allow) and lost when it falls.
 * 5. Endpoints: per Service port and node, the backends kube-proxy on that
 *    node chooses among, for pod traffic to the ClusterIP (internal) and,
 *    when the Service is reachable from outside, for external traffic
 *    arriving there (external). An endpoint that joins a set appears, one
 *    that leaves it vanishes.
 */
import type { InputFile } from "../parse/manifests.ts";
import { parseManifests } from "../parse/manifests.ts";
import { buildModel } from "../load/index.ts";
import type { Model, Pod, PodKey, Protocol } from "../model/types.ts";
import type { Service } from "../model/services.ts";
import { asPodKey, EXTERNAL_CLIENT_IP, podId, workloadKey } from "../model/ids.ts";
import { externalFlowSpecs, reachableFromOutside, serviceFlowSpecs } from "../flows/index.ts";
import { buildPolicyIndex, type PolicyIndex } from "../netpol/index.ts";
import { buildProxyIndex, chooseEndpoints, skipped, type Frontend, type ProxyIndex } from "../proxy/index.ts";
import { traceRequest } from "../trace/index.ts";
import { deciderOf } from "../decide/index.ts";
import type { CniName } from "../cni/profile.ts";
import { diffWorkloads, type WorkloadChange } from "./workloads.ts";

export { diffWorkloads, formatWorkloadDiffTxt, type WorkloadChange } from "./workloads.ts";

export type FlowState = "allow" | "partial" | "drop" | "absent";

export interface FlowChange {
  kind: "pod" | "service" | "external";
  /** `pod:NS/NAME` or `external:IP@NODE` (the name after the change for a renamed pod). */
  from: string;
  /** `pod:NS/NAME` or `service:NS/NAME`. */
  to: string;
  port: number;
  protocol: Protocol;
  before: FlowState;
  after: FlowState;
  change: "gained" | "lost";
  /** Why the flow is as it is after the change (or why it is gone). */
  reason: string;
}

export interface EndpointChange {
  /** `service:NS/NAME` */
  service: string;
  port: number;
  protocol: Protocol;
  node: string;
  /** Pod traffic to the ClusterIP, or external traffic arriving at the node. */
  traffic: "internal" | "external";
  /** `pod:NS/NAME` (after-change name), or IP:PORT for an endpoint without a pod. */
  endpoint: string;
  change: "appears" | "vanishes";
}

export interface InputDiff {
  /** "3 flows lost, 1 gained; 2 endpoints vanish, 1 appears", or "no change in flows, workload connections or endpoints". */
  summary: string;
  counts: {
    gained: number;
    lost: number;
    podFlowsGained: number;
    podFlowsLost: number;
    serviceFlowsGained: number;
    serviceFlowsLost: number;
    endpointsAppear: number;
    endpointsVanish: number;
    /** Workload pairs (and IP ranges, the ingress controller) whose connections were added, removed or changed. */
    workloadsAdded: number;
    workloadsRemoved: number;
    workloadsChanged: number;
  };
  pods: {
    added: string[];
    removed: string[];
    renamed: { before: string; after: string }[];
    moved: { pod: string; from: string; to: string }[];
  };
  /** Gained first, then lost; each group by destination, then source. */
  flows: FlowChange[];
  /**
   * Connectivity between workloads over every port and protocol, as
   * netpol-analyzer's diff compares it (workloads.ts): by any layer, on any
   * port, pods that declare no containerPort included.
   */
  workloads: WorkloadChange[];
  endpoints: EndpointChange[];
  /** What was not compared, and why (too large). */
  truncated: string[];
}

export interface DiffOptions {
  /** The address of the external client for external flows. */
  externalClientIP?: string;
  /** Pod flows are compared when pods × pods × ports stays under this. */
  maxPodPairs?: number;
  /** Service flows are compared when the traces needed stay under this. */
  maxTraces?: number;
  /** The cluster profile of both inputs (the toolbar's, `--cni`); otherwise read from each input. */
  cni?: CniName;
}

const DEFAULTS: Required<Omit<DiffOptions, "cni">> = {
  externalClientIP: EXTERNAL_CLIENT_IP,
  maxPodPairs: 2_000_000,
  maxTraces: 20_000,
};

const RANK: Record<FlowState, number> = { absent: 0, drop: 0, partial: 1, allow: 2 };

export interface Side {
  model: Model;
  policy: PolicyIndex;
  proxy: ProxyIndex;
  /** Pod key -> the id it is compared under. */
  id: Map<PodKey, PodKey>;
}

// ---------- 1. pod identity ----------

function matchPods(
  a: Model,
  b: Model,
): { idA: Map<PodKey, PodKey>; idB: Map<PodKey, PodKey>; pods: InputDiff["pods"] } {
  const idA = new Map<PodKey, PodKey>();
  const idB = new Map<PodKey, PodKey>();
  const renamed: { before: string; after: string }[] = [];
  const moved: { pod: string; from: string; to: string }[] = [];
  const onlyA = a.pods.filter((p) => !b.podsByKey.has(p.key));
  const onlyB = b.pods.filter((p) => !a.podsByKey.has(p.key));
  for (const p of a.pods)
    if (b.podsByKey.has(p.key)) {
      idA.set(p.key, p.key);
      idB.set(p.key, p.key);
      const q = b.podsByKey.get(p.key)!;
      if (p.nodeName !== q.nodeName)
        moved.push({
          pod: `pod:${p.key}`,
          from: p.nodeName ?? "(unscheduled)",
          to: q.nodeName ?? "(unscheduled)",
        });
    }
  const used = new Set<Pod>();
  const pair = (same: (x: Pod, y: Pod) => boolean) => {
    for (const x of onlyA) {
      if (idA.has(x.key)) continue;
      const y = onlyB.find(
        (c) => !used.has(c) && workloadKey(c.workload) === workloadKey(x.workload) && same(x, c),
      );
      if (!y) continue;
      used.add(y);
      idA.set(x.key, y.key);
      idB.set(y.key, y.key);
      renamed.push({ before: `pod:${x.key}`, after: `pod:${y.key}` });
      if (x.nodeName !== y.nodeName)
        moved.push({
          pod: `pod:${y.key}`,
          from: x.nodeName ?? "(unscheduled)",
          to: y.nodeName ?? "(unscheduled)",
        });
    }
  };
  pair((x, y) => x.workload.kind !== "Pod" && x.nodeName === y.nodeName);
  pair((x) => x.workload.kind !== "Pod");
  const removed: string[] = [];
  const added: string[] = [];
  for (const x of onlyA)
    if (!idA.has(x.key)) {
      idA.set(x.key, x.key);
      removed.push(`pod:${x.key}`);
    }
  for (const y of onlyB)
    if (!idB.has(y.key)) {
      idB.set(y.key, y.key);
      added.push(`pod:${y.key}`);
    }
  return { idA, idB, pods: { added, removed, renamed, moved } };
}

// ---------- 2. pod flows ----------

interface PodFlow {
  allowed: boolean;
  src: Pod;
  dst: Pod;
}

function podFlows(side: Side): Map<string, PodFlow> {
  const out = new Map<string, PodFlow>();
  const { model, policy } = side;
  const byPort = new Map<string, Pod[]>();
  for (const dst of model.pods) {
    if (dst.ips.length === 0) continue;
    for (const cp of dst.ports) {
      const k = `${cp.containerPort}/${cp.protocol}`;
      const l = byPort.get(k);
      if (l) {
        if (l[l.length - 1] !== dst) l.push(dst);
      } else byPort.set(k, [dst]);
    }
  }
  const sources = model.pods.filter((p) => p.ips.length > 0);
  // Every verdict is the decider's (decide/): the profile, the CNI dialects and the tiers count.
  const decider = deciderOf(model, { index: policy });
  for (const [k, dsts] of byPort) {
    const [port, protocol] = k.split("/") as [string, Protocol];
    const m = decider.matrix(Number(port), protocol);
    for (const dst of dsts) {
      for (const src of sources) {
        if (src === dst) continue;
        const allowed = m.allowed(src, dst);
        out.set(`${side.id.get(src.key)}>${side.id.get(dst.key)}|${k}`, { allowed, src, dst });
      }
    }
  }
  return out;
}

function podReason(
  side: Side,
  f: PodFlow | undefined,
  port: number,
  protocol: Protocol,
  gone: string,
): string {
  if (!f) return gone;
  return deciderOf(side.model, { index: side.policy }).explain(f.src, f.dst, port, protocol).reason;
}

// ---------- 3. Service flows ----------

interface ServiceFlow {
  state: FlowState;
  reason: string;
  kind: "service" | "external";
  from: string;
  to: string;
  port: number;
  protocol: Protocol;
}

/**
 * The flow model's Service flows (flows/, the same the playground draws),
 * traced, keyed by source and destination; undefined when they would cost
 * more traces than the budget. A trace that cannot run is a drop.
 */
export function serviceFlowStates(
  side: Side,
  clientIP: string,
  budget: { left: number },
): Map<string, ServiceFlow> | undefined {
  const { model, policy, proxy } = side;
  const specs = [...serviceFlowSpecs(model, policy, proxy), ...externalFlowSpecs(model, clientIP)];
  budget.left -= specs.length;
  if (budget.left < 0) return undefined;
  const out = new Map<string, ServiceFlow>();
  for (const f of specs) {
    const r = traceRequest(model, proxy, f.traceFrom, f.traceTo, f.port.protocol);
    const from = f.kind === "service" ? f.pods.map((p) => podId(side.id.get(p.key)!)) : f.from;
    for (const id of from)
      out.set(`${id}>${f.traceTo}/${f.port.protocol}`, {
        state: r.error ? "drop" : r.verdict,
        reason: r.error ?? r.reason,
        kind: f.kind,
        from: id,
        to: f.to,
        port: f.port.port,
        protocol: f.port.protocol,
      });
  }
  return out;
}

// ---------- 5. endpoints ----------

function externalFrontend(s: Service): Frontend | undefined {
  if (s.type === "LoadBalancer" && s.loadBalancerIPs.length) return "loadBalancer";
  if ((s.type === "NodePort" || s.type === "LoadBalancer") && s.ports.some((p) => p.nodePort))
    return "nodePort";
  if (s.externalIPs.length) return "externalIP";
  return undefined;
}

/** "service|port/proto|node|traffic" -> endpoint ids. */
function endpointSets(side: Side): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const { model, proxy } = side;
  for (const s of model.services) {
    if (skipped(s)) continue;
    const ext = reachableFromOutside(s) ? externalFrontend(s) : undefined;
    for (const sp of s.ports) {
      for (const n of model.nodes) {
        const ways: ["internal" | "external", Frontend][] = [["internal", "clusterIP"]];
        if (ext && (ext !== "nodePort" || sp.nodePort)) ways.push(["external", ext]);
        for (const [traffic, frontend] of ways) {
          const d = chooseEndpoints(proxy, {
            service: s.key,
            port: sp.port,
            protocol: sp.protocol,
            node: n.name,
            frontend,
            origin: traffic === "internal" ? "pod" : "external",
          });
          if ("error" in d) continue;
          const ids = new Set(
            d.candidates.map((c) => (c.pod ? `pod:${side.id.get(c.pod) ?? c.pod}` : c.key)),
          );
          out.set(`service:${s.key}|${sp.port}/${sp.protocol}|${n.name}|${traffic}`, ids);
        }
      }
    }
  }
  return out;
}

// ---------- the diff ----------

function side(model: Model, id: Map<PodKey, PodKey>): Side {
  return { model, policy: buildPolicyIndex(model), proxy: buildProxyIndex(model), id };
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** "3 flows lost, 1 gained; 2 endpoints vanish, 1 appears". */
export function summarizeDiff(c: InputDiff["counts"]): string {
  const parts: string[] = [];
  const flows = [c.lost ? "lost" : "", c.gained ? "gained" : ""].filter(Boolean);
  if (flows.length)
    parts.push(
      flows
        .map(
          (w, i) =>
            `${i === 0 ? plural(w === "lost" ? c.lost : c.gained, "flow") : w === "lost" ? c.lost : c.gained} ${w}`,
        )
        .join(", "),
    );
  const w = c.workloadsAdded + c.workloadsRemoved + c.workloadsChanged;
  if (w) {
    const kinds = [
      c.workloadsAdded ? `${c.workloadsAdded} added` : "",
      c.workloadsRemoved ? `${c.workloadsRemoved} removed` : "",
      c.workloadsChanged ? `${c.workloadsChanged} changed` : "",
    ].filter(Boolean);
    parts.push(`${plural(w, "workload connection")} (${kinds.join(", ")})`);
  }
  const verb = (n: number, one: string, many: string) => (n === 1 ? one : many);
  const eps = [
    c.endpointsVanish
      ? (["vanish", c.endpointsVanish, verb(c.endpointsVanish, "vanishes", "vanish")] as const)
      : undefined,
    c.endpointsAppear
      ? (["appear", c.endpointsAppear, verb(c.endpointsAppear, "appears", "appear")] as const)
      : undefined,
  ].filter((x) => x !== undefined);
  if (eps.length)
    parts.push(eps.map(([, n, v], i) => `${i === 0 ? plural(n, "endpoint") : n} ${v}`).join(", "));
  return parts.length ? parts.join("; ") : "no change in flows, workload connections or endpoints";
}

function compareStates(before: FlowState, after: FlowState): "gained" | "lost" | undefined {
  if (RANK[after] > RANK[before]) return "gained";
  if (RANK[after] < RANK[before]) return "lost";
  return undefined;
}

/** Compares two models (before, after). */
export function diffModels(a: Model, b: Model, options: DiffOptions = {}): InputDiff {
  const opts = { ...DEFAULTS, ...options };
  const match = matchPods(a, b);
  const A = side(a, match.idA);
  const B = side(b, match.idB);
  const truncated: string[] = [];
  const flows: FlowChange[] = [];
  let podGained = 0,
    podLost = 0,
    svcGained = 0,
    svcLost = 0;

  // Pod flows.
  const portsOf = (m: Model) =>
    new Set(m.pods.flatMap((p) => p.ports.map((c) => `${c.containerPort}/${c.protocol}`))).size;
  const pairs = Math.max(a.pods.length ** 2 * portsOf(a), b.pods.length ** 2 * portsOf(b));
  if (pairs > opts.maxPodPairs)
    truncated.push(`pod-to-pod flows not compared: ${pairs} pod pairs and ports exceed ${opts.maxPodPairs}`);
  else {
    const fa = podFlows(A);
    const fb = podFlows(B);
    for (const key of new Set([...fa.keys(), ...fb.keys()])) {
      const x = fa.get(key);
      const y = fb.get(key);
      const before: FlowState = x ? (x.allowed ? "allow" : "drop") : "absent";
      const after: FlowState = y ? (y.allowed ? "allow" : "drop") : "absent";
      const change = compareStates(before, after);
      if (!change) continue;
      const [ends, pp] = key.split("|") as [string, string];
      const [src, dst] = ends.split(">") as [string, string];
      const [port, protocol] = pp.split("/") as [string, Protocol];
      const gone = !b.podsByKey.has(asPodKey(src))
        ? `pod ${src} is gone`
        : !b.podsByKey.has(asPodKey(dst))
          ? `pod ${dst} is gone`
          : `pod ${dst} no longer declares ${port}/${protocol}`;
      flows.push({
        kind: "pod",
        from: `pod:${src}`,
        to: `pod:${dst}`,
        port: Number(port),
        protocol,
        before,
        after,
        change,
        reason: podReason(B, y, Number(port), protocol, gone),
      });
      if (change === "gained") podGained++;
      else podLost++;
    }
  }

  // Service flows.
  const budgetA = { left: opts.maxTraces };
  const budgetB = { left: opts.maxTraces };
  const sa = serviceFlowStates(A, opts.externalClientIP, budgetA);
  const sb = serviceFlowStates(B, opts.externalClientIP, budgetB);
  if (!sa || !sb) truncated.push(`Service flows not compared: more than ${opts.maxTraces} traces`);
  else {
    for (const key of new Set([...sa.keys(), ...sb.keys()])) {
      const x = sa.get(key);
      const y = sb.get(key);
      const change = compareStates(x?.state ?? "absent", y?.state ?? "absent");
      if (!change) continue;
      const f = (y ?? x)!;
      const srcGone = f.from.startsWith("pod:") && !b.podsByKey.has(asPodKey(f.from.slice(4)));
      const svcGone = !b.services.some((x) => `service:${x.key}` === f.to);
      const reason = y
        ? y.reason
        : srcGone
          ? `${f.from} is gone`
          : svcGone
            ? `${f.to} is gone`
            : `${f.to} has no port ${f.port}/${f.protocol} any more`;
      flows.push({
        kind: f.kind,
        from: f.from,
        to: f.to,
        port: f.port,
        protocol: f.protocol,
        before: x?.state ?? "absent",
        after: y?.state ?? "absent",
        change,
        reason,
      });
      if (change === "gained") svcGained++;
      else svcLost++;
    }
  }

  // Workload connectivity, every port and protocol.
  const workloads = diffWorkloads(a, b);

  // Endpoints.
  const endpoints: EndpointChange[] = [];
  const ea = endpointSets(A);
  const eb = endpointSets(B);
  for (const key of new Set([...ea.keys(), ...eb.keys()])) {
    const x = ea.get(key) ?? new Set<string>();
    const y = eb.get(key) ?? new Set<string>();
    const [service, pp, node, traffic] = key.split("|") as [string, string, string, "internal" | "external"];
    const [port, protocol] = pp.split("/") as [string, Protocol];
    for (const e of y)
      if (!x.has(e))
        endpoints.push({
          service,
          port: Number(port),
          protocol,
          node,
          traffic,
          endpoint: e,
          change: "appears",
        });
    for (const e of x)
      if (!y.has(e))
        endpoints.push({
          service,
          port: Number(port),
          protocol,
          node,
          traffic,
          endpoint: e,
          change: "vanishes",
        });
  }

  const order = (f: FlowChange) =>
    `${f.change === "gained" ? 0 : 1}|${f.to}|${String(f.port).padStart(5, "0")}|${f.from}`;
  flows.sort((p, q) => (order(p) < order(q) ? -1 : order(p) > order(q) ? 1 : 0));
  const eorder = (e: EndpointChange) =>
    `${e.service}|${String(e.port).padStart(5, "0")}|${e.traffic}|${e.node}|${e.change}|${e.endpoint}`;
  endpoints.sort((p, q) => (eorder(p) < eorder(q) ? -1 : eorder(p) > eorder(q) ? 1 : 0));
  const counts: InputDiff["counts"] = {
    gained: podGained + svcGained,
    lost: podLost + svcLost,
    podFlowsGained: podGained,
    podFlowsLost: podLost,
    serviceFlowsGained: svcGained,
    serviceFlowsLost: svcLost,
    endpointsAppear: endpoints.filter((e) => e.change === "appears").length,
    endpointsVanish: endpoints.filter((e) => e.change === "vanishes").length,
    workloadsAdded: workloads.filter((w) => w.change === "added").length,
    workloadsRemoved: workloads.filter((w) => w.change === "removed").length,
    workloadsChanged: workloads.filter((w) => w.change === "changed").length,
  };
  return { summary: summarizeDiff(counts), counts, pods: match.pods, flows, workloads, endpoints, truncated };
}

/** Compares two inputs (before, after). */
export function diffInputs(
  before: readonly InputFile[],
  after: readonly InputFile[],
  options: DiffOptions = {},
): InputDiff {
  const build = options.cni ? { cni: options.cni } : {};
  return diffModels(
    buildModel(parseManifests(before), build),
    buildModel(parseManifests(after), build),
    options,
  );
}

/** Compares two editor texts. */
export function diffTexts(
  before: string,
  after: string,
  file = "manifests.yaml",
  options: DiffOptions = {},
): InputDiff {
  return diffInputs([{ name: file, text: before }], [{ name: file, text: after }], options);
}
