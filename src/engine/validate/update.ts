/**
 * `ktl validate --old OLD NEW` and the what-if edits: the update path of
 * kube-apiserver 1.35. OLD is what the cluster stores (each object created
 * in input order, allocations held); every object of NEW with the same kind,
 * namespace and name is an update of it, checked by its kind's
 * Validate<Kind>Update rules; the others are creates. Rules followed:
 * - Service: validateServiceUpdate (service.ts: patchAllocatedValues,
 *   allocateUpdate, ValidateServiceUpdate).
 * - EndpointSlice: ValidateEndpointSliceUpdate, addressType is immutable.
 * - Deployment, ReplicaSet, DaemonSet, ReplicationController:
 *   spec.selector is immutable (ValidateDeploymentUpdate and friends).
 * - StatefulSet: ValidateStatefulSetUpdate forbids changing anything in spec
 *   but replicas, ordinals, template, updateStrategy, revisionHistoryLimit,
 *   persistentVolumeClaimRetentionPolicy and minReadySeconds.
 * - Job: spec.selector and spec.template are immutable (ValidateJobUpdate,
 *   the template's scheduling directives aside).
 * Everything else is validated as a create.
 */
import type { KObject } from "../parse/manifests.ts";
import { boundedJson, obj, type Json } from "../parse/values.ts";
import type { Model } from "../model/types.ts";
import { forbidden, invalid, type FieldError } from "./errors.ts";
import { finding, warning, type Finding, type Warning } from "./findings.ts";
import type { Svc } from "./service.ts";
import { Allocations, validateServiceCreate } from "./serviceCreate.ts";
import { validateServiceUpdate } from "./serviceUpdate.ts";
import { validateModel, type ValidateOptions, type ValidationResult } from "./index.ts";

const key = (o: KObject) =>
  `${o.kind}/${o.kind === "Namespace" || o.kind === "Node" ? "" : (o.namespace ?? "default")}/${o.name}`;

const same = (a: unknown, b: unknown) =>
  boundedJson((a ?? null) as Json) === boundedJson((b ?? null) as Json);

const STATEFULSET_UPDATABLE = new Set([
  "replicas",
  "ordinals",
  "template",
  "updateStrategy",
  "revisionHistoryLimit",
  "persistentVolumeClaimRetentionPolicy",
  "minReadySeconds",
]);

/** The immutable-field rules of the workload kinds and EndpointSlice. */
export function immutableFieldErrors(kind: string, raw: Json, oldRaw: Json): FieldError[] {
  const spec = obj(raw.spec) ?? {};
  const oldSpec = obj(oldRaw.spec) ?? {};
  const immutable = (path: string[], value: unknown, up: string): FieldError =>
    invalid(path, value ?? null, "field is immutable", up);
  switch (kind) {
    case "EndpointSlice":
      return same(raw.addressType, oldRaw.addressType)
        ? []
        : [immutable(["addressType"], raw.addressType, "ValidateEndpointSliceUpdate")];
    case "Deployment":
    case "ReplicaSet":
    case "DaemonSet":
    case "ReplicationController":
      if (kind === "ReplicationController") return [];
      return same(spec.selector, oldSpec.selector)
        ? []
        : [immutable(["spec", "selector"], spec.selector, `Validate${kind}Update (ValidateImmutableField)`)];
    case "StatefulSet": {
      const keys = new Set([...Object.keys(spec), ...Object.keys(oldSpec)]);
      for (const k of keys) {
        if (STATEFULSET_UPDATABLE.has(k)) continue;
        if (!same(spec[k], oldSpec[k])) {
          return [
            forbidden(
              ["spec"],
              "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
              "ValidateStatefulSetUpdate",
            ),
          ];
        }
      }
      return [];
    }
    case "Job": {
      const errs: FieldError[] = [];
      if (
        spec.selector !== undefined &&
        oldSpec.selector !== undefined &&
        !same(spec.selector, oldSpec.selector)
      )
        errs.push(immutable(["spec", "selector"], spec.selector, "ValidateJobUpdate"));
      if (!same(spec.template, oldSpec.template))
        errs.push(immutable(["spec", "template"], spec.template, "ValidateJobUpdate"));
      return errs;
    }
    default:
      return [];
  }
}

export interface UpdateResult extends ValidationResult {
  /** "Kind namespace/name" of each object NEW updates (the others are creates). */
  updated: string[];
}

/**
 * Every apiserver error for applying `next` over `old`, and lint of `next`.
 * Errors of `old` itself are not reported: it is taken as what the cluster holds.
 */
export function validateModelUpdate(old: Model, next: Model, options: ValidateOptions = {}): UpdateResult {
  const base = validateModel(next, options);
  const u = updateFindings(old, next);
  const updatedKeys = new Set(u.keys);
  // Creates keep their create findings; an updated Service's are replaced by
  // its update's (the update path allocates and validates it afresh).
  const createErrors = base.errors.filter((f) => {
    const k = `${f.kind}/${f.kind === "Namespace" || f.kind === "Node" ? "" : (f.namespace ?? "default")}/${f.name}`;
    return (
      !updatedKeys.has(k) ||
      (f.kind !== "Service" &&
        !u.errors.some((e) => e.kind === f.kind && e.name === f.name && e.field === f.field))
    );
  });
  return {
    errors: [...createErrors, ...u.errors],
    warnings: [...u.warnings, ...base.warnings],
    updated: u.updated,
  };
}

/** The update path alone: errors of NEW's objects that update one of OLD's, and KTL620 notes (no create validation, no lint). */
export function updateFindings(
  old: Model,
  next: Model,
): { errors: Finding[]; warnings: Warning[]; updated: string[]; keys: string[] } {
  const al = new Allocations(next.config);
  const stored = new Map<string, { o: KObject; svc?: Svc }>();
  for (const o of old.objects) {
    const entry: { o: KObject; svc?: Svc } = { o };
    if (o.kind === "Service")
      entry.svc = validateServiceCreate(o.raw, o.namespace ?? "default", o.name, al).service;
    stored.set(key(o), entry);
  }
  const errors: Finding[] = [];
  const kept: Warning[] = [];
  const updated: string[] = [];
  const updatedKeys = new Set<string>();
  for (const o of next.objects) {
    const prev = stored.get(key(o));
    if (!prev) continue;
    updatedKeys.add(key(o));
    updated.push(
      `${o.kind} ${o.kind === "Namespace" || o.kind === "Node" ? "" : `${o.namespace ?? "default"}/`}${o.name}`,
    );
    let errs: FieldError[];
    try {
      errs =
        o.kind === "Service" && prev.svc
          ? validateServiceUpdate(o.raw, prev.svc, o.namespace ?? "default", o.name, al).errors
          : immutableFieldErrors(o.kind, o.raw, prev.o.raw);
    } catch (e) {
      errs = [
        {
          path: [],
          type: "Internal error",
          detail: `ktl could not validate this update: ${(e as Error).message}`,
          upstream: "ktl",
        },
      ];
    }
    errors.push(...errs.map((e) => finding(o, e)));
    const spec = obj(o.raw.spec) ?? {};
    if (
      o.kind === "Service" &&
      prev.svc?.clusterIP === "None" &&
      spec.clusterIP === undefined &&
      spec.clusterIPs === undefined &&
      spec.type !== "ExternalName"
    ) {
      kept.push(
        warning(
          o,
          ["spec"],
          "KTL620",
          "clusterIP is left out, so the apiserver keeps the stored value None (patchAllocatedValues): the update is accepted and the Service stays headless; only an explicit new clusterIP is rejected, as immutable",
          "To give the Service a ClusterIP, delete and recreate it (kubectl replace --force), or keep clusterIP: None in the manifest so it says what the cluster does.",
          "patchAllocatedValues (pkg/registry/core/service/storage/storage.go)",
        ),
      );
    }
  }
  return { errors, warnings: kept, updated, keys: [...updatedKeys] };
}
