/**
 * What-if edits: each one rewrites the manifest TEXT the way an operator's
 * action would change the cluster, so the change is visible (and undoable) in
 * the editor and every other byte, comments included, stays as written.
 *
 * - scale: spec.replicas of a Deployment, StatefulSet, ReplicaSet or
 *   ReplicationController (`kubectl scale`).
 * - cordon: spec.unschedulable: true on the Node (`kubectl cordon`). The
 *   pods running there stay: a cordon only keeps new pods away (scheduler's
 *   NodeUnschedulable filter; DaemonSet pods tolerate it). Workload pods the
 *   model placed on the node are written out as Pods bound to it
 *   (spec.nodeName, as the scheduler's binding left them), since the model
 *   would otherwise place them again and avoid the cordoned node.
 * - drain (`kubectl drain --ignore-daemonsets --force`): cordon, then evict
 *   every pod on the node except DaemonSet pods and static (mirror) pods.
 *   Evicted pods are REMOVED, not left terminating: the what-if shows the
 *   cluster once the drain is done, when replacements run elsewhere
 *   (kubectl drain waits for the evicted pods to be gone). Pods that a
 *   workload of the input generates move by themselves (the node is
 *   cordoned); a given pod with a controller loses spec.nodeName and its
 *   status, which stands for the replacement its controller creates and the
 *   scheduler places elsewhere; a bare pod (no controller) is deleted and
 *   nothing recreates it. The transient state, old pods terminating while
 *   they drain, is the separate `terminating` what-if.
 * - notReady: the pod's Ready condition turns False (a failing readiness
 *   probe): its endpoints turn not ready and not serving.
 * - terminating: metadata.deletionTimestamp is set (the pod was deleted and
 *   is in its grace period): its endpoints turn terminating, and keep
 *   serving while it stays Ready.
 * - deletePod: the Pod's YAML doc is removed. A pod that a workload of the
 *   input generates cannot be deleted for good: its controller recreates it
 *   at once, so nothing changes (scale the workload instead).
 * - policyOff: the NetworkPolicy is commented out (default) or removed.
 * - trafficPolicy: spec.internalTrafficPolicy or spec.externalTrafficPolicy
 *   is set. Switching externalTrafficPolicy from Local to Cluster also drops
 *   spec.healthCheckNodePort, as the apiserver does on update
 *   (pkg/registry/core/service/storage dropTypeDependentFields); Local is
 *   refused for a Service that is not externally accessible (apiserver
 *   validateServiceExternalTrafficPolicy).
 *
 * - label: one label of a Namespace or Pod (metadata.labels), and field: one
 *   scalar of a Service (its selector, a targetPort, a traffic policy): the
 *   near misses' edits (netpol/nearmiss.ts, proxy/nearmiss.ts), which the
 *   engine words as these actions so the UI runs them as they are.
 *
 * A pod that a workload generates has no object of its own to edit: notReady
 * and terminating write it out as a Pod (`kubectl get pod -o yaml` shape:
 * the workload's pod template, its node, its IPs, an ownerReference to its
 * controller) right after the workload, with the changed state. The model
 * lets a given pod with a generated pod's name stand in for that pod
 * (model/build.ts), so no other pod moves or changes IP.
 */
import { parseManifests, type KObject } from "../parse/manifests.ts";
import { buildModel } from "../load/index.ts";
import { arr, isObj, obj, str } from "../parse/values.ts";
import { positionOf } from "../parse/positions.ts";
import { externallyAccessible } from "../model/services.ts";
import { workloadKey } from "../model/ids.ts";
import { updateFindings } from "../validate/update.ts";
import { formatFieldError } from "../validate/errors.ts";
import type { LabelEdit } from "../netpol/nearmiss.ts";
import type { FieldEdit } from "../proxy/nearmiss.ts";
import { nearMissEditText } from "../trace/render.ts";
import {
  commentDocument,
  commentOut,
  insertDocumentAfter,
  removeKey,
  setScalar,
  yamlLines,
  type Splice,
} from "./text.ts";
import {
  controllerOfPod,
  deleteSplice,
  done,
  findObject,
  isRoot,
  load,
  nsName,
  refused,
  setPath,
  strip,
  type Ctx,
  type WhatIfOptions,
  type WhatIfResult,
} from "./edit.ts";
import { deletePod, materialize, notReady, terminating } from "./pods.ts";

export type { TextEdit } from "./text.ts";
export type { WhatIfOptions, WhatIfResult } from "./edit.ts";

export type WhatIf =
  | { kind: "scale"; workload: string; replicas: number }
  | { kind: "cordon"; node: string }
  | { kind: "drain"; node: string }
  | { kind: "notReady"; pod: string }
  | { kind: "terminating"; pod: string }
  | { kind: "deletePod"; pod: string }
  | { kind: "policyOff"; policy: string; mode?: "comment" | "remove" }
  | {
      kind: "trafficPolicy";
      service: string;
      field: "internalTrafficPolicy" | "externalTrafficPolicy";
      value: "Cluster" | "Local";
    }
  | LabelEdit
  | FieldEdit;

export type WhatIfKind = WhatIf["kind"];

const SCALABLE = new Set(["Deployment", "StatefulSet", "ReplicaSet", "ReplicationController"]);
function scale(ctx: Ctx, workload: string, replicas: number): WhatIfResult {
  if (!Number.isInteger(replicas) || replicas < 0)
    return refused(ctx.text, `replicas must be a whole number of 0 or more, not ${replicas}`);
  const id = strip(workload, "workload");
  const parts = id.split("/");
  let target: KObject | undefined;
  if (parts.length === 3) target = findObject(ctx, (k) => k === parts[1], parts[0], parts[2]!);
  else {
    const { namespace, name } = nsName(id);
    target = findObject(
      ctx,
      (k) => SCALABLE.has(k) || k === "DaemonSet" || k === "Job" || k === "CronJob",
      namespace,
      name,
    );
  }
  if (!target) return refused(ctx.text, `no workload ${id} in the input`);
  if (target.kind === "DaemonSet")
    return refused(
      ctx.text,
      `DaemonSet ${target.namespace ?? "default"}/${target.name} runs one pod per eligible node and has no replicas: change its nodeSelector, or cordon nodes, instead`,
    );
  if (!SCALABLE.has(target.kind))
    return refused(
      ctx.text,
      `${target.kind} ${target.namespace ?? "default"}/${target.name} cannot be scaled (kubectl scale works on Deployments, StatefulSets, ReplicaSets and ReplicationControllers)`,
    );
  const spec = obj(target.raw.spec);
  if (!spec) return refused(ctx.text, `${target.kind} ${target.name} has no spec`);
  const before = typeof spec.replicas === "number" ? spec.replicas : 1;
  const key = `${target.namespace ?? "default"}/${target.name}`;
  if (before === replicas && spec.replicas !== undefined)
    return done(ctx.text, [], `${target.kind} ${key} already has ${replicas} replicas`);
  return done(
    ctx.text,
    [setPath(ctx, target, ["spec", "replicas"], replicas)],
    `scaled ${target.kind} ${key} from ${before} to ${replicas} replica${replicas === 1 ? "" : "s"}`,
  );
}

// ---------- nodes ----------

function nodeDocument(name: string, labels: Record<string, string>, unschedulable: boolean): string {
  const body: Record<string, unknown> = { apiVersion: "v1", kind: "Node", metadata: { name, labels } };
  if (unschedulable) body.spec = { unschedulable: true };
  return (
    Object.entries(body)
      .flatMap(([k, v]) => yamlLines(k, v))
      .join("\n") + "\n"
  );
}

/** The splices that cordon a node; `already` when it is cordoned; a string when there is no such node. */
function cordonSplices(
  ctx: Ctx,
  nodeName: string,
): { splices: Splice[]; notes: string[] } | "already" | { error: string } {
  const name = strip(nodeName, "node");
  const node = ctx.model.nodesByName.get(name);
  if (!node)
    return {
      error: `no node ${name} in the input (nodes: ${ctx.model.nodes.map((n) => n.name).join(", ")})`,
    };
  const o = findObject(ctx, (k) => k === "Node", undefined, name);
  if (o) {
    if (obj(o.raw.spec)?.unschedulable === true) return "already";
    return { splices: [setPath(ctx, o, ["spec", "unschedulable"], true)], notes: [] };
  }
  // A node the model assumed: write it out. When the input has no Node at all,
  // write every assumed node, or the others would vanish from the model.
  const given = ctx.objects.some((x) => x.kind === "Node");
  const nodes = given ? [node] : ctx.model.nodes;
  const text = nodes.map((n) => nodeDocument(n.name, n.labels, n.name === name)).join("---\n");
  return {
    splices: [insertDocumentAfter(ctx.text, undefined, text)],
    notes: [
      given
        ? `node ${name} was assumed by the model; it is now written out as a Node`
        : `the input had no Node objects; the model's nodes (${nodes.map((n) => n.name).join(", ")}) are now written out`,
    ],
  };
}

function cordon(ctx: Ctx, nodeName: string): WhatIfResult {
  const r = cordonSplices(ctx, nodeName);
  if (r !== "already" && "error" in r) return refused(ctx.text, r.error);
  const name = strip(nodeName, "node");
  if (r === "already") return done(ctx.text, [], `node ${name} is already cordoned`);
  // Running workload pods stay where the scheduler bound them; only pods created from now on avoid the node.
  const staying = ctx.model.pods.filter(
    (p) =>
      p.nodeName === name &&
      p.generated &&
      p.workload.kind !== "DaemonSet" &&
      !str(obj(p.raw.spec)?.nodeName),
  );
  const notes = [...r.notes];
  const splices = [
    ...r.splices,
    ...staying.map((p) => materialize(ctx, p, { ready: p.ready, terminating: p.terminating }, true)),
  ];
  // Given pods the model placed (no spec.nodeName) are bound to the node the same way.
  for (const p of ctx.model.pods) {
    if (p.nodeName !== name || p.generated || str(obj(p.raw.spec)?.nodeName)) continue;
    const o = findObject(ctx, (k) => k === "Pod", p.namespace, p.name);
    if (!o) continue;
    splices.push(setPath(ctx, o, ["spec", "nodeName"], name));
    staying.push(p);
  }
  if (staying.length)
    notes.push(
      `${staying.length} running pod${staying.length === 1 ? "" : "s"} (${staying.map((p) => p.key).join(", ")}) stay on ${name}: a cordon keeps new pods away but evicts nothing (drain does); ${staying.length === 1 ? "it is" : "they are"} bound to the node (spec.nodeName)`,
    );
  return done(
    ctx.text,
    splices,
    `cordoned node ${name} (spec.unschedulable: true): its pods keep running, new pods go elsewhere`,
    notes,
  );
}

function drain(ctx: Ctx, nodeName: string): WhatIfResult {
  const name = strip(nodeName, "node");
  const c = cordonSplices(ctx, name);
  if (c !== "already" && "error" in c) return refused(ctx.text, c.error);
  const splices: Splice[] = c === "already" ? [] : [...c.splices];
  const notes: string[] = c === "already" ? [] : [...c.notes];
  const deleted: string[] = [];
  const rescheduled: string[] = [];
  const kept: string[] = [];
  for (const pod of ctx.model.pods) {
    if (pod.nodeName !== name) continue;
    if (pod.generated) {
      if (pod.workload.kind === "DaemonSet") kept.push(pod.key);
      else if (!str(obj(pod.raw.spec)?.nodeName)) rescheduled.push(pod.key);
      continue;
    }
    const o = findObject(ctx, (k) => k === "Pod", pod.namespace, pod.name);
    if (!o) continue;
    const owner = controllerOfPod(o);
    if (owner?.kind === "DaemonSet" || owner?.kind === "Node") {
      kept.push(pod.key);
      continue;
    }
    if (!owner) {
      splices.push(deleteSplice(ctx, o));
      deleted.push(pod.key);
      continue;
    }
    const spec = obj(o.raw.spec);
    if (spec && spec.nodeName !== undefined) splices.push(removeKey(ctx.text, spec, "nodeName")!);
    if (o.raw.status !== undefined) splices.push(removeKey(ctx.text, o.raw, "status")!);
    rescheduled.push(pod.key);
  }
  if (deleted.length)
    notes.push(
      `deleted ${deleted.join(", ")}: no controller recreates ${deleted.length === 1 ? "it" : "them"} (kubectl drain needs --force for such pods)`,
    );
  if (rescheduled.length)
    notes.push(
      `evicted ${rescheduled.join(", ")}: ${rescheduled.length === 1 ? "its controller's replacement runs" : "their controllers' replacements run"} on other nodes`,
    );
  if (kept.length)
    notes.push(`kept ${kept.join(", ")}: DaemonSet and static pods are not evicted (--ignore-daemonsets)`);
  if (splices.length === 0)
    return done(ctx.text, [], `node ${name} is already cordoned and has no pod to evict`, notes);
  return done(
    ctx.text,
    splices,
    `drained node ${name}: cordoned, ${deleted.length + rescheduled.length} pod${deleted.length + rescheduled.length === 1 ? "" : "s"} evicted`,
    notes,
  );
}

// ---------- pods ----------

function policyOff(ctx: Ctx, id: string, mode: "comment" | "remove"): WhatIfResult {
  const { namespace, name } = nsName(strip(strip(id, "networkpolicy"), "policy"));
  const o = findObject(ctx, (k) => k === "NetworkPolicy", namespace, name);
  if (!o) return refused(ctx.text, `no NetworkPolicy ${namespace}/${name} in the input`);
  let splice: Splice;
  if (mode === "remove") splice = deleteSplice(ctx, o);
  else if (isRoot(ctx.text, o)) splice = commentDocument(ctx.text, o.raw);
  else {
    const d = deleteSplice(ctx, o);
    splice = commentOut(ctx.text, d.start, d.end);
  }
  return done(
    ctx.text,
    [splice],
    `${mode === "remove" ? "removed" : "commented out"} NetworkPolicy ${namespace}/${name}`,
  );
}

function trafficPolicy(
  ctx: Ctx,
  id: string,
  field: "internalTrafficPolicy" | "externalTrafficPolicy",
  value: "Cluster" | "Local",
): WhatIfResult {
  const { namespace, name } = nsName(strip(id, "service"));
  const svc = ctx.model.services.find((s) => s.namespace === namespace && s.name === name);
  const o = findObject(ctx, (k) => k === "Service", namespace, name);
  if (!svc || !o) return refused(ctx.text, `no Service ${namespace}/${name} in the input`);
  if (value !== "Cluster" && value !== "Local")
    return refused(ctx.text, `${field} is Cluster or Local, not ${String(value)}`);
  if (field === "externalTrafficPolicy" && !externallyAccessible(svc)) {
    return refused(
      ctx.text,
      `Service ${svc.key} is ${svc.type} without external IPs: externalTrafficPolicy may only be set for externally-accessible services (apiserver validation)`,
    );
  }
  if (svc.type === "ExternalName")
    return refused(ctx.text, `Service ${svc.key} is ExternalName: traffic policies do not apply`);
  if (svc[field] === value && obj(o.raw.spec)?.[field] !== undefined)
    return done(ctx.text, [], `Service ${svc.key} already has ${field} ${value}`);
  const spec = obj(o.raw.spec);
  if (!spec) return refused(ctx.text, `Service ${svc.key} has no spec`);
  const splices: Splice[] = [
    setPath(ctx, o, ["spec", field], value, spec.type !== undefined ? "type" : undefined),
  ];
  const notes: string[] = [];
  if (field === "externalTrafficPolicy" && value === "Cluster" && spec.healthCheckNodePort !== undefined) {
    splices.push(removeKey(ctx.text, spec, "healthCheckNodePort")!);
    notes.push(
      "spec.healthCheckNodePort is dropped: only externalTrafficPolicy Local uses it, and the apiserver clears it on this change",
    );
  }
  return done(ctx.text, splices, `set ${field} of Service ${svc.key} to ${value} (was ${svc[field]})`, notes);
}

// ---------- near-miss edits ----------

function label(ctx: Ctx, e: LabelEdit): WhatIfResult {
  const { kind, name } = e.target;
  const namespace = kind === "Pod" ? (e.target.namespace ?? "default") : undefined;
  const o = findObject(ctx, (k) => k === kind, namespace, name);
  const id = `${kind} ${namespace !== undefined ? `${namespace}/` : ""}${name}`;
  if (!o) return refused(ctx.text, `no ${id} in the input to label`);
  const labels = obj(obj(o.raw.metadata)?.labels);
  if (labels && labels[e.key] === e.value)
    return done(ctx.text, [], `${id} already has label ${e.key}=${e.value}`);
  const before =
    labels && typeof labels[e.key] === "string" ? ` (was ${e.key}=${labels[e.key] as string})` : "";
  return done(
    ctx.text,
    [setPath(ctx, o, ["metadata", "labels", e.key], e.value)],
    `labelled ${id} ${e.key}=${e.value}${before}`,
  );
}

function field(ctx: Ctx, e: FieldEdit): WhatIfResult {
  const { namespace, name } = e.target;
  const id = `${namespace}/${name}`;
  const [top, second] = e.path;
  if (
    e.path.length === 2 &&
    top === "spec" &&
    (second === "internalTrafficPolicy" || second === "externalTrafficPolicy") &&
    (e.value === "Cluster" || e.value === "Local")
  )
    return trafficPolicy(ctx, id, second, e.value);
  const o = findObject(ctx, (k) => k === "Service", namespace, name);
  if (!o) return refused(ctx.text, `no Service ${id} in the input`);
  let node: unknown = o.raw;
  for (const step of e.path.slice(0, -1)) {
    node = typeof step === "number" ? arr(node)[step] : isObj(node) ? node[step] : undefined;
    if (!node || typeof node !== "object" || !positionOf(node))
      return refused(ctx.text, `Service ${id} has no ${e.field} to set`);
  }
  const last = e.path[e.path.length - 1];
  if (typeof last !== "string" || !isObj(node))
    return refused(ctx.text, `Service ${id} has no ${e.field} to set`);
  const was = node[last];
  if (was === e.value) return done(ctx.text, [], `${e.field} of Service ${id} is already ${e.value}`);
  return done(
    ctx.text,
    [setScalar(ctx.text, node, last, e.value)],
    `set ${e.field} of Service ${id} to ${e.value}${was !== undefined && typeof was !== "object" ? ` (was ${String(was)})` : ""}`,
  );
}

/** Applies one what-if to the manifest text. Never throws: a refused edit is a result with `error`. */
export function applyWhatIf(text: string, op: WhatIf, options: WhatIfOptions = {}): WhatIfResult {
  const ctx = load(text, options);
  const r = dispatch(ctx, op);
  return r.changed ? checkUpdate(ctx, r, options) : r;
}

/**
 * The edit as an update of the objects the cluster holds: refused when the
 * apiserver would reject it (immutable fields, ValidateServiceUpdate and
 * friends), with what it keeps (patchAllocatedValues) as notes.
 */
function checkUpdate(ctx: Ctx, r: WhatIfResult, options: WhatIfOptions): WhatIfResult {
  let u;
  try {
    u = updateFindings(
      ctx.model,
      buildModel(parseManifests([{ name: options.file ?? "manifests.yaml", text: r.text }])),
    );
  } catch {
    return r;
  }
  if (u.errors.length) {
    const e = u.errors[0]!;
    return refused(
      ctx.text,
      `the apiserver would reject this update: ${e.kind} ${e.namespace ? `${e.namespace}/` : ""}${e.name}: ${formatFieldError(e)}`,
    );
  }
  return u.warnings.length ? { ...r, notes: [...r.notes, ...u.warnings.map((w) => w.detail)] } : r;
}

function dispatch(ctx: Ctx, op: WhatIf): WhatIfResult {
  const text = ctx.text;
  try {
    switch (op.kind) {
      case "scale":
        return scale(ctx, op.workload, op.replicas);
      case "cordon":
        return cordon(ctx, op.node);
      case "drain":
        return drain(ctx, op.node);
      case "notReady":
        return notReady(ctx, op.pod);
      case "terminating":
        return terminating(ctx, op.pod);
      case "deletePod":
        return deletePod(ctx, op.pod);
      case "policyOff":
        return policyOff(ctx, op.policy, op.mode ?? "comment");
      case "trafficPolicy":
        return trafficPolicy(ctx, op.service, op.field, op.value);
      case "label":
        return label(ctx, op);
      case "field":
        return field(ctx, op);
    }
  } catch (e) {
    return refused(text, `the edit could not be made in this text: ${(e as Error).message}`);
  }
}

/** One line naming a what-if, for menus and undo labels. */
export function describeWhatIf(op: WhatIf): string {
  switch (op.kind) {
    case "scale":
      return `scale ${strip(op.workload, "workload")} to ${op.replicas}`;
    case "cordon":
      return `cordon ${strip(op.node, "node")}`;
    case "drain":
      return `drain ${strip(op.node, "node")}`;
    case "notReady":
      return `make ${strip(op.pod, "pod")} not ready`;
    case "terminating":
      return `make ${strip(op.pod, "pod")} terminating`;
    case "deletePod":
      return `delete ${strip(op.pod, "pod")}`;
    case "policyOff":
      return `switch off ${strip(op.policy, "networkpolicy")}`;
    case "trafficPolicy":
      return `set ${op.field} of ${strip(op.service, "service")} to ${op.value}`;
    case "label":
    case "field":
      return nearMissEditText(op);
  }
}

/** What the what-if controls can act on in this text, for the UI's menus. */
export interface WhatIfTargets {
  workloads: { id: string; kind: string; replicas: number }[];
  nodes: { id: string; unschedulable: boolean }[];
  pods: { id: string; ready: boolean; terminating: boolean; generated: boolean; node?: string }[];
  policies: { id: string }[];
  services: { id: string; internalTrafficPolicy: string; externalTrafficPolicy: string; external: boolean }[];
}

export function whatIfTargets(text: string, options: WhatIfOptions = {}): WhatIfTargets {
  const ctx = load(text, options);
  return {
    workloads: ctx.objects
      .filter((o) => SCALABLE.has(o.kind))
      .map((o) => ({
        id: workloadKey({ kind: o.kind, namespace: o.namespace ?? "default", name: o.name }),
        kind: o.kind,
        replicas: typeof obj(o.raw.spec)?.replicas === "number" ? (obj(o.raw.spec)!.replicas as number) : 1,
      })),
    nodes: ctx.model.nodes.map((n) => ({ id: n.name, unschedulable: n.unschedulable })),
    pods: ctx.model.pods.map((p) => ({
      id: p.key,
      ready: p.ready,
      terminating: p.terminating,
      generated: p.generated,
      ...(p.nodeName ? { node: p.nodeName } : {}),
    })),
    policies: ctx.model.policies.map((p) => ({ id: p.key })),
    services: ctx.model.services
      .filter((s) => s.type !== "ExternalName")
      .map((s) => ({
        id: s.key,
        internalTrafficPolicy: s.internalTrafficPolicy,
        externalTrafficPolicy: s.externalTrafficPolicy,
        external: externallyAccessible(s),
      })),
  };
}
