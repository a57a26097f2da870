/**
 * Services and EndpointSlices in the model. Owned by the kube-proxy work
 * (issue 3): this file defines the shapes and builds them from the input.
 */
import type { KObject, SourceRef } from "../parse/manifests.ts";
import type { Diagnostic } from "../parse/diagnostics.ts";
import type { Json } from "../parse/values.ts";
import type { Node, Pod, Protocol, ClusterConfig } from "./types.ts";

export type ServiceType = "ClusterIP" | "NodePort" | "LoadBalancer" | "ExternalName";

export interface ServicePort {
  name: string;
  protocol: Protocol;
  port: number;
  /** A number, or the name of a container port (resolved per pod). */
  targetPort: number | string;
  nodePort?: number;
  line: number;
}

export interface Service {
  namespace: string;
  name: string;
  key: string;
  type: ServiceType;
  headless: boolean;
  clusterIPs: string[];
  selector: Record<string, string> | undefined;
  ports: ServicePort[];
  externalIPs: string[];
  loadBalancerIPs: string[];
  externalName?: string;
  internalTrafficPolicy: "Cluster" | "Local";
  externalTrafficPolicy: "Cluster" | "Local";
  healthCheckNodePort?: number;
  sessionAffinity: "None" | "ClientIP";
  sessionAffinityTimeoutSeconds: number;
  trafficDistribution?: string;
  /** service.kubernetes.io/topology-mode (or the older topology-aware-hints) annotation. */
  topologyMode?: string;
  publishNotReadyAddresses: boolean;
  source: SourceRef;
  raw: Json;
}

export interface Endpoint {
  addresses: string[];
  ready: boolean;
  serving: boolean;
  terminating: boolean;
  nodeName?: string;
  zone?: string;
  hints?: { forZones: string[]; forNodes: string[] };
  /** "namespace/name" of the pod behind it, when known. */
  pod?: string;
  line: number;
}

export interface EndpointSlice {
  namespace: string;
  name: string;
  serviceName: string;
  addressType: string;
  ports: { name: string; port: number; protocol: Protocol }[];
  endpoints: Endpoint[];
  /** Derived from the Service selector rather than given in the input. */
  derived: boolean;
  source: SourceRef;
}

export interface ServiceBuild {
  services: Service[];
  endpointSlices: EndpointSlice[];
}

/** Builds Services and their EndpointSlices. Placeholder until the proxy work lands. */
export function buildServices(
  _objects: readonly KObject[],
  _pods: readonly Pod[],
  _nodes: readonly Node[],
  _config: ClusterConfig,
  _diagnostics: Diagnostic[],
): ServiceBuild {
  return { services: [], endpointSlices: [] };
}
