/**
 * `ktl validate`: what kube-apiserver 1.35 would reject (errors) and the
 * traps it accepts (warnings, from lint.ts). Objects are checked in input
 * order, as `kubectl apply -f` would send them, so cluster-wide allocations
 * (ClusterIPs, node ports) clash the way they would in a real cluster.
 */
import { isCniObject } from "../cni/index.ts";
import type { KObject } from "../parse/manifests.ts";
import type { Diagnostic, DiagnosticCode } from "../parse/diagnostics.ts";
import { str, type Json } from "../parse/values.ts";
import type { Model } from "../model/types.ts";
import { formatPath, invalid, required, type FieldError } from "./errors.ts";
import { decode, ENDPOINT_SLICE, metadataOnly, NETWORK_POLICY, SERVICE, type Schema } from "./decode.ts";
import { maxLenError, nameIsDNSLabel, nameIsDNSSubdomain, type NameFunc } from "./formats.ts";
import { validateObjectMeta } from "./meta.ts";
import type { Svc } from "./service.ts";
import { Allocations, validateServiceCreate } from "./serviceCreate.ts";
import { networkPolicyWarnings, validateNetworkPolicy } from "./networkpolicy.ts";
import { validateEndpointSlice } from "./endpointslice.ts";
import { lintModel } from "./lint.ts";
import { isModelled } from "../parse/kinds.ts";
import {
  lintTierPriorities,
  TIER_KINDS,
  tierPortWarnings,
  unknownTierFields,
  validateClusterPolicy,
} from "./tiers.ts";
import { CLUSTER_SCOPED, finding, warning, type Finding, type Warning } from "./findings.ts";
import { validateHTTPRoute, validateVirtualService } from "./routers.ts";

export type { Finding, Warning } from "./findings.ts";

export interface ValidationResult {
  errors: Finding[];
  warnings: Warning[];
}

/** The API group/version each modelled kind is served at in 1.35 (the RESTMapper's view). */
const SERVED: Record<string, string> = {
  Namespace: "v1",
  Node: "v1",
  Pod: "v1",
  Service: "v1",
  Endpoints: "v1",
  ReplicationController: "v1",
  Deployment: "apps/v1",
  ReplicaSet: "apps/v1",
  StatefulSet: "apps/v1",
  DaemonSet: "apps/v1",
  Job: "batch/v1",
  CronJob: "batch/v1",
  NetworkPolicy: "networking.k8s.io/v1",
  Ingress: "networking.k8s.io/v1",
  EndpointSlice: "discovery.k8s.io/v1",
};

/** The name rule of each kind's Validate<Kind>Name. */
const NAME_RULES: Record<string, [NameFunc, string]> = {
  Namespace: [nameIsDNSLabel, "ValidateNamespaceName (NameIsDNSLabel)"],
  Node: [nameIsDNSSubdomain, "ValidateNodeName (NameIsDNSSubdomain)"],
  Pod: [nameIsDNSSubdomain, "ValidatePodName (NameIsDNSSubdomain)"],
  Endpoints: [nameIsDNSSubdomain, "ValidateEndpointsName (NameIsDNSSubdomain)"],
  ReplicationController: [nameIsDNSSubdomain, "ValidateReplicationController (NameIsDNSSubdomain)"],
  Deployment: [nameIsDNSSubdomain, "ValidateDeploymentName (NameIsDNSSubdomain)"],
  ReplicaSet: [nameIsDNSSubdomain, "ValidateReplicaSetName (NameIsDNSSubdomain)"],
  StatefulSet: [nameIsDNSLabel, "ValidateStatefulSetName (NameIsDNSLabel)"],
  DaemonSet: [nameIsDNSSubdomain, "ValidateDaemonSetName (NameIsDNSSubdomain)"],
  Job: [nameIsDNSSubdomain, "ValidateJob (NameIsDNSSubdomain)"],
  CronJob: [nameIsDNSSubdomain, "ValidateCronJob (NameIsDNSSubdomain)"],
  Ingress: [nameIsDNSSubdomain, "ValidateIngressName (NameIsDNSSubdomain)"],
};

const SCHEMAS: Record<string, Schema> = {
  Service: SERVICE,
  NetworkPolicy: NETWORK_POLICY,
  EndpointSlice: ENDPOINT_SLICE,
};

function checkApiVersion(o: KObject): FieldError | undefined {
  const served = SERVED[o.kind];
  if (!served) return undefined;
  const apiVersion = str(o.raw.apiVersion) ?? "";
  const up = "kubectl RESTMapper (resource mapping, before the request is sent)";
  if (apiVersion === "") return required(["apiVersion"], "apiVersion not set", up);
  if (apiVersion !== served)
    return invalid(
      ["apiVersion"],
      apiVersion,
      `no matches for kind "${o.kind}" in version "${apiVersion}"`,
      up,
    );
  return undefined;
}

/** CronJob names leave room for the 11-character suffix of its Jobs (ValidateCronJob). */
function cronJobName(raw: Json): FieldError[] {
  const name = str((raw.metadata as Json | undefined)?.name) ?? "";
  return name.length > 52 ? [invalid(["metadata", "name"], name, maxLenError(52), "ValidateCronJob")] : [];
}

export interface ValidateOptions {
  /** Skip lint (apiserver errors only). */
  lint?: boolean;
}

/**
 * An object's own findings, kept for the next validation by its parsed value (which the parse cache keeps for an
 * unchanged doc from one text to the next) with where the doc stands: every check but a Service's reads the object
 * alone, so an edit checks again only the objects it changed or moved. A Service's ClusterIP and node ports are
 * allocated in input order against the others (`Allocations`): it is checked every time.
 */
interface Checked {
  at: Pick<KObject, "file" | "doc" | "line" | "kind" | "apiVersion" | "namespace" | "name">;
  errors: Finding[];
  warnings: Warning[];
}
const checked = new WeakMap<object, Checked>();

const standsWhereItStood = (a: Checked["at"], o: KObject) =>
  a.file === o.file &&
  a.doc === o.doc &&
  a.line === o.line &&
  a.kind === o.kind &&
  a.apiVersion === o.apiVersion &&
  a.namespace === o.namespace &&
  a.name === o.name;

/** Every apiserver error and lint warning for the model's objects. Never throws. */
export function validateModel(model: Model, options: ValidateOptions = {}): ValidationResult {
  const errors: Finding[] = [];
  const warnings: Warning[] = [];
  const allocations = new Allocations(model.config);
  const services = new Map<KObject, Svc>();
  for (const o of model.objects) {
    // The CNI dialects' kinds are CRDs (engine/cni reports their own errors): not the apiserver's built-in schemas.
    if (isCniObject(o)) continue;
    if (o.kind === "Service") {
      checkObject(o, allocations, services, errors, warnings);
      continue;
    }
    const hit = checked.get(o.raw);
    if (hit && standsWhereItStood(hit.at, o)) {
      errors.push(...hit.errors);
      warnings.push(...hit.warnings);
      continue;
    }
    const e0 = errors.length;
    const w0 = warnings.length;
    if (checkObject(o, allocations, services, errors, warnings))
      checked.set(o.raw, {
        at: {
          file: o.file,
          doc: o.doc,
          line: o.line,
          kind: o.kind,
          apiVersion: o.apiVersion,
          namespace: o.namespace,
          name: o.name,
        },
        errors: errors.slice(e0),
        warnings: warnings.slice(w0),
      });
  }
  // The routers are among the objects no policy layer models (model.others): their CRDs and admission.
  for (const o of model.others ?? []) {
    const check =
      o.kind === "HTTPRoute" && o.apiVersion.startsWith("gateway.networking.k8s.io/")
        ? validateHTTPRoute
        : o.kind === "VirtualService" && o.apiVersion.startsWith("networking.istio.io/")
          ? validateVirtualService
          : undefined;
    if (!check) continue;
    try {
      const r = check(o);
      errors.push(...r.errors);
      warnings.push(...r.warnings);
    } catch (e) {
      errors.push(internalError(o, e));
    }
  }
  if (options.lint !== false) {
    try {
      warnings.push(...lintModel(model, services, allocations));
      const tierObjects = new Map(
        model.clusterPolicies.flatMap((p) => {
          const o = model.objects.find((x) => x.kind === p.kind && x.name === p.name);
          return o ? [[p, o] as const] : [];
        }),
      );
      warnings.push(...lintTierPriorities(model, tierObjects));
    } catch (e) {
      const o = model.objects[0];
      if (o)
        warnings.push(
          warning(
            o,
            [],
            "KTL699",
            `lint failed: ${(e as Error).message}`,
            "Report this input to the ktl authors.",
            "ktl",
          ),
        );
    }
  }
  return { errors, warnings };
}

/** The finding that stands for an object's own when a rule threw on it. */
function internalError(o: KObject, e: unknown): Finding {
  return finding(o, {
    path: [],
    type: "Internal error",
    detail: `ktl could not validate this object: ${(e as Error).message}`,
    upstream: "ktl",
  });
}

/** One object's findings, added to `errors` and `warnings`; false when a rule threw (then an internal error stands for them). */
function checkObject(
  o: KObject,
  allocations: Allocations,
  services: Map<KObject, Svc>,
  errors: Finding[],
  warnings: Warning[],
): boolean {
  try {
    const api = checkApiVersion(o);
    if (api) {
      errors.push(finding(o, api));
      return true;
    }
    const schema = SCHEMAS[o.kind] ?? metadataOnly(o.kind);
    const decoded = decode(o.raw, schema);
    const tierPolicy = TIER_KINDS.has(o.kind) && isModelled(o.apiVersion, o.kind);
    for (const u of tierPolicy ? unknownTierFields(o) : decoded.unknown) {
      const field = formatPath(u);
      warnings.push(
        warning(
          o,
          u,
          "KTL510",
          `unknown field "${field}": kubectl (server-side field validation Strict, its default) rejects the object; other clients drop the field`,
          `Remove "${field}" or fix its spelling.`,
          "sigs.k8s.io/json strict decoding (fieldValidation=Strict)",
        ),
      );
    }
    if (decoded.errors.length) {
      errors.push(...decoded.errors.map((e) => finding(o, e)));
      return true;
    }
    let errs: FieldError[];
    switch (o.kind) {
      case "Service": {
        const r = validateServiceCreate(o.raw, o.namespace ?? "default", o.name, allocations);
        services.set(o, r.service);
        errs = r.errors;
        break;
      }
      case "NetworkPolicy":
        errs = validateNetworkPolicy(o.raw);
        for (const w of networkPolicyWarnings(o.raw))
          warnings.push(
            warning(
              o,
              w.path,
              "KTL612",
              w.detail,
              `Write ${w.canonical}: the apiserver reads the octets as decimal, some CNIs refuse the value.`,
              "validation.GetWarningsForCIDR (NetworkPolicy WarningsOnCreate)",
            ),
          );
        break;
      case "EndpointSlice":
        errs = validateEndpointSlice(o.raw);
        break;
      case "ClusterNetworkPolicy":
      case "AdminNetworkPolicy":
      case "BaselineAdminNetworkPolicy":
        // network-policy-api's CRDs (validate/tiers.ts), for the group they are modelled in.
        errs = TIER_KINDS.has(o.kind) && isModelled(o.apiVersion, o.kind) ? validateClusterPolicy(o) : [];
        if (TIER_KINDS.has(o.kind) && isModelled(o.apiVersion, o.kind)) warnings.push(...tierPortWarnings(o));
        break;
      default: {
        const rule = NAME_RULES[o.kind];
        errs = rule ? validateObjectMeta(o.raw, !CLUSTER_SCOPED.has(o.kind), rule[0], rule[1]) : [];
        if (o.kind === "CronJob") errs.push(...cronJobName(o.raw));
      }
    }
    errors.push(...errs.map((e) => finding(o, e)));
    return true;
  } catch (e) {
    // A rule that throws is a bug; the user still gets every other finding.
    errors.push(internalError(o, e));
    return false;
  }
}

/** Findings as editor markers. */
export function validationDiagnostics(r: ValidationResult): Diagnostic[] {
  const toDiag = (
    f: Finding,
    severity: "error" | "warning",
    code: DiagnosticCode,
    hint?: string,
  ): Diagnostic => {
    const d: Diagnostic = {
      code,
      severity,
      message: f.type === "Warning" ? f.detail : `${f.field}: ${f.type}${f.detail ? `: ${f.detail}` : ""}`,
      file: f.file,
      doc: f.doc,
      line: f.line,
      column: 1,
      kind: f.kind,
      name: f.name,
      field: f.field,
    };
    if (f.namespace !== undefined) d.namespace = f.namespace;
    if (hint) d.hint = hint;
    return d;
  };
  return [
    ...r.errors.map((e) => toDiag(e, "error", e.code ?? "KTL501")),
    ...r.warnings.map((w) => toDiag(w, "warning", w.code, w.hint)),
  ];
}

export { formatFieldError } from "./errors.ts";
