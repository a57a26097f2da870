/**
 * What the lint rules share (lint.ts, lintPolicy.ts): the model's pods
 * grouped by namespace and node, the policy class index, each Service's
 * EndpointSlices and every pod IP, built once per lint run; and the wording
 * of "the closest objects to matching a selector".
 */
import { isCniObject } from "../cni/index.ts";
import type { KObject } from "../parse/manifests.ts";
import type { Model, Pod } from "../model/types.ts";
import { failedRequirements, type LabelSelector } from "../model/labels.ts";
import { policyIndexOf, type PolicyIndex } from "../netpol/index.ts";
import type { EndpointSlice } from "../model/services.ts";
import { parseIPSloppy, type Svc } from "./service.ts";

export const ZONE = "topology.kubernetes.io/zone";

export function list(items: string[], max = 3): string {
  const shown = items.slice(0, max).join(", ");
  return items.length > max ? `${shown} and ${items.length - max} more` : shown;
}

export interface Ctx {
  model: Model;
  index: PolicyIndex;
  podsByNs: Map<string, Pod[]>;
  podsByNode: Map<string, Pod[]>;
  policyObjects: Map<string, KObject>;
  slicesByService: Map<string, EndpointSlice[]>;
  /** Every pod IP, sorted per family, for "does this CIDR hold a pod" questions. */
  podIPs: Record<4 | 6, bigint[]>;
}

function group<T>(items: readonly T[], key: (t: T) => string | undefined): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const it of items) {
    const k = key(it);
    if (k === undefined) continue;
    const l = m.get(k);
    if (l) l.push(it);
    else m.set(k, [it]);
  }
  return m;
}

export function context(model: Model): Ctx {
  const podIPs: Record<4 | 6, bigint[]> = { 4: [], 6: [] };
  for (const p of model.pods) {
    for (const ip of p.ips) {
      const x = parseIPSloppy(ip);
      if (x) podIPs[x.family].push(x.value);
    }
  }
  for (const f of [4, 6] as const) podIPs[f].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const policyObjects = new Map<string, KObject>();
  for (const o of model.objects)
    if (o.kind === "NetworkPolicy" && !isCniObject(o))
      policyObjects.set(`${o.namespace ?? "default"}/${o.name}`, o);
  return {
    model,
    index: policyIndexOf(model),
    podsByNs: group(model.pods, (p) => p.namespace),
    podsByNode: group(model.pods, (p) => p.nodeName),
    policyObjects,
    slicesByService: group(model.endpointSlices, (sl) => `${sl.namespace}/${sl.serviceName}`),
    podIPs,
  };
}

/** Does any pod IP fall in [first, last]? */
export function holdsPodIP(ctx: Ctx, family: 4 | 6, first: bigint, last: bigint): boolean {
  const a = ctx.podIPs[family];
  let lo = 0,
    hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid]! < first) lo = mid + 1;
    else hi = mid;
  }
  return lo < a.length && a[lo]! <= last;
}

/** shouldPodBeInEndpoints: not terminal, has an IP. */
export function backendsOf(ctx: Ctx, s: Svc): Pod[] {
  const sel = s.selector;
  if (!sel || Object.keys(sel).length === 0) return [];
  const pairs = Object.entries(sel);
  return (ctx.podsByNs.get(s.namespace) ?? []).filter(
    (p) =>
      p.ips.length > 0 &&
      p.phase !== "Succeeded" &&
      p.phase !== "Failed" &&
      pairs.every(([k, v]) => p.labels[k] === v),
  );
}

/**
 * The objects closest to matching a selector: fewest failed requirements, a
 * requirement on a label the object has counting less than one on a label it
 * lacks; ties kept in input order. Empty when some candidate matches, when
 * there is none, or when the selector is invalid.
 */
export function nearestMatches<T>(
  sel: LabelSelector,
  candidates: readonly T[],
  labels: (t: T) => Record<string, string>,
): { item: T; fails: string[] }[] {
  if (sel.invalid) return [];
  let best: { item: T; fails: string[] }[] = [];
  let bestScore = Infinity;
  // Replicas share one labels object (model/workloads.ts): each is scored once.
  const scored = new Map<Record<string, string>, { fails: string[]; score: number }>();
  for (const c of candidates) {
    const l = labels(c);
    let hit = scored.get(l);
    if (!hit) {
      const fails = failedRequirements(sel, l);
      // A label with the asked value under another key is nearer than a different value, which is nearer than nothing.
      const score = fails.reduce(
        (n, f) =>
          n + (f.includes("but has") || f.includes("(and") ? 1 : f.includes("it has no label") ? 3 : 2),
        0,
      );
      scored.set(l, (hit = { fails, score }));
    }
    const { fails, score } = hit;
    if (fails.length === 0) return [];
    if (score < bestScore) {
      bestScore = score;
      best = [{ item: c, fails }];
    } else if (score === bestScore) best.push({ item: c, fails });
  }
  return best;
}

/** "namespace web: the selector asks for `team=web`; it has `team=storefront`" for up to three nearest objects. */
export function nearestWords<T>(near: { item: T; fails: string[] }[], name: (t: T) => string): string {
  const shown = near
    .slice(0, 3)
    .map((n) => `${name(n.item)}: the selector asks for ${n.fails.join(" and ")}`);
  return `The nearest ${near.length === 1 ? "is" : "are"} ${shown.join("; ")}${near.length > 3 ? `; and ${near.length - 3} more` : ""}.`;
}

/** One pod per workload: replicas share their labels, so naming each adds nothing. */
export function dedupeWorkloads(near: { item: Pod; fails: string[] }[]): { item: Pod; fails: string[] }[] {
  const seen = new Set<string>();
  return near.filter((n) => {
    const k = `${n.item.workload.kind}/${n.item.workload.namespace}/${n.item.workload.name}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

export function labelsOf(p: Pod): string {
  const l = Object.entries(p.labels);
  return l.length ? `{${l.map(([k, v]) => `${k}: ${v}`).join(", ")}}` : "(the pod has no labels)";
}
