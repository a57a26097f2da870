/**
 * The cluster around the application (load/cluster.ts): what the YAML
 * leaves to the cluster is named where an answer needs it, and assumed on
 * request. Sources: istio/api networking/v1 gateway.proto (`selector`: the
 * gateway pods, in any namespace), istio.io "Ingress Gateways" (istioctl's
 * istio-ingressgateway: labels istio=ingressgateway, a LoadBalancer Service
 * 80 -> 8080), istio.io "Installing the Sidecar" (injection by the
 * namespace label istio-injection=enabled; istio-injection=disabled wins).
 */
import { describe, expect, it } from "vitest";
import { loadModel, type BuildOptions } from "./index.ts";
import { ASSUMED_FILE } from "./cluster.ts";
import { buildProxyIndex } from "../proxy/index.ts";
import { parseAnyDestination, traceL7 } from "../l7/index.ts";
import { parseHttpRequestLine } from "../http/request.ts";
import { unmodelledFor } from "../policy/unmodelled.ts";
import { analyzeText } from "../analysis/index.ts";

const APP = `apiVersion: v1
kind: Service
metadata: {name: productpage, namespace: bookinfo}
spec: {selector: {app: productpage}, ports: [{name: http, port: 9080, targetPort: 9080}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: productpage-v1, namespace: bookinfo}
spec:
  replicas: 1
  selector: {matchLabels: {app: productpage}}
  template:
    metadata: {labels: {app: productpage, version: v1}}
    spec: {containers: [{name: c, image: i, ports: [{containerPort: 9080}]}]}
`;
const GATEWAY = `---
apiVersion: networking.istio.io/v1
kind: Gateway
metadata: {name: bookinfo-gateway, namespace: bookinfo}
spec:
  selector: {istio: ingressgateway}
  servers: [{port: {number: 80, name: http, protocol: HTTP}, hosts: ["*"]}]
---
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: bookinfo, namespace: bookinfo}
spec:
  hosts: ["*"]
  gateways: [bookinfo-gateway]
  http:
  - match: [{uri: {exact: /productpage}}]
    route: [{destination: {host: productpage, port: {number: 9080}}}]
`;

function trace(text: string, from: string, to: string, http: string, options: BuildOptions = {}) {
  const m = loadModel([{ name: "app.yaml", text }], options);
  const dst = parseAnyDestination(to);
  if ("error" in dst) throw new Error(dst.error);
  const req = parseHttpRequestLine(http);
  if ("error" in req) throw new Error(req.error);
  return { m, t: traceL7(m, buildProxyIndex(m), from, dst, "TCP", req) };
}

describe("an Istio Gateway whose ingress gateway the input does not have", () => {
  const via = [
    "external:203.0.113.9@node-1",
    "gateway:bookinfo/bookinfo-gateway:80",
    "GET /productpage",
  ] as const;
  it.each([
    {
      name: "named: KTL470, both objects in the trace's unmodelled, and the trace does not pretend",
      options: {},
      verdict: "drop",
      status: undefined,
      assumed: undefined,
    },
    {
      name: "assumed: the ingress gateway of istioctl's default profile, and the answer says so",
      options: { assume: { istioIngress: true } },
      verdict: "allow",
      status: 200,
      assumed: [expect.stringContaining("an Istio ingress gateway")],
    },
  ])("$name", ({ options, verdict, status, assumed }) => {
    const { m, t } = trace(APP + GATEWAY, ...via, options);
    expect([t.verdict, t.httpStatus, t.assumed]).toEqual([verdict, status, assumed]);
    const named = m.diagnostics.filter((d) => d.code === "KTL470");
    if (options.assume) {
      expect(named).toEqual([]);
      expect(m.pods.filter((p) => p.source.file === ASSUMED_FILE).map((p) => p.labels.istio)).toEqual([
        "ingressgateway",
      ]);
      expect(m.services.find((s) => s.key === "istio-system/istio-ingressgateway")?.type).toBe(
        "LoadBalancer",
      );
    } else {
      expect(named).toHaveLength(1);
      expect(named[0]!.message).toContain("bookinfo/bookinfo");
      expect(unmodelledFor(m, "all").map((u) => `${u.kind} ${u.field}`)).toEqual([
        "Gateway spec.selector",
        "VirtualService spec.gateways",
      ]);
      expect(t.reason).toContain("--assume-istio-ingress");
    }
  });

  it("is a router of the playground's graph either way, its flows saying what was not judged", () => {
    const a = analyzeText(APP + GATEWAY, "app.yaml");
    expect(a.routers.map((r) => `${r.layer} ${r.kind} ${r.name}`)).toEqual([
      "Istio Gateway bookinfo-gateway",
    ]);
    expect(a.flows.find((f) => f.id.startsWith("route:gateway:bookinfo/bookinfo-gateway"))?.reason).toContain(
      "no pods of Gateway bookinfo/bookinfo-gateway",
    );
    expect(a.omissions.unmodelled.map((u) => u.field)).toEqual(["spec.selector", "spec.gateways"]);
  });
});

describe("a mesh route while no pod has a sidecar", () => {
  const MESH = `---
apiVersion: v1
kind: Pod
metadata: {name: client, namespace: bookinfo, labels: {app: client}}
spec: {containers: [{name: c, image: i}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: productpage-v2, namespace: bookinfo}
spec:
  replicas: 1
  selector: {matchLabels: {app: productpage, version: v2}}
  template:
    metadata: {labels: {app: productpage, version: v2}}
    spec: {containers: [{name: c, image: i, ports: [{containerPort: 9080}]}]}
---
apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata: {name: productpage, namespace: bookinfo}
spec: {host: productpage, subsets: [{name: v1, labels: {version: v1}}, {name: v2, labels: {version: v2}}]}
---
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: productpage, namespace: bookinfo}
spec:
  hosts: [productpage]
  http: [{route: [{destination: {host: productpage, subset: v1}, weight: 90}, {destination: {host: productpage, subset: v2}, weight: 10}]}]
`;
  const shares = (t: ReturnType<typeof trace>["t"]) =>
    t.endpoints.map((e) => Math.round(e.probability * 100)).sort((a, b) => a - b);
  it.each([
    {
      name: "no sidecar: kube-proxy's even split, named by KTL471",
      options: {},
      split: [50, 50],
      ktl471: 1,
      assumed: undefined,
    },
    {
      name: "injection assumed in bookinfo: the route's 90/10, and the answer says so",
      options: { assume: { injection: ["bookinfo"] } },
      split: [10, 90],
      ktl471: 0,
      assumed: [expect.stringContaining("namespace bookinfo")],
    },
    {
      name: "assumed everywhere (*) but the namespace says istio-injection=disabled: the label wins",
      options: { assume: { injection: ["*"] } },
      text: `apiVersion: v1\nkind: Namespace\nmetadata: {name: bookinfo, labels: {istio-injection: disabled}}\n---\n`,
      split: [50, 50],
      ktl471: 1,
      assumed: undefined,
    },
  ])("$name", ({ options, split, ktl471, assumed, text }) => {
    const { m, t } = trace(
      (text ?? "") + APP + MESH,
      "pod:bookinfo/client",
      "host:productpage:9080",
      "GET /",
      options,
    );
    expect(shares(t)).toEqual(split);
    expect(t.assumed).toEqual(assumed);
    expect(m.diagnostics.filter((d) => d.code === "KTL471")).toHaveLength(ktl471);
  });

  it("the graph draws the mesh router only when some client has a sidecar, as the trace routes", () => {
    const plain = analyzeText(APP + MESH, "app.yaml");
    expect(plain.routers.filter((r) => r.kind === "VirtualService")).toEqual([]);
    const assumed = analyzeText(APP + MESH, "app.yaml", { assume: { injection: ["bookinfo"] } });
    expect(assumed.routers.filter((r) => r.kind === "VirtualService").map((r) => r.name)).toEqual([
      "productpage",
    ]);
    expect(assumed.profile.text).toContain("assumed: Istio sidecar injection in namespace bookinfo");
  });
});
