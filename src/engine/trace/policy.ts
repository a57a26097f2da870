/** NetworkPolicy at both ends of each backend (index.ts rules 1 and 2). */
import type { Model } from "../model/types.ts";
import type { Family } from "../model/ip.ts";
import type { CniPolicies } from "../cni/index.ts";
import { enforcementOf } from "../decide/index.ts";
import { describeProfile, GENERIC } from "../cni/profile.ts";
import type {
  HopCause,
  HopStep,
  PolicyCheck,
  PolicyDirection,
  TraceDecidedBy,
  TraceEndpoint,
  TraceHop,
  TraceRef,
} from "./types.ts";
import { cniEgress, cniIngress, type CniCheck } from "./cni.ts";
import type { Ctx } from "./result.ts";
import type { Backend } from "./backend.ts";
import { netpolEgress, netpolIngress, type Group } from "./netpolChecks.ts";
import { hostPort, traceRef } from "./format.ts";
import { hostNetworkWords, NOT_APPLICABLE } from "./policyWords.ts";
import {
  checkDecidedBy,
  passedBy,
  tierCheck,
  tierDecidedBy,
  tierStep,
  traceTiers,
  type TierStep,
} from "./tiers.ts";

/**
 * A CNI dialect's check as a cause: the layer that decided (Cilium, Calico, or NetworkPolicy inside
 * them), the object and rule its ref names. The CNI checks do not say which rule allowed, only
 * whether the end is isolated: an allowed, isolated end counts as allowed by the named object.
 */
function cniCause(c: CniCheck, direction: PolicyDirection): HopCause {
  const object = c.ref
    ? c.ref.namespace !== undefined
      ? { kind: c.ref.kind, namespace: c.ref.namespace, name: c.ref.name }
      : { kind: c.ref.kind, name: c.ref.name }
    : undefined;
  const category = c.verdict === "drop" ? "denied" : c.isolated ? "allowed" : "not-isolated";
  if (c.layer === "AdminNetworkPolicy" || c.layer === "BaselineAdminNetworkPolicy") {
    // A cluster tier around the dialect decided (cni/stack.ts).
    return {
      layer: c.layer,
      direction,
      category: c.verdict === "drop" ? "Deny" : "Accept",
      ...(object ? { object } : {}),
    };
  }
  if (c.layer === "NetworkPolicy") {
    return { layer: "NetworkPolicy", direction, category, ...(object ? { object } : {}) };
  }
  return {
    layer: c.layer,
    direction,
    category: category === "not-isolated" ? "no-match" : category,
    ...(object ? { object } : {}),
  };
}

/** The CNI's own policies (with NetworkPolicy inside them) at both ends for each backend, the same addressing as `evaluate`. */
function evaluateCni(
  ctx: Ctx,
  cni: CniPolicies,
  backends: Backend[],
): { endpoints: TraceEndpoint[]; hops: TraceHop[] } {
  const { model, client, protocol, http, dnsName } = ctx;
  const endpoints: TraceEndpoint[] = [];
  const hops: TraceHop[] = [];
  const seen = new Set<string>();
  const cl = { kind: client.kind, pod: client.pod, host: client.host, node: client.node.name };
  const hop = (at: HopStep, c: CniCheck, ep: string, many: boolean) => {
    const source = at === "egress policy at source";
    const step: HopStep =
      c.layer === "AdminNetworkPolicy"
        ? source
          ? "admin tier at source"
          : "admin tier at backend"
        : c.layer === "BaselineAdminNetworkPolicy"
          ? source
            ? "baseline tier at source"
            : "baseline tier at backend"
          : at;
    const dialect =
      c.layer === "CiliumNetworkPolicy" ? "Cilium: " : c.layer === "CalicoNetworkPolicy" ? "Calico: " : "";
    const detail = `${dialect}${c.reason}${c.steps.length > 1 ? ` [${c.steps.join("; ")}]` : ""}`;
    const key = `${step}|${c.verdict}|${detail}`;
    if (seen.has(key)) return;
    seen.add(key);
    const direction = source ? "egress" : "ingress";
    const h: TraceHop = {
      step,
      verdict: c.verdict === "allow" ? "pass" : "drop",
      detail,
      cause: cniCause(c, direction),
    };
    if (c.ref) h.ref = c.ref;
    if (many) h.endpoints = [ep];
    hops.push(h);
  };
  const strip = (c: CniCheck, direction: PolicyDirection): PolicyCheck => ({
    verdict: c.verdict,
    isolated: c.isolated,
    reason: c.reason,
    cause: cniCause(c, direction),
    ...(c.ref ? { ref: c.ref } : {}),
  });
  for (const b of backends) {
    const epKey = `${b.ip}:${b.port}`;
    const egress = cniEgress(model, cni, cl, b, protocol, http, dnsName);
    hop("egress policy at source", egress, epKey, backends.length > 1);
    const ingress = cniIngress(model, cni, cl, b, protocol, http);
    hop("ingress policy at backend", ingress, epKey, backends.length > 1);
    const allowed = egress.verdict === "allow" && ingress.verdict === "allow";
    const reason = !allowed
      ? egress.verdict === "drop"
        ? `egress: ${egress.reason}`
        : `ingress: ${ingress.reason}`
      : [ingress.isolated ? ingress.reason : "", egress.isolated ? `egress ${egress.reason}` : ""]
          .filter(Boolean)
          .join("; ") || "no policy isolates either end";
    const ep = endpointBase(b, allowed, reason, strip(egress, "egress"), strip(ingress, "ingress"));
    const decider = egress.verdict === "drop" ? egress : ingress.verdict === "drop" ? ingress : undefined;
    if (decider) {
      const d: TraceDecidedBy = { layer: decider.layer };
      if (decider.ref) {
        d.kind = decider.ref.kind;
        d.name = decider.ref.name;
        d.line = decider.ref.line;
        if (decider.ref.namespace) d.namespace = decider.ref.namespace;
        if (decider.ref.field) d.rule = decider.ref.field;
      }
      ep.decidedBy = d;
    }
    if (egress.httpStatus === 403 || ingress.httpStatus === 403) ep.httpStatus = 403;
    const l7 = ingress.l7 ?? egress.l7;
    if (l7) ep.l7 = l7;
    endpoints.push(ep);
  }
  return { endpoints, hops };
}

/** A backend's endpoint with its two sides' checks: where it is, how it serves, and where it is written. */
function endpointBase(
  b: Backend,
  allowed: boolean,
  reason: string,
  egress: PolicyCheck,
  ingress: PolicyCheck,
): TraceEndpoint {
  const ep: TraceEndpoint = {
    ip: b.ip,
    port: b.port,
    probability: b.probability,
    verdict: allowed ? "allow" : "drop",
    reason,
    sourceIP: b.sourceIP,
    sourceIPPreserved: b.preserved,
    egress,
    ingress,
  };
  if (b.podKey ?? b.pod) ep.pod = b.podKey ?? b.pod!.key;
  if (b.node) ep.node = b.node;
  if (b.zone) ep.zone = b.zone;
  if (b.ready !== undefined) ep.ready = b.ready;
  if (b.serving !== undefined) ep.serving = b.serving;
  if (b.terminating !== undefined) ep.terminating = b.terminating;
  if (b.local !== undefined) ep.local = b.local;
  const r = traceRef(b.ref);
  if (r) ep.ref = r;
  return ep;
}

/** Endpoints that got the same word at one step, as one hop: "all 3 backends (...)", "2 of 3 backends (...)". */
type HopGroups = Map<
  string,
  { verdict: "pass" | "drop" | "info"; detail: string; cause: HopCause; ref?: TraceRef; eps: string[] }
>;

function groupHops(step: HopStep, groups: HopGroups, all: number): TraceHop[] {
  const hops: TraceHop[] = [];
  for (const g of groups.values()) {
    const eps = g.eps.map((e) => e.split("|")[0]!);
    const names = g.eps.map((e) => e.split("|")[1]!);
    const many = names.length > 1;
    const listed =
      names.length > 4 ? `${names.slice(0, 4).join(", ")} and ${names.length - 4} more` : names.join(", ");
    const who = !many
      ? names[0]!
      : g.eps.length === all
        ? `${all === 2 ? "both" : `all ${all}`} backends (${listed})`
        : `${names.length} of ${all} backends (${listed})`;
    const detail = g.detail
      .replaceAll("{who}", who)
      .replaceAll("{s}", many ? "" : "s")
      .replaceAll("{is}", many ? "are" : "is")
      .replaceAll("{it}", many ? "them" : "it");
    const hop: TraceHop = { step, verdict: g.verdict, detail, cause: g.cause };
    if (g.ref) hop.ref = g.ref;
    if (all > 1 && g.eps.length < all) hop.endpoints = eps;
    hops.push(hop);
  }
  return hops;
}

/** A tier step that decides (Accept or Deny), not one that passes or matches nothing. */
const decided = (s: TierStep | undefined) => s?.action === "Accept" || s?.action === "Deny";

/** One backend's answer: both sides' checks, the reason in words, and (with tiers) the layer that decided. */
function endpointOf(
  b: Backend,
  egress: PolicyCheck,
  ingress: PolicyCheck,
  hostNote: string | undefined,
  steps:
    | {
        adminEgress: TierStep | undefined;
        baseEgress: TierStep | undefined;
        adminIngress: TierStep | undefined;
        baseIngress: TierStep | undefined;
      }
    | undefined,
): TraceEndpoint {
  const allowed = egress.verdict === "allow" && ingress.verdict === "allow";
  let reason: string;
  if (!allowed)
    reason = egress.verdict === "drop" ? `egress: ${egress.reason}` : `ingress: ${ingress.reason}`;
  else if (ingress.isolated || egress.isolated)
    reason = [ingress.isolated ? ingress.reason : "", egress.isolated ? `egress ${egress.reason}` : ""]
      .filter(Boolean)
      .join("; ");
  else if (hostNote) reason = hostNote;
  else reason = "no NetworkPolicy isolates either end";
  const ep = endpointBase(b, allowed, reason, egress, ingress);
  if (steps) {
    // With tiers, every endpoint names the layer that decided it (a drop first), and an Admin Pass behind it.
    const side = (c: PolicyCheck, admin?: TierStep, base?: TierStep) => {
      const tier = decided(admin) ? admin : decided(base) ? base : undefined;
      const d = tier ? tierDecidedBy(tier) : checkDecidedBy(c);
      const pass = passedBy(admin);
      if (d && pass) d.passedBy = pass;
      return d;
    };
    const e = side(egress, steps.adminEgress, steps.baseEgress);
    const i = side(ingress, steps.adminIngress, steps.baseIngress);
    const d = egress.verdict === "drop" ? e : ingress.verdict === "drop" ? i : (i ?? e);
    if (d) ep.decidedBy = d;
  }
  return ep;
}

/** The policy hops in the order a packet meets them: the tiers and NetworkPolicy at the source, then at the backend. */
function policyHops(
  count: number,
  tierGroups: Record<
    "admin tier at source" | "baseline tier at source" | "admin tier at backend" | "baseline tier at backend",
    HopGroups
  >,
  egressGroups: HopGroups,
  ingressGroups: HopGroups,
): TraceHop[] {
  const hops: TraceHop[] = [];
  const emit = (step: HopStep, groups: HopGroups) => hops.push(...groupHops(step, groups, count));
  emit("admin tier at source", tierGroups["admin tier at source"]);
  emit("egress policy at source", egressGroups);
  emit("baseline tier at source", tierGroups["baseline tier at source"]);
  emit("admin tier at backend", tierGroups["admin tier at backend"]);
  emit("ingress policy at backend", ingressGroups);
  emit("baseline tier at backend", tierGroups["baseline tier at backend"]);
  return hops;
}

/** Evaluates NetworkPolicy at both ends for each backend (rules 1 and 2). */
export function evaluate(
  ctx: Ctx,
  backends: Backend[],
  family: Family,
): { endpoints: TraceEndpoint[]; hops: TraceHop[] } {
  const { client, protocol } = ctx;
  let { model } = ctx;
  // What enforces policy is the decider's choice (decide/ enforcementOf), as for every other surface.
  const enforcement = enforcementOf(model);
  const profile = model.profile ?? GENERIC;
  // Nothing enforced (flannel): the policies are in the input, nothing applies them.
  if (enforcement.kind === "none") model = { ...model, policies: [] };
  else if (enforcement.kind === "cni")
    return withTierNote(evaluateCni(ctx, enforcement.cni, backends), model);
  const endpoints: TraceEndpoint[] = [];
  const egressGroups: HopGroups = new Map();
  const ingressGroups: HopGroups = new Map();
  const group = (m: HopGroups, ...[key, verdict, detail, cause, ref, ep]: Parameters<Group>) => {
    const g = m.get(key);
    if (g) g.eps.push(ep);
    else m.set(key, { verdict, detail, cause, ...(ref ? { ref } : {}), eps: [ep] });
  };
  const clientIP = client.ip(family) ?? "";
  // The cluster tiers around NetworkPolicy (trace/tiers.ts): a hop per tier step, grouped like the others.
  const tiers = enforcement.kind === "none" ? undefined : traceTiers(model);
  const tierGroups = {
    "admin tier at source": new Map() as HopGroups,
    "baseline tier at source": new Map() as HopGroups,
    "admin tier at backend": new Map() as HopGroups,
    "baseline tier at backend": new Map() as HopGroups,
  };
  const tierHop = (s: TierStep, ep: string) => {
    const verdict = s.action === "Deny" ? "drop" : s.action === "Accept" ? "pass" : "info";
    group(tierGroups[s.step as keyof typeof tierGroups], s.key, verdict, s.detail, s.cause, s.ref, ep);
  };
  for (const b of backends) {
    const epKey = hostPort(b.ip, b.port, family);
    const target = b.pod ? `${b.pod.key} (${b.ip})` : b.ip;
    // Egress at the source, against the backend after DNAT.
    let egress: PolicyCheck;
    const sender = client.kind === "pod" && client.pod && !client.host ? client.pod : undefined;
    const to = b.egressTo ?? { ip: b.ip, port: b.port, pod: b.pod };
    const egressQuery = sender && {
      direction: "egress" as const,
      self: sender,
      other: { ip: to.ip, pod: to.pod },
      otherName: target,
      port: to.port,
      protocol,
      dst: to.pod,
      hairpin: to.pod === sender,
    };
    const adminEgress =
      tiers && egressQuery && tiers.Admin.length ? tierStep(model, tiers, "Admin", egressQuery) : undefined;
    let baseEgress: TierStep | undefined;
    if (adminEgress) tierHop(adminEgress, `${epKey}|${target}`);
    if (adminEgress && decided(adminEgress)) {
      egress = tierCheck(adminEgress);
    } else if (client.kind === "pod" && client.pod && !client.host) {
      egress = netpolEgress({ model, protocol, b, pod: client.pod, target, epKey }, (...g) =>
        group(egressGroups, ...g),
      );
    } else {
      const why =
        client.kind === "external"
          ? "the client is outside the cluster: no NetworkPolicy applies to it"
          : client.pod
            ? hostNetworkWords(model, client.pod, "egress")
            : `node ${client.node.name} sends from its host network: NetworkPolicy does not apply to it`;
      egress = NOT_APPLICABLE(why, "egress");
      group(egressGroups, "n/a", "pass", why, egress.cause, undefined, `${epKey}|${target}`);
    }
    if (tiers && egressQuery && tiers.Baseline.length && !egress.isolated) {
      // NetworkPolicy does not isolate the sender for egress: the Baseline tier decides, if it matches.
      baseEgress = tierStep(model, tiers, "Baseline", egressQuery);
      tierHop(baseEgress, `${epKey}|${target}`);
      if (decided(baseEgress)) egress = tierCheck(baseEgress);
    }
    // Ingress at the backend, from the address it really sees.
    let ingress: PolicyCheck;
    /** Set when NetworkPolicy selects a host-network backend by its labels that the CNI does not apply (hostNetworkWords). */
    let hostNote: string | undefined;
    const seenBy = b.preserved && client.pod && !client.host ? client.pod : undefined;
    const ingressQuery = b.pod && {
      direction: "ingress" as const,
      self: b.pod,
      other: { ip: b.sourceIP, pod: seenBy },
      otherName: seenBy ? `${seenBy.key} (${b.sourceIP})` : b.sourceIP,
      port: b.port,
      protocol,
      dst: b.pod,
      hairpin: !!client.pod && client.pod === b.pod,
    };
    const adminIngress =
      tiers && ingressQuery && tiers.Admin.length ? tierStep(model, tiers, "Admin", ingressQuery) : undefined;
    let baseIngress: TierStep | undefined;
    if (adminIngress) tierHop(adminIngress, `${epKey}|${b.pod!.key}`);
    if (adminIngress && decided(adminIngress)) {
      ingress = tierCheck(adminIngress);
    } else if (b.pod) {
      ({ ingress, hostNote } = netpolIngress(
        { model, client, protocol, profile, clientIP, b, pod: b.pod, epKey },
        (...g) => group(ingressGroups, ...g),
      ));
    } else {
      ingress = NOT_APPLICABLE(
        `no pod in the input has IP ${b.ip}: no NetworkPolicy can select it`,
        "ingress",
      );
      group(
        ingressGroups,
        "n/a",
        "pass",
        "no pod in the input has the address of {who}: no NetworkPolicy can select {it}",
        ingress.cause,
        undefined,
        `${epKey}|${b.ip}`,
      );
    }
    if (tiers && ingressQuery && tiers.Baseline.length && !ingress.isolated) {
      // No NetworkPolicy isolates the backend for ingress: the Baseline tier decides, if it matches.
      baseIngress = tierStep(model, tiers, "Baseline", ingressQuery);
      tierHop(baseIngress, `${epKey}|${b.pod!.key}`);
      if (decided(baseIngress)) ingress = tierCheck(baseIngress);
    }
    const steps = tiers ? { adminEgress, baseEgress, adminIngress, baseIngress } : undefined;
    const ep = endpointOf(b, egress, ingress, hostNote, steps);
    endpoints.push(ep);
  }
  const hops = policyHops(backends.length, tierGroups, egressGroups, ingressGroups);
  if (enforcement.kind === "none" && ctx.model.policies.length + ctx.model.clusterPolicies.length) {
    hops.push({
      step: "ingress policy at backend",
      verdict: "info",
      detail: enforcement.why,
      cause: { layer: "NetworkPolicy", direction: "ingress", category: "not-applicable" },
    });
  }
  return withTierNote({ endpoints, hops }, ctx.model);
}

/** A note when the CNI does not implement the tiers (load/index.ts): the input's tier policies changed nothing. */
function withTierNote(
  r: { endpoints: TraceEndpoint[]; hops: TraceHop[] },
  model: Model,
): { endpoints: TraceEndpoint[]; hops: TraceHop[] } {
  const tiers = model.unenforcedTiers;
  if (!tiers?.length) return r;
  const names = tiers.slice(0, 3).map((p) => `${p.kind} ${p.name}`);
  r.hops.push({
    step: "admin tier at backend",
    verdict: "info",
    detail: `the cluster runs ${describeProfile(model.profile ?? GENERIC)}, which does not implement network-policy-api's tiers: the ${tiers.length} tier ${tiers.length === 1 ? "policy" : "policies"} of the input (${names.join(", ")}${tiers.length > 3 ? ", ..." : ""}) ${tiers.length === 1 ? "changes" : "change"} nothing`,
    cause: { layer: "AdminNetworkPolicy", direction: "ingress", category: "not-enforced" },
  });
  return r;
}
