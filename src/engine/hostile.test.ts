/**
 * Hostile input through every public entry point of the engine: parse,
 * model, reach (policy index, summary, matrices), trace, diff, what-if,
 * node rules (iptables, nftables, IPVS), connlist, validate, and the
 * playground's analysis. Each input of the hostile corpus
 * (validate/testdata/hostile) and of a structural fuzzer must come back as
 * values and diagnostics, never a throw, within a bound on work: the nodes
 * its parsed values expand to (aliases counted at every use) stay within
 * go-yaml's alias budget of the text, and every output serialises to a
 * bounded size. The time limit of each test only stops a hang; nothing here
 * asserts a duration.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  applyWhatIf,
  buildModel,
  buildPolicyIndex,
  buildProxyIndex,
  computeConnlist,
  diffTexts,
  nodeRules,
  parseManifests,
  traceRequest,
  validateModel,
} from "./index.ts";
import { classMatrix, podMatrix, reachSummary } from "./netpol/index.ts";
import { whatIfTargets } from "./whatif/index.ts";
import { type TraceDestination, type TraceSource } from "./trace/index.ts";
import { analyzeText } from "./analysis/index.ts";
import { parseYamlFile } from "./parse/yaml.ts";

const DIR = join(import.meta.dirname, "validate", "testdata", "hostile");

/** Nodes a value expands to, aliases counted at every use; stops counting past `limit`. */
function expandedSize(v: unknown, limit: number): number {
  let n = 0;
  const stack: unknown[] = [v];
  while (stack.length && n <= limit) {
    const x = stack.pop();
    n++;
    if (x === null || typeof x !== "object") continue;
    if (Array.isArray(x)) for (const y of x) stack.push(y);
    else {
      for (const k of Object.keys(x)) {
        stack.push((x as Record<string, unknown>)[k]);
        n++;
      }
    }
  }
  return n;
}

/** The work bound of one text: go-yaml's alias ratio lets a doc expand to about 100 times its written nodes. */
function workBound(text: string): number {
  return 100 * (text.length + 1000);
}

const OUTPUT_LIMIT = 50_000_000;

function size(v: unknown): number {
  return JSON.stringify(v)?.length ?? 0;
}

/** Runs `text` through every entry point; returns what was exercised, for the test's own check. */
function throughEverything(name: string, text: string): string[] {
  const done: string[] = [];
  const bound = workBound(text);
  const yaml = parseYamlFile(name, text);
  for (const d of yaml.documents)
    expect(expandedSize(d.value, bound), `doc ${d.index} expands within the bound`).toBeLessThanOrEqual(
      bound,
    );
  const parsed = parseManifests([{ name, text }]);
  for (const d of parsed.diagnostics) {
    expect(d.file.startsWith(name)).toBe(true);
    expect(typeof d.message).toBe("string");
  }
  done.push("parse");
  const model = buildModel(parsed);
  expect(size(model.diagnostics)).toBeLessThan(OUTPUT_LIMIT);
  done.push("model");

  const index = buildPolicyIndex(model);
  const summary = reachSummary(index, classMatrix(index, 80, "TCP"));
  expect(size(summary)).toBeLessThan(OUTPUT_LIMIT);
  if (model.pods.length <= 300) podMatrix(index, classMatrix(index, 53, "UDP"));
  done.push("reach");

  const proxy = buildProxyIndex(model);
  const sources: TraceSource[] = [];
  const pod = model.pods.find((p) => p.ips.length > 0);
  if (pod) sources.push({ kind: "pod", pod: pod.key });
  const node = model.nodes[0];
  if (node)
    sources.push({ kind: "node", node: node.name }, { kind: "external", ip: "203.0.113.7", node: node.name });
  const dests: TraceDestination[] = [];
  for (const s of model.services.slice(0, 6))
    for (const p of s.ports.slice(0, 3)) dests.push({ kind: "service", service: s.key, port: p.port });
  if (pod) dests.push({ kind: "pod", pod: pod.key, port: 80 }, { kind: "ip", ip: "10.0.0.1", port: 443 });
  for (const from of sources)
    for (const to of dests) expect(size(traceRequest(model, proxy, from, to))).toBeLessThan(OUTPUT_LIMIT);
  done.push("trace");

  if (node)
    for (const mode of ["iptables", "nftables", "ipvs"] as const)
      expect(size(nodeRules(model, proxy, node.name, mode))).toBeLessThan(OUTPUT_LIMIT);
  done.push("rules");

  expect(size(computeConnlist(model))).toBeLessThan(OUTPUT_LIMIT);
  done.push("connlist");

  expect(size(validateModel(model))).toBeLessThan(OUTPUT_LIMIT);
  done.push("validate");

  expect(size(diffTexts(text, text, name))).toBeLessThan(OUTPUT_LIMIT);
  diffTexts("", text, name);
  done.push("diff");

  const targets = whatIfTargets(text);
  const ops = [
    ...targets.workloads.slice(0, 2).map((w) => ({ kind: "scale" as const, workload: w.id, replicas: 0 })),
    ...targets.nodes.slice(0, 1).map((n) => ({ kind: "cordon" as const, node: n.id })),
    ...targets.pods.slice(0, 1).map((p) => ({ kind: "notReady" as const, pod: p.id })),
    ...targets.policies.slice(0, 1).map((p) => ({ kind: "policyOff" as const, policy: p.id })),
    ...targets.services.slice(0, 1).map((s) => ({
      kind: "trafficPolicy" as const,
      service: s.id,
      field: "externalTrafficPolicy" as const,
      value: "Local" as const,
    })),
  ];
  for (const op of ops) expect(size(applyWhatIf(text, op))).toBeLessThan(OUTPUT_LIMIT);
  done.push("what-if");

  expect(size(analyzeText(text, name))).toBeLessThan(OUTPUT_LIMIT);
  done.push("analysis");
  return done;
}

const ALL = [
  "parse",
  "model",
  "reach",
  "trace",
  "rules",
  "connlist",
  "validate",
  "diff",
  "what-if",
  "analysis",
];

describe("hostile corpus through every entry point", () => {
  for (const file of readdirSync(DIR).sort()) {
    it(
      file,
      () => {
        expect(throughEverything(file, readFileSync(join(DIR, file), "utf8"))).toEqual(ALL);
      },
      120_000,
    );
  }
});

describe("defects of issue 16, each through every entry point", () => {
  const cases: Record<string, string> = {
    // 1: 987 aliases nesting 330 x 330 x 330 peers: refused by the alias budget before anything walks it.
    "memory bomb": [
      "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: bomb, namespace: x}\nspec:\n  podSelector: {}\n  ingress:",
      `  - from: &p0 [${Array(330).fill("{podSelector: {}}").join(",")}]`,
      `  - from: &p1 [${Array(330).fill("*p0").join(",")}]`,
      `  - from: &p2 [${Array(330).fill("*p1").join(",")}]`,
    ].join("\n"),
    // 2: an alias inside the collection its anchor names.
    cycle:
      "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  nodeSelector: &n {a: *n}\n  containers: [{name: c, image: x}]\n",
    // 4: an alias used as a mapping key.
    "alias key": [
      "a: &a [x,x,x,x,x,x,x,x,x,x]",
      ...["b", "c", "d", "e", "f"].map(
        (k, i) => `${k}: &${k} [${Array(10).fill(`*${"abcdef"[i]}`).join(",")}]`,
      ),
      "*f : x",
    ].join("\n"),
    // 5: a merge from a mapping that owns __proto__.
    "proto merge":
      "apiVersion: v1\nkind: Service\nmetadata: {name: s, namespace: x, labels: {constructor: x}}\nspec:\n  <<: {__proto__: {type: NodePort}}\n  ports: [{port: 80}]\n",
    // 9: a 9-line Deployment with 20,000 replicas.
    replicas:
      "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  replicas: 20000\n  selector: {matchLabels: {a: b}}\n  template:\n    metadata: {labels: {a: b}}\n    spec: {containers: [{name: c, image: x}]}\n",
    // 10: a byte order mark opening a later doc.
    bom: "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\n\uFEFFapiVersion: v1\nkind: Namespace\nmetadata: {name: b}\n",
  };
  for (const [name, text] of Object.entries(cases)) {
    it(
      name,
      () => {
        expect(throughEverything(`${name}.yaml`, text)).toEqual(ALL);
      },
      120_000,
    );
  }

  it("the memory bomb, the cycle and the alias key are refused with located diagnostics", () => {
    const codes = (t: string) =>
      parseManifests([{ name: "f.yaml", text: t }]).diagnostics.map((d) => `${d.code}@${d.line}`);
    expect(codes(cases["memory bomb"]!)).toEqual(["KTL105@8"]);
    expect(codes(cases["cycle"]!)).toEqual(["KTL105@5"]);
    expect(codes(cases["alias key"]!)[0]).toMatch(/^KTL105@/);
  });

  it("large pod counts fail cleanly: the replica cap and the node limit raise diagnostics, pod CIDRs stay in range", () => {
    const many = buildModel(
      parseManifests([{ name: "r.yaml", text: cases["replicas"]!.replace("20000", "25000") }]),
    );
    expect(many.pods).toHaveLength(20000);
    expect(many.diagnostics.filter((d) => d.code === "KTL210").map((d) => d.message)).toEqual([
      "Deployment default/d asks for 25000 pods; ktl models the first 20000",
    ]);
    const nodes = Array.from(
      { length: 3080 },
      (_, i) => `apiVersion: v1\nkind: Node\nmetadata: {name: n${i}}`,
    ).join("\n---\n");
    const m = buildModel(parseManifests([{ name: "n.yaml", text: nodes }]));
    expect(m.diagnostics.filter((d) => d.code === "KTL211")).toHaveLength(1);
    const octets = m.nodes.flatMap((n) => n.podCIDRs).map((c) => Number(c.split(".")[1]));
    expect(Math.max(...octets)).toBe(255);
    expect(m.nodes.filter((n) => n.podCIDRs.length === 0)).toHaveLength(3080 - 3071);
  });

  it("a merge never sets a prototype: the Service stays ClusterIP", () => {
    const model = buildModel(parseManifests([{ name: "s.yaml", text: cases["proto merge"]! }]));
    expect(model.services[0]!.type).toBe("ClusterIP");
  });

  it("a port list with an invalid first entry: trace and diff use the valid port's endpoints (ServicePort.slot)", () => {
    const text = [
      "apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: x, labels: {app: web}}\nspec: {nodeName: n1, containers: [{name: c, ports: [{containerPort: 8080}]}]}",
      "apiVersion: v1\nkind: Service\nmetadata: {name: s, namespace: x}\nspec:\n  selector: {app: web}\n  ports:\n  - {name: bad, port: .nan}\n  - {name: good, port: 80, targetPort: 8080}",
    ].join("\n---\n");
    const model = buildModel(parseManifests([{ name: "p.yaml", text }]));
    const t = traceRequest(
      model,
      buildProxyIndex(model),
      { kind: "node", node: "n1" },
      { kind: "service", service: "x/s", port: 80 },
    );
    expect(t.endpoints?.map((e) => e.pod)).toEqual(["x/web"]);
    expect(diffTexts(text, text).counts).toBeDefined();
  });
});

/** Structural fuzzer: manifests built from pieces an attacker would combine. */
const scalar = fc.oneof(
  fc.constantFrom(
    "80",
    "0",
    "-1",
    "65536",
    "99999999999999999999",
    ".nan",
    ".inf",
    "1e3",
    "0x50",
    "010",
    "080",
    "1_000",
    "0b1",
    "yes",
    "on",
    "y",
    "~",
    "null",
    '""',
    "'__proto__'",
  ),
  fc.constantFrom(
    "constructor",
    "__proto__",
    "toString",
    "hasOwnProperty",
    "a",
    "web",
    "x/y",
    "<script>",
    "\u001b]0;t\u0007",
  ),
);
const key = fc.constantFrom(
  "port",
  "targetPort",
  "nodePort",
  "name",
  "protocol",
  "constructor",
  "__proto__",
  "<<",
  "x",
  "on",
  "y",
);

function portList(items: string[]): string {
  return `[${items.join(", ")}]`;
}

const portItem = fc.oneof(
  fc.tuple(scalar, scalar).map(([p, t]) => `{port: ${p}, targetPort: ${t}}`),
  fc.tuple(key, scalar).map(([k, v]) => `{${k}: ${v}}`),
  fc.constantFrom("null", "7", "[]", "{}", "*a", "{<<: *a}", "{port: 80, <<: *a}"),
);

/** A Service whose ports and selector may use anchors defined before, inside or after their own block. */
const service = fc
  .record({
    type: fc.constantFrom("ClusterIP", "NodePort", "LoadBalancer", "*t", "yes"),
    ports: fc.array(portItem, { minLength: 0, maxLength: 5 }),
    anchorWhere: fc.constantFrom("before", "inside", "after", "none"),
    fan: fc.integer({ min: 1, max: 40 }),
    depth: fc.integer({ min: 0, max: 6 }),
  })
  .map(({ type, ports, anchorWhere, fan, depth }) => {
    const lines = ["apiVersion: v1", "kind: Service", "metadata: {name: s, namespace: x}"];
    if (anchorWhere === "before") lines.push("x-anchors: {a: &a {port: 81}, t: &t NodePort}");
    const chain: string[] = [];
    for (let i = 0; i < depth; i++)
      chain.push(
        `    l${i + 1}: &l${i + 1} [${Array(fan)
          .fill(i === 0 ? "*a" : `*l${i}`)
          .join(",")}]`,
      );
    lines.push("spec:", `  type: ${type}`, "  selector: {app: web}");
    if (anchorWhere === "inside") lines.push("  x: &a {port: 82, x: *a}", "  t: &t *a");
    lines.push(`  ports: ${portList(ports)}`);
    if (anchorWhere !== "none" && depth > 0) lines.push("  extra:", ...chain, `  externalIPs: *l${depth}`);
    if (anchorWhere === "after") lines.push("  later: &a {port: 83}");
    return lines.join("\n");
  });

const policy = fc
  .record({ fan: fc.integer({ min: 1, max: 60 }), levels: fc.integer({ min: 0, max: 4 }), port: scalar })
  .map(({ fan, levels, port }) => {
    const lines = [
      "apiVersion: networking.k8s.io/v1",
      "kind: NetworkPolicy",
      "metadata: {name: np, namespace: x}",
      "spec:",
      "  podSelector: {matchLabels: {app: web}}",
      "  ingress:",
      `  - ports: [{port: ${port}}]`,
      "    from: &p0 [{podSelector: {matchLabels: {constructor: x}}}]",
    ];
    for (let i = 1; i <= levels; i++)
      lines.push(
        `  - from: &p${i} [${Array(fan)
          .fill(`*p${i - 1}`)
          .join(",")}]`,
      );
    return lines.join("\n");
  });

const pods = fc.constantFrom(
  "apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: x, labels: {app: web}}\nspec: {nodeName: n1, containers: [{name: c, ports: [{name: http, containerPort: 80}]}]}",
  "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: x}\nspec: {replicas: 3, selector: {matchLabels: {app: web}}, template: {metadata: {labels: {app: web}}, spec: {nodeSelector: &ns {a: b}, containers: [{name: c}]}}}",
  "apiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: {a: b}}\nspec: {podCIDR: 10.244.0.0/30}",
);

describe("structural fuzzer through every entry point", () => {
  it("never throws and stays within the work bound", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(service, policy, pods), { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        (docs, bom) => {
          const text = (bom ? "\uFEFF" : "") + docs.join("\n---\n");
          expect(throughEverything("fuzz.yaml", text)).toEqual(ALL);
        },
      ),
      { numRuns: 60, seed: 16 },
    );
  }, 300_000);
});

describe("defects of issue 31, each through every entry point", () => {
  // 1: a Calico selector 3,000 parentheses deep (a 12 KB file, a 387-character share link) overflowed the stack.
  const deepSelector = [
    "apiVersion: projectcalico.org/v3\nkind: NetworkPolicy\nmetadata: {name: deep, namespace: x}\nspec:",
    `  selector: "${"(".repeat(3000)}app == 'web'${")".repeat(3000)}"`,
    '  ingress: [{action: Allow, source: {selector: "' +
      "!(".repeat(2000) +
      "all()" +
      ")".repeat(2000) +
      '"}}]',
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: x, labels: {app: web}}\nspec: {nodeName: n1, containers: [{name: c, ports: [{containerPort: 80}]}]}",
  ].join("\n");

  it("a Calico selector 3,000 parentheses deep", () => {
    expect(throughEverything("deep.yaml", deepSelector)).toEqual(ALL);
  }, 120_000);

  it("the deep selectors are named with their line (KTL453), not a stack overflow", () => {
    const model = buildModel(parseManifests([{ name: "deep.yaml", text: deepSelector }]));
    expect(
      model.diagnostics
        .filter((d) => d.code === "KTL453")
        .map((d) => `${d.field}@${d.line}`)
        .sort(),
    ).toEqual(["spec.ingress[0].source.selector@6", "spec.selector@5"]);
  });
});
