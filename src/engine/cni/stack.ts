/**
 * The CNI dialects on the policy stack (policy/stack.ts): a Cilium or Calico
 * input is judged Admin tier -> the dialect (its own policies, tiers and Pass,
 * with Kubernetes NetworkPolicy inside it) -> Baseline tier -> allow, so the
 * cluster tiers are never bypassed.
 *
 * Order, from Calico's docs (network-policy/policy-tiers/tiered-policy.mdx):
 * the `kube-admin` tier (ClusterNetworkPolicy tier Admin, AdminNetworkPolicy)
 * has order 1,000, the `default` tier (NetworkPolicy and untiered Calico
 * policies) 1,000,000, and `kube-baseline` 10,000,000. So Calico tiers of an
 * order below 1,000 come before the Admin tier (`pre`), the others after it.
 *
 * The dialect is one layer here: it gives Accept or Deny where it governs the
 * end (`isolated`, or a deny), no decision otherwise. The class path needs
 * nothing more: cniClassMatrix's classes tell apart every pod that a tier's
 * subject or peer can (namespace, labels, ports, and the IP where a tier
 * names `networks`), and each class pair is decided by this same walk.
 */
import type { Model } from "../model/types.ts";
import { decideStack, type DirectionQuery, type LayerStep, type PolicyLayer } from "../policy/stack.ts";
import { tierLayer } from "../tiers/layer.ts";
import type { CniConnection, CniLayer, CniRef, CniVerdict } from "./types.ts";

interface Tiers {
  admin: PolicyLayer;
  baseline: PolicyLayer;
}

const cache = new WeakMap<Model, Tiers | null>();

function tiersOf(model: Model): Tiers | null {
  let t = cache.get(model);
  if (t === undefined) {
    t =
      model.clusterPolicies.length > 0
        ? { admin: tierLayer(model, "Admin"), baseline: tierLayer(model, "Baseline") }
        : null;
    cache.set(model, t);
  }
  return t;
}

/** The model has cluster tiers that the CNI path stacks around the dialect. */
export function hasTiers(model: Model): boolean {
  return model.clusterPolicies.length > 0;
}

/** A tier's name for a step ("Admin tier: Deny by ClusterNetworkPolicy x ingress rule 1"). */
function stepWords(s: LayerStep): string {
  return `${s.label} tier: ${s.reason}`;
}

function tierVerdict(c: CniConnection, s: LayerStep, before: string[]): CniVerdict {
  const cause = s.cause!;
  const ref: CniRef = { kind: cause.kind, name: cause.name, line: cause.line, file: cause.file };
  if (cause.rule) ref.rule = cause.rule;
  const why =
    s.layer === "AdminNetworkPolicy"
      ? "the Admin tier comes before the CNI's own policies and NetworkPolicy"
      : "neither the CNI's policies nor a NetworkPolicy govern this end, so the Baseline tier decides";
  return {
    direction: c.direction,
    allowed: s.action === "Accept",
    isolated: true,
    layer: s.layer as CniLayer,
    reason: `${stepWords(s)} (${why})`,
    ref,
    steps: [...before, stepWords(s)],
  };
}

function dialectLayer(label: string, run: () => CniVerdict, keep: (v: CniVerdict) => void): PolicyLayer {
  return {
    layer: "NetworkPolicy",
    label,
    order: 200,
    decide(): LayerStep {
      const v = run();
      keep(v);
      const action = !v.allowed ? "Deny" : v.isolated && !v.passed ? "Accept" : "none";
      return { layer: "NetworkPolicy", label, action, reason: v.reason };
    },
    // cniClassMatrix decides class pairs through `decide`; the stack's class rows are not used here.
    classEntries: () => ({ key: "", entries: [] }),
  };
}

/**
 * One direction at `c.self` through the stack: Calico's tiers ordered before
 * the Admin tier (`pre`, when there are), the Admin tier, then the dialect
 * (`dialect()`, called only when nothing above decided), then the Baseline
 * tier where the dialect governs nothing.
 */
export function stackCni(
  model: Model,
  c: CniConnection,
  dialect: () => CniVerdict,
  pre?: () => CniVerdict,
): CniVerdict {
  const tiers = tiersOf(model);
  if (!tiers) return dialect();
  const seen = new Map<string, CniVerdict>();
  const keep = (label: string) => (v: CniVerdict) => seen.set(label, v);
  const layers = [
    ...(pre ? [dialectLayer("Calico before the Admin tier", pre, keep("pre"))] : []),
    tiers.admin,
    dialectLayer("CNI", dialect, keep("CNI")),
    tiers.baseline,
  ];
  const q: DirectionQuery = {
    model,
    direction: c.direction,
    self: c.self,
    other: { ip: c.peer.ip, pod: c.peer.pod },
    port: c.port,
    protocol: c.protocol,
    dst: c.dst,
    hairpin: !!c.peer.pod && c.peer.pod === c.self,
  };
  const d = decideStack(layers, q);
  const tier = (s: LayerStep) => s.layer === "AdminNetworkPolicy" || s.layer === "BaselineAdminNetworkPolicy";
  const passed = d.steps.filter((s) => s !== d.decidedBy && tier(s) && s.action === "Pass").map(stepWords);
  const early = seen.get("pre");
  const before = [...(early?.isolated ? early.steps : []), ...passed];
  if (d.decidedBy && tier(d.decidedBy)) return tierVerdict(c, d.decidedBy, before);
  if (d.decidedBy?.label === "Calico before the Admin tier") return seen.get("pre")!;
  const v = seen.get("CNI") ?? dialect();
  const out = before.length ? { ...v, steps: [...before, ...v.steps] } : v;
  if (out.passed) {
    // Every applying tier passed and no Baseline rule matched: the profile allows, as without tiers.
    const { passed: _, ...rest } = out;
    return rest;
  }
  return out;
}
