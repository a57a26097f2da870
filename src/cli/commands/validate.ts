/** `ktl validate`: what kube-apiserver would reject, and the traps it accepts. */
import {
  buildModel,
  parseManifests,
  formatFieldError,
  validateModel,
  validateModelUpdate,
  type Diagnostic,
  type ValidationFinding,
} from "../../engine/index.ts";
import { readInputs, UsageError, type Output } from "../io.ts";
import { flagString, isOn, parseArgs, type FlagSpec } from "../args.ts";
import { problemsOf, toGithub, toSarif } from "../formats.ts";
import { version } from "../version.ts";
import { formatDiagnostic, omissionsOf, oneLine, requireObjects } from "../report.ts";

export const help = `ktl validate [--format text|json|sarif|github] [--json] [--old OLD]... INPUT...

Checks every object as kube-apiserver 1.35 would on create, in input order
(as kubectl apply -f sends them): defaulting first, then ClusterIP and node
port allocation against the cluster's ranges (clashes between Services
included), then the apiserver's validation, with its field paths, error types
and wording. Warnings (lint) name traps the apiserver accepts: selectors that
match nothing, named ports no pod has, traffic policies that drop traffic,
egress isolation without DNS, and more; each with a suggested fix.

  --json            {"errors": [...], "warnings": [...]} (see the ktl CLI contract;
                    with --old, also "updated": the objects checked as updates)
  --format json     the same as --json
  --format sarif    SARIF 2.1.0 for code scanning (GitHub, GitLab, Azure DevOps):
                    every error, warning and unreadable document with its
                    file, line and rule
  --format github   GitHub Actions annotations (::error file=...,line=...::),
                    shown on the pull request's lines
  --old OLD         what the cluster holds now (a file or directory;
                    repeatable): each object of INPUT with the same kind,
                    namespace and name is an update, checked as the apiserver
                    checks updates: allocated values left empty keep the
                    stored ones (patchAllocatedValues: removing clusterIP:
                    None keeps the Service headless), and immutable fields
                    (clusterIP/clusterIPs, ipFamilies, loadBalancerClass,
                    healthCheckNodePort, EndpointSlice addressType, workload
                    selectors, StatefulSet spec) are rejected when changed

Files that are not Kubernetes manifests (kustomization.yaml, a Helm chart's
Chart.yaml, values and templates, CI workflows, YAML without kind, apiVersion
or metadata) are not read, with a note (KTL110).

Exit codes: 0 valid, 1 the apiserver would reject something or a document
cannot be read (YAML/JSON syntax, a document that is not an object: listed
in "skipped" with --json), 2 bad usage or an input with no Kubernetes object.`;

const FORMATS = ["text", "json", "sarif", "github"];

/** Parse problems that make a document unreadable (as opposed to a valid object the apiserver rejects). */
const UNREADABLE = new Set(["KTL101", "KTL102", "KTL103", "KTL105", "KTL107"]);

/** Notes worth a line although they are info: a file left out because it is not a manifest. */
const NOTED = new Set(["KTL110"]);

/** An object without metadata.name is readable: the apiserver answers with a field error. */
function missingName(d: Diagnostic): ValidationFinding | undefined {
  if (d.code !== "KTL103" || !d.message.includes("metadata.name")) return undefined;
  const f: ValidationFinding = {
    kind: d.kind ?? "",
    name: "",
    field: "metadata.name",
    type: "Required value",
    detail: "name or generateName is required",
    line: d.line,
    file: d.file,
    doc: d.doc,
    upstream: "ValidateObjectMeta",
  };
  return f;
}

function where(f: { file: string; line: number }): string {
  return f.line ? `${f.file}:${f.line}` : f.file;
}

function who(f: ValidationFinding): string {
  return `${f.kind} ${f.namespace ? `${f.namespace}/` : ""}${f.name}`;
}

function oldArgs(args: ReturnType<typeof parseArgs>): string[] {
  const v = args.flags.get("old");
  return Array.isArray(v) ? v : typeof v === "string" ? [v] : [];
}

/** Its options, for the parser, help and shell completion (completion.ts). */
export const flags: FlagSpec = { booleans: ["json"], strings: ["format"], multiple: ["old"] };

export function run(argv: string[], io: Output): number {
  const args = parseArgs(argv, flags);
  if (isOn(args, "help")) {
    io.out(help);
    return 0;
  }
  const format = (flagString(args, "format") ?? (isOn(args, "json") ? "json" : "text")).toLowerCase();
  if (!FORMATS.includes(format))
    throw new UsageError(`--format must be one of ${FORMATS.join(", ")}, not "${format}"`);
  const json = format === "json";
  const parsed = parseManifests(readInputs(args.positional));
  const model = buildModel(parsed);
  for (const d of model.diagnostics)
    if (d.severity === "error" && UNREADABLE.has(d.code) && !missingName(d)) io.err(formatDiagnostic(d));
  // An object without metadata.name is still an object here: the apiserver answers it with a field error.
  if (!model.diagnostics.some((d) => missingName(d))) requireObjects(model);
  const omitted = omissionsOf(model);
  const oldPaths = oldArgs(args);
  const result = oldPaths.length
    ? validateModelUpdate(buildModel(parseManifests(readInputs(oldPaths))), model)
    : validateModel(model);
  const unreadable: Diagnostic[] = [];
  const notes: Diagnostic[] = [];
  for (const d of model.diagnostics) {
    const named = missingName(d);
    if (named) result.errors.push(named);
    else if (d.severity === "error" && UNREADABLE.has(d.code)) unreadable.push(d);
    else if (d.severity !== "info" || NOTED.has(d.code)) notes.push(d);
  }
  if (format === "sarif" || format === "github") {
    // For CI, unreadable documents are results too, so that code scanning marks their line.
    const problems = problemsOf([...unreadable, ...notes], result.errors, result.warnings, formatFieldError);
    io.out(format === "sarif" ? JSON.stringify(toSarif(problems, version), null, 2) : toGithub(problems));
  } else if (json) {
    io.out(
      JSON.stringify({
        errors: result.errors,
        warnings: result.warnings,
        ...("updated" in result ? { updated: result.updated } : {}),
        diagnostics: [...unreadable, ...notes],
        ...omitted,
      }),
    );
  } else {
    // A finding is one line (its fix a second) whatever the names in it hold.
    for (const d of notes)
      io.out(oneLine(`${where(d)}: ${d.severity === "info" ? "note" : "warning"} ${d.code}: ${d.message}`));
    for (const e of result.errors) io.out(oneLine(`${where(e)}: error: ${who(e)}: ${formatFieldError(e)}`));
    for (const w of result.warnings)
      io.out(
        `${oneLine(`${where(w)}: warning ${w.code}: ${who(w)}: ${w.field}: ${w.detail}`)}\n    fix: ${oneLine(w.hint)}`,
      );
    const n = result.errors.length;
    const noted = notes.filter((d) => d.severity === "info").length;
    const m = result.warnings.length + notes.length - noted;
    const skipped = model.unmodelled.length
      ? `; ${model.unmodelled.length} policy object(s) or field(s) not evaluated (KTL109, KTL451)`
      : "";
    const left = noted ? `; ${noted} file(s) not read: not Kubernetes manifests (KTL110)` : "";
    io.out(
      n === 0 && m === 0 && unreadable.length === 0
        ? `${model.objects.length} object(s) valid, no warnings${left}`
        : `${n} error(s), ${m} warning(s)${unreadable.length ? `, ${unreadable.length} unreadable document(s)` : ""} in ${model.objects.length} object(s)${skipped}${left}`,
    );
  }
  return result.errors.length || unreadable.length ? 1 : 0;
}
