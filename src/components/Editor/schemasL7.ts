/**
 * Editor schemas (completion and hover) for the policy and router kinds
 * beyond core Kubernetes: the CNIs' own policies (Cilium, Calico), the
 * cluster tiers (network-policy-api), Gateway API, Ingress and Istio. The
 * main fields with their upstream meaning; unknown fields stay allowed (the
 * engine reports what it does not evaluate). Sources: cilium pkg/policy/api
 * (rule.go, ingress.go, l4.go, http.go), projectcalico api/pkg/apis/
 * projectcalico/v3 (policy_common.go, tier.go), sigs.k8s.io/network-policy-api
 * apis/v1alpha1 and v1alpha2, gateway-api apis/v1 (gateway_types.go,
 * httproute_types.go, grpcroute_types.go), k8s networking/v1 Ingress, istio
 * api networking/v1alpha3 (virtual_service.proto, destination_rule.proto).
 */
type Schema = Record<string, unknown>;

const str = (description: string, extra: Schema = {}): Schema => ({ type: "string", description, ...extra });
const int = (description: string, extra: Schema = {}): Schema => ({ type: "integer", description, ...extra });
const bool = (description: string): Schema => ({ type: "boolean", description });
const strMap = (description: string): Schema => ({
  type: "object",
  description,
  additionalProperties: { type: ["string", "number", "boolean"] },
});
const list = (items: Schema, description: string): Schema => ({ type: "array", description, items });
const strs = (description: string, extra: Schema = {}): Schema =>
  list({ type: "string", ...extra }, description);
const obj = (properties: Record<string, Schema>, description?: string): Schema => ({
  type: "object",
  ...(description ? { description } : {}),
  properties,
});
const SELECTOR: Schema = { $ref: "#/definitions/LabelSelector" };
const sel = (description: string): Schema => ({ $ref: "#/definitions/LabelSelector", description });

// ---------- Cilium ----------

const CILIUM_ENTITIES = [
  "all",
  "world",
  "cluster",
  "host",
  "remote-node",
  "kube-apiserver",
  "init",
  "health",
  "unmanaged",
  "ingress",
];

const ciliumPorts = list(
  obj({
    ports: list(
      obj({
        port: str('Port number or name ("80", "http"); "0" means every port.'),
        endPort: int("Last port of a range starting at `port`."),
        protocol: str("TCP, UDP, SCTP or ANY (the default).", { enum: ["TCP", "UDP", "SCTP", "ANY"] }),
      }),
      "Ports the rule allows.",
    ),
    rules: obj(
      {
        http: list(
          obj({
            method: str("Regex matched against the whole method (GET, GET|POST)."),
            path: str("Regex matched against the whole path (/api/.*)."),
            host: str("Regex matched against the whole Host header."),
            headers: strs('Headers that must be present, "Name" or "Name: value".'),
          }),
          "L7 HTTP rules: the connection is allowed, and a request that no rule matches gets 403 from Cilium's proxy.",
        ),
        dns: list(obj({ matchName: str("DNS name."), matchPattern: str("Pattern with *.") }), "DNS rules."),
      },
      "L7 rules on these ports.",
    ),
  }),
  "Ports (and L7 rules) the rule allows; absent: every port.",
);

const ciliumRule = (dir: "from" | "to"): Schema =>
  obj({
    [`${dir}Endpoints`]: list(
      SELECTOR,
      `Pods by label. Without a k8s:io.kubernetes.pod.namespace label, only pods of the policy's own namespace; {} means every pod of that namespace (every pod, in a clusterwide policy).`,
    ),
    [`${dir}Entities`]: strs(
      "Named peers: world (outside the cluster), cluster, host, remote-node, kube-apiserver, all…",
      {
        enum: CILIUM_ENTITIES,
      },
    ),
    [`${dir}CIDR`]: strs("CIDRs (never matching pods or nodes of the cluster)."),
    [`${dir}CIDRSet`]: list(
      obj({ cidr: str("A CIDR."), except: strs("CIDRs carved out of it.") }),
      "CIDRs with exceptions.",
    ),
    [`${dir}Nodes`]: list(SELECTOR, "Nodes by label (needs enable-node-selector-labels)."),
    toPorts: ciliumPorts,
  });

const ciliumSpec = obj({
  description: str("Free text."),
  endpointSelector: sel(
    "The pods the policy applies to (in its namespace, or everywhere for a clusterwide policy).",
  ),
  nodeSelector: sel("Clusterwide only: the nodes (host firewall) the policy applies to."),
  ingress: list(
    ciliumRule("from"),
    "Allowed incoming traffic. A pod selected for ingress is in default deny.",
  ),
  ingressDeny: list(ciliumRule("from"), "Denied incoming traffic: deny wins over every allow."),
  egress: list(ciliumRule("to"), "Allowed outgoing traffic."),
  egressDeny: list(ciliumRule("to"), "Denied outgoing traffic: deny wins over every allow."),
  enableDefaultDeny: obj(
    {
      ingress: bool("Put selected pods in default deny for ingress (default true)."),
      egress: bool("Likewise for egress."),
    },
    "false: the policy only adds to what is allowed, without default deny.",
  ),
});

// ---------- Calico ----------

const calicoEntity = obj({
  selector: str(
    "Calico selector: app == 'web' && has(tier), in {…}, contains, starts with, all(), global()…",
  ),
  namespaceSelector: str("Calico selector over namespace labels; global() means non-namespaced endpoints."),
  serviceAccounts: obj({
    names: strs("Service account names."),
    selector: str("Selector over service account labels."),
  }),
  nets: strs("CIDRs."),
  notNets: strs("CIDRs excluded."),
  ports: list({ type: ["integer", "string"] }, 'Ports: 80, "8000:8080" (a range) or a named port.'),
  notPorts: list({ type: ["integer", "string"] }, "Ports excluded."),
  notSelector: str("Negated selector."),
});

const calicoRule = obj({
  action: str("Allow, Deny, Pass (to the next tier) or Log (and go on).", {
    enum: ["Allow", "Deny", "Pass", "Log"],
  }),
  protocol: {
    type: ["string", "integer"],
    description: "TCP, UDP, ICMP, SCTP… or a number.",
    enum: ["TCP", "UDP", "ICMP", "ICMPv6", "SCTP", "UDPLite"],
  },
  source: { ...calicoEntity, description: "Where the traffic comes from." },
  destination: { ...calicoEntity, description: "Where the traffic goes." },
  http: obj({
    methods: strs("HTTP methods (needs the application layer policy)."),
    paths: list(obj({ exact: str("Exact path."), prefix: str("Path prefix.") }), "Paths."),
  }),
});

const calicoSpec = (global: boolean): Schema =>
  obj({
    tier: str(
      "The tier (Tier object); absent: default. The tier's name is also the policy name's prefix (tier.name).",
    ),
    order: { type: "number", description: "Lower first within the tier; absent: last." },
    selector: str(
      `Calico selector of the endpoints it applies to${global ? " (every namespace)" : " (in its namespace)"}; absent: all().`,
    ),
    ...(global ? { namespaceSelector: str("Calico selector over namespace labels.") } : {}),
    serviceAccountSelector: str("Selector over the endpoints' service account labels."),
    types: strs("Ingress, Egress; inferred from the rules when absent.", { enum: ["Ingress", "Egress"] }),
    ingress: list(calicoRule, "Rules for incoming traffic, in order: the first Allow, Deny or Pass decides."),
    egress: list(calicoRule, "Rules for outgoing traffic, in order."),
    ...(global
      ? { doNotTrack: bool("Untracked policy."), applyOnForward: bool("Also for forwarded traffic.") }
      : {}),
  });

// ---------- network-policy-api tiers ----------

const tierPeer = obj({
  namespaces: sel("Pods of the namespaces these labels select."),
  pods: obj({ namespaceSelector: SELECTOR, podSelector: SELECTOR }, "Pods by namespace and pod labels."),
  nodes: sel("Nodes (egress)."),
  networks: strs("CIDRs (egress)."),
});
const tierRule = (peers: string): Schema =>
  obj({
    name: str("Rule name."),
    action: str("Allow, Deny or Pass (Admin tier: Pass hands the connection to NetworkPolicy).", {
      enum: ["Allow", "Deny", "Pass", "Accept"],
    }),
    [peers]: list(tierPeer, "Peers the rule matches."),
    ports: list(
      obj({
        portNumber: obj({ port: int("Port."), protocol: str("TCP, UDP or SCTP.") }),
        namedPort: str("A named container port."),
        portRange: obj({ start: int("First port."), end: int("Last port."), protocol: str("Protocol.") }),
      }),
      "Ports; absent: every port.",
    ),
  });
const tierSpec = (withPriority: boolean, tier?: boolean): Schema =>
  obj({
    ...(tier
      ? { tier: str("Admin (before NetworkPolicy) or Baseline (after it).", { enum: ["Admin", "Baseline"] }) }
      : {}),
    ...(withPriority ? { priority: int("Lower is evaluated first (0-1000).") } : {}),
    subject: obj(
      {
        namespaces: sel("Every pod of these namespaces."),
        pods: obj({ namespaceSelector: SELECTOR, podSelector: SELECTOR }),
      },
      "The pods the policy applies to.",
    ),
    ingress: list(tierRule("from"), "Rules for incoming traffic, in order: the first match decides."),
    egress: list(tierRule("to"), "Rules for outgoing traffic, in order."),
  });

// ---------- Gateway API ----------

const parentRef = obj({
  name: str("The Gateway (or other parent)."),
  namespace: str("Its namespace; absent: the route's."),
  sectionName: str("A listener name: attach to that listener only."),
  port: int("Attach to the listeners on this port."),
  kind: str("Gateway (the default)."),
  group: str("gateway.networking.k8s.io (the default)."),
});
const backendRef = obj({
  name: str("The Service."),
  namespace: str("Its namespace; another namespace needs a ReferenceGrant there."),
  port: int("Service port."),
  weight: int(
    "Share of the rule's requests: weight over the sum of the rule's weights (default 1; 0 sends none).",
  ),
  kind: str("Service (the default)."),
  group: str('"" (core, the default).'),
});
const headerMatch = obj({
  type: str("Exact (the default) or RegularExpression.", { enum: ["Exact", "RegularExpression"] }),
  name: str("Header name (case-insensitive)."),
  value: str("Value."),
});
const httpRouteSpec = obj({
  parentRefs: list(parentRef, "The Gateways (listeners) the route attaches to."),
  hostnames: strs("Hostnames (wildcard *.example.com allowed), intersected with the listener's."),
  rules: list(
    obj({
      name: str("Rule name."),
      matches: list(
        obj({
          path: obj({
            type: str("PathPrefix (the default, element-wise), Exact or RegularExpression.", {
              enum: ["PathPrefix", "Exact", "RegularExpression"],
            }),
            value: str("The path (default /)."),
          }),
          headers: list(headerMatch, "Headers that must all match."),
          queryParams: list(headerMatch, "Query parameters that must all match."),
          method: str("HTTP method.", {
            enum: ["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"],
          }),
        }),
        "Any one of these matches selects the rule; precedence across rules: Exact path, longest prefix, method, most headers, most query params.",
      ),
      filters: list(
        obj({
          type: str("RequestRedirect, URLRewrite, RequestHeaderModifier…", {
            enum: [
              "RequestHeaderModifier",
              "ResponseHeaderModifier",
              "RequestMirror",
              "RequestRedirect",
              "URLRewrite",
              "ExtensionRef",
            ],
          }),
          requestRedirect: obj({
            scheme: str("Scheme."),
            hostname: str("Host."),
            port: int("Port."),
            statusCode: int("301 or 302."),
          }),
          urlRewrite: obj({
            hostname: str("Host."),
            path: obj({ type: str("ReplaceFullPath or ReplacePrefixMatch.") }),
          }),
        }),
        "Filters applied to matching requests.",
      ),
      backendRefs: list(backendRef, "Where matching requests go, split by weight; none or all invalid: 500."),
    }),
    "Routing rules.",
  ),
});

// ---------- Istio ----------

const stringMatch = (what: string): Schema =>
  obj({
    exact: str(`Exact ${what} (case-sensitive).`),
    prefix: str(`${what} prefix.`),
    regex: str(`RE2 regex over the whole ${what}.`),
  });
const destination = obj({
  host: str("Service host: short name (the VirtualService's namespace), name.namespace or FQDN."),
  subset: str("A DestinationRule subset (pods with its labels)."),
  port: obj({ number: int("Service port.") }),
});

export const L7_KINDS: {
  kind: string;
  apiVersion: string | string[];
  description: string;
  properties: Record<string, Schema>;
}[] = [
  {
    kind: "CiliumNetworkPolicy",
    apiVersion: "cilium.io/v2",
    description:
      "Cilium's policy for the pods of its namespace: L3/L4 rules, entities, CIDRs, deny rules and L7 HTTP rules.",
    properties: { spec: ciliumSpec, specs: list(ciliumSpec, "Several specs in one object.") },
  },
  {
    kind: "CiliumClusterwideNetworkPolicy",
    apiVersion: "cilium.io/v2",
    description:
      "Cilium's cluster-wide policy: like CiliumNetworkPolicy, for pods of every namespace (and nodes with nodeSelector).",
    properties: { spec: ciliumSpec, specs: list(ciliumSpec, "Several specs in one object.") },
  },
  {
    kind: "NetworkPolicy",
    apiVersion: "projectcalico.org/v3",
    description:
      "Calico's namespaced policy: ordered rules with Allow, Deny, Pass and Log, Calico selectors, in a tier.",
    properties: { spec: calicoSpec(false) },
  },
  {
    kind: "GlobalNetworkPolicy",
    apiVersion: "projectcalico.org/v3",
    description:
      "Calico's cluster-wide policy: selects endpoints of every namespace (and host endpoints), ordered within its tier.",
    properties: { spec: calicoSpec(true) },
  },
  {
    kind: "Tier",
    apiVersion: "projectcalico.org/v3",
    description:
      "A Calico tier: tiers are evaluated by order; a Pass in one hands the connection to the next.",
    properties: {
      spec: obj({
        order: { type: "number", description: "Lower first; the default tier is last (order absent)." },
        defaultAction: str(
          "What happens when a policy of the tier selects the endpoint and no rule decides: Deny (the default) or Pass.",
          {
            enum: ["Deny", "Pass"],
          },
        ),
      }),
    },
  },
  {
    kind: "AdminNetworkPolicy",
    apiVersion: "policy.networking.k8s.io/v1alpha1",
    description:
      "The admin tier (network-policy-api v1alpha1): evaluated before NetworkPolicy, by priority; Allow and Deny are final, Pass defers.",
    properties: { spec: tierSpec(true) },
  },
  {
    kind: "BaselineAdminNetworkPolicy",
    apiVersion: "policy.networking.k8s.io/v1alpha1",
    description:
      "The baseline tier (one object, named default): evaluated after NetworkPolicy, for what no policy decided.",
    properties: { spec: tierSpec(false) },
  },
  {
    kind: "ClusterNetworkPolicy",
    apiVersion: "policy.networking.k8s.io/v1alpha2",
    description:
      "network-policy-api v1alpha2: one kind for both tiers (Admin before NetworkPolicy, Baseline after), by priority.",
    properties: { spec: tierSpec(true, true) },
  },
  {
    kind: "Gateway",
    apiVersion: ["gateway.networking.k8s.io/v1", "gateway.networking.k8s.io/v1beta1"],
    description:
      "A Gateway: listeners where an implementation (its data-plane pods and Service) takes requests and routes them by the attached routes.",
    properties: {
      spec: obj({
        gatewayClassName: str("The GatewayClass (implementation)."),
        listeners: list(
          obj({
            name: str("Listener name (a route's sectionName)."),
            port: int("Port."),
            protocol: str("HTTP, HTTPS, TLS, TCP, UDP.", { enum: ["HTTP", "HTTPS", "TLS", "TCP", "UDP"] }),
            hostname: str("Host the listener serves (wildcard *.example.com allowed); absent: any."),
            allowedRoutes: obj({
              namespaces: obj({
                from: str("Same (the default), All or Selector.", { enum: ["Same", "All", "Selector"] }),
                selector: sel("With from: Selector, the namespaces whose routes may attach."),
              }),
              kinds: list(obj({ kind: str("HTTPRoute, GRPCRoute…") }), "Route kinds allowed."),
            }),
          }),
          "Listeners.",
        ),
        addresses: list(
          obj({ type: str("IPAddress or Hostname."), value: str("Address.") }),
          "Requested addresses.",
        ),
      }),
    },
  },
  {
    kind: "HTTPRoute",
    apiVersion: ["gateway.networking.k8s.io/v1", "gateway.networking.k8s.io/v1beta1"],
    description:
      "HTTP routing rules attached to Gateways: matches on path, headers, query and method, filters, weighted backends.",
    properties: { spec: httpRouteSpec },
  },
  {
    kind: "GRPCRoute",
    apiVersion: "gateway.networking.k8s.io/v1",
    description:
      "gRPC routing rules (service and method matches) attached to Gateways. Not evaluated by Kube Traffic Lab (named as unmodelled).",
    properties: {
      spec: obj({
        parentRefs: list(parentRef, "The Gateways the route attaches to."),
        hostnames: strs("Hostnames."),
        rules: list(
          obj({
            matches: list(
              obj({
                method: obj({
                  service: str("gRPC service."),
                  method: str("gRPC method."),
                  type: str("Exact or RegularExpression."),
                }),
                headers: list(headerMatch, "Headers."),
              }),
              "Matches.",
            ),
            backendRefs: list(backendRef, "Weighted backends."),
          }),
          "Rules.",
        ),
      }),
    },
  },
  {
    kind: "ReferenceGrant",
    apiVersion: ["gateway.networking.k8s.io/v1beta1", "gateway.networking.k8s.io/v1"],
    description: "Lets routes of other namespaces send to Services of this one.",
    properties: {
      spec: obj({
        from: list(
          obj({
            group: str("gateway.networking.k8s.io"),
            kind: str("HTTPRoute…"),
            namespace: str("Namespace of the routes."),
          }),
          "Who may refer.",
        ),
        to: list(
          obj({ group: str('"" (core)'), kind: str("Service"), name: str("One Service; absent: all.") }),
          "To what.",
        ),
      }),
    },
  },
  {
    kind: "Ingress",
    apiVersion: "networking.k8s.io/v1",
    description:
      "An Ingress: host and path rules that an ingress controller (ingress-nginx's conventions assumed) routes to Services.",
    properties: {
      spec: obj({
        ingressClassName: str("The IngressClass (controller); absent: the default class."),
        defaultBackend: obj(
          {
            service: obj({
              name: str("Service."),
              port: obj({ number: int("Port."), name: str("Port name.") }),
            }),
          },
          "Where requests no rule serves go; absent: the controller answers 404.",
        ),
        rules: list(
          obj({
            host: str(
              "The Host the rule serves (a wildcard *.example.com matches one label); absent: every host.",
            ),
            http: obj({
              paths: list(
                obj({
                  path: str("The path."),
                  pathType: str(
                    "Prefix (element-wise: /api matches /api/x, not /apix), Exact or ImplementationSpecific.",
                    {
                      enum: ["Prefix", "Exact", "ImplementationSpecific"],
                    },
                  ),
                  backend: obj({
                    service: obj({
                      name: str("Service."),
                      port: obj({ number: int("Port."), name: str("Port name.") }),
                    }),
                  }),
                }),
                "Paths; the longest match wins, Exact before Prefix.",
              ),
            }),
          }),
          "Rules by host.",
        ),
        tls: list(obj({ hosts: strs("Hosts."), secretName: str("Certificate Secret.") }), "TLS."),
      }),
    },
  },
  {
    kind: "IngressClass",
    apiVersion: "networking.k8s.io/v1",
    description:
      'An ingress controller; annotation ingressclass.kubernetes.io/is-default-class: "true" makes it the default.',
    properties: { spec: obj({ controller: str("Controller name, e.g. k8s.io/ingress-nginx.") }) },
  },
  {
    kind: "VirtualService",
    apiVersion: ["networking.istio.io/v1", "networking.istio.io/v1beta1", "networking.istio.io/v1alpha3"],
    description:
      "Istio routing for requests to its hosts, applied in the client's sidecar (gateways: mesh) or a gateway.",
    properties: {
      spec: obj({
        hosts: strs("Hosts the routes apply to (short names are in the VirtualService's namespace)."),
        gateways: strs('Where it applies: "mesh" (sidecars, the default) and/or gateways.'),
        exportTo: strs('Namespaces that see it ("." own, "*" all).'),
        http: list(
          obj({
            name: str("Route name."),
            match: list(
              obj({
                uri: stringMatch("path"),
                method: stringMatch("method"),
                headers: {
                  type: "object",
                  description: "Header name -> match (exact, prefix, regex); {} means present.",
                  additionalProperties: stringMatch("header value"),
                },
                queryParams: {
                  type: "object",
                  description: "Query parameter -> match.",
                  additionalProperties: stringMatch("value"),
                },
                sourceLabels: strMap("The client pod's labels."),
                port: int("The port called."),
              }),
              "Any one selects the route; routes are tried in order, the first match wins.",
            ),
            route: list(
              obj({ destination, weight: int("Share in percent; the weights of a route add up to 100.") }),
              "Weighted destinations.",
            ),
            redirect: obj({
              uri: str("New path."),
              authority: str("New host."),
              redirectCode: int("Status (301)."),
            }),
            rewrite: obj({ uri: str("New path prefix."), authority: str("New host.") }),
            fault: obj({
              abort: obj({
                httpStatus: int("Status to answer."),
                percentage: obj({ value: { type: "number" } }),
              }),
            }),
          }),
          "HTTP routes, in order.",
        ),
      }),
    },
  },
  {
    kind: "DestinationRule",
    apiVersion: ["networking.istio.io/v1", "networking.istio.io/v1beta1", "networking.istio.io/v1alpha3"],
    description:
      "Istio policies for traffic to a host: subsets (pods by label) that routes name, load balancing, TLS.",
    properties: {
      spec: obj({
        host: str("The Service host."),
        subsets: list(obj({ name: str("Subset name."), labels: strMap("The pods' labels.") }), "Subsets."),
        trafficPolicy: obj({
          loadBalancer: obj({ simple: str("ROUND_ROBIN, LEAST_REQUEST, RANDOM…") }),
          tls: obj({ mode: str("DISABLE, SIMPLE, MUTUAL, ISTIO_MUTUAL.") }),
        }),
      }),
    },
  },
];
