/** Findings in the `ktl validate --json` shape (contract/ktl-cli.md), with their source lines. */
import type { KObject } from "../parse/manifests.ts";
import { lineOfPath } from "../parse/positions.ts";
import type { DiagnosticCode } from "../parse/diagnostics.ts";
import { formatPath, rawPath, type FieldError, type PathSegment } from "./errors.ts";

/** One finding, in the `ktl validate --json` shape (see contract/ktl-cli.md) with extras. */
export interface Finding {
  kind: string;
  namespace?: string;
  name: string;
  /** The apiserver's field path. */
  field: string;
  /** The apiserver's error type; "Warning" for lint. */
  type: string;
  detail: string;
  line: number;
  file: string;
  doc: number;
  value?: unknown;
  /** The upstream function the rule follows. */
  upstream: string;
  /** A diagnostic code of its own (KTL454: a regex) where the error is not the apiserver's plain KTL501. */
  code?: DiagnosticCode;
}

export interface Warning extends Finding {
  /** Stable lint code (KTL6xx). */
  code: DiagnosticCode;
  /** A suggested fix. */
  hint: string;
}

export const CLUSTER_SCOPED = new Set([
  "Namespace",
  "Node",
  "ClusterNetworkPolicy",
  "AdminNetworkPolicy",
  "BaselineAdminNetworkPolicy",
]);

export function finding(o: KObject, e: FieldError): Finding {
  const f: Finding = {
    kind: o.kind,
    name: o.name,
    field: formatPath(e.path),
    type: e.type,
    detail: e.detail,
    line: lineOfPath(o.raw, e.at ?? rawPath(e.path)) || o.line,
    file: o.file,
    doc: o.doc,
    upstream: e.upstream,
  };
  const ns = CLUSTER_SCOPED.has(o.kind) ? undefined : (o.namespace ?? "default");
  if (ns !== undefined) f.namespace = ns;
  if (e.value !== undefined) f.value = e.value;
  return f;
}

/** Warning built from an object and a field path; used by lint.ts too. */
export function warning(
  o: KObject,
  path: PathSegment[],
  code: DiagnosticCode,
  detail: string,
  hint: string,
  upstream: string,
  at?: (string | number)[],
): Warning {
  const f = finding(o, { path, type: "Invalid value", detail, upstream, ...(at ? { at } : {}) });
  return { ...f, type: "Warning", code, hint };
}
