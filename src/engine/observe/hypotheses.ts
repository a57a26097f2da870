/**
 * Why the cluster disagreed with the input, tested rather than guessed: each
 * candidate cause is a what-if model of the same input (one NetworkPolicy
 * added, one policy object taken out, or the flannel profile, under which
 * nothing is enforced), and the decider answers every observed row again
 * under it. A cause is offered only when the decider confirms that it turns
 * some disagreeing rows into agreeing ones, with the count of the rows it
 * would turn the other way (its contradictions) beside it.
 *
 * - Drops predicted allowed: a default-deny ingress in the destination's
 *   namespace, a default-deny egress in the source's, the destination
 *   workload isolated for ingress.
 * - Forwards predicted dropped: the policy that predicted the drop not being
 *   enforced (taken out of the input), nothing enforced at all (flannel).
 */
import { buildModel, type BuildOptions } from "../load/index.ts";
import type { Model } from "../model/types.ts";
import { parseManifests, type ParseResult } from "../parse/manifests.ts";
import type { Group, Hypothesis, HypothesisKind, ObserveInput } from "./report.ts";
import { POLICY_DROP_REASONS } from "./hubble.ts";
import { stableLabels } from "./match.ts";
import { Predictor, type ObservedDecidedBy, type Prediction } from "./predict.ts";
import { toYaml } from "./yaml.ts";

interface Candidate {
  kind: HypothesisKind;
  text: string;
  explains: "drops" | "forwards";
  add?: unknown;
  remove?: ObservedDecidedBy;
  cni?: "flannel";
  /** Observed flows in its scope, to test the likeliest first. */
  weight: number;
}

const RANK: Record<HypothesisKind, number> = {
  "default-deny-ingress": 0,
  "default-deny-egress": 1,
  "isolate-workload-ingress": 2,
  "policy-not-enforced": 3,
  "nothing-enforced": 4,
};

/** The most what-if models built per kind of disagreement. */
const MAX_CANDIDATES = 8;

/** The input with extra objects (YAML text) and without some, under other build options. */
export function variantModel(
  parsed: ParseResult,
  options: BuildOptions,
  change: {
    addYaml?: string;
    remove?: (o: ParseResult["objects"][number]) => boolean;
    cni?: BuildOptions["cni"];
  },
): Model {
  let objects = parsed.objects;
  if (change.remove) objects = objects.filter((o) => !change.remove!(o));
  let diagnostics = parsed.diagnostics;
  if (change.addYaml) {
    const extra = parseManifests([{ name: "(ktl observe)", text: change.addYaml }]);
    objects = [...objects, ...extra.objects];
    diagnostics = [...diagnostics, ...extra.diagnostics];
  }
  const opts: BuildOptions = { ...options };
  if (change.cni) opts.cni = change.cni;
  return buildModel({ ...parsed, objects, diagnostics }, opts);
}

const netpol = (name: string, namespace: string, spec: unknown) => ({
  apiVersion: "networking.k8s.io/v1",
  kind: "NetworkPolicy",
  metadata: { name, namespace },
  spec,
});

const nsOf = (key: string) => key.replace(/^service:/, "").split("/")[0]!;

function describe(by: ObservedDecidedBy): string {
  const obj = by.kind ? `${by.kind} ${by.namespace ? `${by.namespace}/` : ""}${by.name ?? ""}` : by.layer;
  return `${obj}${by.rule ? ` ${by.rule}` : ""}${by.line ? ` (line ${by.line})` : ""}`;
}

function candidates(model: Model, groups: readonly Group[]): Candidate[] {
  const drops = groups.filter((g) => g.row.case === "observed-dropped-but-predicted-allowed");
  const fwds = groups.filter((g) => g.row.case === "observed-forwarded-but-predicted-dropped");
  const out: Candidate[] = [];
  const add = (list: Candidate[], c: Candidate) => {
    const same = list.find((x) => x.text === c.text);
    if (same) same.weight += c.weight;
    else list.push(c);
  };
  const dropList: Candidate[] = [];
  for (const g of drops) {
    const n = g.row.observed.dropped;
    const dstNs = nsOf(g.row.dst);
    add(dropList, {
      kind: "default-deny-ingress",
      text: `a default-deny ingress NetworkPolicy in namespace ${dstNs}`,
      explains: "drops",
      add: netpol("ktl-hypothesis-default-deny-ingress", dstNs, {
        podSelector: {},
        policyTypes: ["Ingress"],
      }),
      weight: n,
    });
    const srcNs = nsOf(g.row.src);
    add(dropList, {
      kind: "default-deny-egress",
      text: `a default-deny egress NetworkPolicy in namespace ${srcNs}`,
      explains: "drops",
      add: netpol("ktl-hypothesis-default-deny-egress", srcNs, { podSelector: {}, policyTypes: ["Egress"] }),
      weight: n,
    });
    const w = g.row.dst.startsWith("service:") ? undefined : model.workloads.find((x) => x.key === g.row.dst);
    const labels = w ? stableLabels(w.labels) : {};
    if (w && Object.keys(labels).length)
      add(dropList, {
        kind: "isolate-workload-ingress",
        text: `a NetworkPolicy isolating ${w.kind} ${w.namespace}/${w.name} for ingress (podSelector ${Object.entries(
          labels,
        )
          .map(([k, v]) => `${k}=${v}`)
          .join(",")})`,
        explains: "drops",
        add: netpol(`ktl-hypothesis-isolate-${w.name}`.slice(0, 63).replace(/[-.]+$/, ""), w.namespace, {
          podSelector: { matchLabels: labels },
          policyTypes: ["Ingress"],
        }),
        weight: n,
      });
  }
  const fwdList: Candidate[] = [];
  for (const g of fwds) {
    const n = g.row.observed.forwarded;
    const by = g.row.decidedBy;
    if (by?.kind && by.name)
      add(fwdList, {
        kind: "policy-not-enforced",
        text: `${by.kind} ${by.namespace ? `${by.namespace}/` : ""}${by.name} not being enforced in the cluster`,
        explains: "forwards",
        remove: by,
        weight: n,
      });
    add(fwdList, {
      kind: "nothing-enforced",
      text: "a CNI that enforces no policy (the flannel profile)",
      explains: "forwards",
      cni: "flannel",
      weight: n,
    });
  }
  for (const list of [dropList, fwdList])
    out.push(...list.sort((a, b) => b.weight - a.weight).slice(0, MAX_CANDIDATES));
  return out;
}

function verdictsUnder(model: Model, groups: readonly Group[]): (Prediction | undefined)[] {
  const p = new Predictor(model);
  return groups.map((g) => {
    let first: Prediction | undefined;
    let same = true;
    for (const q of g.questions) {
      const a = p.ask(q);
      if ("error" in a) return undefined;
      if (first && a.verdict !== first.verdict) same = false;
      first ??= a;
    }
    return first && (same ? first : { ...first, verdict: "partial" });
  });
}

export function testHypotheses(input: ObserveInput, model: Model, groups: readonly Group[]): Hypothesis[] {
  const out: Hypothesis[] = [];
  const totalDrops = sum(groups, (g) =>
    g.row.case === "observed-dropped-but-predicted-allowed" ? g.row.observed.dropped : 0,
  );
  const totalFwds = sum(groups, (g) =>
    g.row.case === "observed-forwarded-but-predicted-dropped" ? g.row.observed.forwarded : 0,
  );
  for (const c of candidates(model, groups)) {
    const yaml = c.add ? toYaml(c.add) : undefined;
    const variant = variantModel(input.parsed, input.options ?? {}, {
      ...(yaml ? { addYaml: yaml } : {}),
      ...(c.remove ? { remove: matchesRef(c.remove) } : {}),
      ...(c.cni ? { cni: c.cni } : {}),
    });
    const after = verdictsUnder(variant, groups);
    const h: Hypothesis = {
      kind: c.kind,
      text: c.text,
      explains: c.explains,
      explained: 0,
      of: c.explains === "drops" ? totalDrops : totalFwds,
      contradicted: 0,
      confirmed: false,
      rows: [],
    };
    if (yaml) h.yaml = yaml;
    groups.forEach((g, i) => {
      const now = after[i]?.verdict;
      const o = g.row.observed;
      if (c.explains === "drops") {
        if (g.row.case === "observed-dropped-but-predicted-allowed" && now === "dropped") {
          h.explained += o.dropped;
          h.rows.push(i);
        }
        // Flows seen forwarded that the what-if would now drop.
        if (o.forwarded > 0 && g.prediction.verdict !== "dropped" && now === "dropped")
          h.contradicted += o.forwarded;
      } else {
        if (g.row.case === "observed-forwarded-but-predicted-dropped" && now === "allowed") {
          h.explained += o.forwarded;
          h.rows.push(i);
        }
        if (o.dropped > 0 && g.prediction.verdict !== "allowed" && now === "allowed")
          h.contradicted += o.dropped;
      }
    });
    h.confirmed = h.explained > 0;
    out.push(h);
  }
  // Fewest contradictions, then most explained, then the narrowest cause (one policy before every policy).
  out.sort(
    (a, b) => a.contradicted - b.contradicted || b.explained - a.explained || RANK[a.kind] - RANK[b.kind],
  );
  explainRows(groups, out);
  return out;
}

function matchesRef(by: ObservedDecidedBy) {
  return (o: ParseResult["objects"][number]) =>
    o.kind === by.kind &&
    o.name === by.name &&
    (by.namespace === undefined || (o.namespace ?? "default") === by.namespace);
}

function sum<T>(xs: readonly T[], f: (x: T) => number): number {
  return xs.reduce((a, x) => a + f(x), 0);
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** Each disagreeing row's explanation: the best confirmed cause that covers it, else what no tested cause explains. */
function explainRows(groups: readonly Group[], hypotheses: readonly Hypothesis[]): void {
  groups.forEach((g, i) => {
    const row = g.row;
    // The flow log's own word comes first: it names what decided in the cluster.
    const logged = (row.logged ?? [])
      .map((l) => `${l.policy}${l.inInput ? "" : ", which is not in the input"}`)
      .join("; ");
    const said = logged ? `the flow log names ${logged}; ` : "";
    if (row.case === "observed-dropped-but-predicted-allowed") {
      const h = hypotheses.find((x) => x.explains === "drops" && x.confirmed && x.rows.includes(i));
      const nonPolicy = (row.dropReasons ?? []).filter((r) => !POLICY_DROP_REASONS.has(r));
      const prefix =
        said +
        (nonPolicy.length ? `dropped for ${nonPolicy.join(", ")}, which is no policy's refusal; ` : "");
      row.explanation = h
        ? `${prefix}${h.text} would explain ${h.explained} of ${plural(h.of, "drop")} predicted allowed (the decider confirms)${h.contradicted ? `, but would also drop ${plural(h.contradicted, "flow")} observed forwarded` : ""}`
        : `${prefix}no tested change explains it (a default deny in either namespace, the destination isolated): a layer not in the input dropped it, such as a host firewall, a service mesh or a CNI policy`;
    } else if (row.case === "observed-forwarded-but-predicted-dropped") {
      const h = hypotheses.find((x) => x.explains === "forwards" && x.confirmed && x.rows.includes(i));
      const by = said + (row.decidedBy ? `predicted dropped by ${describe(row.decidedBy)}; ` : "");
      row.explanation = h
        ? `${by}${h.text} would explain ${h.explained} of ${plural(h.of, "forward")} predicted dropped (the decider confirms)${h.contradicted ? `, but then ${plural(h.contradicted, "observed drop")} would be predicted allowed` : ""}; or a policy in the cluster that the input lacks allows it`
        : `${by}no tested change explains it; a policy in the cluster that the input lacks may allow it`;
    }
  });
}
