/** Builders for the L7 tests: a small cluster (two nodes, backends behind Services) plus routers. */
import { buildProxyIndex } from "../proxy/index.ts";
import { makeNode, makePod, makePolicy, makeService, modelOf } from "../testing/fixtures.ts";
import { addHttpHeader, parseHttpRequestLine, type HttpRequest } from "../http/request.ts";
import { parseAnyDestination, traceL7, type L7TraceResult } from "./trace.ts";

export type Obj = Record<string, unknown>;

export const nodes = [
  makeNode("node-1", "192.168.10.11", { podCIDR: "10.244.1.0/24", zone: "zone-a" }),
  makeNode("node-2", "192.168.10.12", { podCIDR: "10.244.2.0/24", zone: "zone-a" }),
];

export function ns(name: string, labels: Record<string, string> = {}): Obj {
  return {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name, labels: { "kubernetes.io/metadata.name": name, ...labels } },
  };
}

/** A Service on `port` -> targetPort 3000 with `pods` ready pods labelled app=NAME (and `labels`), spread over the nodes; pod IPs 10.244.N.BASE (+100 for the third and fourth). */
export function backend(
  namespace: string,
  name: string,
  base: number,
  pods = 2,
  o: { port?: number; labels?: Record<string, string>[]; sa?: string; type?: string; etp?: string } = {},
): Obj[] {
  const out: Obj[] = [
    makeService(namespace, name, {
      type: o.type ?? "ClusterIP",
      selector: { app: name },
      ports: [{ name: "http", port: o.port ?? 8080, targetPort: 3000 }],
      ...(o.etp ? { externalTrafficPolicy: o.etp } : {}),
    }),
  ];
  for (let i = 0; i < pods; i++) {
    const node = i % 2 === 0 ? 1 : 2;
    const pod = makePod(namespace, `${name}-${i}`, {
      node: `node-${node}`,
      ip: `10.244.${node}.${base + Math.floor(i / 2) * 100}`,
      labels: { app: name, ...(o.labels?.[i] ?? {}) },
      ports: [{ name: "http", containerPort: 3000 }],
    });
    if (o.sa) (pod.spec as Obj).serviceAccountName = o.sa;
    out.push(pod);
  }
  return out;
}

export function client(
  namespace = "default",
  name = "client",
  ip = "10.244.1.200",
  node = "node-1",
  sa?: string,
): Obj {
  const p = makePod(namespace, name, { node, ip, labels: { app: name } });
  if (sa) (p.spec as Obj).serviceAccountName = sa;
  return p;
}

/** A Gateway with its Istio-style data plane: Service NAME-istio (LoadBalancer) and 2 pods labelled gateway-name. */
export function gateway(
  namespace: string,
  name: string,
  listeners: Obj[],
  o: { etp?: string; lb?: string } = {},
): Obj[] {
  const label = { "gateway.networking.k8s.io/gateway-name": name };
  const ports = [...new Set(listeners.map((l) => l.port as number))];
  return [
    {
      apiVersion: "gateway.networking.k8s.io/v1",
      kind: "Gateway",
      metadata: { name, namespace },
      spec: { gatewayClassName: "istio", listeners },
      status: { addresses: [{ type: "IPAddress", value: o.lb ?? "198.51.100.10" }] },
    },
    {
      ...makeService(
        namespace,
        `${name}-istio`,
        {
          type: "LoadBalancer",
          selector: label,
          ports: ports.map((p) => ({ name: `p${p}`, port: p, targetPort: p })),
          externalTrafficPolicy: o.etp ?? "Cluster",
        },
        { status: { loadBalancer: { ingress: [{ ip: o.lb ?? "198.51.100.10" }] } } },
      ),
      metadata: { name: `${name}-istio`, namespace, labels: label },
    },
    makePod(namespace, `${name}-istio-a`, { node: "node-1", ip: "10.244.1.50", labels: label }),
    makePod(namespace, `${name}-istio-b`, { node: "node-2", ip: "10.244.2.50", labels: label }),
  ];
}

const NGINX = "ingress-nginx";
const controllerLabels = {
  "app.kubernetes.io/name": "ingress-nginx",
  "app.kubernetes.io/component": "controller",
};
/** ingress-nginx as its cloud deploy.yaml installs it: IngressClass nginx, the controller's LoadBalancer Service (Local) and one pod on node-1. */
export const ingressNginx: Obj[] = [
  ns(NGINX),
  {
    apiVersion: "networking.k8s.io/v1",
    kind: "IngressClass",
    metadata: { name: "nginx" },
    spec: { controller: "k8s.io/ingress-nginx" },
  },
  makeService(
    NGINX,
    "ingress-nginx-controller",
    {
      type: "LoadBalancer",
      externalTrafficPolicy: "Local",
      selector: controllerLabels,
      ports: [{ name: "http", port: 80, targetPort: 80 }],
    },
    { status: { loadBalancer: { ingress: [{ ip: "198.51.100.20" }] } } },
  ),
  makePod(NGINX, "ingress-nginx-controller-0", {
    node: "node-1",
    ip: "10.244.1.60",
    labels: controllerLabels,
  }),
];
export function route(namespace: string, name: string, spec: Obj, created?: string): Obj {
  return {
    apiVersion: "gateway.networking.k8s.io/v1",
    kind: "HTTPRoute",
    metadata: { name, namespace, ...(created ? { creationTimestamp: created } : {}) },
    spec,
  };
}

export function l7(objects: Obj[]) {
  const model = modelOf(objects);
  const index = buildProxyIndex(model);
  return (from: string, to: string, http?: string, headers: string[] = []): L7TraceResult => {
    const dst = parseAnyDestination(to);
    if ("error" in dst) throw new Error(dst.error);
    let req: HttpRequest | { error: string } | undefined = http ? parseHttpRequestLine(http) : undefined;
    for (const h of headers) if (req && !("error" in req)) req = addHttpHeader(req, h);
    if (req && "error" in req) throw new Error(req.error);
    return traceL7(model, index, from, dst, "TCP", req);
  };
}

/** "ns/svc:port=weight" of a trace's backends, sorted. */
export function backendsOf(t: L7TraceResult): string {
  return (t.backends ?? [])
    .map(
      (b) => `${b.service}:${b.port}${b.subset ? `#${b.subset}` : ""}=${Math.round(b.weight * 1000) / 1000}`,
    )
    .sort()
    .join(" ");
}

export function endpointsOf(t: L7TraceResult): string {
  return t.endpoints
    .map(
      (e) => `${e.ip}:${e.port}=${Math.round(e.probability * 1000) / 1000}${e.verdict === "drop" ? "!" : ""}`,
    )
    .sort()
    .join(" ");
}

/**
 * The issue's "done when" input: an external client, a Gateway whose Service
 * has externalTrafficPolicy Local (one gateway pod, on node-1), an HTTPRoute
 * splitting 90/10 between stable (2 pods) and canary (1 pod), and a
 * NetworkPolicy that admits nothing from the gateway to the canary. Arriving
 * at node-1: 0.45 + 0.45 allowed, 0.1 dropped. The engine, CLI and
 * playground tests all ask it.
 */
export function canaryBehindPolicy(): Obj[] {
  const APP = "shop";
  return [
    ...nodes,
    ns("default"),
    ns(APP),
    client(),
    ...gateway(APP, "web", [{ name: "http", port: 80, protocol: "HTTP" }], { etp: "Local" }).filter(
      (o) => (o.metadata as Obj).name !== "web-istio-b",
    ),
    ...backend(APP, "stable", 11, 2),
    ...backend(APP, "canary", 12, 1),
    route(APP, "split", {
      parentRefs: [{ name: "web" }],
      rules: [
        {
          backendRefs: [
            { name: "stable", port: 8080, weight: 90 },
            { name: "canary", port: 8080, weight: 10 },
          ],
        },
      ],
    }),
    // The canary admits nothing from the gateway's pods.
    makePolicy(APP, "canary-closed", {
      podSelector: { matchLabels: { app: "canary" } },
      policyTypes: ["Ingress"],
      ingress: [{ from: [{ podSelector: { matchLabels: { app: "stable" } } }] }],
    }),
  ];
}
