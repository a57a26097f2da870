/**
 * Near misses for kube-proxy drops (issue 14 item 1): when a Service has no
 * endpoint to use, the one edit that would give it one, with the Service's
 * line and the line of what it fails to match.
 *
 * - No endpoints, selector one label off: pods of the Service's namespace
 *   that match every requirement of spec.selector but one (the EndpointSlice
 *   controller selects with labels.SelectorFromSet, every pair must match).
 *   Edit: the selector's value to theirs.
 * - No endpoints, selector matches pods of another namespace only: a
 *   Service selects pods of its own namespace. No one-line edit.
 * - No endpoints, selector matches, targetPort names a port the pods do not
 *   declare: podutil.FindPort fails and the controller leaves the pod out of
 *   that port's endpoints (endpointslice reconciler). Edit: targetPort to the
 *   name (or number) the pods declare.
 * - internalTrafficPolicy / externalTrafficPolicy Local with no endpoint on
 *   the handling node (pkg/proxy/topology.go CategorizeEndpoints: "has no
 *   local endpoints" DROP) while other nodes have ready ones. Edit: the
 *   field to Cluster.
 */
import { lineOfPath } from "../parse/positions.ts";
import type { Model, Pod } from "../model/types.ts";
import type { Service, ServicePort } from "../model/services.ts";
import type { EditAt, NearMissRef } from "../netpol/nearmiss.ts";
import type { PortEndpoints } from "./endpoints.ts";

export interface ProxyNearMiss {
  /** What fails: the selector by one label, the namespace, the targetPort's name, the traffic policy. */
  condition: "selector" | "namespace" | "targetPort" | "trafficPolicy";
  /** One sentence: what the Service asks, what the pods have. */
  text: string;
  /** Where the Service says it (its selector, port or traffic policy line). */
  ruleRef: NearMissRef;
  /** Where the pods (or endpoints) it misses are written. */
  objectRef?: NearMissRef;
  /** The one field of the Service whose new value makes it work (a what-if action, whatif/). */
  edit?: FieldEdit;
}

/** Set one scalar field of a Service (`field`, the same as `path`): a what-if action. */
export interface FieldEdit {
  kind: "field";
  target: { kind: "Service"; namespace: string; name: string };
  field: string;
  /** The field's path in the object (keys and sequence indexes). */
  path: (string | number)[];
  value: string | number;
  at: EditAt;
}

function fieldEdit(
  s: Service,
  ref: NearMissRef,
  path: (string | number)[],
  value: string | number,
): FieldEdit {
  return {
    kind: "field",
    target: { kind: "Service", namespace: s.namespace, name: s.name },
    field: ref.field ?? path.join("."),
    path,
    value,
    at: { file: ref.file, doc: s.source.doc, line: ref.line },
  };
}

const MAX = 3;

function serviceRef(model: Model, s: Service, path: (string | number)[], field: string): NearMissRef {
  const o = model.objects.find(
    (x) => x.kind === "Service" && x.name === s.name && (x.namespace ?? "default") === s.namespace,
  );
  const line = (o && lineOfPath(o.raw, path)) || s.lines.spec || s.source.line;
  return { kind: "Service", namespace: s.namespace, name: s.name, file: s.source.file, line, field };
}

/** Where a pod's labels or ports are written: the Pod, or its workload's template. */
function podRef(model: Model, p: Pod, tail: (string | number)[], field: string): NearMissRef {
  const src = p.source;
  const o = model.objects.find(
    (x) =>
      x.kind === src.kind &&
      x.name === src.name &&
      (x.namespace ?? "default") === (src.namespace ?? "default"),
  );
  const path = p.generated ? ["spec", "template", ...tail] : tail;
  const line = (o && lineOfPath(o.raw, path)) || src.line;
  const r: NearMissRef = { kind: src.kind, name: src.name, file: src.file, line, field };
  if (src.namespace !== undefined) r.namespace = src.namespace;
  return r;
}

const owner = (p: Pod) => `${p.workload.kind} ${p.workload.namespace}/${p.workload.name}`;
const quote = (k: string, v: string) => `\`${k}=${v}\``;

function onePerWorkload(pods: Pod[]): Pod[] {
  const seen = new Set<string>();
  return pods.filter((p) => {
    const k = owner(p);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

function selectorMisses(model: Model, s: Service, port: ServicePort): ProxyNearMiss[] {
  const selector = s.selector ?? {};
  const keys = Object.keys(selector);
  if (!keys.length) return [];
  const out: ProxyNearMiss[] = [];
  const fails = (p: Pod) => keys.filter((k) => p.labels[k] !== selector[k]);
  const here = model.pods.filter((p) => p.namespace === s.namespace);
  const matching = here.filter((p) => fails(p).length === 0);
  if (matching.length) {
    // The selector matches: a named targetPort that none of these pods declares leaves them out of this port.
    const tp = port.targetPort;
    if (typeof tp !== "string") return [];
    for (const p of onePerWorkload(matching)) {
      if (p.ports.some((c) => c.name === tp && c.protocol === port.protocol)) continue;
      const same = p.ports.filter((c) => c.protocol === port.protocol);
      const only = same.length === 1 ? same[0] : undefined;
      const declared = same.map((c) =>
        c.name ? `\`${c.name}\` (${c.containerPort})` : `${c.containerPort}`,
      );
      const path = ["spec", "ports", port.index, "targetPort"];
      const m: ProxyNearMiss = {
        condition: "targetPort",
        text: `targetPort \`${tp}\` of Service ${s.key} port ${port.name || port.port} names no ${port.protocol} container port of the pods of ${owner(p)}; ${declared.length ? `they declare ${declared.join(", ")}` : "they declare none"}`,
        ruleRef: serviceRef(model, s, path, `spec.ports[${port.index}].targetPort`),
        objectRef: podRef(model, p, ["spec", "containers"], "containers[].ports"),
      };
      if (only) m.edit = fieldEdit(s, m.ruleRef, path, only.name ?? only.containerPort);
      out.push(m);
      if (out.length >= MAX) break;
    }
    return out;
  }
  for (const p of onePerWorkload(
    here.filter(
      // One label off: a different value, or (with more than one key) a missing one; a pod that lacks the only key is not close.
      (x) => fails(x).length === 1 && (x.labels[fails(x)[0]!] !== undefined || keys.length > 1),
    ),
  )) {
    const k = fails(p)[0]!;
    const has = p.labels[k];
    const m: ProxyNearMiss = {
      condition: "selector",
      text: `the selector of Service ${s.key} matches the pods of ${owner(p)} but for one label: it asks ${quote(k, selector[k]!)}; ${has === undefined ? `they have no label \`${k}\`` : `they have ${quote(k, has)}`}`,
      ruleRef: serviceRef(model, s, ["spec", "selector", k], `spec.selector.${k}`),
      objectRef: podRef(
        model,
        p,
        has === undefined ? ["metadata", "labels"] : ["metadata", "labels", k],
        "metadata.labels",
      ),
    };
    if (has !== undefined) m.edit = fieldEdit(s, m.ruleRef, ["spec", "selector", k], has);
    out.push(m);
    if (out.length >= MAX) return out;
  }
  if (out.length) return out;
  for (const p of onePerWorkload(
    model.pods.filter((x) => x.namespace !== s.namespace && fails(x).length === 0),
  )) {
    out.push({
      condition: "namespace",
      text: `the pods of ${owner(p)} match the selector of Service ${s.key}, but a Service selects pods of its own namespace (${s.namespace}), not ${p.namespace}`,
      ruleRef: serviceRef(model, s, ["spec", "selector"], "spec.selector"),
      objectRef: podRef(model, p, ["metadata", "labels"], "metadata.labels"),
    });
    if (out.length >= MAX) break;
  }
  return out;
}

/**
 * The near misses of a kube-proxy drop on `node`: `none` is no endpoint at
 * all (REJECT), `local` no local endpoint under a Local traffic policy (DROP).
 */
export function proxyNearMisses(
  model: Model,
  s: Service,
  port: ServicePort,
  endpoints: PortEndpoints,
  why:
    | { kind: "none" }
    | { kind: "local"; node: string; field: "internalTrafficPolicy" | "externalTrafficPolicy" },
): ProxyNearMiss[] {
  const all = [...endpoints.v4, ...endpoints.v6];
  if (why.kind === "none") return all.length ? [] : selectorMisses(model, s, port);
  const elsewhere = all.filter((e) => e.ready && e.nodeName && e.nodeName !== why.node);
  if (!elsewhere.length) return [];
  const nodes = [...new Set(elsewhere.map((e) => e.nodeName!))];
  const pods = elsewhere.map((e) => e.pod ?? e.key);
  const first = elsewhere[0]!;
  const objectRef: NearMissRef = {
    kind: first.ref.kind,
    name: first.ref.name,
    file: first.ref.file,
    line: first.ref.line,
    field: "endpoints",
  };
  if (first.ref.namespace !== undefined) objectRef.namespace = first.ref.namespace;
  const ruleRef = serviceRef(model, s, ["spec", why.field], `spec.${why.field}`);
  return [
    {
      condition: "trafficPolicy",
      text: `${why.field} Local keeps the packet on ${why.node}, which has no endpoint; the ready ${elsewhere.length === 1 ? "endpoint is" : "endpoints are"} on ${nodes.join(", ")} (${pods.slice(0, 3).join(", ")}${pods.length > 3 ? `, and ${pods.length - 3} more` : ""}): with ${why.field} Cluster kube-proxy on ${why.node} would forward to ${elsewhere.length === 1 ? "it" : "them"}${why.field === "externalTrafficPolicy" ? " (masqueraded: the backends would no longer see the client's address)" : ""}`,
      ruleRef,
      objectRef,
      edit: fieldEdit(s, ruleRef, ["spec", why.field], "Cluster"),
    },
  ];
}
