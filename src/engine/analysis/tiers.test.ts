/**
 * The playground's flows and matrix follow the cluster tiers (policy/stack.ts):
 * an Admin Deny drops an edge that a NetworkPolicy allows, and the edge says
 * which tier decided (the graph's tier mark). CNPAdminTierIntegration
 * (network-policy-api conformance/tests at 0eec1b0e).
 */
import { admittedSenders } from "./words.ts";
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { KeptAnswer, analyzeText, openAnalysis } from "./index.ts";
import { buildPolicyIndex, loadModel } from "../index.ts";
import type { Model, Pod, Protocol } from "../model/types.ts";
import { buildProxyIndex } from "../proxy/index.ts";
import {
  buildStack,
  explainStackPair,
  stackMatrix,
  type LayerStep,
  type PolicyStack,
} from "../policy/index.ts";
import type { ClassSet } from "../netpol/bitset.ts";
import { randomStackCluster } from "../policy/test-fixtures.ts";
import { workloadId } from "./refs.ts";
import { tierOf } from "./tiers.ts";
import { tierInputsKey } from "./inputKeys.ts";
import { scenarioById } from "../../../scenarios/index.ts";

/** kube-proxy's endpoints of one Service port (v4 then v6), each with its pod and target port. */
function portEndpoints(model: Model, service: string, port: number, protocol: Protocol) {
  const sp = buildProxyIndex(model).services.get(service)!;
  const i = sp.service.ports.findIndex((p) => p.port === port && p.protocol === protocol);
  const eps = sp.ports[i];
  return eps ? [...eps.v4, ...eps.v6] : [];
}

/** The ready endpoint pods of a Service port, once each, with their target port (workloadFlows' destinations). */
function readyEndpoints(model: Model, service: string, port: number, protocol: Protocol): [Pod, number][] {
  const seen = new Set<string>();
  const out: [Pod, number][] = [];
  for (const ep of portEndpoints(model, service, port, protocol)) {
    if (!ep.pod || !ep.ready || seen.has(ep.pod)) continue;
    seen.add(ep.pod);
    const pod = model.podsByKey.get(ep.pod);
    if (pod) out.push([pod, ep.port]);
  }
  return out;
}

const TEXT = `apiVersion: v1
kind: Node
metadata: {name: n1}
spec: {podCIDR: 10.244.1.0/24}
---
apiVersion: v1
kind: Namespace
metadata: {name: shop, labels: {team: shop}}
---
apiVersion: v1
kind: Namespace
metadata: {name: dev, labels: {team: dev}}
---
apiVersion: v1
kind: Pod
metadata: {name: api, namespace: shop, labels: {app: api}}
spec: {nodeName: n1, containers: [{name: c, ports: [{containerPort: 80}]}]}
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: shop, labels: {app: web}}
spec: {nodeName: n1, containers: [{name: c}]}
---
apiVersion: v1
kind: Pod
metadata: {name: tool, namespace: dev, labels: {app: tool}}
spec: {nodeName: n1, containers: [{name: c}]}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: allow-all, namespace: shop}
spec: {podSelector: {}, ingress: [{}]}
---
apiVersion: policy.networking.k8s.io/v1alpha2
kind: ClusterNetworkPolicy
metadata: {name: no-dev}
spec:
  tier: Admin
  priority: 10
  subject: {namespaces: {matchLabels: {team: shop}}}
  ingress:
  - {name: deny-dev, action: Deny, from: [{namespaces: {matchLabels: {team: dev}}}]}
`;

describe("analysis under the cluster tiers", () => {
  it("an Admin Deny drops the edge a NetworkPolicy allows, and the edge names the tier", () => {
    const a = analyzeText(TEXT);
    const withService = analyzeText(
      `${TEXT}---\napiVersion: v1\nkind: Service\nmetadata: {name: api, namespace: shop}\nspec: {selector: {app: api}, ports: [{port: 80}]}\n`,
    );
    const toApi = a.flows.filter((f) => f.to === "pod:shop/api" && f.kind === "pod");
    const fromDev = toApi.find((f) => f.from.includes("pod:dev/tool"))!;
    const fromWeb = toApi.find((f) => f.from.includes("pod:shop/web"))!;
    expect(fromDev).toMatchObject({ verdict: "drop", dropCause: "policy", tier: "Admin" });
    expect(fromDev.decidedBy[0]).toMatchObject({ kind: "ClusterNetworkPolicy", name: "no-dev" });
    expect(fromWeb.verdict).toBe("allow");
    expect(fromWeb.tier).toBeUndefined();
    const endpoint = withService.flows.find((f) => f.kind === "endpoint" && f.to === "pod:shop/api")!;
    expect(endpoint).toMatchObject({ verdict: "partial", tier: "Admin" });
    // The pod-to-Service flow (traced) and the trace's path parts name the tier too.
    const service = withService.flows.find((f) => f.kind === "service" && f.from.includes("pod:dev/tool"))!;
    expect(service).toMatchObject({ verdict: "drop", tier: "Admin" });
    const fromWebToService = withService.flows.find(
      (f) => f.kind === "service" && f.from.includes("pod:shop/web"),
    )!;
    expect(fromWebToService.tier).toBeUndefined();
  });

  it("the matrix names the tier that dropped a cell: A where the Admin Deny decides, none where NetworkPolicy does", () => {
    const baseline = `${TEXT}---
apiVersion: policy.networking.k8s.io/v1alpha1
kind: BaselineAdminNetworkPolicy
metadata: {name: default}
spec:
  subject: {namespaces: {matchLabels: {team: dev}}}
  ingress:
  - {name: deny-all, action: Deny, from: [{namespaces: {}}]}
---
apiVersion: v1
kind: Namespace
metadata: {name: ops}
---
apiVersion: v1
kind: Pod
metadata: {name: bot, namespace: ops, labels: {app: bot}}
spec: {nodeName: n1, containers: [{name: c}]}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny-all, namespace: ops}
spec: {podSelector: {}, policyTypes: [Ingress]}
`;
    const s = openAnalysis([{ name: "m.yaml", text: baseline }]);
    for (const by of ["pod", "workload"] as const) {
      const m = s.matrix({ port: 80, protocol: "TCP", by });
      const at = (from: string, to: string) => {
        const i = m.labels.indexOf(from);
        const j = m.labels.indexOf(to);
        return `${m.cells[i]![j]}${m.tiers![i]![j]}`;
      };
      expect(at("dev/tool", "shop/api"), by).toBe("dA"); // the Admin tier's Deny, over shop's allow-all
      expect(at("shop/web", "dev/tool"), by).toBe("dB"); // no NetworkPolicy in dev: the Baseline default deny
      expect(at("shop/api", "ops/bot"), by).toBe("d."); // ops's own NetworkPolicy isolates bot
      expect(at("shop/web", "shop/api"), by).toBe("a.");
    }
    // Without tier policies the matrix carries no tier row.
    const plain = openAnalysis([{ name: "m.yaml", text: TEXT.split("---\napiVersion: policy")[0]! }]);
    expect(plain.matrix({ port: 80, protocol: "TCP", by: "pod" }).tiers).toBeUndefined();
  });
});

/**
 * The graph's flows count senders by class under the stack (tierFlowJudge,
 * workloadFlows' per-class memo and ingress-row prefilter); on random stacks
 * with Services they must say what walking every pair exactly
 * (explainStackPair) says: the endpoint flow's verdict, reason, client and
 * tier, and each workload flow's verdict and the dropped count.
 */
describe("flows under the tiers agree with the exact walk of every pair on random stacks", () => {
  const SERVICES = `
---
apiVersion: v1
kind: Service
metadata: {name: sa, namespace: ns0}
spec:
  selector: {app: a}
  ports: [{name: web, port: 80, targetPort: http}, {name: dns, port: 53, protocol: UDP, targetPort: 53}]
---
apiVersion: v1
kind: Service
metadata: {name: sb, namespace: ns1}
spec:
  selector: {app: b}
  ports: [{port: 8080, targetPort: 8080}]
---
apiVersion: v1
kind: Service
metadata: {name: sc, namespace: ns2}
spec:
  selector: {app: c}
  ports: [{port: 75}]
`;
  // The exact oracle: every sender toward the endpoint, as tierFlow walked them before it counted by class.
  function exactEndpoint(stack: PolicyStack, senders: Pod[], dst: Pod, port: number, protocol: Protocol) {
    let allowed = 0;
    let refused: [Pod, LayerStep | undefined] | undefined;
    let admitted: [Pod, LayerStep | undefined] | undefined;
    const from = senders.filter((p) => p !== dst && p.ips.length > 0);
    for (const src of from) {
      const d = explainStackPair(stack, src, dst, port, protocol);
      if (!d.allowed) refused ??= [src, (d.egress.allowed ? d.ingress : d.egress).decidedBy];
      else {
        allowed++;
        admitted ??= [src, d.ingress.decidedBy ?? d.egress.decidedBy];
      }
    }
    const n = from.length;
    const verdict = n === 0 || allowed === n ? "allow" : allowed === 0 ? "drop" : "partial";
    const base = refused ?? admitted;
    return { verdict, allowed, n, client: base?.[0].key, step: base?.[1] };
  }

  it("endpoint and workload flows", () => {
    const judged = { endpoints: 0, workload: 0 };
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), (seed) => {
        const text = randomStackCluster(seed) + SERVICES;
        if (!text.includes("NetworkPolicy\nmetadata: {name: cnp") && !text.includes("AdminNetworkPolicy"))
          return;
        const model = loadModel([{ name: "random.yaml", text }]);
        const stack = buildStack(model, buildPolicyIndex(model));
        const wrong: string[] = [];
        const senders = model.pods.filter((p) => p.nodeName && p.ips.length > 0);
        const traced = analyzeText(text, "random.yaml");
        const wide = analyzeText(text, "random.yaml", { flowBudget: 0 });
        let endpoints = 0;
        for (const f of traced.flows) {
          if (f.kind !== "endpoint" || f.dropCause === "traffic-policy") continue;
          const dst = model.podsByKey.get(f.to.slice("pod:".length) as never)!;
          const svc = model.services.find((s) => `service:${s.key}` === f.from[0])!;
          const sp = svc.ports.find((p) => p.port === f.port && p.protocol === f.protocol)!;
          const ep = portEndpoints(model, svc.key, sp.port, sp.protocol).find((e) => e.pod === dst.key)!;
          const x = exactEndpoint(stack, senders, dst, ep.port, f.protocol);
          endpoints++;
          const got = { verdict: f.verdict, client: f.client?.slice("pod:".length), tier: f.tier };
          const want = {
            verdict: x.verdict,
            client: x.client,
            tier:
              x.step?.layer === "AdminNetworkPolicy"
                ? "Admin"
                : x.step?.layer === "BaselineAdminNetworkPolicy"
                  ? "Baseline"
                  : undefined,
          };
          if (JSON.stringify(got) !== JSON.stringify(want))
            wrong.push(`${f.id}: ${JSON.stringify(got)} vs exact ${JSON.stringify(want)}`);
          if (x.step && !f.reason.includes(x.step.reason))
            wrong.push(`${f.id}: reason ${f.reason} lacks ${x.step.reason}`);
          if (x.allowed > 0 && x.allowed < x.n && !f.reason.includes(admittedSenders(x.allowed)))
            wrong.push(`${f.id}: reason ${f.reason}, exact ${x.allowed} of ${x.n}`);
        }
        // Workload flows: each source group (a workload's pods of one class) by its first pod toward every
        // ready endpoint, exactly: the listed flows with their verdicts, and the count of dropped pairs.
        const index = buildPolicyIndex(model);
        const groups = new Map<string, Pod>();
        for (const p of senders) {
          const k = `${workloadId(p.workload)}#${index.classOf[p.index]}`;
          if (!groups.has(k)) groups.set(k, p);
        }
        const want = new Map<string, string>();
        let dropped = 0;
        for (const svc of model.services)
          for (const sp of svc.ports) {
            const eps = readyEndpoints(model, svc.key, sp.port, sp.protocol);
            if (eps.length === 0) continue;
            for (const src of groups.values()) {
              const walks = eps.map(([pod, port]) => explainStackPair(stack, src, pod, port, sp.protocol));
              const ok = walks.filter((d) => d.allowed).length;
              // The step the flow names: the first refusing endpoint's refusing direction, else the first admitting one's.
              const refused = walks.find((d) => !d.allowed);
              const step = refused
                ? (refused.egress.allowed ? refused.ingress : refused.egress).decidedBy
                : (walks[0]!.ingress.decidedBy ?? walks[0]!.egress.decidedBy);
              const tier = tierOf(step);
              if (ok === 0) dropped++;
              else
                want.set(
                  `workload|pod:${src.key}|service:${svc.key}|${sp.port}/${sp.protocol}`,
                  `${ok === eps.length ? "allow" : "partial"}${tier ? ` ${tier}: ${step!.reason}` : ""}`,
                );
            }
          }
        const got = new Map(
          (wide.reach?.flows ?? []).map((f) => [
            f.id,
            `${f.verdict}${f.tier ? ` ${f.tier}: ${/(?:Admin|Baseline): (.*?)(?: \(every ready endpoint, \d+\))?$/.exec(f.reason)?.[1]}` : ""}`,
          ]),
        );
        for (const [id, v] of want)
          if (got.get(id) !== v) wrong.push(`${id}: ${got.get(id) ?? "not listed"} vs exact ${v}`);
        for (const id of got.keys()) if (!want.has(id)) wrong.push(`${id}: listed, exact drop`);
        if (wide.reach && wide.reach.dropped !== dropped)
          wrong.push(`dropped ${wide.reach.dropped} vs exact ${dropped}`);
        expect(wrong, `seed ${seed}\n${text}`).toEqual([]);
        judged.endpoints += endpoints;
        judged.workload += wide.reach?.flows.length ?? 0;
      }),
      { seed: 20261202, numRuns: 60 },
    );
    // The runs compared something: endpoint flows and workload flows under tier policies.
    expect(judged.endpoints).toBeGreaterThan(100);
    expect(judged.workload).toBeGreaterThan(100);
  }, 120_000);
});

describe("endpoint edges under the tiers reuse the previous text's stack matrices only when their inputs are unchanged", () => {
  const base = scenarioById("27-hold-an-admin-deny-over-every-namespace")!.manifests;
  const keyOf = (text: string) => {
    const model = loadModel([{ name: "manifests.yaml", text }]);
    return tierInputsKey(model, buildPolicyIndex(model));
  };
  const endpointFlowsOf = (text: string, keep?: KeptAnswer) =>
    openAnalysis([{ name: "manifests.yaml", text }], keep ? { keep } : {}).analysis.flows.filter(
      (f) => f.kind === "endpoint",
    );
  // Each edit: the text change, and whether the stack's class matrices read anything it changes.
  it.each([
    [
      "a comment line (every position below it moves)",
      "# The platform team's guard",
      "#\n# The platform team's guard",
      false,
    ],
    ["the tier rule's action", "      action: Deny", "      action: Accept", true],
    ["the tier rule's peer", "              env: sandbox\n", "              env: staging\n", true],
    ["the tier's priority", "  priority: 10\n", "  priority: 11\n", true],
    ["a namespace label", "    env: sandbox\n", "    env: staging\n", true],
  ] as const)("%s", (_, from, to, changesInputs) => {
    expect(base).toContain(from);
    const edited = base.replace(from, to);
    expect(keyOf(edited) !== keyOf(base)).toBe(changesInputs);
    // Fresh: no matrices kept. Warm: those of the unedited text, taken whole when the key is equal, else row by row.
    const fresh = endpointFlowsOf(edited);
    const keep = new KeptAnswer();
    endpointFlowsOf(base, keep);
    expect(endpointFlowsOf(edited, keep)).toEqual(fresh);
  });
  it("an edit that changes the tier's verdict changes the endpoint edge (the test can tell stale matrices)", () => {
    const keep = new KeptAnswer();
    const before = endpointFlowsOf(base, keep);
    const after = endpointFlowsOf(base.replace("      action: Deny", "      action: Accept"), keep);
    expect(after.map((f) => f.verdict)).not.toEqual(before.map((f) => f.verdict));
  });
});

describe("an endpoint edge's reason under the tiers names its own pod", () => {
  // Two replicas of one class, refused by NetworkPolicy (whose reason names the pod it isolates) while a
  // tier policy is in the input: each edge's reason is its own pod's, not the first replica's.
  const text = `apiVersion: v1
kind: Pod
metadata: {name: early, namespace: dev, labels: {app: tool}}
spec: {nodeName: n1, containers: [{name: c}]}
---
${TEXT}---
apiVersion: v1
kind: Pod
metadata: {name: api-2, namespace: shop, labels: {app: api}}
spec: {nodeName: n1, containers: [{name: c, ports: [{containerPort: 80}]}]}
---
apiVersion: v1
kind: Service
metadata: {name: api, namespace: shop}
spec: {selector: {app: api}, ports: [{port: 80}]}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: api-from-web, namespace: shop}
spec: {podSelector: {matchLabels: {app: api}}, ingress: [{from: [{podSelector: {matchLabels: {app: web}}}]}]}
`
    .replace(
      "spec: {podSelector: {}, ingress: [{}]}",
      "spec: {podSelector: {matchLabels: {app: web}}, ingress: [{}]}",
    )
    .replace(
      "subject: {namespaces: {matchLabels: {team: shop}}}",
      "subject: {namespaces: {matchLabels: {team: none}}}",
    );
  it("each replica's edge names that replica", () => {
    const flows = analyzeText(text).flows.filter((f) => f.kind === "endpoint");
    expect(flows.map((f) => f.to).sort()).toEqual(["pod:shop/api", "pod:shop/api-2"]);
    for (const f of flows) {
      expect(f.verdict).toBe("partial");
      expect(f.tier).toBeUndefined();
      expect(f.reason).toContain(
        `dev/early: NetworkPolicy: ${f.to.slice("pod:".length)} is isolated for ingress by shop/api-from-web`,
      );
    }
  });
});

// A NetworkPolicy edit under the tiers leaves every class it does not select with the rows it had: the next
// analysis takes those rows (NetworkPolicy's and the stack's) as the very objects and computes the others.
describe("a NetworkPolicy edit under the tiers computes only the rows of the classes it selects", () => {
  const members = (s: ClassSet | null) => {
    if (s === null) return "every class";
    const out: number[] = [];
    s.forEach((i) => out.push(i));
    return out;
  };
  // The scenario, with a third pod in payments (the tiers' subject, no NetworkPolicy's) and web isolated both ways.
  const base = [
    scenarioById("28-pass-to-the-namespace-with-a-baseline-behind")!.manifests,
    "apiVersion: v1\nkind: Pod\nmetadata: {name: ledger, namespace: payments, labels: {app: ledger}}\nspec: {containers: [{name: c, image: x, ports: [{containerPort: 8080}]}]}\n",
    "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: web-both-ways, namespace: web}\nspec:\n  podSelector: {}\n  policyTypes: [Ingress, Egress]\n  ingress: [{from: [{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: billing}}}]}]\n  egress: [{to: [{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: payments}}}]}]\n",
  ].join("---\n");
  // The policy that admitted billing to api now selects vault instead.
  const from = "  podSelector:\n    matchLabels:\n      app: api\n  policyTypes:";
  const edited = base.replace(from, from.replace("app: api", "app: vault"));

  it("keeps the other classes' rows as the very objects, every row equal to a fresh stack's", () => {
    expect(edited).not.toBe(base);
    const keep = new KeptAnswer();
    openAnalysis([{ name: "manifests.yaml", text: base }], { keep });
    const before = keep.stack!;
    openAnalysis([{ name: "manifests.yaml", text: edited }], { keep });
    const after = keep.stack!;
    expect(after.matrices).not.toBe(before.matrices);
    const model = loadModel([{ name: "manifests.yaml", text: edited }]);
    const index = buildPolicyIndex(model);
    const fresh = buildStack(model, index);
    const name = (c: number) => index.classes[c]!.repr.name;
    let compared = 0;
    let sets = 0;
    for (const [k, m] of after.matrices) {
      const old = before.matrices.get(k)!;
      expect(old, k).toBeDefined();
      const f = stackMatrix(fresh, m.port, m.protocol);
      for (const [rows, oldRows, freshRows, npRows, oldNp, dir] of [
        [
          m.ingressFrom,
          old.ingressFrom,
          f.ingressFrom,
          m.netpol.ingressFrom,
          old.netpol.ingressFrom,
          "ingress",
        ],
        [m.egressTo, old.egressTo, f.egressTo, m.netpol.egressTo, old.netpol.egressTo, "egress"],
      ] as const)
        for (let c = 0; c < index.classes.length; c++) {
          const at = `${k} ${dir} of ${name(c)}`;
          expect(members(rows[c]!), at).toEqual(members(freshRows[c]!));
          // api and vault are the classes the edit selects or lets go, for ingress; every other row is kept.
          if (dir === "ingress" && (name(c) === "api" || name(c) === "vault")) {
            expect(rows[c], at).not.toBe(oldRows[c]);
            continue;
          }
          expect(rows[c], at).toBe(oldRows[c]);
          expect(npRows[c], at).toBe(oldNp[c]);
          compared++;
          if (rows[c] !== null) sets++;
        }
    }
    expect(compared).toBeGreaterThan(4);
    // Rows that are sets, not "every class": a row computed again would be another object.
    expect(sets).toBeGreaterThanOrEqual(3);
  });
});
