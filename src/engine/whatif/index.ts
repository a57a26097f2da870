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
import type { Model, Pod } from "../model/types.ts";
import { arr, isObj, obj, str, type Json } from "../parse/values.ts";
import { parseYamlFile, positionOf } from "../parse/yaml.ts";
import { externallyAccessible } from "../model/services.ts";
import { podKey, workloadKey } from "../model/ids.ts";
import { updateFindings } from "../validate/update.ts";
import { formatFieldError } from "../validate/errors.ts";
import type { LabelEdit } from "../netpol/nearmiss.ts";
import type { FieldEdit } from "../proxy/nearmiss.ts";
import { nearMissEditText } from "../trace/render.ts";
import {
  appendToDocument,
  applySplices,
  commentDocument,
  commentOut,
  insertDocumentAfter,
  insertKey,
  isFlow,
  lineStartOf,
  removeDocument,
  removeKey,
  sequenceItemSpan,
  setScalar,
  yamlLines,
  type Splice,
  type TextEdit,
} from "./text.ts";

export type { TextEdit } from "./text.ts";

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

export interface WhatIfResult {
  /** The edit was made (false: refused or nothing to change; `text` is the input). */
  changed: boolean;
  text: string;
  /** The replacements, in the input's offsets and 1-based lines/columns (apply all at once, e.g. Monaco executeEdits). */
  edits: TextEdit[];
  /** What was done, in one sentence. */
  summary: string;
  /** Consequences worth saying (pods removed, pods written out, fields dropped). */
  notes: string[];
  /** Why nothing was changed. */
  error?: string;
}

export interface WhatIfOptions {
  /** File name used for parsing (diagnostics only). */
  file?: string;
  /** The deletionTimestamp written by `terminating` (RFC 3339); fixed by default so results are reproducible. */
  now?: string;
}

const SCALABLE = new Set(["Deployment", "StatefulSet", "ReplicaSet", "ReplicationController"]);
const DEFAULT_NOW = "2025-01-01T00:00:00Z";

interface Ctx {
  text: string;
  objects: KObject[];
  model: Model;
  now: string;
}

function load(text: string, options: WhatIfOptions): Ctx {
  const parsed = parseManifests([{ name: options.file ?? "manifests.yaml", text }]);
  const model = buildModel(parsed);
  return { text, objects: parsed.objects, model, now: options.now ?? DEFAULT_NOW };
}

function strip(id: string, prefix: string): string {
  return id.startsWith(`${prefix}:`) ? id.slice(prefix.length + 1) : id;
}

/** "ns/name" (namespace default when absent). */
function nsName(id: string): { namespace: string; name: string } {
  const i = id.indexOf("/");
  return i < 0 ? { namespace: "default", name: id } : { namespace: id.slice(0, i), name: id.slice(i + 1) };
}

function findObject(
  ctx: Ctx,
  kinds: (k: string) => boolean,
  namespace: string | undefined,
  name: string,
): KObject | undefined {
  // The last definition wins, as in the model (model/build.ts dedupe).
  let found: KObject | undefined;
  for (const o of ctx.objects) {
    if (!kinds(o.kind) || o.name !== name) continue;
    if (namespace !== undefined && (o.namespace ?? "default") !== namespace) continue;
    found = o;
  }
  return found;
}

function refused(text: string, error: string): WhatIfResult {
  return { changed: false, text, edits: [], summary: error, notes: [], error };
}

function done(text: string, splices: Splice[], summary: string, notes: string[] = []): WhatIfResult {
  if (splices.length === 0) return { changed: false, text, edits: [], summary, notes };
  const r = applySplices(text, splices);
  return { changed: r.text !== text, text: r.text, edits: r.edits, summary, notes };
}

/** The object is a YAML doc of its own (not an item of a `kind: List`). */
function isRoot(text: string, o: KObject): boolean {
  const p = positionOf(o.raw);
  if (!p) return false;
  if (text[p.offset] === "{") return text.slice(lineStartOf(text, p.offset), p.offset).trim() === "";
  const first = p.keys && p.keys.size ? Math.min(...p.keys.values()) : p.offset;
  const c = text[first - 1];
  const start = c === '"' || c === "'" ? first - 1 : first;
  return start === lineStartOf(text, start);
}

/** Sets `path` (all mappings but the last key) to a scalar, creating missing mappings. */
function setPath(
  ctx: Ctx,
  o: KObject,
  path: readonly string[],
  value: string | number | boolean,
  after?: string,
): Splice {
  let node: Json = o.raw;
  for (let i = 0; i < path.length - 1; i++) {
    const key = path[i]!;
    const child = obj(node[key]);
    if (!child || !positionOf(child)) {
      const nested: Record<string, unknown> = {};
      let cur = nested;
      for (let j = i + 1; j < path.length - 1; j++) cur = (cur[path[j]!] = {}) as Record<string, unknown>;
      cur[path[path.length - 1]!] = value;
      return addKey(ctx, o, node, key, nested);
    }
    node = child;
  }
  return setScalar(ctx.text, node, path[path.length - 1]!, value, after);
}

/** Adds a key to a mapping of object `o`: at the end of the YAML doc for a top-level key of a block-style doc, else in place. */
function addKey(ctx: Ctx, o: KObject, map: Json, key: string, value: unknown): Splice {
  if (map === o.raw && isRoot(ctx.text, o) && !isFlow(ctx.text, map))
    return appendToDocument(ctx.text, o.raw, yamlLines(key, value));
  return insertKey(ctx.text, map, key, value);
}

// ---------- scale ----------

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

function controllerOfPod(o: KObject): { kind: string; name: string } | undefined {
  const owners = arr(obj(o.raw.metadata)?.ownerReferences).filter(isObj);
  const c = owners.find((r) => r.controller === true);
  const kind = str(c?.kind);
  const name = str(c?.name);
  return kind && name ? { kind, name } : undefined;
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

function deleteSplice(ctx: Ctx, o: KObject): Splice {
  if (isRoot(ctx.text, o)) return removeDocument(ctx.text, o.raw);
  const list = findContainingSequence(ctx, o);
  if (list) {
    const span = sequenceItemSpan(ctx.text, list.seq, list.index);
    if (span) return { ...span, text: "" };
  }
  return removeDocument(ctx.text, o.raw);
}

/** The `items` sequence of a `kind: List` that holds `o` (matched by offset in a fresh parse of the same text). */
function findContainingSequence(ctx: Ctx, o: KObject): { seq: unknown[]; index: number } | undefined {
  const target = positionOf(o.raw)?.offset;
  if (target === undefined) return undefined;
  for (const d of parseYamlFile("x", ctx.text).documents) {
    const items = isObj(d.value) ? d.value.items : undefined;
    if (!Array.isArray(items)) continue;
    const index = items.findIndex((it) => isObj(it) && positionOf(it)?.offset === target);
    if (index >= 0) return { seq: items, index };
  }
  return undefined;
}

function podTarget(ctx: Ctx, id: string): { pod: Pod; object?: KObject } | string {
  const key = strip(id, "pod");
  const { namespace, name } = nsName(key);
  const pod = ctx.model.podsByKey.get(podKey(namespace, name));
  if (!pod) return `no pod ${namespace}/${name} in the input`;
  if (pod.generated) return { pod };
  const object = findObject(ctx, (k) => k === "Pod", namespace, name);
  return object ? { pod, object } : { pod };
}

/** The controller reference a workload's pod carries (a Deployment's pods belong to its ReplicaSet `<name>-<pod-template-hash>`). */
function ownerReference(pod: Pod): Record<string, unknown> {
  const w = pod.workload;
  switch (w.kind) {
    case "Deployment":
      return {
        apiVersion: "apps/v1",
        kind: "ReplicaSet",
        name: `${w.name}-${pod.labels["pod-template-hash"] ?? ""}`,
        controller: true,
      };
    case "CronJob":
      return {
        apiVersion: "batch/v1",
        kind: "Job",
        name: pod.labels["job-name"] ?? w.name,
        controller: true,
      };
    case "Job":
      return { apiVersion: "batch/v1", kind: "Job", name: w.name, controller: true };
    case "ReplicationController":
      return { apiVersion: "v1", kind: "ReplicationController", name: w.name, controller: true };
    default:
      return { apiVersion: "apps/v1", kind: w.kind, name: w.name, controller: true };
  }
}

/** A generated pod written out as a Pod object with the given state. */
function materialize(
  ctx: Ctx,
  pod: Pod,
  state: { ready: boolean; terminating: boolean },
  pin = false,
): Splice {
  const metadata: Record<string, unknown> = { name: pod.name, namespace: pod.namespace };
  if (Object.keys(pod.labels).length) metadata.labels = pod.labels;
  if (Object.keys(pod.annotations).length) metadata.annotations = pod.annotations;
  if (state.terminating) {
    metadata.deletionTimestamp = ctx.now;
    metadata.deletionGracePeriodSeconds = 30;
  }
  metadata.ownerReferences = [ownerReference(pod)];
  const spec: Record<string, unknown> = { ...(obj(pod.raw.spec) ?? {}) };
  // Pinned to its node, unless the node is one the model assumes for an input
  // without nodes (naming it would make it the only node); unpinned, the pod
  // is placed in its workload's turn and lands on the same node.
  const named = (o: KObject) =>
    (o.kind === "Node" && o.name === pod.nodeName) ||
    (o.kind === "Pod" && obj(o.raw.spec)?.nodeName === pod.nodeName);
  if (pod.nodeName && (pin || ctx.objects.some(named))) spec.nodeName = pod.nodeName;
  const status: Record<string, unknown> = { phase: "Running" };
  if (pod.ips.length) status.podIPs = pod.ips.map((ip) => ({ ip }));
  status.conditions = [{ type: "Ready", status: state.ready ? "True" : "False" }];
  const body = { apiVersion: "v1", kind: "Pod", metadata, spec, status };
  const comment = `# ${pod.key}, a pod of ${pod.workload.kind} ${pod.workload.namespace}/${pod.workload.name}, written out by a what-if.\n`;
  const text =
    comment +
    Object.entries(body)
      .flatMap(([k, v]) => yamlLines(k, v))
      .join("\n") +
    "\n";
  const owner = ctx.objects.find(
    (o) =>
      o.kind === pod.workload.kind &&
      o.name === pod.workload.name &&
      (o.namespace ?? "default") === pod.workload.namespace,
  );
  return insertDocumentAfter(ctx.text, owner && isRoot(ctx.text, owner) ? owner.raw : undefined, text);
}

function readyConditionIndex(status: Json | undefined): number {
  return arr(status?.conditions).findIndex((c) => isObj(c) && c.type === "Ready");
}

function notReady(ctx: Ctx, id: string): WhatIfResult {
  const t = podTarget(ctx, id);
  if (typeof t === "string") return refused(ctx.text, t);
  const { pod, object } = t;
  if (!object) {
    if (!pod.ready) return done(ctx.text, [], `pod ${pod.key} is already not ready`);
    return done(
      ctx.text,
      [materialize(ctx, pod, { ready: false, terminating: pod.terminating })],
      `pod ${pod.key} is not ready (its Ready condition is False)`,
      [
        `${pod.key} is generated by ${pod.workload.kind} ${pod.workload.namespace}/${pod.workload.name}: it is written out as a Pod with status.conditions Ready False`,
      ],
    );
  }
  if (!pod.ready) return done(ctx.text, [], `pod ${pod.key} is already not ready`);
  const status = obj(object.raw.status);
  const conditions = status ? status.conditions : undefined;
  const i = readyConditionIndex(status);
  if (i >= 0) {
    const cond = (conditions as Json[])[i]!;
    return done(
      ctx.text,
      [setScalar(ctx.text, cond, "status", "False")],
      `pod ${pod.key} is not ready (its Ready condition is False)`,
    );
  }
  const entry = { type: "Ready", status: "False" };
  let splice: Splice;
  if (!status || !positionOf(status))
    splice = addKey(ctx, object, object.raw, "status", { phase: "Running", conditions: [entry] });
  else if (Array.isArray(conditions) && positionOf(conditions) && conditions.length > 0)
    splice = insertSequenceItem(ctx.text, conditions, entry);
  else if (conditions === undefined) splice = insertKey(ctx.text, status, "conditions", [entry]);
  else splice = setListValue(ctx.text, status, "conditions", [entry]);
  return done(ctx.text, [splice], `pod ${pod.key} is not ready (its Ready condition is False)`);
}

/** Replaces a key's collection value by a new one (its whole block). */
function setListValue(text: string, map: Json, key: string, value: unknown): Splice {
  const r = removeKey(text, map, key)!;
  const indent = text.slice(r.start, text.length).match(/^ */)![0];
  return {
    start: r.start,
    end: r.end,
    text:
      yamlLines(key, value)
        .map((l) => indent + l)
        .join("\n") + "\n",
  };
}

/** Inserts a mapping as the first item of a non-empty block sequence. */
function insertSequenceItem(text: string, seq: unknown[], item: Record<string, unknown>): Splice {
  const p = positionOf(seq)!;
  const first = p.items![0]!;
  if (text[p.offset] === "[")
    return { start: p.offset + 1, end: p.offset + 1, text: `${JSON.stringify(item)}, ` };
  const lineStart = lineStartOf(text, first);
  const dash = text.indexOf("-", lineStart);
  const indent = " ".repeat(dash - lineStart);
  const lines = Object.entries(item).flatMap(([k, v]) => yamlLines(k, v));
  return {
    start: lineStart,
    end: lineStart,
    text: lines.map((l, i) => `${indent}${i === 0 ? "- " : "  "}${l}`).join("\n") + "\n",
  };
}

function terminating(ctx: Ctx, id: string): WhatIfResult {
  const t = podTarget(ctx, id);
  if (typeof t === "string") return refused(ctx.text, t);
  const { pod, object } = t;
  if (pod.terminating) return done(ctx.text, [], `pod ${pod.key} is already terminating`);
  if (!object) {
    return done(
      ctx.text,
      [materialize(ctx, pod, { ready: pod.ready, terminating: true })],
      `pod ${pod.key} is terminating (deletionTimestamp set)`,
      [
        `${pod.key} is generated by ${pod.workload.kind} ${pod.workload.namespace}/${pod.workload.name}: it is written out as a Pod with metadata.deletionTimestamp`,
      ],
    );
  }
  const meta = obj(object.raw.metadata)!;
  const splice = setScalar(
    ctx.text,
    meta,
    "deletionTimestamp",
    ctx.now,
    meta.namespace !== undefined ? "namespace" : "name",
  );
  return done(ctx.text, [splice], `pod ${pod.key} is terminating (deletionTimestamp set)`);
}

function deletePod(ctx: Ctx, id: string): WhatIfResult {
  const t = podTarget(ctx, id);
  if (typeof t === "string") return refused(ctx.text, t);
  const { pod, object } = t;
  if (!object) {
    return refused(
      ctx.text,
      `${pod.key} belongs to ${pod.workload.kind} ${pod.workload.namespace}/${pod.workload.name}, whose controller recreates it at once: scale the workload to remove a pod, or make this one terminating`,
    );
  }
  const owner = controllerOfPod(object);
  const notes = owner
    ? [`its controller ${owner.kind} ${owner.name} would create a replacement; the input does not model it`]
    : [];
  return done(ctx.text, [deleteSplice(ctx, object)], `deleted pod ${pod.key}`, notes);
}

// ---------- policies and Services ----------

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
