/**
 * Object metadata, labels and label selectors:
 * k8s.io/apimachinery/pkg/api/validation ValidateObjectMetaAccessor and
 * ValidateAnnotations; k8s.io/apimachinery/pkg/apis/meta/v1/validation
 * ValidateLabels, ValidateLabelName, ValidateLabelSelector(Requirement).
 */
import { isObj, str, type Json } from "../parse/values.ts";
import { forbidden, invalid, required, tooLong, type FieldError, type PathSegment } from "./errors.ts";
import { byteLength, isLabelValue, isQualifiedName, nameIsDNSLabel, type NameFunc } from "./formats.ts";

/** A string map as decoding leaves it (decode already rejected non-string values). */
export function stringEntries(v: unknown): [string, string][] {
  if (!isObj(v)) return [];
  return Object.entries(v).filter((e): e is [string, string] => typeof e[1] === "string");
}

/** ValidateLabelName: the key must be a qualified name. */
export function validateLabelName(key: string, path: PathSegment[]): FieldError[] {
  return isQualifiedName(key).map((m) => invalid(path, key, m, "metav1validation.ValidateLabelName"));
}

/** ValidateLabels: errors point at the map itself, as upstream does. */
export function validateLabels(labels: unknown, path: PathSegment[]): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of stringEntries(labels)) {
    errs.push(...validateLabelName(k, path));
    for (const m of isLabelValue(v)) errs.push(invalid(path, v, m, "metav1validation.ValidateLabels"));
  }
  return errs;
}

/** ValidateLabelSelector with AllowInvalidLabelValueInSelector false (a create). */
export function validateLabelSelector(sel: unknown, path: PathSegment[]): FieldError[] {
  if (!isObj(sel)) return [];
  const errs = validateLabels(sel.matchLabels, [...path, "matchLabels"]);
  const exprs = Array.isArray(sel.matchExpressions) ? sel.matchExpressions : [];
  exprs.forEach((e, i) => {
    const p: PathSegment[] = [...path, "matchExpressions", i];
    const r: Json = isObj(e) ? e : {};
    const op = str(r.operator) ?? "";
    const values = Array.isArray(r.values) ? r.values.filter((v): v is string => typeof v === "string") : [];
    const up = "metav1validation.ValidateLabelSelectorRequirement";
    if (op === "In" || op === "NotIn") {
      if (values.length === 0)
        errs.push(required([...p, "values"], "must be specified when `operator` is 'In' or 'NotIn'", up));
    } else if (op === "Exists" || op === "DoesNotExist") {
      if (values.length > 0)
        errs.push(
          forbidden(
            [...p, "values"],
            "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
            up,
          ),
        );
    } else {
      errs.push(invalid([...p, "operator"], op, "not a valid selector operator", up));
    }
    errs.push(...validateLabelName(str(r.key) ?? "", [...p, "key"]));
    values.forEach((v, vi) => {
      for (const m of isLabelValue(v)) errs.push(invalid([...p, "values", vi], v, m, up));
    });
  });
  return errs;
}

const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

/** ValidateAnnotations: keys (lower-cased) are qualified names; keys and values total at most 256 KiB. */
export function validateAnnotations(annotations: unknown, path: PathSegment[]): FieldError[] {
  const errs: FieldError[] = [];
  let size = 0;
  for (const [k, v] of stringEntries(annotations)) {
    for (const m of isQualifiedName(k.toLowerCase()))
      errs.push(invalid(path, k, m, "apimachineryvalidation.ValidateAnnotations"));
    size += byteLength(k) + byteLength(v);
  }
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT)
    errs.push(tooLong(path, TOTAL_ANNOTATION_SIZE_LIMIT, "apimachineryvalidation.ValidateAnnotationsSize"));
  return errs;
}

/**
 * ValidateObjectMetaAccessor for a create. The namespace of a namespaced
 * object comes from the request (kubectl's context) when absent, so only a
 * malformed one is an error; cluster-scoped objects have theirs cleared by
 * rest.BeforeCreate.
 */
export function validateObjectMeta(
  raw: Json,
  namespaced: boolean,
  nameFn: NameFunc,
  nameFnName: string,
): FieldError[] {
  const meta: Json = isObj(raw.metadata) ? raw.metadata : {};
  const errs: FieldError[] = [];
  const up = `ValidateObjectMeta with ${nameFnName}`;
  const generateName = str(meta.generateName) ?? "";
  const name = str(meta.name) ?? "";
  if (generateName)
    for (const m of nameFn(generateName, true))
      errs.push(invalid(["metadata", "generateName"], generateName, m, up));
  if (!name) {
    if (!generateName) errs.push(required(["metadata", "name"], "name or generateName is required", up));
  } else {
    for (const m of nameFn(name, false)) errs.push(invalid(["metadata", "name"], name, m, up));
  }
  const ns = str(meta.namespace);
  if (namespaced && ns)
    for (const m of nameIsDNSLabel(ns, false))
      errs.push(invalid(["metadata", "namespace"], ns, m, "ValidateObjectMeta with ValidateNamespaceName"));
  errs.push(...validateLabels(meta.labels, ["metadata", "labels"]));
  errs.push(...validateAnnotations(meta.annotations, ["metadata", "annotations"]));
  return errs;
}
