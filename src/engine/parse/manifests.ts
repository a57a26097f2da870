/**
 * Files -> Kubernetes objects. Accepts multi-doc YAML, JSON, `kind: List`
 * (what `kubectl get -o yaml` prints) and typed lists (`PodList`, whose items
 * lack `kind`), Helm output with comments and empty documents. Objects keep
 * their file, doc index and line so that every later decision can point at them.
 */
import type { Diagnostic } from "./diagnostics.ts";
import { parseYamlFile, type YamlPartCache } from "./yaml.ts";
import { lineOf } from "./positions.ts";
import { isObj, str, type Json } from "./values.ts";
import { groupOf, isModelled, isRouterObject, MODELLED_KIND_NAMES, unmodelledScope } from "./kinds.ts";

export interface InputFile {
  name: string;
  text: string;
}

export interface KObject {
  apiVersion: string;
  kind: string;
  name: string;
  /** metadata.namespace as written (undefined when absent). */
  namespace: string | undefined;
  raw: Json;
  file: string;
  doc: number;
  line: number;
}

/** Where an object came from, for references in verdicts and traces. */
export interface SourceRef {
  kind: string;
  namespace?: string;
  name: string;
  file: string;
  doc: number;
  line: number;
}

/**
 * An object that a later one of the same kind (and API group), namespace and
 * name replaced, as `kubectl apply` of both leaves the later (KTL201): listed
 * in the answers' `replaced`, never dropped in silence.
 */
export interface ReplacedObject {
  kind: string;
  apiVersion: string;
  namespace?: string;
  name: string;
  file: string;
  doc: number;
  line: number;
  /** Where the definition that replaced it is. */
  by: { file: string; doc: number; line: number };
}

export interface ParseResult {
  objects: KObject[];
  /**
   * Component configuration: KubeProxyConfiguration (also from kubeadm's
   * kube-system/kube-proxy ConfigMap, key config.conf) and kubeadm's
   * ClusterConfiguration. These kinds have no metadata.name.
   */
  configs: KObject[];
  /** Objects of kinds the engine does not model, kept so the UI can list them. */
  ignored: KObject[];
  diagnostics: Diagnostic[];
  /** Definitions a later one of the same kind, namespace and name replaced (KTL201); `objects` and `ignored` hold only the later. */
  replaced?: ReplacedObject[];
}

/** Component configuration kinds, read for cluster settings (cluster CIDR, proxy mode). */
export const CONFIG_KINDS = new Set(["KubeProxyConfiguration", "ClusterConfiguration"]);

/**
 * Kinds the L7 routers (src/engine/l7) read from `ignored`: not part of the
 * cluster model (validation has no schema for them), but not ignored either,
 * so they raise no KTL104. The mesh's ConfigMap istio-system/istio is read
 * there too.
 */
export const ROUTER_KINDS: ReadonlySet<string> = new Set([
  "Gateway",
  "GatewayClass",
  "HTTPRoute",
  "ReferenceGrant",
  "IngressClass",
  "VirtualService",
  "DestinationRule",
  "ServiceEntry",
  "Sidecar",
  "AuthorizationPolicy",
  "PeerAuthentication",
]);

/** Istio's mesh config (ConfigMap istio in istio-system, key mesh): engine/l7/mesh.ts reads its outboundTrafficPolicy, so it is not "ignored". */
function isMeshConfig(o: KObject): boolean {
  return (
    o.kind === "ConfigMap" && o.apiVersion === "v1" && o.name === "istio" && o.namespace === "istio-system"
  );
}

/** Kinds the engine reads (in some API group: `isModelled` decides by group and kind). Everything else is reported as ignored. */
export const MODELED_KINDS = MODELLED_KIND_NAMES;

export function refOf(o: KObject, line = o.line): SourceRef {
  const ref: SourceRef = { kind: o.kind, name: o.name, file: o.file, doc: o.doc, line };
  if (o.namespace !== undefined) ref.namespace = o.namespace;
  return ref;
}

function toObject(
  raw: Json,
  file: string,
  doc: number,
  diagnostics: Diagnostic[],
  inherited?: { kind: string; apiVersion: string },
): KObject | undefined {
  const line = lineOf(raw);
  const kind = str(raw.kind) ?? inherited?.kind;
  const apiVersion = str(raw.apiVersion) ?? inherited?.apiVersion ?? "";
  const meta = isObj(raw.metadata) ? raw.metadata : undefined;
  const name =
    str(meta?.name) ??
    (str(meta?.generateName)
      ? `${str(meta!.generateName)}generated`
      : kind && CONFIG_KINDS.has(kind)
        ? kind
        : undefined);
  if (!kind || !name) {
    const missing = !kind ? "kind" : "metadata.name";
    diagnostics.push({
      code: "KTL103",
      severity: "error",
      file,
      doc,
      line,
      column: 1,
      message: `object has no ${missing} and is skipped`,
      hint: !kind ? "Add `kind:` (and `apiVersion:`) to the object." : "Add `metadata.name`.",
      ...(kind ? { kind } : {}),
    });
    return undefined;
  }
  if (!str(raw.kind) && inherited) raw.kind = kind;
  return { apiVersion, kind, name, namespace: str(meta?.namespace), raw, file, doc, line };
}

/** kubeadm keeps kube-proxy's configuration in ConfigMap kube-system/kube-proxy, key config.conf. */
function embeddedProxyConfig(o: KObject, diagnostics: Diagnostic[]): KObject[] {
  if (o.kind !== "ConfigMap" || o.name !== "kube-proxy" || (o.namespace ?? "default") !== "kube-system")
    return [];
  const text = str(isObj(o.raw.data) ? o.raw.data["config.conf"] : undefined);
  if (!text) return [];
  const name = `${o.file} (ConfigMap kube-system/kube-proxy, config.conf)`;
  const parsed = parseYamlFile(name, text);
  diagnostics.push(...parsed.diagnostics);
  return parsed.documents.flatMap((d) => {
    const c = isObj(d.value) ? toObject(d.value, name, d.index, diagnostics) : undefined;
    return c && CONFIG_KINDS.has(c.kind) ? [c] : [];
  });
}

/** The parts of a path as given (either separator), for the not-a-manifest rules. */
function pathParts(name: string): string[] {
  return name.split(/[\\/]/).filter((p) => p !== "" && p !== ".");
}

const KUSTOMIZATION = new Set(["kustomization.yaml", "kustomization.yml", "Kustomization"]);
const HELM_CHART_FILES = /^(Chart\.ya?ml|Chart\.lock|values[^/]*\.ya?ml|values\.schema\.json)$/;
/** Tool configurations that live beside manifests in a repository, by their conventional names. */
const TOOL_FILES =
  /^(\.gitlab-ci\.ya?ml|\.pre-commit-config\.ya?ml|\.pre-commit-hooks\.ya?ml|(docker-)?compose(\.[^/]*)?\.ya?ml|\.yamllint(\.ya?ml)?|\.golangci\.ya?ml|codecov\.ya?ml|mkdocs\.ya?ml|\.goreleaser\.ya?ml|renovate\.json|package(-lock)?\.json|tsconfig[^/]*\.json)$/;

/**
 * Why a file is not a Kubernetes manifest, by its name and the files beside
 * it (undefined when it may be one): a kustomization (kustomize's file
 * names), a Helm chart's Chart.yaml, values and unrendered templates (a
 * `templates/` folder beside a Chart.yaml of the input), a CI workflow
 * (`.github/`), a tool's configuration. `ktl validate .` in a repository
 * then notes them (KTL110) instead of failing on them.
 */
export function notManifest(name: string, names: ReadonlySet<string>): string | undefined {
  const parts = pathParts(name);
  const base = parts[parts.length - 1] ?? "";
  const dirOf = (n: number) => parts.slice(0, n).join("/");
  const hasChart = (dir: string) =>
    [...names].some((other) => {
      const o = pathParts(other);
      return /^Chart\.ya?ml$/.test(o[o.length - 1] ?? "") && o.slice(0, -1).join("/") === dir;
    });
  if (KUSTOMIZATION.has(base)) return "a kustomization: `kubectl kustomize` renders the manifests it names";
  if (/^Chart\.ya?ml$/.test(base) || (HELM_CHART_FILES.test(base) && hasChart(dirOf(parts.length - 1))))
    return "part of a Helm chart: `helm template` renders its manifests";
  for (let i = parts.length - 2; i >= 0; i--)
    if (parts[i] === "templates" && hasChart(dirOf(i)))
      return "a Helm chart's template: `helm template` renders it into manifests";
  if (parts.slice(0, -1).includes(".github")) return "a GitHub configuration (workflows, dependabot)";
  if (TOOL_FILES.test(base)) return "a tool's configuration";
  return undefined;
}

function notManifestNote(file: string, why: string, doc = 0, line = 0): Diagnostic {
  return {
    code: "KTL110",
    severity: "info",
    file,
    doc,
    line,
    column: 0,
    message: `not a Kubernetes manifest, not read: ${why}`,
  };
}

/** A doc that is no Kubernetes object at all, not a broken one: a mapping without kind, apiVersion and metadata (values, a workflow, a tool's settings). */
function notAnObject(raw: Json): boolean {
  return raw.kind === undefined && raw.apiVersion === undefined && raw.metadata === undefined;
}

/**
 * Cluster-scoped kinds (their namespace, if written, is ignored by the
 * apiserver): the ones the engine reads or names, and common ones beside them.
 * Any other kind is taken as namespaced, in `default` when it names none.
 */
const CLUSTER_SCOPED = new Set([
  "Namespace",
  "Node",
  "ClusterNetworkPolicy",
  "AdminNetworkPolicy",
  "BaselineAdminNetworkPolicy",
  "GlobalNetworkPolicy",
  "GlobalNetworkSet",
  "StagedGlobalNetworkPolicy",
  "HostEndpoint",
  "Tier",
  "CiliumClusterwideNetworkPolicy",
  "CiliumCIDRGroup",
  "GatewayClass",
  "IngressClass",
  "ClusterUserDefinedNetwork",
  "ClusterRole",
  "ClusterRoleBinding",
  "CustomResourceDefinition",
  "PersistentVolume",
  "StorageClass",
  "PriorityClass",
  "RuntimeClass",
  "ValidatingWebhookConfiguration",
  "MutatingWebhookConfiguration",
  "APIService",
]);

/**
 * The one place where a later definition replaces an earlier one of the same
 * kind (and API group: Calico's NetworkPolicy is another resource than
 * networking.k8s.io's), namespace and name, for every kind, as `kubectl
 * apply -f` of both leaves the later in the cluster: the later takes the
 * earlier's place in the list (input order of first appearance), the
 * earlier is listed in `replaced` with a KTL201 warning at the later one.
 * Objects and the other kinds (`ignored`: routers, Istio, ConfigMaps...) are
 * deduplicated alike.
 */
function dedupeObjects(list: KObject[], diagnostics: Diagnostic[], replaced: ReplacedObject[]): KObject[] {
  // Kind and group, then namespace, then name: an object's identity, looked up by strings it already holds (a key
  // built per object cost XL's 100,000 objects a string each).
  const seen = new Map<string, Map<string, Map<string, number>>>();
  const kindGroup = new Map<string, Map<string, string>>();
  const out: KObject[] = [];
  for (const o of list) {
    const namespaced = !CLUSTER_SCOPED.has(o.kind);
    const ns = namespaced ? (o.namespace ?? "default") : "";
    let byKind = kindGroup.get(o.apiVersion);
    if (!byKind) kindGroup.set(o.apiVersion, (byKind = new Map()));
    let kg = byKind.get(o.kind);
    if (kg === undefined) byKind.set(o.kind, (kg = `${o.kind}.${groupOf(o.apiVersion)}`));
    let inKind = seen.get(kg);
    if (!inKind) seen.set(kg, (inKind = new Map()));
    let inNamespace = inKind.get(ns);
    if (!inNamespace) inKind.set(ns, (inNamespace = new Map()));
    const prev = inNamespace.get(o.name);
    if (prev === undefined) {
      inNamespace.set(o.name, out.length);
      out.push(o);
      continue;
    }
    const p = out[prev]!;
    const who = `${o.kind} ${namespaced ? `${ns}/` : ""}${o.name}`;
    diagnostics.push({
      code: "KTL201",
      severity: "warning",
      file: o.file,
      doc: o.doc,
      line: o.line,
      column: 1,
      kind: o.kind,
      name: o.name,
      ...(namespaced ? { namespace: ns } : {}),
      message: `${who} is defined twice (first at ${p.file} line ${p.line}); this later definition replaces it, as kubectl apply would`,
    });
    const r: ReplacedObject = {
      kind: p.kind,
      apiVersion: p.apiVersion,
      name: p.name,
      file: p.file,
      doc: p.doc,
      line: p.line,
      by: { file: o.file, doc: o.doc, line: o.line },
    };
    if (namespaced) r.namespace = ns;
    replaced.push(r);
    out[prev] = o;
  }
  return out;
}

export interface ParseOptions {
  /** Docs of the texts parsed last: an edit re-parses only the docs it changed (yaml.ts, YamlPartCache). */
  cache?: YamlPartCache;
}

export function parseManifests(files: readonly InputFile[], options: ParseOptions = {}): ParseResult {
  const objects: KObject[] = [];
  const configs: KObject[] = [];
  const ignored: KObject[] = [];
  const diagnostics: Diagnostic[] = [];
  const names = new Set(files.map((f) => f.name));
  for (const f of files) {
    const why = notManifest(f.name, names);
    if (why) {
      diagnostics.push(notManifestNote(f.name, why));
      continue;
    }
    const parsed = parseYamlFile(f.name, f.text, options.cache);
    diagnostics.push(...parsed.diagnostics);
    for (const d of parsed.documents) {
      if (d.value === null || d.value === undefined) continue;
      if (Array.isArray(d.value) && d.value.length > 0 && d.value.every((x) => isObj(x) && notAnObject(x))) {
        diagnostics.push(
          notManifestNote(
            f.name,
            "a list of records without kind, apiVersion or metadata (data, a tool's output)",
            d.index,
            d.line,
          ),
        );
        continue;
      }
      if (isObj(d.value) && notAnObject(d.value)) {
        diagnostics.push(
          notManifestNote(f.name, "a mapping without kind, apiVersion or metadata", d.index, d.line),
        );
        continue;
      }
      if (!isObj(d.value)) {
        diagnostics.push({
          code: "KTL102",
          severity: "error",
          file: f.name,
          doc: d.index,
          line: d.line,
          column: 1,
          message: `expected a Kubernetes object (a mapping), found ${Array.isArray(d.value) ? "a list" : "a scalar"}`,
        });
        continue;
      }
      const raw = d.value;
      const kind = str(raw.kind);
      const items = raw.items;
      if (kind && kind.endsWith("List") && Array.isArray(items)) {
        // `kind: List` items carry their own kind; typed lists (PodList) imply it.
        const inherited =
          kind === "List" ? undefined : { kind: kind.slice(0, -4), apiVersion: str(raw.apiVersion) ?? "v1" };
        for (const item of items) {
          if (!isObj(item)) continue;
          const o = toObject(item, f.name, d.index, diagnostics, inherited);
          if (o) (isModelled(o.apiVersion, o.kind) ? objects : ignored).push(o);
        }
        continue;
      }
      const o = toObject(raw, f.name, d.index, diagnostics);
      if (!o) continue;
      const embedded = embeddedProxyConfig(o, diagnostics);
      if (isModelled(o.apiVersion, o.kind)) objects.push(o);
      else if (CONFIG_KINDS.has(o.kind)) configs.push(o);
      else if (embedded.length) configs.push(...embedded);
      else if (isRouterObject(o.apiVersion, o.kind) || isMeshConfig(o)) ignored.push(o);
      else {
        ignored.push(o);
        const scope = unmodelledScope(o.apiVersion, o.kind);
        diagnostics.push(
          scope
            ? {
                code: "KTL109",
                severity: "warning",
                file: f.name,
                doc: d.index,
                line: o.line,
                column: 1,
                kind: o.kind,
                name: o.name,
                ...(o.namespace !== undefined ? { namespace: o.namespace } : {}),
                message: `${o.kind} ${o.name} (${o.apiVersion}) could change traffic verdicts, but ktl does not evaluate it: ${scope === "pod" ? "every verdict" : "every routed request"} that it could affect ignores it`,
                hint: "Answers name it in `unmodelled`; do not take them as the cluster's until the layer is modelled.",
              }
            : {
                code: "KTL104",
                severity: "info",
                file: f.name,
                doc: d.index,
                line: o.line,
                column: 1,
                kind: o.kind,
                name: o.name,
                message: `${o.kind} ${o.name} (${o.apiVersion || "no apiVersion"}) is not modelled by the engine and is ignored`,
              },
        );
      }
    }
  }
  options.cache?.rotate();
  const replaced: ReplacedObject[] = [];
  return {
    objects: dedupeObjects(objects, diagnostics, replaced),
    configs,
    ignored: dedupeObjects(ignored, diagnostics, replaced),
    diagnostics,
    replaced,
  };
}
