/**
 * JSON Schema (draft-07) for the kinds the engine reads, for monaco-yaml's
 * completion, hover documentation and type checks. Field names and meanings
 * follow the Kubernetes API reference (core/v1, apps/v1, batch/v1,
 * discovery.k8s.io/v1, networking.k8s.io/v1); unknown fields stay allowed:
 * the engine's own validation (src/engine/validate) reports what the
 * apiserver would reject.
 */
import { L7_KINDS } from "./schemasL7.ts";

type Schema = Record<string, unknown>;

const str = (description: string, extra: Schema = {}): Schema => ({ type: "string", description, ...extra });
const int = (description: string, extra: Schema = {}): Schema => ({ type: "integer", description, ...extra });
const bool = (description: string): Schema => ({ type: "boolean", description });
const strMap = (description: string): Schema => ({
  type: "object",
  description,
  additionalProperties: { type: ["string", "number", "boolean"] },
});
const ref = (name: string, description?: string): Schema =>
  description ? { $ref: `#/definitions/${name}`, description } : { $ref: `#/definitions/${name}` };
const list = (items: Schema, description: string): Schema => ({ type: "array", description, items });
const obj = (properties: Record<string, Schema>, description?: string, required?: string[]): Schema => ({
  type: "object",
  ...(description ? { description } : {}),
  properties,
  ...(required ? { required } : {}),
});

const PROTOCOL = str("Network protocol: TCP (the default), UDP or SCTP.", {
  enum: ["TCP", "UDP", "SCTP"],
  default: "TCP",
});
const INT_OR_STRING = (description: string): Schema => ({ type: ["integer", "string"], description });

const definitions: Record<string, Schema> = {
  ObjectMeta: obj(
    {
      name: str("Name of the object, unique within its namespace (and kind)."),
      namespace: str("Namespace of the object. Absent means `default` for namespaced kinds."),
      labels: strMap(
        "Labels: the key/value pairs that selectors (Services, NetworkPolicies, workloads) match.",
      ),
      annotations: strMap("Annotations, e.g. `service.kubernetes.io/topology-mode: Auto` on a Service."),
      ownerReferences: list(
        obj({
          kind: str("Kind of the owner."),
          name: str("Name of the owner."),
          controller: bool("This owner is the managing controller."),
        }),
        "Objects this one belongs to; the controller owner names a pod's workload.",
      ),
      deletionTimestamp: str("Set when the object is being deleted: a pod with it is terminating."),
      generateName: str("Prefix for a generated name when `name` is absent."),
    },
    "Standard object metadata.",
  ),
  LabelSelector: obj(
    {
      matchLabels: strMap("Every key must have exactly this value (ANDed with matchExpressions)."),
      matchExpressions: list(
        obj(
          {
            key: str("Label key."),
            operator: str("In, NotIn, Exists or DoesNotExist.", {
              enum: ["In", "NotIn", "Exists", "DoesNotExist"],
            }),
            values: list(
              { type: "string" },
              "Values for In and NotIn; must be empty for Exists and DoesNotExist.",
            ),
          },
          undefined,
          ["key", "operator"],
        ),
        "Requirements, all of which must hold.",
      ),
    },
    "A label query. An empty selector `{}` matches everything.",
  ),
  ContainerPort: obj(
    {
      name: str(
        "Name of the port (IANA_SVC_NAME), used by Service targetPort and NetworkPolicy ports by name.",
      ),
      containerPort: int("Port the container listens on, 1-65535.", { minimum: 1, maximum: 65535 }),
      protocol: PROTOCOL,
      hostPort: int("Port exposed on the node's IP as well."),
    },
    undefined,
    ["containerPort"],
  ),
  Container: obj(
    {
      name: str("Container name, unique in the pod."),
      image: str("Container image."),
      ports: list(
        ref("ContainerPort"),
        "Ports the container serves. Informational for the cluster, but Services and NetworkPolicies resolve named ports here.",
      ),
      restartPolicy: str(
        "`Always` on an init container makes it a sidecar that keeps running and serves its ports.",
        { enum: ["Always"] },
      ),
    },
    undefined,
    ["name"],
  ),
  PodSpec: obj(
    {
      nodeName: str(
        "Node the pod runs on. Absent: the engine places it like the scheduler would (fewest pods among eligible nodes).",
      ),
      nodeSelector: strMap("Labels a node must have to run the pod."),
      affinity: {
        type: "object",
        description:
          "Node affinity: requiredDuringSchedulingIgnoredDuringExecution terms restrict which nodes may run the pod.",
      },
      hostNetwork: bool(
        "Use the node's network namespace: the pod has the node's IP and NetworkPolicy does not apply to it.",
      ),
      containers: list(ref("Container"), "The pod's containers."),
      initContainers: list(
        ref("Container"),
        "Init containers; those with `restartPolicy: Always` are sidecars.",
      ),
    },
    "What runs in the pod and where.",
  ),
  PodTemplate: obj(
    { metadata: ref("ObjectMeta"), spec: ref("PodSpec") },
    "The pods this workload creates: their labels and spec.",
  ),
  WorkloadSpec: obj(
    {
      replicas: int("How many pods to run (default 1).", { minimum: 0 }),
      selector: ref("LabelSelector", "Which pods belong to the workload; must match the template's labels."),
      template: ref("PodTemplate"),
      serviceName: str("StatefulSet: the headless Service that gives pods their DNS names."),
    },
    undefined,
  ),
  ServicePort: obj(
    {
      name: str("Port name; required when the Service has more than one port. EndpointSlices refer to it."),
      protocol: PROTOCOL,
      port: int("The port the Service listens on (on its ClusterIP).", { minimum: 1, maximum: 65535 }),
      targetPort: INT_OR_STRING(
        "The pod port traffic goes to: a number, or the name of a container port (resolved per pod). Default: the same as `port`.",
      ),
      nodePort: int("NodePort and LoadBalancer: the port opened on every node (30000-32767 by default)."),
      appProtocol: str("Application protocol hint (e.g. `http`, `kubernetes.io/h2c`)."),
    },
    undefined,
    ["port"],
  ),
  ServiceSpec: obj(
    {
      type: str(
        "ClusterIP (default): inside the cluster. NodePort: also on every node's IP. LoadBalancer: also through a cloud load balancer. ExternalName: a DNS alias.",
        {
          enum: ["ClusterIP", "NodePort", "LoadBalancer", "ExternalName"],
        },
      ),
      selector: strMap(
        "Pods with these labels become the Service's endpoints. Absent: endpoints come from EndpointSlices you write.",
      ),
      ports: list(ref("ServicePort"), "The Service's ports."),
      clusterIP: str("The virtual IP; `None` makes the Service headless (no proxying)."),
      clusterIPs: list({ type: "string" }, "The virtual IPs, one per IP family."),
      externalIPs: list({ type: "string" }, "Extra IPs that kube-proxy accepts traffic for on every node."),
      loadBalancerIP: str("Deprecated: the requested load balancer IP."),
      externalTrafficPolicy: str(
        "Cluster (default): any node forwards to any endpoint, the client IP is masqueraded. Local: only endpoints on the receiving node, the client IP is kept; nodes without one drop.",
        {
          enum: ["Cluster", "Local"],
        },
      ),
      internalTrafficPolicy: str(
        "Cluster (default): any endpoint. Local: only endpoints on the client's node; with none there, the traffic is dropped.",
        { enum: ["Cluster", "Local"] },
      ),
      trafficDistribution: str(
        "Prefer endpoints close to the client: PreferSameZone (same zone), PreferSameNode (same node, then zone), falling back to all. PreferClose is the deprecated alias of PreferSameZone in 1.35 (KEP-3015) and behaves the same.",
        {
          enum: ["PreferClose", "PreferSameZone", "PreferSameNode"],
        },
      ),
      sessionAffinity: str("ClientIP: the same client IP goes to the same endpoint.", {
        enum: ["None", "ClientIP"],
      }),
      sessionAffinityConfig: obj({
        clientIP: obj({ timeoutSeconds: int("Affinity timeout (default 10800).") }),
      }),
      publishNotReadyAddresses: bool("Treat endpoints as ready even when their pods are not."),
      healthCheckNodePort: int("externalTrafficPolicy Local: the node port load balancers probe."),
      externalName: str("ExternalName: the DNS name this Service aliases."),
      ipFamilies: list({ type: "string", enum: ["IPv4", "IPv6"] }, "IP families of the Service."),
      ipFamilyPolicy: str("SingleStack, PreferDualStack or RequireDualStack.", {
        enum: ["SingleStack", "PreferDualStack", "RequireDualStack"],
      }),
    },
    "How the Service is reached and which pods serve it.",
  ),
  NetworkPolicyPeer: obj(
    {
      podSelector: ref(
        "LabelSelector",
        "Pods (in the policy's namespace, or in the namespaces namespaceSelector matches).",
      ),
      namespaceSelector: ref(
        "LabelSelector",
        "Namespaces by label; `{}` means all namespaces. With podSelector in the same entry: both must match.",
      ),
      ipBlock: obj(
        {
          cidr: str("An IP range such as 10.0.0.0/16."),
          except: list({ type: "string" }, "Ranges inside cidr to leave out."),
        },
        "Addresses by CIDR (for traffic from or to outside the cluster; pod IPs match too).",
        ["cidr"],
      ),
    },
    "One peer. Separate entries are ORed; selectors inside one entry are ANDed.",
  ),
  NetworkPolicyPort: obj(
    {
      protocol: PROTOCOL,
      port: INT_OR_STRING(
        "A port number or a named container port of the destination. Absent: every port of the protocol.",
      ),
      endPort: int("With a numeric port: the range port..endPort."),
    },
    "A port the rule allows.",
  ),
  NetworkPolicySpec: obj(
    {
      podSelector: ref(
        "LabelSelector",
        "The pods in this namespace the policy applies to; `{}` selects all of them.",
      ),
      policyTypes: list(
        { type: "string", enum: ["Ingress", "Egress"] },
        "Directions the policy isolates. Default: Ingress, plus Egress when the policy has egress rules.",
      ),
      ingress: list(
        obj({
          from: list(ref("NetworkPolicyPeer"), "Sources; empty or absent: every source."),
          ports: list(ref("NetworkPolicyPort"), "Ports; empty or absent: every port."),
        }),
        "Allowed incoming traffic. Selected pods accept only what some rule of some policy allows.",
      ),
      egress: list(
        obj({
          to: list(ref("NetworkPolicyPeer"), "Destinations; empty or absent: every destination."),
          ports: list(ref("NetworkPolicyPort"), "Ports; empty or absent: every port."),
        }),
        "Allowed outgoing traffic.",
      ),
    },
    "Which pods the policy isolates and what it allows. Policies add up: a connection is allowed if any policy allows it.",
    ["podSelector"],
  ),
};

const KINDS: {
  kind: string;
  apiVersion: string | string[];
  description: string;
  properties: Record<string, Schema>;
}[] = [
  ...L7_KINDS,
  {
    kind: "Namespace",
    apiVersion: "v1",
    description:
      "A namespace. Its labels are what NetworkPolicy namespaceSelectors match (plus kubernetes.io/metadata.name).",
    properties: {},
  },
  {
    kind: "Node",
    apiVersion: "v1",
    description: "A node. Its topology.kubernetes.io/zone label places it in a zone.",
    properties: {
      spec: obj({
        podCIDR: str("The node's pod IP range."),
        podCIDRs: list({ type: "string" }, "Pod IP ranges, one per family."),
        unschedulable: bool("Cordoned: new pods are not placed here."),
      }),
      status: obj({
        addresses: list(
          obj({
            type: str("InternalIP, ExternalIP or Hostname.", {
              enum: ["InternalIP", "ExternalIP", "Hostname", "InternalDNS", "ExternalDNS"],
            }),
            address: str("The address."),
          }),
          "The node's addresses.",
        ),
        conditions: list(
          obj({
            type: str("Condition type, e.g. Ready."),
            status: str("True, False or Unknown.", { enum: ["True", "False", "Unknown"] }),
          }),
          "Node conditions.",
        ),
      }),
    },
  },
  {
    kind: "Pod",
    apiVersion: "v1",
    description: "A pod: its labels, ports and node decide what reaches it.",
    properties: {
      spec: ref("PodSpec"),
      status: obj({
        phase: str("Pending, Running, Succeeded, Failed or Unknown.", {
          enum: ["Pending", "Running", "Succeeded", "Failed", "Unknown"],
        }),
        podIP: str("The pod's IP."),
        podIPs: list(obj({ ip: str("An IP of the pod.") }), "The pod's IPs, one per family."),
        conditions: list(
          obj({
            type: str("Condition type, e.g. Ready."),
            status: str("True or False.", { enum: ["True", "False", "Unknown"] }),
          }),
          "Pod conditions; Ready decides whether it is a ready endpoint.",
        ),
      }),
    },
  },
  ...(["Deployment", "StatefulSet", "ReplicaSet", "DaemonSet"] as const).map((kind) => ({
    kind,
    apiVersion: "apps/v1",
    description: `A ${kind}: the engine creates the pods it would run.`,
    properties: { spec: ref("WorkloadSpec") },
  })),
  {
    kind: "ReplicationController",
    apiVersion: "v1",
    description: "A ReplicationController: the engine creates the pods it would run.",
    properties: { spec: ref("WorkloadSpec") },
  },
  {
    kind: "Job",
    apiVersion: "batch/v1",
    description: "A Job: its parallelism is the number of pods.",
    properties: { spec: obj({ parallelism: int("Pods running at once."), template: ref("PodTemplate") }) },
  },
  {
    kind: "CronJob",
    apiVersion: "batch/v1",
    description: "A CronJob: the engine models the pods of one run.",
    properties: {
      spec: obj({
        schedule: str("Cron schedule."),
        jobTemplate: obj({
          spec: obj({ parallelism: int("Pods running at once."), template: ref("PodTemplate") }),
        }),
      }),
    },
  },
  {
    kind: "Service",
    apiVersion: "v1",
    description:
      "A Service: a stable address that kube-proxy spreads over the ready pods its selector matches.",
    properties: { spec: ref("ServiceSpec") },
  },
  {
    kind: "EndpointSlice",
    apiVersion: "discovery.k8s.io/v1",
    description:
      "Endpoints of a Service (label kubernetes.io/service-name). Written by hand for Services without a selector.",
    properties: {
      addressType: str("IPv4, IPv6 or FQDN.", { enum: ["IPv4", "IPv6", "FQDN"] }),
      endpoints: list(
        obj({
          addresses: list({ type: "string" }, "The endpoint's addresses."),
          conditions: obj({
            ready: bool("Ready to serve."),
            serving: bool("Serving, even while terminating."),
            terminating: bool("Terminating."),
          }),
          nodeName: str("Node of the endpoint."),
          zone: str("Zone of the endpoint."),
          hints: obj({
            forZones: list(
              obj({ name: str("Zone name.") }),
              "Zones this endpoint serves (topology-aware routing).",
            ),
            forNodes: list(obj({ name: str("Node name.") }), "Nodes this endpoint serves."),
          }),
          targetRef: obj({
            kind: str("Usually Pod."),
            name: str("Pod name."),
            namespace: str("Pod namespace."),
          }),
        }),
        "The endpoints.",
      ),
      ports: list(
        obj({
          name: str("Matches the Service port's name."),
          port: int("The endpoint port."),
          protocol: PROTOCOL,
        }),
        "Ports of the endpoints.",
      ),
    },
  },
  {
    kind: "NetworkPolicy",
    apiVersion: "networking.k8s.io/v1",
    description: "A NetworkPolicy: isolates the pods it selects and allows what its rules list.",
    properties: { spec: ref("NetworkPolicySpec") },
  },
];

const versionsOf = (k: (typeof KINDS)[number]): string[] =>
  Array.isArray(k.apiVersion) ? k.apiVersion : [k.apiVersion];
/** Kinds that more than one API group defines (NetworkPolicy: networking.k8s.io and projectcalico.org): told apart by apiVersion. */
const SHARED_KINDS = new Set(
  KINDS.filter((k, i) => KINDS.findIndex((x) => x.kind === k.kind) !== i).map((k) => k.kind),
);

export const KUBERNETES_SCHEMA: Schema = {
  $schema: "http://json-schema.org/draft-07/schema#",
  title: "Kubernetes objects that Kube Traffic Lab reads",
  type: "object",
  properties: {
    apiVersion: str("API group and version of the object.", {
      enum: [...new Set(KINDS.flatMap(versionsOf))],
    }),
    kind: str("Kind of the object.", { enum: [...new Set([...KINDS.map((k) => k.kind), "List"])] }),
    metadata: ref("ObjectMeta"),
  },
  allOf: KINDS.map((k) => {
    const versions = versionsOf(k);
    const shared = SHARED_KINDS.has(k.kind);
    return {
      if: shared
        ? {
            properties: { kind: { const: k.kind }, apiVersion: { enum: versions } },
            required: ["kind", "apiVersion"],
          }
        : { properties: { kind: { const: k.kind } }, required: ["kind"] },
      then: {
        description: k.description,
        properties: {
          ...(shared
            ? {}
            : {
                apiVersion:
                  versions.length === 1
                    ? { const: versions[0], description: `${k.kind} is in ${versions[0]}.` }
                    : { enum: versions, description: `${k.kind} is in ${versions.join(" or ")}.` },
              }),
          ...k.properties,
        },
      },
    };
  }),
  definitions,
};

export const SCHEMA_URI = "https://kube-traffic-lab.invalid/schemas/kubernetes-subset.json";
