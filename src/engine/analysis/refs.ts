/** Engine objects -> the ids and references the view uses. */
import type { SourceRef } from "../parse/manifests.ts";
import type { Pod } from "../model/types.ts";
import type { NetworkPolicy } from "../model/networkpolicy.ts";
import type { RuleMatch } from "../netpol/index.ts";
import type { RefView } from "./types.ts";

export { externalId, nodeId, podId, serviceId, workloadId } from "../model/ids.ts";

export function refOfSource(s: SourceRef): RefView {
  const r: RefView = { kind: s.kind, name: s.name, line: s.line };
  if (s.namespace !== undefined) r.namespace = s.namespace;
  return r;
}

/**
 * Policy references alike are one object, within an analysis and from one
 * analysis to the next: thousands of pods and flows name the same few
 * policies, postMessage's structured clone sends a shared object once, and
 * the worker's delta against the previous answer (worker/delta.ts) finds an
 * unchanged reference by identity instead of comparing its fields. Cleared
 * when it grows past POOL_MAX (an edit above shifts every line below it).
 */
const pool = new Map<string, RefView>();
const POOL_MAX = 50_000;

/** Each policy's own reference (its object's line), looked up once per policy object. */
const ownRefs = new WeakMap<NetworkPolicy, RefView>();

export function refOfPolicy(p: NetworkPolicy, line?: number): RefView {
  if (line === undefined || line === p.source.line) {
    let r = ownRefs.get(p);
    if (!r) ownRefs.set(p, (r = pooled(p, p.source.line)));
    return r;
  }
  return pooled(p, line);
}

function pooled(p: NetworkPolicy, line: number): RefView {
  const key = `${p.namespace}\0${p.name}\0${line}`;
  let r = pool.get(key);
  if (!r) {
    if (pool.size >= POOL_MAX) pool.clear();
    pool.set(key, (r = { kind: "NetworkPolicy", namespace: p.namespace, name: p.name, line }));
  }
  return r;
}

/** The most specific line of a rule match: the peer, else the port, else the rule. */
export function refOfMatch(m: RuleMatch): RefView {
  return refOfPolicy(m.policy, m.peer?.line || m.port?.line || m.rule.line || m.policy.source.line);
}

export function refOfPod(p: Pod): RefView {
  return { ...refOfSource(p.source), namespace: p.namespace };
}

/** "shop/backend" for namespaced references, "node-a" otherwise. */
export function refName(r: RefView): string {
  return r.namespace !== undefined ? `${r.namespace}/${r.name}` : r.name;
}
