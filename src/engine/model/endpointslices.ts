/**
 * EndpointSlices for each Service: every slice kube-proxy would read (all
 * slices labelled kubernetes.io/service-name for it, whoever manages them):
 *
 * 1. EndpointSlices written in the input are taken exactly as written, for
 *    the Service named by their kubernetes.io/service-name label. Conditions
 *    are read as kube-proxy reads them (pkg/proxy/endpointslicecache.go
 *    newEndpointSliceInfo): ready and serving default to true, terminating
 *    to false.
 *    A slice labelled endpointslice.kubernetes.io/managed-by with a
 *    controller's name is that controller's state (an export of a cluster),
 *    so the model derives nothing for it in 2 or 3; slices with another
 *    manager or none sit beside the controller's, which lists only slices
 *    labelled managed-by itself (endpointslice_controller.go syncService,
 *    endpointslicemirroring).
 * 2. For a Service with a selector (and not ExternalName), the
 *    slices the EndpointSlice controller would write
 *    (staging/src/k8s.io/endpointslice reconciler.go, utils.go): every pod
 *    in the namespace matching the selector, with an IP and not Succeeded or
 *    Failed (ShouldPodBeInEndpoints, terminating pods included); one slice
 *    per address family and per distinct set of resolved ports (a named
 *    targetPort resolves per pod through FindPort: containers, then sidecar
 *    init containers, same name and protocol; a pod without the name is left
 *    out of that port); conditions from podToEndpoint: serving = pod Ready,
 *    terminating = deletionTimestamp set, ready = publishNotReadyAddresses or
 *    (serving and not terminating); zone from the node's
 *    topology.kubernetes.io/zone label.
 *    Hints: the topology-mode Auto annotation runs the topology cache
 *    (topologycache.go AddHints: zones weighted by allocatable CPU of ready
 *    nodes, control-plane nodes excluded, at most 20% overload, otherwise no
 *    hints) and wins over spec.trafficDistribution; PreferClose,
 *    PreferSameZone and PreferSameNode give each ready endpoint a hint for
 *    its own zone, and PreferSameNode also for its own node
 *    (trafficdist.go preferCloseHeuristic).
 * 3. For a Service without a selector, a legacy Endpoints object
 *    of the same name is mirrored (endpointslicemirroring addressToEndpoint:
 *    addresses ready, notReadyAddresses not ready, nothing else set), unless
 *    it carries endpointslice.kubernetes.io/skip-mirror: "true".
 *
 * Left out, because kube-proxy's choice does not depend on them: the
 * 100-endpoint split of slices and the empty placeholder slice, endpoint
 * hostnames (ShouldSetHostname, DNS only). The topology cache runs from
 * scratch (upstream counts hints already on unchanged slices, so its result
 * depends on history) and sees the model's nodes, where a node without a
 * Ready condition counts as ready (upstream isNodeReady would skip it).
 * Zone order, settled from upstream (topologycache.go getMost and
 * redistributeHints range over Go maps): upstream's order is unspecified,
 * so when several zones could give or receive an endpoint, which one does
 * may differ from one controller run to the next; endpoints are visited in
 * slice order, as upstream does. ktl takes zones in name order, which gives
 * one of the outcomes upstream can produce; with one giving and one
 * receiving zone (the usual skew) the outcome is the only one.
 */
import type { KObject, SourceRef } from "../parse/manifests.ts";
import { refOf } from "../parse/manifests.ts";
import type { Diagnostic } from "../parse/diagnostics.ts";
import { arr, bool, int, isObj, obj, str, strList, strMap } from "../parse/values.ts";
import { lineOf } from "../parse/positions.ts";
import type {
  ContainerPort,
  Endpoint,
  EndpointHints,
  EndpointSlice,
  EndpointSlicePort,
  Node,
  Pod,
  Protocol,
  Service,
  ServicePort,
} from "./types.ts";
import { parseIP, type Family } from "./ip.ts";
import { safeSuffix } from "./hash.ts";
import { podKey } from "./ids.ts";

export const SERVICE_NAME_LABEL = "kubernetes.io/service-name";
export const MANAGED_BY_LABEL = "endpointslice.kubernetes.io/managed-by";
const SKIP_MIRROR_LABEL = "endpointslice.kubernetes.io/skip-mirror";
const CONTROLLER_NAME = "endpointslice-controller.k8s.io";
const MIRROR_NAME = "endpointslicemirroring-controller.k8s.io";
/** topologycache.go overloadThreshold */
const OVERLOAD_THRESHOLD = 0.2;

function protocolOf(v: unknown): Protocol {
  const p = str(v);
  return p === "UDP" || p === "SCTP" ? p : "TCP";
}

function sliceRef(o: KObject, line: number): SourceRef {
  return { ...refOf(o, line), namespace: o.namespace ?? "default" };
}

function parseInputSlice(o: KObject): EndpointSlice {
  const raw = o.raw;
  const labels = strMap(obj(raw.metadata)?.labels);
  const portList = arr(raw.ports);
  const ports: EndpointSlicePort[] = [];
  portList.forEach((p, i) => {
    if (!isObj(p)) return;
    ports.push({
      name: str(p.name) ?? "",
      port: int(p.port),
      protocol: protocolOf(p.protocol),
      line: lineOf(portList, i) || lineOf(p),
    });
  });
  const list = arr(raw.endpoints);
  const endpoints: Endpoint[] = [];
  list.forEach((e, i) => {
    if (!isObj(e)) return;
    const c = obj(e.conditions) ?? {};
    const line = lineOf(list, i) || lineOf(e);
    const ep: Endpoint = {
      addresses: strList(e.addresses),
      ready: bool(c.ready) ?? true,
      serving: bool(c.serving) ?? true,
      terminating: bool(c.terminating) ?? false,
      line,
      ref: sliceRef(o, line),
    };
    const nodeName = str(e.nodeName);
    if (nodeName) ep.nodeName = nodeName;
    const zone = str(e.zone);
    if (zone) ep.zone = zone;
    const h = obj(e.hints);
    if (h) {
      const names = (v: unknown) =>
        arr(v)
          .filter(isObj)
          .map((z) => str(z.name))
          .filter((n): n is string => !!n);
      ep.hints = { forZones: names(h.forZones), forNodes: names(h.forNodes) };
    }
    const t = obj(e.targetRef);
    if (t && (str(t.kind) ?? "Pod") === "Pod" && str(t.name))
      ep.pod = podKey(str(t.namespace) ?? o.namespace ?? "default", str(t.name)!);
    endpoints.push(ep);
  });
  const slice: EndpointSlice = {
    namespace: o.namespace ?? "default",
    name: o.name,
    serviceName: labels[SERVICE_NAME_LABEL] ?? "",
    addressType: str(raw.addressType) ?? "IPv4",
    ports,
    endpoints,
    derived: false,
    origin: "input",
    source: sliceRef(o, o.line),
  };
  if (labels[MANAGED_BY_LABEL]) slice.managedBy = labels[MANAGED_BY_LABEL];
  return slice;
}

/** staging/src/k8s.io/endpointslice utils.go FindPort. */
export function findPort(pod: Pod, port: ServicePort): number | undefined {
  if (typeof port.targetPort === "number") return port.targetPort;
  const named = pod.ports.find((p) => p.name === port.targetPort && p.protocol === port.protocol);
  return named?.containerPort;
}

function familyOf(ip: string): Family | undefined {
  return parseIP(ip)?.family;
}

/** The family of an address the model has already validated (pod IPs). */
function validFamily(ip: string): Family {
  return ip.includes(":") ? 6 : 4;
}

/** utils.go getAddressTypesForService: from ipFamilies, else the ClusterIP's family, else both (headless). */
function addressTypes(s: Service): Family[] {
  if (s.ipFamilies.length) return s.ipFamilies.map((f) => (f === "IPv6" ? 6 : 4));
  if (s.clusterIPs[0]) return [familyOf(s.clusterIPs[0]) ?? 4];
  return [4, 6];
}

interface NodeCapacity {
  cpuByZone: Map<string, number>;
  /** Why the topology cache has no ratios (topologycache.go SetNodes), or undefined when it has. */
  insufficient?: string;
}

/** resource.Quantity for CPU, in millicores; undefined when absent or unparsable. */
export function parseCpuMillis(v: unknown): number | undefined {
  if (typeof v === "number") return v * 1000;
  const s = str(v);
  if (!s) return undefined;
  const m = /^(\d+(?:\.\d+)?)(m|k|M|G)?$/.exec(s.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  const unit = m[2];
  if (unit === "m") return n;
  const scale = unit === "k" ? 1e3 : unit === "M" ? 1e6 : unit === "G" ? 1e9 : 1;
  return n * scale * 1000;
}

/** topologycache.go SetNodes: CPU by zone over ready nodes without control-plane labels. */
function nodeCapacity(objects: readonly KObject[], nodes: readonly Node[]): NodeCapacity {
  const cpuOf = new Map<string, number | undefined>();
  for (const o of objects)
    if (o.kind === "Node") cpuOf.set(o.name, parseCpuMillis(obj(obj(o.raw.status)?.allocatable)?.cpu));
  const cpuByZone = new Map<string, number>();
  let total = 0;
  for (const n of nodes) {
    if ("node-role.kubernetes.io/control-plane" in n.labels || "node-role.kubernetes.io/master" in n.labels)
      continue;
    if (!n.ready) continue;
    const cpu = cpuOf.get(n.name);
    if (!n.zone || !cpu) {
      return {
        cpuByZone: new Map(),
        insufficient: `Insufficient Node information: allocatable CPU or zone not specified on one or more nodes (node ${n.name} has ${n.zone ? "no status.allocatable.cpu" : "no topology.kubernetes.io/zone label"})`,
      };
    }
    total += cpu;
    cpuByZone.set(n.zone, (cpuByZone.get(n.zone) ?? 0) + cpu);
  }
  // SetNodes clears the ratios when the total is zero or fewer than two zones have CPU; getAllocations then reports InsufficientNodeInfo.
  if (total === 0)
    return {
      cpuByZone,
      insufficient:
        "Insufficient Node information: allocatable CPU or zone not specified on one or more nodes; no ready node has allocatable CPU",
    };
  if (cpuByZone.size < 2)
    return {
      cpuByZone,
      insufficient: `Insufficient Node information: allocatable CPU or zone not specified on one or more nodes; ready nodes with CPU are in one zone only: ${[...cpuByZone.keys()].join(", ")}`,
    };
  return { cpuByZone };
}

interface Allocation {
  minimum: number;
  maximum: number;
  desired: number;
}

/** topologycache.go getAllocations. */
function allocations(cap: NodeCapacity, numEndpoints: number): Map<string, Allocation> | string {
  if (cap.insufficient) return cap.insufficient;
  const zones = [...cap.cpuByZone.keys()].sort();
  if (zones.length > numEndpoints)
    return `Insufficient number of endpoints (${numEndpoints} endpoints, ${zones.length} zones)`;
  let total = 0;
  for (const z of zones) total += cap.cpuByZone.get(z)!;
  let remaining = numEndpoints;
  let minTotal = 0;
  const out = new Map<string, Allocation>();
  for (const z of zones) {
    const desired = (cap.cpuByZone.get(z)! / total) * numEndpoints;
    const minimum = Math.ceil(desired * (1 / (1 + OVERLOAD_THRESHOLD)));
    out.set(z, { minimum, maximum: 0, desired: Math.max(desired, minimum) });
    minTotal += minimum;
    remaining -= minimum;
    if (remaining < 0)
      return `Unable to allocate minimum required endpoints to each zone without exceeding overload threshold (${numEndpoints} endpoints, ${zones.length} zones)`;
  }
  for (const a of out.values()) a.maximum = a.minimum + numEndpoints - minTotal;
  return out;
}

function most(m: Map<string, number>): [string, number] {
  let zone = "",
    n = 0;
  for (const z of [...m.keys()].sort()) if (m.get(z)! > n) [zone, n] = [z, m.get(z)!];
  return [zone, n];
}

/**
 * topologycache.go AddHints over freshly derived slices: same-zone hints
 * first, then endpoints move from zones above their CPU share to zones
 * below it (zones in name order: one of upstream's possible map orders).
 */
function addAutoHints(slices: EndpointSlice[], cap: NodeCapacity): string | undefined {
  const ready = slices.flatMap((s) => s.endpoints.filter((e) => e.ready));
  const alloc = allocations(cap, ready.length);
  if (typeof alloc === "string") return alloc;
  const byZone = new Map<string, number>();
  for (const e of ready) {
    if (!e.zone) {
      for (const x of ready) delete x.hints;
      return "One or more endpoints do not have a zone specified";
    }
    byZone.set(e.zone, (byZone.get(e.zone) ?? 0) + 1);
    e.hints = { forZones: [e.zone], forNodes: [] };
  }
  const givingDesired = new Map<string, number>();
  const receivingDesired = new Map<string, number>();
  for (const [z, a] of alloc) {
    const have = byZone.get(z) ?? 0;
    if (have > a.desired) givingDesired.set(z, have - a.desired);
    else if (have < a.desired) receivingDesired.set(z, a.desired - have);
  }
  const giving = new Map<string, number>();
  const receiving = new Map<string, number>();
  for (;;) {
    const [gz, give] = most(givingDesired);
    const [rz, receive] = most(receivingDesired);
    if (gz === "" || rz === "" || (give < 1 && receive < 1) || give < 0.5 || receive < 0.5) break;
    giving.set(gz, (giving.get(gz) ?? 0) + 1);
    givingDesired.set(gz, give - 1);
    receiving.set(rz, (receiving.get(rz) ?? 0) + 1);
    receivingDesired.set(rz, receive - 1);
  }
  for (const e of ready) {
    if (giving.size === 0 || receiving.size === 0) break;
    const toGive = giving.get(e.zone!);
    if (!toGive) continue;
    const rz = [...receiving.keys()].sort().find((z) => receiving.get(z)! > 0);
    if (!rz) break;
    e.hints = { forZones: [rz], forNodes: [] };
    if (toGive === 1) giving.delete(e.zone!);
    else giving.set(e.zone!, toGive - 1);
    const left = receiving.get(rz)!;
    if (left === 1) receiving.delete(rz);
    else receiving.set(rz, left - 1);
  }
  return undefined;
}

/** trafficdist.go preferCloseHeuristic.update: own zone, and own node for PreferSameNode, on ready endpoints. */
function addCloseHints(slices: EndpointSlice[], sameNode: boolean): void {
  for (const s of slices)
    for (const e of s.endpoints) {
      if (!e.ready) continue;
      const h: EndpointHints = {
        forZones: e.zone ? [e.zone] : [],
        forNodes: sameNode && e.nodeName ? [e.nodeName] : [],
      };
      if (h.forZones.length || h.forNodes.length) e.hints = h;
    }
}

/** utils.go hintsEnabled: the older annotation wins, value Auto or auto. */
export function topologyAutoEnabled(s: Service): boolean {
  return s.topologyMode === "Auto" || s.topologyMode === "auto";
}

const CLOSE_DISTRIBUTIONS = new Set(["PreferClose", "PreferSameZone", "PreferSameNode"]);

/** Pods by namespace and value of one label key, built per key on first use: a selector starts from the pods carrying its first pair. */
class PodIndex {
  /** Label key -> namespace -> value -> pods (nested maps: no string is built per pod). */
  private readonly byKey = new Map<string, Map<string, Map<string, Pod[]>>>();
  constructor(private readonly pods: readonly Pod[]) {}
  withLabel(ns: string, k: string, v: string): Pod[] {
    let m = this.byKey.get(k);
    if (!m) {
      m = new Map();
      for (const p of this.pods) {
        const val = p.labels[k];
        if (val === undefined) continue;
        let inNs = m.get(p.namespace);
        if (!inNs) m.set(p.namespace, (inNs = new Map()));
        const l = inNs.get(val);
        if (l) l.push(p);
        else inNs.set(val, [p]);
      }
      this.byKey.set(k, m);
    }
    return m.get(ns)?.get(v) ?? [];
  }
}

function derive(
  s: Service,
  index: PodIndex,
  nodes: Map<string, Node>,
  capacity: () => NodeCapacity,
): EndpointSlice[] {
  const selector = s.selector!;
  const pairs = Object.entries(selector);
  const [k0, v0] = pairs[0]!;
  const candidates = index
    .withLabel(s.namespace, k0, v0)
    .filter((p) => pairs.every(([k, v]) => p.labels[k] === v));
  const slices: EndpointSlice[] = [];
  // A pod's slice ports and their group key depend on its container ports only: replicas of a template share that list.
  const portsOf = new Map<readonly ContainerPort[], { ports: EndpointSlicePort[]; key: string }>();
  const slicePorts = (pod: Pod) => {
    let hit = portsOf.get(pod.ports);
    if (hit) return hit;
    const ports: EndpointSlicePort[] = [];
    for (const sp of s.ports) {
      const n = findPort(pod, sp);
      // A pod without the named port is left out of that port's endpoints; lint KTL603 reports it with a fix.
      if (n === undefined) continue;
      ports.push({ name: sp.name, port: n, protocol: sp.protocol, line: sp.line });
    }
    const key = ports
      .map((p) => `${p.name}/${p.protocol}/${p.port}`)
      .sort()
      .join(",");
    portsOf.set(pod.ports, (hit = { ports, key }));
    return hit;
  };
  for (const family of addressTypes(s)) {
    const groups = new Map<string, { ports: EndpointSlicePort[]; endpoints: Endpoint[] }>();
    for (const pod of candidates) {
      // ShouldPodBeInEndpoints(pod, includeTerminating=true); a pod on an unknown node is skipped unless publishNotReadyAddresses.
      if (pod.phase === "Succeeded" || pod.phase === "Failed" || pod.ips.length === 0) continue;
      if (!pod.nodeName || (!nodes.has(pod.nodeName) && !s.publishNotReadyAddresses)) continue;
      const addresses = pod.ips.filter((ip) => validFamily(ip) === family);
      if (addresses.length === 0) continue;
      const { ports, key } = slicePorts(pod);
      let g = groups.get(key);
      if (!g) groups.set(key, (g = { ports, endpoints: [] }));
      const serving = pod.ready;
      const terminating = pod.terminating;
      const ep: Endpoint = {
        addresses,
        ready: s.publishNotReadyAddresses || (serving && !terminating),
        serving,
        terminating,
        nodeName: pod.nodeName,
        pod: pod.key,
        line: pod.source.line,
        ref: pod.source,
      };
      const zone = nodes.get(pod.nodeName)?.zone;
      if (zone) ep.zone = zone;
      g.endpoints.push(ep);
    }
    const familySlices: EndpointSlice[] = [];
    for (const [key, g] of groups) {
      familySlices.push({
        namespace: s.namespace,
        name: `${s.name}-${safeSuffix(`${s.key}|${family}|${key}`, 5)}`,
        serviceName: s.name,
        addressType: family === 4 ? "IPv4" : "IPv6",
        ports: g.ports,
        endpoints: g.endpoints,
        derived: true,
        origin: "controller",
        managedBy: CONTROLLER_NAME,
        source: { ...s.source, line: s.lines.selector || s.source.line },
      });
    }
    if (topologyAutoEnabled(s)) {
      const why = addAutoHints(familySlices, capacity());
      if (why) {
        for (const sl of familySlices) for (const e of sl.endpoints) delete e.hints;
        for (const sl of familySlices)
          sl.hintsNote = `topology-mode Auto: the EndpointSlice controller set no hints (${why})`;
      } else
        for (const sl of familySlices)
          sl.hintsNote = "topology-mode Auto: hints allocated by zone in proportion to allocatable CPU";
    } else if (s.trafficDistribution && CLOSE_DISTRIBUTIONS.has(s.trafficDistribution)) {
      addCloseHints(familySlices, s.trafficDistribution === "PreferSameNode");
      for (const sl of familySlices)
        sl.hintsNote = `trafficDistribution ${s.trafficDistribution}: each ready endpoint is hinted for its own zone${s.trafficDistribution === "PreferSameNode" ? " and node" : ""}`;
    }
    slices.push(...familySlices);
  }
  return slices;
}

function mirror(o: KObject, s: Service): EndpointSlice[] {
  const byKey = new Map<string, EndpointSlice>();
  const subsets = arr(o.raw.subsets);
  subsets.forEach((sub) => {
    if (!isObj(sub)) return;
    const portList = arr(sub.ports);
    const ports: EndpointSlicePort[] = portList.filter(isObj).map((p, i) => ({
      name: str(p.name) ?? "",
      port: int(p.port),
      protocol: protocolOf(p.protocol),
      line: lineOf(portList, i) || lineOf(p),
    }));
    const portsKey = ports
      .map((p) => `${p.name}/${p.protocol}/${p.port}`)
      .sort()
      .join(",");
    for (const [field, ready] of [
      ["addresses", true],
      ["notReadyAddresses", false],
    ] as const) {
      const list = arr(sub[field]);
      list.forEach((a, i) => {
        if (!isObj(a)) return;
        const ip = str(a.ip);
        const family = ip ? familyOf(ip) : undefined;
        if (!ip || !family) return;
        const key = `${family}|${portsKey}`;
        let slice = byKey.get(key);
        if (!slice) {
          slice = {
            namespace: s.namespace,
            name: `${s.name}-${safeSuffix(`${s.key}|mirror|${key}`, 5)}`,
            serviceName: s.name,
            addressType: family === 4 ? "IPv4" : "IPv6",
            ports,
            endpoints: [],
            derived: true,
            origin: "mirrored",
            managedBy: MIRROR_NAME,
            source: sliceRef(o, o.line),
          };
          byKey.set(key, slice);
        }
        const line = lineOf(list, i) || lineOf(a);
        // addressToEndpoint sets only Ready: serving reads as true and terminating as false.
        const ep: Endpoint = {
          addresses: [ip],
          ready,
          serving: true,
          terminating: false,
          line,
          ref: sliceRef(o, line),
        };
        const nodeName = str(a.nodeName);
        if (nodeName) ep.nodeName = nodeName;
        const t = obj(a.targetRef);
        if (t && (str(t.kind) ?? "Pod") === "Pod" && str(t.name))
          ep.pod = podKey(str(t.namespace) ?? s.namespace, str(t.name)!);
        slice.endpoints.push(ep);
      });
    }
  });
  return [...byKey.values()];
}

export function buildEndpointSlices(
  objects: readonly KObject[],
  services: readonly Service[],
  pods: readonly Pod[],
  nodes: readonly Node[],
  diagnostics: Diagnostic[],
): EndpointSlice[] {
  const out: EndpointSlice[] = [];
  const given = new Map<string, EndpointSlice[]>();
  const servicesByKey = new Map(services.map((s) => [s.key, s]));
  for (const o of objects) {
    if (o.kind !== "EndpointSlice") continue;
    const slice = parseInputSlice(o);
    out.push(slice);
    if (!slice.serviceName) {
      diagnostics.push({
        code: "KTL301",
        severity: "warning",
        file: o.file,
        doc: o.doc,
        line: o.line,
        column: 1,
        kind: o.kind,
        namespace: slice.namespace,
        name: o.name,
        message: `EndpointSlice ${slice.namespace}/${o.name} has no ${SERVICE_NAME_LABEL} label: kube-proxy ignores it`,
      });
      continue;
    }
    const key = `${slice.namespace}/${slice.serviceName}`;
    if (!servicesByKey.has(key)) {
      diagnostics.push({
        code: "KTL302",
        severity: "warning",
        file: o.file,
        doc: o.doc,
        line: o.line,
        column: 1,
        kind: o.kind,
        namespace: slice.namespace,
        name: o.name,
        message: `EndpointSlice ${slice.namespace}/${o.name} belongs to Service ${key}, which the input does not define: nothing routes to it`,
      });
    }
    const l = given.get(key);
    if (l) l.push(slice);
    else given.set(key, [slice]);
  }
  const endpointsObjects = new Map<string, KObject>();
  for (const o of objects)
    if (o.kind === "Endpoints") endpointsObjects.set(`${o.namespace ?? "default"}/${o.name}`, o);

  let podIndex: PodIndex | undefined;
  const nodesByName = new Map(nodes.map((n) => [n.name, n]));
  let cap: NodeCapacity | undefined;
  const capacity = () => (cap ??= nodeCapacity(objects, nodes));
  for (const s of services) {
    if (s.type === "ExternalName") continue;
    const managers = new Set((given.get(s.key) ?? []).map((sl) => sl.managedBy));
    if (s.selector) {
      if (!managers.has(CONTROLLER_NAME))
        out.push(...derive(s, (podIndex ??= new PodIndex(pods)), nodesByName, capacity));
      continue;
    }
    const eps = endpointsObjects.get(s.key);
    if (
      eps &&
      !managers.has(MIRROR_NAME) &&
      strMap(obj(eps.raw.metadata)?.labels)[SKIP_MIRROR_LABEL] !== "true"
    )
      out.push(...mirror(eps, s));
  }
  return out;
}
