/**
 * Builders for tests: Kubernetes objects as plain values, written out as one
 * multi-doc input, so tests read like the manifests they stand for.
 * Named after upstream's test helpers (makeTestService,
 * makeTestEndpointSlice) and its conventions (proxier_test.go: node
 * "test-node" at 192.168.0.2, pod IPs in 10.0.0.0/8, endpoints 10.180.x.y).
 */
import { buildModel } from "../load/index.ts";
import { parseManifests } from "../parse/manifests.ts";
import type { Model } from "../model/types.ts";

type Obj = Record<string, unknown>;

export function makeNode(
  name: string,
  ip: string,
  opts: {
    zone?: string;
    podCIDR?: string;
    cpu?: string;
    ready?: boolean;
    labels?: Record<string, string>;
  } = {},
): Obj {
  const labels: Record<string, string> = { "kubernetes.io/hostname": name, ...opts.labels };
  if (opts.zone) labels["topology.kubernetes.io/zone"] = opts.zone;
  const status: Obj = {
    addresses: [{ type: "InternalIP", address: ip }],
    conditions: [{ type: "Ready", status: opts.ready === false ? "False" : "True" }],
  };
  if (opts.cpu) status.allocatable = { cpu: opts.cpu };
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name, labels },
    spec: opts.podCIDR ? { podCIDR: opts.podCIDR } : {},
    status,
  };
}

export interface PodOpts {
  node: string;
  ip?: string;
  ips?: string[];
  labels?: Record<string, string>;
  ports?: { name?: string; containerPort: number; protocol?: string; hostPort?: number }[];
  ready?: boolean;
  phase?: string;
  terminating?: boolean;
  hostNetwork?: boolean;
  sidecarPorts?: { name?: string; containerPort: number; protocol?: string }[];
}

export function makePod(ns: string, name: string, o: PodOpts): Obj {
  const metadata: Obj = { name, namespace: ns, labels: o.labels ?? {} };
  if (o.terminating) metadata.deletionTimestamp = "2025-01-01T00:00:00Z";
  const spec: Obj = {
    nodeName: o.node,
    containers: [{ name: "c", image: "registry.k8s.io/e2e-test-images/agnhost:2.53", ports: o.ports ?? [] }],
  };
  if (o.hostNetwork) spec.hostNetwork = true;
  if (o.sidecarPorts)
    spec.initContainers = [{ name: "sidecar", image: "x", restartPolicy: "Always", ports: o.sidecarPorts }];
  const ips = o.ips ?? (o.ip ? [o.ip] : []);
  const status: Obj = {
    phase: o.phase ?? "Running",
    conditions: [{ type: "Ready", status: o.ready === false ? "False" : "True" }],
  };
  if (ips.length) {
    status.podIP = ips[0];
    status.podIPs = ips.map((ip) => ({ ip }));
  }
  return { apiVersion: "v1", kind: "Pod", metadata, spec, status };
}

/** makeTestService: a Service with `spec` merged in (and `status` when given). */
export function makeService(
  ns: string,
  name: string,
  spec: Obj,
  extra: { status?: Obj; annotations?: Record<string, string> } = {},
): Obj {
  const metadata: Obj = { name, namespace: ns };
  if (extra.annotations) metadata.annotations = extra.annotations;
  const out: Obj = { apiVersion: "v1", kind: "Service", metadata, spec };
  if (extra.status) out.status = extra.status;
  return out;
}

export interface SliceEndpoint {
  ip: string;
  node?: string;
  zone?: string;
  ready?: boolean;
  serving?: boolean;
  terminating?: boolean;
  forZones?: string[];
  forNodes?: string[];
  pod?: string;
}

/** makeTestEndpointSlice: conditions are written only when given (absent reads as kube-proxy's defaults). */
export function makeSlice(
  ns: string,
  service: string,
  name: string,
  ports: { name?: string; port?: number; protocol?: string }[],
  endpoints: SliceEndpoint[],
  addressType = "IPv4",
): Obj {
  return {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: { name, namespace: ns, labels: { "kubernetes.io/service-name": service } },
    addressType,
    ports: ports.map((p) => ({
      name: p.name ?? "",
      protocol: p.protocol ?? "TCP",
      ...(p.port !== undefined ? { port: p.port } : {}),
    })),
    endpoints: endpoints.map((e) => {
      const c: Obj = {};
      if (e.ready !== undefined) c.ready = e.ready;
      if (e.serving !== undefined) c.serving = e.serving;
      if (e.terminating !== undefined) c.terminating = e.terminating;
      const out: Obj = { addresses: [e.ip], conditions: c };
      if (e.node) out.nodeName = e.node;
      if (e.zone) out.zone = e.zone;
      if (e.forZones || e.forNodes)
        out.hints = {
          ...(e.forZones ? { forZones: e.forZones.map((n) => ({ name: n })) } : {}),
          ...(e.forNodes ? { forNodes: e.forNodes.map((n) => ({ name: n })) } : {}),
        };
      if (e.pod) out.targetRef = { kind: "Pod", namespace: ns, name: e.pod };
      return out;
    }),
  };
}

export function makePolicy(ns: string, name: string, spec: Obj): Obj {
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata: { name, namespace: ns },
    spec,
  };
}

export function yamlOf(objects: Obj[]): string {
  return objects.map((o) => JSON.stringify(o, null, 1)).join("\n---\n");
}

export function modelOf(objects: Obj[]): Model {
  return buildModel(parseManifests([{ name: "test.yaml", text: yamlOf(objects) }]));
}
