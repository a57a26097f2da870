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

const policyRefs = new WeakMap<NetworkPolicy, RefView>();

/**
 * A policy's reference. Without a line it is one shared object per policy:
 * thousands of pods and flows name the same few policies, and postMessage's
 * structured clone sends a shared object once.
 */
export function refOfPolicy(p: NetworkPolicy, line?: number): RefView {
  if (line !== undefined && line !== p.source.line)
    return { kind: "NetworkPolicy", namespace: p.namespace, name: p.name, line };
  let r = policyRefs.get(p);
  if (!r)
    policyRefs.set(
      p,
      (r = { kind: "NetworkPolicy", namespace: p.namespace, name: p.name, line: p.source.line }),
    );
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
