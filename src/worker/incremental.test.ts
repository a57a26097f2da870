/**
 * The incremental pipeline gives the answer a from-scratch analysis gives.
 * Random edit sequences over the scenario catalogue (fast-check, fixed seed):
 * after each edit, the worker's way (docs re-parsed only where they changed,
 * through one YamlPartCache; unchanged flows kept as the previous analysis's
 * objects, through one KeptAnswer; the analysis sent as a delta against the one
 * the page holds) must equal openAnalysis of the whole text with nothing
 * cached, validation included, and the delta must keep unchanged items as
 * the page's own objects.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SCENARIOS } from "../../scenarios/index.ts";
import { KeptAnswer, openAnalysis, type Analysis } from "../engine/analysis/index.ts";
import { parseManifests } from "../engine/parse/manifests.ts";
import { YamlPartCache } from "../engine/parse/yaml.ts";
import { applyDelta, diffValue, same, valueOf, messageFor } from "./delta.ts";
import { drawsAlike } from "../graph/build.ts";
// @ts-expect-error the bench generator is plain JavaScript
import { generate, TIERS } from "../../bench/generate.mjs";

const SEED = 4;

/**
 * One edit of the kinds a user makes: a label, a port, a replica count, a new policy (NetworkPolicy, a
 * cluster tier's, a CNI's), a route's backend or path, a deleted doc, a stray keystroke.
 */
type Edit =
  | { kind: "label"; at: number; value: string }
  | { kind: "port"; at: number; value: number }
  | { kind: "replicas"; at: number; value: number }
  | { kind: "policy"; ns: string; open: boolean }
  | { kind: "tier"; api: TierKind; priority: number; action: "Allow" | "Deny" | "Pass"; from: string }
  | { kind: "cni"; api: CniKind; ns: string; app: string; from: string; deny: boolean }
  | { kind: "route"; field: "port" | "weight" | "path"; at: number; value: string }
  | { kind: "delete-doc"; at: number }
  | { kind: "type"; at: number; text: string }
  | { kind: "erase"; at: number; length: number }
  | { kind: "move-doc"; from: number; to: number };

type TierKind = "AdminNetworkPolicy" | "BaselineAdminNetworkPolicy" | "ClusterNetworkPolicy";
type CniKind = "CiliumNetworkPolicy" | "NetworkPolicy" | "GlobalNetworkPolicy";

const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ kind: fc.constant("label"), at: fc.nat(), value: fc.constantFrom("web", "api", "db", "x1") }),
  fc.record({ kind: fc.constant("port"), at: fc.nat(), value: fc.constantFrom(80, 443, 8080, 70000) }),
  fc.record({ kind: fc.constant("replicas"), at: fc.nat(), value: fc.constantFrom(0, 1, 3, 5) }),
  fc.record({
    kind: fc.constant("policy"),
    ns: fc.constantFrom("default", "shop", "prod"),
    open: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant("tier"),
    api: fc.constantFrom<TierKind>(
      "AdminNetworkPolicy",
      "BaselineAdminNetworkPolicy",
      "ClusterNetworkPolicy",
    ),
    priority: fc.constantFrom(1, 10, 20, 50, 500),
    action: fc.constantFrom("Allow", "Deny", "Pass"),
    from: fc.constantFrom("shop", "web", "sandbox", "tools", "default"),
  }),
  fc.record({
    kind: fc.constant("cni"),
    api: fc.constantFrom<CniKind>("CiliumNetworkPolicy", "NetworkPolicy", "GlobalNetworkPolicy"),
    ns: fc.constantFrom("default", "shop", "web"),
    app: fc.constantFrom("api", "web", "db", "frontend"),
    from: fc.constantFrom("frontend", "web", "api"),
    deny: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant("route"),
    field: fc.constant("port"),
    at: fc.nat(),
    value: fc.constantFrom("80", "8080", "9090"),
  }),
  fc.record({
    kind: fc.constant("route"),
    field: fc.constant("weight"),
    at: fc.nat(),
    value: fc.constantFrom("0", "1", "50", "100"),
  }),
  fc.record({
    kind: fc.constant("route"),
    field: fc.constant("path"),
    at: fc.nat(),
    value: fc.constantFrom("/", "/api", "/status", "/v2"),
  }),
  fc.record({ kind: fc.constant("delete-doc"), at: fc.nat() }),
  fc.record({
    kind: fc.constant("type"),
    at: fc.nat(),
    text: fc.constantFrom("a", "\n", " ", ":", "---\n", "- "),
  }),
  fc.record({ kind: fc.constant("erase"), at: fc.nat(), length: fc.integer({ min: 1, max: 12 }) }),
  fc.record({ kind: fc.constant("move-doc"), from: fc.nat(), to: fc.nat() }),
);

const docsOf = (text: string) => text.split(/^(?=---$)/m);

const append = (text: string, doc: string) => `${text.replace(/\n*$/, "\n")}---\n${doc}`;

/** Replaces the value after a field's group 1, at one of its matches in the docs of the given kinds. */
function setInDocs(text: string, kinds: RegExp, field: RegExp, at: number, value: string): string {
  const spans: [number, number][] = [];
  let offset = 0;
  for (const d of docsOf(text)) {
    if (kinds.test(d))
      for (const m of d.matchAll(field))
        spans.push([offset + m.index + m[1]!.length, offset + m.index + m[0].length]);
    offset += d.length;
  }
  if (!spans.length) return text;
  const [start, end] = spans[at % spans.length]!;
  return text.slice(0, start) + value + text.slice(end);
}

const ROUTE_FIELDS = {
  // HTTPRoute backendRefs[].port; Ingress backend.service.port.number.
  port: /(^\s+(?:- )?port: |\bnumber: )\d+/gm,
  weight: /(^\s+(?:- )?weight: )\d+/gm,
  // HTTPRoute matches[].path.value; Ingress paths[].path.
  path: /(\bvalue: |^\s+(?:- )?path: )\/[^\s,}]*/gm,
};

/** Shapes as in network-policy-api: AdminNetworkPolicy and BaselineAdminNetworkPolicy v1alpha1, ClusterNetworkPolicy v1alpha2. */
function tierPolicy(e: Extract<Edit, { kind: "tier" }>): string {
  const baseline = e.api === "BaselineAdminNetworkPolicy";
  const action =
    baseline && e.action === "Pass"
      ? "Deny"
      : e.api === "ClusterNetworkPolicy" && e.action === "Allow"
        ? "Accept"
        : e.action;
  const head =
    e.api === "ClusterNetworkPolicy"
      ? `apiVersion: policy.networking.k8s.io/v1alpha2\nkind: ClusterNetworkPolicy\nmetadata:\n  name: edit-${e.priority}\nspec:\n  tier: Admin\n  priority: ${e.priority}\n`
      : baseline
        ? `apiVersion: policy.networking.k8s.io/v1alpha1\nkind: BaselineAdminNetworkPolicy\nmetadata:\n  name: default\nspec:\n`
        : `apiVersion: policy.networking.k8s.io/v1alpha1\nkind: AdminNetworkPolicy\nmetadata:\n  name: edit-${e.priority}\nspec:\n  priority: ${e.priority}\n`;
  return `${head}  subject:\n    namespaces: {}\n  ingress:\n    - name: edit\n      action: ${action}\n      from:\n        - namespaces:\n            matchLabels:\n              kubernetes.io/metadata.name: ${e.from}\n`;
}

/** Shapes as in Cilium's cilium.io/v2 policy language and Calico's projectcalico.org/v3 API. */
function cniPolicy(e: Extract<Edit, { kind: "cni" }>): string {
  switch (e.api) {
    case "CiliumNetworkPolicy":
      return `apiVersion: cilium.io/v2\nkind: CiliumNetworkPolicy\nmetadata:\n  name: edit-cilium\n  namespace: ${e.ns}\nspec:\n  endpointSelector:\n    matchLabels:\n      app: ${e.app}\n  ${e.deny ? "ingressDeny" : "ingress"}:\n    - fromEndpoints:\n        - matchLabels:\n            app: ${e.from}\n      toPorts:\n        - ports:\n            - port: "8080"\n              protocol: TCP\n`;
    case "NetworkPolicy":
      return `apiVersion: projectcalico.org/v3\nkind: NetworkPolicy\nmetadata:\n  name: edit-calico\n  namespace: ${e.ns}\nspec:\n  order: 100\n  selector: app == '${e.app}'\n  types:\n    - Ingress\n  ingress:\n    - action: ${e.deny ? "Deny" : "Allow"}\n      source:\n        selector: app == '${e.from}'\n`;
    case "GlobalNetworkPolicy":
      return `apiVersion: projectcalico.org/v3\nkind: GlobalNetworkPolicy\nmetadata:\n  name: edit-global\nspec:\n  order: 10\n  selector: app == '${e.app}'\n  types:\n    - Ingress\n  ingress:\n    - action: ${e.deny ? "Deny" : "Allow"}\n      source:\n        namespaceSelector: kubernetes.io/metadata.name == '${e.ns}'\n`;
  }
}

function apply(text: string, e: Edit): string {
  switch (e.kind) {
    case "label": {
      const m = [...text.matchAll(/^(\s+(?:app|team|tier|role)): .*$/gm)];
      if (!m.length) return text;
      const x = m[e.at % m.length]!;
      return text.slice(0, x.index) + `${x[1]}: ${e.value}` + text.slice(x.index + x[0].length);
    }
    case "port": {
      const m = [...text.matchAll(/^(\s+-?\s*(?:port|containerPort|targetPort)): \d+$/gm)];
      if (!m.length) return text;
      const x = m[e.at % m.length]!;
      return text.slice(0, x.index) + `${x[1]}: ${e.value}` + text.slice(x.index + x[0].length);
    }
    case "replicas":
      return setInDocs(
        text,
        /^kind: (?:Deployment|StatefulSet|ReplicaSet)$/m,
        /(^ {2}replicas: )\d+$/gm,
        e.at,
        String(e.value),
      );
    case "policy":
      return append(
        text,
        `apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata:\n  name: edit-${e.open ? "open" : "deny"}\n  namespace: ${e.ns}\nspec:\n  podSelector: {}\n  ingress:\n  - ${e.open ? "{}" : "ports: [{port: 8080}]"}\n`,
      );
    case "tier":
      return append(text, tierPolicy(e));
    case "cni":
      return append(text, cniPolicy(e));
    case "route":
      return setInDocs(text, /^kind: (?:HTTPRoute|Ingress)$/m, ROUTE_FIELDS[e.field], e.at, e.value);
    case "delete-doc": {
      const d = docsOf(text);
      if (d.length < 2) return text;
      d.splice(e.at % d.length, 1);
      return d.join("");
    }
    case "type": {
      const at = e.at % (text.length + 1);
      return text.slice(0, at) + e.text + text.slice(at);
    }
    case "erase": {
      const at = e.at % (text.length + 1);
      return text.slice(0, at) + text.slice(at + e.length);
    }
    case "move-doc": {
      const d = docsOf(text);
      if (d.length < 2) return text;
      const [x] = d.splice(e.from % d.length, 1);
      d.splice(e.to % (d.length + 1), 0, x!.endsWith("\n") ? x! : `${x!}\n`);
      return d.join("");
    }
  }
}

/** The scenarios with an HTTPRoute or an Ingress, drawn more often: route edits change nothing elsewhere. */
const ROUTED = SCENARIOS.flatMap((s, i) => (/^kind: (?:HTTPRoute|Ingress)$/m.test(s.manifests) ? [i] : []));

const withoutMillis = (a: Analysis) => ({ ...a, stats: { ...a.stats, millis: 0 } });

/** The scenarios with a cluster tier's policy (an AdminNetworkPolicy, a baseline or a ClusterNetworkPolicy). */
const TIERED = SCENARIOS.flatMap((s, i) =>
  /^kind: (?:AdminNetworkPolicy|BaselineAdminNetworkPolicy|ClusterNetworkPolicy)$/m.test(s.manifests)
    ? [i]
    : [],
);

describe("incremental analysis equals a from-scratch analysis", () => {
  it("after random edit sequences over the scenario catalogue", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          { arbitrary: fc.integer({ min: 0, max: SCENARIOS.length - 1 }), weight: 3 },
          { arbitrary: fc.constantFrom(...ROUTED), weight: 1 },
        ),
        fc.array(edit, { minLength: 1, maxLength: 8 }),
        (which, edits) => {
          const scenario = SCENARIOS[which]!;
          const file = scenario.file;
          const parseCache = new YamlPartCache();
          const keep = new KeptAnswer();
          let text = scenario.manifests;
          let held: { generation: number; value: Analysis } | undefined;
          let sent: { generation: number; value: Analysis } | undefined;
          for (let g = 0; g <= edits.length; g++) {
            if (g > 0) text = apply(text, edits[g - 1]!);
            const incremental = openAnalysis([{ name: file, text }], { parseCache, keep });
            const scratch = openAnalysis([{ name: file, text }]);
            expect(withoutMillis(incremental.analysis)).toEqual(withoutMillis(scratch.analysis));
            expect(incremental.validate()).toEqual(scratch.validate());
            // The page's side: the message is a delta against what it holds, and rebuilds the worker's analysis.
            const message = messageFor(incremental.analysis, sent);
            const value = valueOf(message, held);
            expect(value).toEqual(incremental.analysis);
            if (held)
              for (const p of value.pods) {
                const before = held.value.pods.find((q) => q.id === p.id);
                if (before && same(before, p)) expect(p).toBe(before);
              }
            held = sent = { generation: g, value };
            sent = { generation: g, value: incremental.analysis };
          }
        },
      ),
      { seed: SEED, numRuns: 300 },
    );
  });

  // Every pod-to-Service pair as a workload flow (flowBudget 0): under the cluster tiers a flow names the tier
  // rule that decided, from the walks kept across analyses (engine analysis/walks.ts). Lines added at a doc's
  // start move every doc below (a tier policy's step must move with it); the other edits change what it reads.
  const shift: fc.Arbitrary<Edit> = fc.record({
    kind: fc.constant("type"),
    at: fc.nat(),
    text: fc.constantFrom("\n", "# a note\n"),
  });
  // The catalogue's tier scenarios admit few flows: a generated cluster (bench/generate.mjs) under the
  // platform's cluster policies admits 142, 34 of them decided by a tier.
  const tiered = [
    ...TIERED.map((i) => ({ file: SCENARIOS[i]!.file, text: SCENARIOS[i]!.manifests })),
    {
      file: "generated.yaml",
      text: generate({ ...TIERS.S, teams: 2, nsPerTeam: 1, appsPerNs: 6, nodes: 3, clusterPolicies: true })
        .text,
    },
  ];
  // A tier policy that admits or refuses what the generated cluster's namespaces send.
  const tierOverGenerated: fc.Arbitrary<Edit> = fc.record({
    kind: fc.constant("tier"),
    api: fc.constantFrom<TierKind>(
      "AdminNetworkPolicy",
      "ClusterNetworkPolicy",
      "BaselineAdminNetworkPolicy",
    ),
    priority: fc.constantFrom(0, 1, 5),
    action: fc.constantFrom("Allow", "Deny", "Pass"),
    from: fc.constantFrom("payments", "checkout", "monitoring", "ingress-nginx"),
  });
  it("of every workload flow, under the tiers, after random edit sequences", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          { arbitrary: fc.constant(tiered.length - 1), weight: 3 },
          { arbitrary: fc.integer({ min: 0, max: tiered.length - 1 }), weight: 1 },
        ),
        fc.array(
          fc.oneof(
            { arbitrary: edit, weight: 3 },
            { arbitrary: shift, weight: 2 },
            { arbitrary: tierOverGenerated, weight: 1 },
          ),
          {
            minLength: 1,
            maxLength: 5,
          },
        ),
        (which, edits) => {
          const { file, text: start } = tiered[which]!;
          const options = { flowBudget: 0 };
          const parseCache = new YamlPartCache();
          const keep = new KeptAnswer();
          let text = start;
          for (let g = 0; g <= edits.length; g++) {
            if (g > 0) {
              const e = edits[g - 1]!;
              // A shift lands at the start of a doc, so it adds lines and changes no value.
              text =
                e.kind === "type" && e.text.endsWith("\n") && e.text !== "\n"
                  ? docsOf(text)
                      .map((d, i, all) => (i === e.at % all.length ? `${e.text}${d}` : d))
                      .join("")
                  : apply(text, e);
            }
            const incremental = openAnalysis([{ name: file, text }], { ...options, parseCache, keep });
            const scratch = openAnalysis([{ name: file, text }], options);
            expect(withoutMillis(incremental.analysis)).toEqual(withoutMillis(scratch.analysis));
          }
        },
      ),
      { seed: SEED, numRuns: 60 },
    );
  });

  const scenario = (id: string) => SCENARIOS.find((s) => s.id === id)!.manifests;
  const objectsOfKind = (text: string, kind: string) => {
    const p = parseManifests([{ name: "f.yaml", text }]);
    return [...p.objects, ...p.ignored].filter((o) => o.kind === kind).map((o) => JSON.stringify(o.raw));
  };
  it.each<[string, Edit, string]>([
    ["25-split-a-canary-through-a-gateway", { kind: "replicas", at: 2, value: 0 }, "Deployment"],
    [
      "27-hold-an-admin-deny-over-every-namespace",
      { kind: "tier", api: "AdminNetworkPolicy", priority: 1, action: "Allow", from: "sandbox" },
      "AdminNetworkPolicy",
    ],
    [
      "27-hold-an-admin-deny-over-every-namespace",
      { kind: "tier", api: "ClusterNetworkPolicy", priority: 1, action: "Allow", from: "sandbox" },
      "ClusterNetworkPolicy",
    ],
    [
      "28-pass-to-the-namespace-with-a-baseline-behind",
      { kind: "tier", api: "BaselineAdminNetworkPolicy", priority: 1, action: "Deny", from: "shop" },
      "BaselineAdminNetworkPolicy",
    ],
    [
      "17-refuse-a-path-with-a-cilium-l7-rule",
      { kind: "cni", api: "CiliumNetworkPolicy", ns: "shop", app: "api", from: "frontend", deny: true },
      "CiliumNetworkPolicy",
    ],
    [
      "18-order-calico-tiers-with-pass",
      { kind: "cni", api: "NetworkPolicy", ns: "shop", app: "db", from: "api", deny: true },
      "NetworkPolicy",
    ],
    [
      "18-order-calico-tiers-with-pass",
      { kind: "cni", api: "GlobalNetworkPolicy", ns: "shop", app: "api", from: "web", deny: true },
      "GlobalNetworkPolicy",
    ],
    [
      "25-split-a-canary-through-a-gateway",
      { kind: "route", field: "port", at: 0, value: "9090" },
      "HTTPRoute",
    ],
    [
      "25-split-a-canary-through-a-gateway",
      { kind: "route", field: "weight", at: 1, value: "0" },
      "HTTPRoute",
    ],
    ["29-find-which-httproute-rule-wins", { kind: "route", field: "path", at: 1, value: "/v2" }, "HTTPRoute"],
    ["26-find-why-an-ingress-answers-404", { kind: "route", field: "port", at: 0, value: "9090" }, "Ingress"],
    ["26-find-why-an-ingress-answers-404", { kind: "route", field: "path", at: 0, value: "/v2" }, "Ingress"],
  ])("in scenario %s, the edit %j changes one %s and the flows", (id, e, kind) => {
    const text = scenario(id);
    const edited = apply(text, e);
    const before = objectsOfKind(text, kind);
    expect(objectsOfKind(edited, kind).filter((o) => !before.includes(o))).toHaveLength(1);
    expect(openAnalysis([{ name: "f.yaml", text: edited }]).analysis.flows).not.toEqual(
      openAnalysis([{ name: "f.yaml", text }]).analysis.flows,
    );
  });

  it("a doc's syntax error reused from the parse cache is placed where a fresh parse places it", () => {
    const service = "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: api\n:  namespace: shop\n";
    const namespace = (name: string) => `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${name}\n`;
    const cache = new YamlPartCache();
    parseManifests([{ name: "f.yaml", text: namespace("a-long-namespace-name") + service }], { cache });
    const text = namespace("shop") + service;
    expect(parseManifests([{ name: "f.yaml", text }], { cache }).diagnostics).toEqual(
      parseManifests([{ name: "f.yaml", text }]).diagnostics,
    );
  });

  it("re-parses only the docs an edit changed", () => {
    const text = SCENARIOS[0]!.manifests;
    const cache = new YamlPartCache();
    parseManifests([{ name: "f.yaml", text }], { cache });
    const parts = cache.misses;
    expect(parts).toBeGreaterThan(3);
    // A new last doc: every earlier doc is reused.
    parseManifests([{ name: "f.yaml", text: apply(text, { kind: "policy", ns: "shop", open: true }) }], {
      cache,
    });
    expect([cache.hits, cache.misses - parts]).toEqual([parts, 1]);
  });
});

describe("delta", () => {
  it.each([
    ["an unchanged value", { a: [1, 2], b: { c: "x" } }, { a: [1, 2], b: { c: "x" } }],
    ["a changed scalar", { a: 1, b: 2 }, { a: 1, b: 3 }],
    ["a removed key", { a: 1, b: 2 }, { a: 1 }],
    ["an added key", { a: 1 }, { a: 1, b: [1] }],
    ["items reordered by id", { xs: [{ id: "a" }, { id: "b" }] }, { xs: [{ id: "b" }, { id: "a" }] }],
    ["an item changed", { xs: [{ id: "a", v: 1 }] }, { xs: [{ id: "a", v: 2 }, { id: "c" }] }],
    ["numbers as items stay numbers", { xs: [3, 1] }, { xs: [1, 7, 3] }],
    ["a value that changes type", { a: [1] }, { a: { 0: 1 } }],
    // Items are matched at their own index first, then by key (arrayDelta's sameKey and keyOf agree).
    [
      "duplicate ids",
      {
        xs: [
          { id: "a", v: 1 },
          { id: "a", v: 2 },
        ],
      },
      {
        xs: [
          { id: "a", v: 2 },
          { id: "a", v: 1 },
        ],
      },
    ],
    [
      "an id equal to another item's name",
      { xs: [{ name: "a" }, { id: "a" }] },
      { xs: [{ id: "a" }, { name: "a" }] },
    ],
    ["an item that gains an id", { xs: [{ name: "a", v: 1 }] }, { xs: [{ id: "b", name: "a", v: 1 }] }],
    ["items without a key keep their place", { xs: [{ v: 1 }, { id: "a" }] }, { xs: [{ v: 2 }, { v: 1 }] }],
  ])("%s round-trips", (_, base, next) => {
    expect(applyDelta(base, diffValue(base, next))).toEqual(next);
  });

  it("an unchanged value is one small mark, and an unchanged item is its index", () => {
    expect(diffValue({ a: [{ id: "x" }] }, { a: [{ id: "x" }] })).toEqual({ s: 1 });
    expect(diffValue({ a: [{ id: "x" }] }, { a: [{ id: "y" }, { id: "x" }] })).toEqual({
      o: { a: { a: [{ v: { id: "y" } }, 0] } },
    });
  });

  it("an item found by its key but changed is sent as its changed fields", () => {
    const pod = { id: "p", node: "n1", ips: ["10.0.0.1"], labels: { app: "a" } };
    const moved = { ...pod, node: "n2", ips: ["10.0.1.1"] };
    expect(diffValue({ pods: [pod] }, { pods: [moved] })).toEqual({
      o: { pods: { a: [{ p: 0, d: { o: { node: { v: "n2" }, ips: { a: [{ v: "10.0.1.1" }] } } } }] } },
    });
    // The patched item keeps the base's unchanged parts as the very objects it had.
    const applied = applyDelta({ pods: [pod] }, diffValue({ pods: [pod] }, { pods: [moved] })) as {
      pods: (typeof pod)[];
    };
    expect(applied.pods[0]).toEqual(moved);
    expect(applied.pods[0]!.labels).toBe(pod.labels);
  });

  it("refuses a delta against an analysis the page does not hold", () => {
    expect(() => valueOf({ base: 4, delta: { s: 1 } }, { generation: 3, value: {} })).toThrow(
      /does not hold/,
    );
  });
});

describe("an answer that turns no flow draws the same graph (graph/build.ts drawsAlike)", () => {
  const text = SCENARIOS[0]!.manifests;
  const held = { generation: 1, value: openAnalysis([{ name: "f.yaml", text }]).analysis };
  const next = (edited: string) =>
    valueOf(messageFor(openAnalysis([{ name: "f.yaml", text: edited }]).analysis, held), held);
  it("an image tag edit: new timing, the same drawn fields, so the graph is not remapped", () => {
    const edited = text.replace(/image: ([\w./-]+)(:[\w.-]+)?/, "image: $1:edited");
    expect(edited).not.toBe(text);
    const after = next(edited);
    expect(after).not.toBe(held.value);
    expect(drawsAlike(held.value, after)).toBe(true);
  });
  it("a label edit that turns flows is not alike", () => {
    const edited = text.replaceAll("app: frontend", "app: front-end");
    expect(drawsAlike(held.value, next(edited))).toBe(false);
  });
});
