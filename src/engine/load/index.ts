/**
 * The input -> the whole model: the core model (model/: namespaces, nodes,
 * pods, Services, NetworkPolicy) plus the objects of the policy layers built
 * on it: the cluster tiers (tiers/), the CNI's own policies and the CNI that
 * enforces them (cni/), and the kinds no layer evaluates (policy/unmodelled).
 * Every front end and view builds its model here; model/ itself imports no
 * higher layer (ARCHITECTURE.md, import direction).
 */
import { buildCniPolicies, type CniPolicies } from "../cni/index.ts";
import {
  GENERIC,
  profileFromInput,
  type ClusterAssumptions,
  type ClusterProfile,
  type CniName,
} from "../cni/profile.ts";
import { surroundings, withAssumed } from "./cluster.ts";
import { buildCoreModel, type CoreBuildOptions } from "../model/build.ts";
import type { Model } from "../model/types.ts";
import type { Diagnostic } from "../parse/diagnostics.ts";
import { parseManifests, type InputFile, type ParseResult } from "../parse/manifests.ts";
import { unevaluatedFields, unevaluatedRouterFields, unmodelledObjects } from "../policy/unmodelled.ts";
import { unevaluatedGatewayRouteFields, unevaluatedIngressAnnotations } from "../policy/unmodelledRoutes.ts";
import { CLUSTER_POLICY_KINDS, parseClusterPolicy, sortClusterPolicies } from "../tiers/parse.ts";
import type { ClusterPolicy } from "../tiers/types.ts";

export interface BuildOptions extends CoreBuildOptions {
  /** The CNI that enforces policy (`ktl --cni`, the toolbar); otherwise read from the input, else generic. */
  cni?: CniName;
  /** What the cluster around the application is assumed to hold (cni/profile.ts, load/cluster.ts). */
  assume?: ClusterAssumptions;
}

/** A dialect's policies do nothing under another CNI: drop them from evaluation and say so. */
function enforcedBy(profile: ClusterProfile, cni: CniPolicies, diagnostics: Diagnostic[]): void {
  const drop = (dialect: "cilium" | "calico", why: string) => {
    if (!cni[dialect]) return;
    cni[dialect] = undefined;
    diagnostics.push({
      code: "KTL451",
      severity: "warning",
      file: "",
      doc: 0,
      line: 0,
      column: 0,
      message: `the ${dialect === "cilium" ? "Cilium" : "Calico"} policies of the input are not evaluated: ${why}`,
    });
  };
  if (profile.cni === "calico" || profile.cni === "flannel")
    drop("cilium", `the cluster runs ${profile.cni}`);
  if (profile.cni === "cilium" || profile.cni === "cilium-kpr" || profile.cni === "flannel")
    drop("calico", `the cluster runs ${profile.cni}`);
}

/**
 * Cilium does not implement network-policy-api's tiers: the project's list of
 * implementations (kubernetes-sigs/network-policy-api site-src/implementations.md,
 * updated 21 April 2026) names Cilium under AdminNetworkPolicy only by its
 * tracking issue (cilium/cilium#23380) and not at all under
 * ClusterNetworkPolicy. Under the cilium profiles the tier policies are in the
 * input but nothing enforces them: they leave the evaluation, with a warning,
 * and the trace says so (trace/policy.ts).
 */
function notImplemented(
  profile: ClusterProfile,
  tiers: ClusterPolicy[],
  diagnostics: Diagnostic[],
): ClusterPolicy[] | undefined {
  if (tiers.length === 0 || (profile.cni !== "cilium" && profile.cni !== "cilium-kpr")) return undefined;
  const names = tiers.slice(0, 3).map((p) => `${p.kind} ${p.name}`);
  diagnostics.push({
    code: "KTL451",
    severity: "warning",
    file: tiers[0]!.source.file,
    doc: tiers[0]!.source.doc,
    line: tiers[0]!.source.line,
    column: 0,
    message: `the ${tiers.length} cluster tier ${tiers.length === 1 ? "policy" : "policies"} of the input (${names.join(", ")}${tiers.length > 3 ? ", ..." : ""}) ${tiers.length === 1 ? "is" : "are"} not evaluated: the cluster runs Cilium, which does not implement network-policy-api's tiers (network-policy-api lists it only by its tracking issue, cilium/cilium#23380), so nothing enforces ${tiers.length === 1 ? "it" : "them"}`,
  });
  return tiers;
}

/** Parsed objects -> the model with every policy layer's objects. */
export function buildModel(input: ParseResult, options: BuildOptions = {}): Model {
  const assume =
    options.assume && (options.assume.istioIngress || options.assume.injection?.length)
      ? options.assume
      : undefined;
  const parsed = withAssumed(input, assume);
  const core = buildCoreModel(parsed, options.config ? { config: options.config } : {});
  const { objects, diagnostics } = core;
  const cni = buildCniPolicies(objects, core.policies, diagnostics);
  const base: ClusterProfile = options.cni
    ? { cni: options.cni, source: "chosen" }
    : (profileFromInput([...objects, ...(parsed.ignored ?? [])]) ?? GENERIC);
  const profile: ClusterProfile = assume ? { ...base, assume } : base;
  enforcedBy(profile, cni, diagnostics);
  let clusterPolicies = sortClusterPolicies(
    objects.filter((o) => CLUSTER_POLICY_KINDS.has(o.kind)).map(parseClusterPolicy),
  );
  const unenforcedTiers = notImplemented(profile, clusterPolicies, diagnostics);
  if (unenforcedTiers) clusterPolicies = [];
  const fields = [
    ...unevaluatedFields(objects, diagnostics, cni),
    ...unevaluatedRouterFields(parsed.ignored),
    ...unevaluatedIngressAnnotations(objects),
    ...unevaluatedGatewayRouteFields(parsed.ignored),
  ];
  // Cilium's parser names its fields in KTL451 already; Calico's keeps them on its rules, Istio's are read here: a Problem each.
  for (const f of fields)
    if (!f.kind.startsWith("Cilium"))
      diagnostics.push({
        code: f.scope === "route" ? "KTL460" : "KTL451",
        severity: "info",
        file: f.file,
        doc: f.doc,
        line: f.line,
        column: 0,
        kind: f.kind,
        name: f.name,
        ...(f.namespace !== undefined ? { namespace: f.namespace } : {}),
        ...(f.field !== undefined ? { field: f.field } : {}),
        message: f.message ?? `${f.field} is not evaluated`,
      });
  const model = Object.assign(core, {
    ...(unenforcedTiers ? { unenforcedTiers } : {}),
    clusterPolicies,
    unmodelled: [...unmodelledObjects(parsed.ignored), ...fields],
    cni,
    profile,
  });
  // The cluster around the application: what an answer needs that the input leaves to the cluster (load/cluster.ts).
  const around = surroundings(model);
  model.diagnostics.push(...around.diagnostics);
  model.unmodelled.push(...around.unmodelled);
  return model;
}

/** Input files -> the model. */
export function loadModel(files: readonly InputFile[], options: BuildOptions = {}): Model {
  return buildModel(parseManifests(files), options);
}
