/**
 * "Allow this edge" / "Deny this edge" (issue 35, item 4): the smallest edit
 * of the input that gives one connection (a pod to a pod or a Service, one
 * port) the verdict asked for, and its proof by the decider.
 *
 * Allow: first the near miss the trace already knows (netpol/nearmiss.ts: one
 * label on a Namespace or Pod makes an existing rule match, applied by
 * whatif/), else one new NetworkPolicy per refusing direction (the decider's
 * `direction`: egress at the source, then ingress at the destination), each
 * admitting exactly this peer and port, selectors from stable labels.
 * Deny: NetworkPolicy v1 has no deny rule, so one AdminNetworkPolicy Deny rule
 * (network-policy-api v1alpha1: the Admin tier is evaluated before
 * NetworkPolicy) from the source's pods to the destination's on this port.
 *
 * The proof parses the edited text again: the decider must give the asked
 * verdict, and every other pod pair on this port whose verdict the edit
 * changes is listed. Under a CNI with a deny of its own (Cilium, Calico),
 * Deny is written in its dialect (`denyInDialect`).
 */
import type { BuildOptions } from "../load/index.ts";
import { buildModel } from "../load/index.ts";
import { parseManifests } from "../parse/manifests.ts";
import { deciderOf, type DecidedBy } from "../decide/index.ts";
import { buildProxyIndex } from "../proxy/index.ts";
import { traceRequest } from "../trace/index.ts";
import type { Model, Pod, Protocol } from "../model/types.ts";
import type { LabelEdit } from "../netpol/nearmiss.ts";
import { applyWhatIf } from "../whatif/index.ts";
import { stableLabels } from "./match.ts";
import { appendYaml, yamlDocuments } from "./yaml.ts";
import { calicoSelector, dialectOf, type PolicyDialect } from "./dialects.ts";

export interface EdgeEditQuery {
  /** The source pod: `pod:NS/NAME` or `NS/NAME`. */
  from: string;
  /** The destination: a pod (`pod:NS/NAME`, `NS/NAME`) or a Service (`service:NS/NAME`, judged at its first backend pod). */
  to: string;
  /** The port asked (a Service's port for a Service). */
  port: number;
  protocol: Protocol;
  want: "allow" | "deny";
}

export interface EdgeVerdict {
  allowed: boolean;
  reason: string;
  decidedBy?: DecidedBy;
}

export interface EdgeEditProof {
  /** The decider gives the asked verdict on the edited text. */
  holds: boolean;
  before: EdgeVerdict;
  after: EdgeVerdict;
  /** Other pod pairs on the same port and protocol whose verdict the edit changes. */
  alsoChanged: { src: string; dst: string; allowed: boolean }[];
  /** Pairs beyond the listed ones, when the list was cut. */
  more: number;
}

export interface EdgeEdit {
  /** The edited text differs from the input. */
  changed: boolean;
  how: "near-miss" | "new-policy" | "already" | "none";
  /** What the edit does, in one sentence. */
  summary: string;
  /** The whole edited text (the input when unchanged). */
  text: string;
  /** The objects added, as YAML (new-policy). */
  added?: string;
  /** The near miss's label edit (near-miss). */
  labelEdit?: LabelEdit;
  proof?: EdgeEditProof;
  error?: string;
}

const MAX_LISTED = 20;
const MAX_PODS = 400;

function podKey(id: string): string {
  return id.startsWith("pod:") ? id.slice(4) : id;
}

function podOf(model: Model, id: string): Pod | undefined {
  const key = podKey(id);
  return model.pods.find((p) => p.key === key);
}

/** A Service destination is judged at its first backend pod and that backend's port (the trace's endpoint choice). */
function destination(
  model: Model,
  src: Pod,
  q: EdgeEditQuery,
): { pod: Pod; port: number } | { error: string } {
  if (!q.to.startsWith("service:")) {
    const pod = podOf(model, q.to);
    return pod ? { pod, port: q.port } : { error: `no pod ${podKey(q.to)} in the input` };
  }
  const t = traceRequest(
    model,
    buildProxyIndex(model),
    { kind: "pod", pod: src.key },
    `${q.to}:${q.port}`,
    q.protocol,
  );
  const e = t.endpoints.find((x) => x.pod);
  const pod = e?.pod ? podOf(model, e.pod) : undefined;
  return pod && e
    ? { pod, port: e.port }
    : { error: `${q.to.slice(8)} has no backend pod on port ${q.port}` };
}

function verdictOf(
  model: Model,
  src: string,
  dst: string,
  port: number,
  protocol: Protocol,
): EdgeVerdict | undefined {
  const s = podOf(model, src);
  const d = podOf(model, dst);
  if (!s || !d) return undefined;
  const x = deciderOf(model).explain(s, d, port, protocol);
  const v: EdgeVerdict = { allowed: x.allowed, reason: x.reason };
  if (x.decidedBy) v.decidedBy = { ...x.decidedBy };
  return v;
}

/** The first near miss with an edit anywhere in the trace (its policy hops carry them). */
function nearMissEdits(v: unknown, out: LabelEdit[] = []): LabelEdit[] {
  if (Array.isArray(v)) for (const x of v) nearMissEdits(x, out);
  else if (v && typeof v === "object") {
    for (const [k, x] of Object.entries(v))
      if (k === "nearMisses" && Array.isArray(x)) {
        for (const m of x as { edit?: LabelEdit }[]) if (m.edit?.kind === "label") out.push(m.edit);
      } else nearMissEdits(x, out);
  }
  return out;
}

const peer = (p: Pod) => ({
  namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": p.namespace } },
  podSelector: { matchLabels: stableLabels(p.labels) },
});

function allowPolicy(direction: "ingress" | "egress", src: Pod, dst: Pod, port: number, protocol: Protocol) {
  const subject = direction === "ingress" ? dst : src;
  const other = direction === "ingress" ? src : dst;
  const rule =
    direction === "ingress"
      ? { from: [peer(other)], ports: [{ protocol, port }] }
      : { to: [peer(other)], ports: [{ protocol, port }] };
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata: {
      name: `allow-${direction === "ingress" ? `from-${src.name}` : `to-${dst.name}`}-${port}`.slice(0, 63),
      namespace: subject.namespace,
    },
    spec: {
      podSelector: { matchLabels: stableLabels(subject.labels) },
      policyTypes: [direction === "ingress" ? "Ingress" : "Egress"],
      [direction]: [rule],
    },
  };
}

function denyPolicy(src: Pod, dst: Pod, port: number, protocol: Protocol) {
  const pods = (p: Pod) => ({
    pods: {
      namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": p.namespace } },
      podSelector: { matchLabels: stableLabels(p.labels) },
    },
  });
  return {
    apiVersion: "policy.networking.k8s.io/v1alpha1",
    kind: "AdminNetworkPolicy",
    metadata: { name: `deny-${src.name}-to-${dst.name}-${port}`.slice(0, 63) },
    spec: {
      priority: 10,
      subject: pods(dst),
      ingress: [
        {
          name: `deny-${src.name}`.slice(0, 100),
          action: "Deny",
          from: [pods(src)],
          ports: [{ portNumber: { protocol, port } }],
        },
      ],
    },
  };
}

/**
 * Deny in the CNI's own dialect, where the profile's CNI enforces one
 * (the Admin tier is not implemented by Cilium):
 * - Cilium: an `ingressDeny` rule at the destination, with
 *   `enableDefaultDeny.ingress: false` so that the deny rule alone does not
 *   isolate the destination (Cilium's default: a policy with rules in a
 *   direction turns on default deny there);
 * - Calico: a tier of its own before the default one (order 100) holding one
 *   policy: Deny this pair, then Pass, so every other connection goes on to
 *   the default tier (where the Kubernetes NetworkPolicies are) as before; a
 *   Deny policy in the default tier would deny the rest at its end.
 */
function denyInDialect(dialect: PolicyDialect, src: Pod, dst: Pod, port: number, protocol: Protocol) {
  const name = `deny-${src.name}-to-${dst.name}-${port}`.slice(0, 63);
  if (dialect === "CiliumNetworkPolicy")
    return [
      {
        apiVersion: "cilium.io/v2",
        kind: "CiliumNetworkPolicy",
        metadata: { name, namespace: dst.namespace },
        spec: {
          endpointSelector: { matchLabels: stableLabels(dst.labels) },
          enableDefaultDeny: { ingress: false },
          ingressDeny: [
            {
              fromEndpoints: [
                {
                  matchLabels: {
                    ...stableLabels(src.labels),
                    "k8s:io.kubernetes.pod.namespace": src.namespace,
                  },
                },
              ],
              toPorts: [{ ports: [{ port: String(port), protocol }] }],
            },
          ],
        },
      },
    ];
  const tier = "ktl-deny";
  return [
    { apiVersion: "projectcalico.org/v3", kind: "Tier", metadata: { name: tier }, spec: { order: 100 } },
    {
      apiVersion: "projectcalico.org/v3",
      kind: "NetworkPolicy",
      // Calico names a policy of another tier after it.
      metadata: { name: `${tier}.${name}`.slice(0, 63), namespace: dst.namespace },
      spec: {
        tier,
        order: 10,
        selector: calicoSelector(stableLabels(dst.labels)),
        types: ["Ingress"],
        ingress: [
          {
            action: "Deny",
            protocol,
            source: {
              selector: calicoSelector(stableLabels(src.labels)),
              namespaceSelector: calicoSelector({ "kubernetes.io/metadata.name": src.namespace }),
            },
            destination: { ports: [port] },
          },
          { action: "Pass" },
        ],
      },
    },
  ];
}

function prove(
  before: Model,
  after: Model,
  src: Pod,
  dst: Pod,
  port: number,
  protocol: Protocol,
  want: boolean,
): EdgeEditProof {
  const b = verdictOf(before, src.key, dst.key, port, protocol)!;
  const a = verdictOf(after, src.key, dst.key, port, protocol) ?? {
    allowed: false,
    reason: "the pair is not in the edited input",
  };
  const alsoChanged: EdgeEditProof["alsoChanged"] = [];
  let more = 0;
  if (before.pods.length <= MAX_PODS && after.pods.length <= MAX_PODS) {
    const mb = deciderOf(before).matrix(port, protocol);
    const ma = deciderOf(after).matrix(port, protocol);
    const byKey = new Map(before.pods.map((p) => [p.key, p]));
    for (const x of after.pods) {
      const xb = byKey.get(x.key);
      if (!xb) continue;
      for (const y of after.pods) {
        const yb = byKey.get(y.key);
        if (!yb || (x.key === src.key && y.key === dst.key)) continue;
        const now = ma.allowed(x, y);
        if (now === mb.allowed(xb, yb)) continue;
        if (alsoChanged.length < MAX_LISTED) alsoChanged.push({ src: x.key, dst: y.key, allowed: now });
        else more++;
      }
    }
  }
  return { holds: a.allowed === want, before: b, after: a, alsoChanged, more };
}

export function editForEdge(
  input: { text: string; file: string; options?: BuildOptions },
  q: EdgeEditQuery,
): EdgeEdit {
  const load = (text: string) =>
    buildModel(parseManifests([{ name: input.file, text }]), input.options ?? {});
  const fail = (error: string): EdgeEdit => ({
    changed: false,
    how: "none",
    summary: error,
    text: input.text,
    error,
  });
  const model = load(input.text);
  const src = podOf(model, q.from);
  if (!src) return fail(`no pod ${podKey(q.from)} in the input`);
  const d = destination(model, src, q);
  if ("error" in d) return fail(d.error);
  const { pod: dst, port } = d;
  const want = q.want === "allow";
  const pair = `${src.key} to ${dst.key} on ${q.protocol}/${port}`;
  const now = verdictOf(model, src.key, dst.key, port, q.protocol)!;
  if (now.allowed === want)
    return {
      changed: false,
      how: "already",
      summary: `${pair} is already ${want ? "allowed" : "dropped"}: ${now.reason}`,
      text: input.text,
      proof: { holds: true, before: now, after: now, alsoChanged: [], more: 0 },
    };

  if (want) {
    // The near miss first: an existing rule that one label would make match is a smaller edit than a new policy.
    const t = traceRequest(
      model,
      buildProxyIndex(model),
      { kind: "pod", pod: src.key },
      `pod:${dst.key}:${port}`,
      q.protocol,
    );
    for (const edit of nearMissEdits(t)) {
      const r = applyWhatIf(input.text, edit, { file: input.file });
      if (!r.changed) continue;
      const proof = prove(model, load(r.text), src, dst, port, q.protocol, true);
      if (proof.holds)
        return {
          changed: true,
          how: "near-miss",
          summary: `${r.summary} (allows ${pair})`,
          text: r.text,
          labelEdit: edit,
          proof,
        };
    }
    // One new policy per refusing direction, egress first as the decider reports it.
    const added: unknown[] = [];
    let text = input.text;
    let after = model;
    for (let i = 0; i < 2; i++) {
      const x = deciderOf(after).explain(podOf(after, src.key)!, podOf(after, dst.key)!, port, q.protocol);
      if (x.allowed || !x.direction) break;
      const p = allowPolicy(x.direction, src, dst, port, q.protocol);
      if (added.some((o) => JSON.stringify(o) === JSON.stringify(p))) break;
      added.push(p);
      text = appendYaml(input.text, yamlDocuments(added.map((value) => ({ value }))));
      after = load(text);
    }
    const yaml = yamlDocuments(added.map((value) => ({ value })));
    const proof = prove(model, after, src, dst, port, q.protocol, true);
    return {
      changed: added.length > 0,
      how: "new-policy",
      summary: `${added.length === 1 ? "a NetworkPolicy" : `${added.length} NetworkPolicies`} admitting ${pair}`,
      text,
      added: yaml,
      proof,
    };
  }

  // NetworkPolicy cannot deny: the Admin tier can, unless the profile's CNI has a deny of its own.
  const dialect = dialectOf(model.profile?.cni);
  const values =
    dialect === "NetworkPolicy"
      ? [denyPolicy(src, dst, port, q.protocol)]
      : denyInDialect(dialect, src, dst, port, q.protocol);
  const yaml = yamlDocuments(values.map((value) => ({ value })));
  const text = appendYaml(input.text, yaml);
  const proof = prove(model, load(text), src, dst, port, q.protocol, false);
  return {
    changed: true,
    how: "new-policy",
    summary: `${dialect === "NetworkPolicy" ? "an AdminNetworkPolicy" : dialect === "CiliumNetworkPolicy" ? "a CiliumNetworkPolicy" : "a Calico policy in a tier of its own"} denying ${pair}`,
    text,
    added: yaml,
    proof,
  };
}
