/**
 * Ingress (networking.k8s.io/v1) and OpenShift Route (route.openshift.io/v1)
 * backends, and the pod ports they reach through a Service.
 *
 * - Ingress: spec.defaultBackend.service and every
 *   spec.rules[].http.paths[].backend.service, with port.number or port.name
 *   (a Service port's number or name).
 * - Route: spec.to and spec.alternateBackends[] of kind Service (the default
 *   kind), with spec.port.targetPort, or every Service port when absent.
 * - The Service is in the Ingress's or Route's own namespace.
 */
import { refOf, type KObject, type SourceRef } from "../parse/manifests.ts";
import { lineOf } from "../parse/positions.ts";
import { arr, isObj, num, obj, str, strMap, type Json } from "../parse/values.ts";
import type { Diagnostic } from "../parse/diagnostics.ts";
import type { ContainerPort, Protocol } from "../model/types.ts";

export interface IngressBackend {
  /** The Ingress or Route. */
  source: SourceRef;
  namespace: string;
  serviceName: string;
  /** Ingress port.number or port.name, Route spec.port.targetPort; absent: every port of the Service. */
  port?: number | string;
  /** Line of the backend reference. */
  line: number;
}

/** The Service fields a backend goes through. */
export interface BackendService {
  namespace: string;
  name: string;
  /** Absent when the Service has no selector (its endpoints are managed by hand). */
  selector: Record<string, string> | undefined;
  ports: { name: string; protocol: Protocol; port: number; targetPort: number | string | undefined }[];
  source: SourceRef;
}

/** An IntOrString: digits are a number. */
function intOrString(v: unknown): number | string | undefined {
  const n = num(v);
  if (n !== undefined) return n;
  const s = str(v);
  if (s === undefined || s === "") return undefined;
  return /^\d+$/.test(s) ? Number(s) : s;
}

function ingressBackend(
  o: KObject,
  namespace: string,
  ref: unknown,
  line: number,
): IngressBackend | undefined {
  const service = obj(obj(ref)?.service);
  const name = str(service?.name);
  if (!service || !name) return undefined;
  const port = obj(service.port);
  const b: IngressBackend = { source: refOf(o), namespace, serviceName: name, line };
  const given = num(port?.number) ?? str(port?.name);
  if (given !== undefined && given !== "") b.port = given;
  return b;
}

/** Every Service backend of the Ingresses and Routes in the input, in input order. */
export function parseIngressBackends(
  objects: readonly KObject[],
  diagnostics: Diagnostic[],
): IngressBackend[] {
  const out: IngressBackend[] = [];
  for (const o of objects) {
    const namespace = o.namespace ?? "default";
    const spec = obj(o.raw.spec) ?? {};
    if (o.kind === "Ingress") {
      const d = ingressBackend(o, namespace, spec.defaultBackend, lineOf(spec, "defaultBackend") || o.line);
      if (d) out.push(d);
      for (const rule of arr(spec.rules).filter(isObj)) {
        const paths = arr(obj(rule.http)?.paths);
        paths.forEach((p, i) => {
          const b = isObj(p)
            ? ingressBackend(o, namespace, p.backend, lineOf(p, "backend") || lineOf(paths, i) || o.line)
            : undefined;
          if (b) out.push(b);
        });
      }
    } else if (o.kind === "Route") {
      const targetPort = intOrString(obj(spec.port)?.targetPort);
      const refs: [Json, number][] = [];
      if (isObj(spec.to)) refs.push([spec.to, lineOf(spec, "to") || o.line]);
      const alternates = arr(spec.alternateBackends);
      alternates.forEach((a, i) => {
        if (isObj(a)) refs.push([a, lineOf(alternates, i) || o.line]);
      });
      for (const [ref, line] of refs) {
        const kind = str(ref.kind) ?? "";
        const name = str(ref.name);
        if ((kind !== "" && kind !== "Service") || !name) {
          diagnostics.push({
            code: "KTL701",
            severity: "warning",
            file: o.file,
            doc: o.doc,
            line,
            column: 1,
            kind: o.kind,
            namespace,
            name: o.name,
            message: `Route ${namespace}/${o.name} has a backend of kind "${kind}"${name ? ` (${name})` : " without a name"}; only Service backends are followed`,
          });
          continue;
        }
        const b: IngressBackend = { source: refOf(o), namespace, serviceName: name, line };
        if (targetPort !== undefined) b.port = targetPort;
        out.push(b);
      }
    }
  }
  return out;
}

/** A Service object's selector and ports, read from the manifest. */
export function backendService(o: KObject): BackendService {
  const spec = obj(o.raw.spec) ?? {};
  const ports = arr(spec.ports)
    .filter(isObj)
    .map((p) => {
      const protocol = str(p.protocol);
      return {
        name: str(p.name) ?? "",
        protocol: (protocol === "UDP" || protocol === "SCTP" ? protocol : "TCP") as Protocol,
        port: num(p.port) ?? 0,
        targetPort: intOrString(p.targetPort),
      };
    });
  const selector = isObj(spec.selector) ? strMap(spec.selector) : undefined;
  return { namespace: o.namespace ?? "default", name: o.name, selector, ports, source: refOf(o) };
}

/**
 * The pod ports (TCP) a backend reaches on a pod with these container ports:
 * the first Service port whose name, port or targetPort equals the backend's
 * port (every Service port when it names none), then that port's targetPort
 * (its port when unset); a named targetPort resolves to the pod's TCP
 * container port of that name. A number the pod does not declare as a
 * containerPort is dropped.
 */
export function backendPodPorts(
  backend: IngressBackend,
  service: BackendService,
  containerPorts: readonly ContainerPort[],
): number[] {
  const given = backend.port;
  let chosen = service.ports;
  if (given !== undefined) {
    const first = service.ports.find(
      (sp) => (typeof given === "string" ? sp.name === given : sp.port === given) || sp.targetPort === given,
    );
    chosen = first ? [first] : [];
  }
  const out = new Set<number>();
  for (const sp of chosen) {
    const target = sp.targetPort ?? sp.port;
    let n: number | undefined;
    if (typeof target === "string")
      n = containerPorts.find((cp) => cp.name === target && cp.protocol === "TCP")?.containerPort;
    else n = target;
    if (n !== undefined && containerPorts.some((cp) => cp.containerPort === n)) out.add(n);
  }
  return [...out].sort((a, b) => a - b);
}
