/**
 * The cluster around the application: what an application's YAML leaves to
 * the cluster it is deployed in, named where an answer needs it, and assumed
 * on request (the profile's `assume`, cni/profile.ts).
 *
 * - An Istio Gateway (networking.istio.io) selects the pods of Istio's
 *   ingress gateway, which istioctl or Helm install with Istio, never the
 *   application: when its selector matches no pod of the input, requests
 *   through it cannot be judged (KTL470, and it and its VirtualServices are
 *   in the trace's `unmodelled`). `assume.istioIngress` adds, per selector
 *   that matches nothing, the gateway istioctl's default profile installs:
 *   a Deployment in istio-system with those labels and a LoadBalancer
 *   Service istio-ingressgateway (80 -> 8080, 443 -> 8443), written in a
 *   file named ASSUMED_FILE so every reference to them says so.
 * - A VirtualService for the mesh routes requests in the client's sidecar:
 *   when no pod has one (no namespace labelled istio-injection=enabled, and
 *   no assumption), requests to its hosts go through kube-proxy (KTL471).
 */
import type { Diagnostic } from "../parse/diagnostics.ts";
import { parseManifests, type KObject, type ParseResult } from "../parse/manifests.ts";
import { isObj, obj, strList, strMap } from "../parse/values.ts";
import { lineOf } from "../parse/positions.ts";
import { unmodelledEntry } from "../policy/unmodelled.ts";
import type { ClusterAssumptions } from "../cni/profile.ts";
import type { Model, UnmodelledObject } from "../model/types.ts";
import { anySidecar } from "../model/sidecar.ts";
import { templateOf, WORKLOAD_KINDS } from "../model/workloads.ts";

/** The file name of what the profile assumes: references to assumed objects name it. */
export const ASSUMED_FILE = "(assumed by the cluster profile)";

const isIstio = (o: KObject) => o.apiVersion.startsWith("networking.istio.io/");

/** The Istio Gateways of the input with their pod selectors. */
function istioGateways(objects: readonly KObject[]): { o: KObject; selector: Record<string, string> }[] {
  return objects
    .filter((o) => o.kind === "Gateway" && isIstio(o))
    .map((o) => ({ o, selector: strMap(obj(o.raw.spec)?.selector) }));
}

/** Labels of every pod the input would create (pods and workload templates), without building the model. */
function podLabelSets(objects: readonly KObject[]): { namespace: string; labels: Record<string, string> }[] {
  const out: { namespace: string; labels: Record<string, string> }[] = [];
  for (const o of objects) {
    const ns = o.namespace ?? "default";
    if (o.kind === "Pod") out.push({ namespace: ns, labels: strMap(obj(o.raw.metadata)?.labels) });
    else if (WORKLOAD_KINDS.has(o.kind))
      out.push({ namespace: ns, labels: strMap(obj(templateOf(o)?.metadata)?.labels) });
  }
  return out;
}

const matches = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.entries(selector).every(([k, v]) => labels[k] === v);

/** The gateway deployments to assume: one per distinct selector of an Istio Gateway that matches no pod. */
function missingGateways(objects: readonly KObject[]): Record<string, string>[] {
  const pods = podLabelSets(objects);
  const seen = new Set<string>();
  const out: Record<string, string>[] = [];
  for (const g of istioGateways(objects)) {
    if (Object.keys(g.selector).length === 0) continue;
    if (pods.some((p) => matches(g.selector, p.labels))) continue;
    const key = JSON.stringify(Object.entries(g.selector).sort());
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(g.selector);
  }
  return out;
}

/** The input plus what the profile assumes (a new ParseResult; the input's is unchanged). */
export function withAssumed(parsed: ParseResult, assume: ClusterAssumptions | undefined): ParseResult {
  if (!assume?.istioIngress) return parsed;
  const all = [...parsed.objects, ...parsed.ignored];
  const docs = missingGateways(all).map((selector, i) => {
    const name = selector.istio ? `istio-${selector.istio}` : `assumed-gateway-${i + 1}`;
    const labels = JSON.stringify({ app: name, ...selector });
    const sel = JSON.stringify(selector);
    return `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, namespace: istio-system}
spec:
  replicas: 1
  selector: {matchLabels: ${sel}}
  template:
    metadata: {labels: ${labels}}
    spec:
      containers:
      - name: istio-proxy
        image: docker.io/istio/proxyv2
        ports: [{name: http2, containerPort: 8080}, {name: https, containerPort: 8443}, {name: status-port, containerPort: 15021}]
---
apiVersion: v1
kind: Service
metadata: {name: ${name}, namespace: istio-system, labels: ${labels}}
spec:
  type: LoadBalancer
  selector: ${sel}
  ports: [{name: http2, port: 80, targetPort: 8080}, {name: https, port: 443, targetPort: 8443}, {name: status-port, port: 15021, targetPort: 15021}]`;
  });
  if (docs.length === 0) return parsed;
  const extra = parseManifests([{ name: ASSUMED_FILE, text: docs.join("\n---\n") }]);
  return { ...parsed, objects: [...parsed.objects, ...extra.objects] };
}

/** The VirtualServices bound to an Istio Gateway (`gateways`: NAME in the VirtualService's namespace, or NS/NAME). */
export function boundVirtualServices(gateway: KObject, objects: readonly KObject[]): KObject[] {
  const gwNs = gateway.namespace ?? "default";
  return objects.filter((o) => {
    if (o.kind !== "VirtualService" || !isIstio(o)) return false;
    const vsNs = o.namespace ?? "default";
    return strList(obj(o.raw.spec)?.gateways).some((g) => {
      const [ns, name] = g.includes("/") ? (g.split("/") as [string, string]) : [vsNs, g];
      return ns === gwNs && name === gateway.name;
    });
  });
}

/** The checks on the cluster around the application, for the diagnostics and the trace's `unmodelled`. */
export function surroundings(model: Model): { diagnostics: Diagnostic[]; unmodelled: UnmodelledObject[] } {
  const objects = [...model.objects, ...(model.others ?? [])];
  const diagnostics: Diagnostic[] = [];
  const unmodelled: UnmodelledObject[] = [];
  const at = (o: KObject, line = o.line) => ({
    file: o.file,
    doc: o.doc,
    line,
    column: 1,
    kind: o.kind,
    name: o.name,
    ...(o.namespace !== undefined ? { namespace: o.namespace } : {}),
  });
  const entry = (o: KObject, field: string, line: number, message: string): UnmodelledObject =>
    unmodelledEntry(o, "route", line, { field, message });
  for (const g of istioGateways(objects)) {
    if (Object.keys(g.selector).length === 0) continue;
    if (model.pods.some((p) => matches(g.selector, p.labels))) continue;
    const sel = Object.entries(g.selector)
      .map(([k, v]) => `${k}=${v}`)
      .join(", ");
    const bound = boundVirtualServices(g.o, objects);
    const names = bound.map((v) => `${v.namespace ?? "default"}/${v.name}`);
    const line = lineOf(obj(g.o.raw.spec), "selector") || g.o.line;
    const why = `Istio Gateway ${g.o.namespace ?? "default"}/${g.o.name} selects pods labelled ${sel}, and the input has none: Istio's ingress gateway is installed with Istio (istioctl, Helm), not with the application`;
    diagnostics.push({
      code: "KTL470",
      severity: "warning",
      ...at(g.o, line),
      field: "spec.selector",
      message: `${why}; requests through it${names.length ? ` and the VirtualService${names.length === 1 ? "" : "s"} bound to it (${names.join(", ")})` : ""} cannot be judged`,
      hint: "Assume the ingress gateway (ktl trace --assume-istio-ingress, or the toolbar's Assume switch), or add its Deployment and Service to the input.",
    });
    unmodelled.push(entry(g.o, "spec.selector", line, `${why}: the way in is not evaluated`));
    for (const v of bound)
      unmodelled.push(
        entry(
          v,
          "spec.gateways",
          lineOf(obj(v.raw.spec), "gateways") || v.line,
          `bound to Istio Gateway ${g.o.namespace ?? "default"}/${g.o.name}, whose pods are not in the input`,
        ),
      );
  }
  const meshRoutes = objects.filter((o) => {
    if (o.kind !== "VirtualService" || !isIstio(o) || !isObj(o.raw.spec)) return false;
    const gws = strList(o.raw.spec.gateways);
    return gws.length === 0 || gws.includes("mesh");
  });
  if (meshRoutes.length && !anySidecar(model))
    for (const v of meshRoutes)
      diagnostics.push({
        code: "KTL471",
        severity: "warning",
        ...at(v),
        message: `VirtualService ${v.namespace ?? "default"}/${v.name} routes requests in the client's Istio sidecar, and no pod of the input has one (no namespace is labelled istio-injection=enabled): requests to its hosts go through kube-proxy, which spreads them over the endpoints, not by its routes`,
        hint: "Label the application's namespaces istio-injection=enabled, or assume injection (ktl trace --assume-injection NS, or the toolbar's Assume switch).",
      });
  return { diagnostics, unmodelled };
}
