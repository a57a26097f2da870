/**
 * Bad input never breaks the engine: every file of testdata/hostile goes
 * through parse -> model -> NetworkPolicy matrix -> validate without a throw,
 * and each problem comes back as a diagnostic or finding that names its file,
 * document and line.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildModel, buildPolicyIndex, parseManifests, validateModel } from "../index.ts";
import { classMatrix, podMatrix } from "../netpol/index.ts";

const DIR = join(import.meta.dirname, "testdata", "hostile");

/** What each file must produce: parse/model diagnostics (code@doc[:line]), findings (field), objects that survive. */
const EXPECT: Record<
  string,
  { diagnostics?: string[]; errors?: string[]; warnings?: string[]; objects?: string[] }
> = {
  "broken-yaml.yaml": { diagnostics: ["KTL101@1:9"], objects: ["Service/good-before", "Service/good-after"] },
  "broken-json.json": { diagnostics: ["KTL101@0"] },
  "tabs-indent.yaml": { diagnostics: ["KTL101@0:4"] },
  "wrong-types.yaml": {
    diagnostics: ["KTL103@0"],
    errors: [
      "metadata.labels",
      "spec.ports",
      "spec.selector",
      "spec.clusterIPs",
      "spec.type",
      "spec.podSelector",
      "spec.policyTypes",
      "addressType",
      "endpoints",
      "ports",
    ],
  },
  "unknown-kinds-fields.yaml": {
    diagnostics: ["KTL104@0"],
    warnings: [
      "metadata.labelz",
      "spec.selectr",
      "spec.ports[0].targetport",
      "spec.ports[0].nodeport",
      "spec.externalTraficPolicy",
    ],
  },
  "duplicates.yaml": { diagnostics: ["KTL201@1", "KTL106@2:15", "KTL106@2:17"] },
  // Docs 0 and 1 expand to billions of nodes (refused, as go-yaml's alias ratio does); doc 2's 200 small aliases are fine.
  "alias-bomb.yaml": {
    diagnostics: ["KTL105@0:11", "KTL105@1"],
    warnings: ["spec.ports[0].x"],
    objects: ["Namespace/after-the-bomb", "Service/too-many-aliases"],
  },
  "deep-nesting.yaml": { diagnostics: ["KTL101@0", "KTL101@2"], objects: ["Namespace/after-deep"] },
  "html-names.yaml": {
    errors: [
      "metadata.name",
      "metadata.labels",
      "spec.ports[0].targetPort",
      "spec.ingress[0].from[0].ipBlock.cidr",
    ],
  },
  "scalar-docs.yaml": { diagnostics: ["KTL102@0", "KTL102@1", "KTL102@2"], objects: ["Namespace/survivor"] },
  "missing-kind-name.yaml": {
    diagnostics: ["KTL103@0", "KTL103@1"],
    errors: ["apiVersion"],
    objects: ["Service/gen-generated"],
  },
  "nulls.yaml": {
    errors: ["spec.ports[0].port", "spec.ingress[1].from[1]", "addressType", "endpoints[0].addresses"],
  },
  "numbers-edge.yaml": {
    errors: [
      "spec.ports[0].port",
      "spec.ports[1].port",
      "spec.healthCheckNodePort",
      "spec.sessionAffinityConfig.clientIP.timeoutSeconds",
    ],
  },
  "lists.yaml": { objects: ["Service/from-list", "Pod/from-podlist"] },
  "proto-pollution.yaml": { objects: ["Service/proto", "Namespace/proto-ns"] },
  "binary-garbage.yaml": { objects: ["Namespace/bom"] },
  // `<<: 5` is goyaml.v2's "map merge requires map or sequence of maps as the value": kubectl refuses the doc.
  "merge-keys.yaml": { diagnostics: ["KTL101@0:7"] },
  "json-array.json": { diagnostics: ["KTL102@0"] },
};

function runAll(name: string, text: string) {
  const parsed = parseManifests([{ name, text }]);
  const model = buildModel(parsed);
  const index = buildPolicyIndex(model);
  for (const [port, protocol] of [
    [80, "TCP"],
    [53, "UDP"],
  ] as const)
    podMatrix(index, classMatrix(index, port, protocol));
  const result = validateModel(model);
  // Everything the UI or the CLI would send on must serialise.
  JSON.stringify({ diagnostics: model.diagnostics, result });
  return { model, result };
}

describe("hostile corpus", () => {
  const files = readdirSync(DIR).sort();

  it("has an expectation for every file", () => {
    expect(files.filter((f) => !EXPECT[f])).toEqual([]);
  });

  for (const file of files) {
    it(`${file}: no throw, located diagnostics`, () => {
      const text = readFileSync(join(DIR, file), "utf8");
      const { model, result } = runAll(file, text);
      for (const d of model.diagnostics) {
        expect(d.file).toBe(file);
        expect(d.doc).toBeGreaterThanOrEqual(0);
        expect(d.line).toBeGreaterThanOrEqual(0);
        expect(typeof d.message).toBe("string");
      }
      for (const f of [...result.errors, ...result.warnings]) {
        expect(f.file).toBe(file);
        expect(f.line).toBeGreaterThan(0);
      }
      // Findings carry bounded values: an alias bomb's shared lists are never expanded.
      expect(JSON.stringify(result).length).toBeLessThan(1_000_000);
      const want = EXPECT[file]!;
      const diags = model.diagnostics.map((d) => ({ code: d.code, doc: d.doc, line: d.line }));
      for (const w of want.diagnostics ?? []) {
        const [code, where] = w.split("@") as [string, string];
        const [doc, line] = where.split(":").map(Number) as [number, number | undefined];
        expect(diags, w).toContainEqual(
          expect.objectContaining(line === undefined ? { code, doc } : { code, doc, line }),
        );
      }
      const errorFields = result.errors.map((e) => e.field);
      for (const f of want.errors ?? []) expect(errorFields, f).toContain(f);
      const warningFields = result.warnings.map((e) => e.field);
      for (const f of want.warnings ?? []) expect(warningFields, f).toContain(f);
      const objects = model.objects.map((o) => `${o.kind}/${o.name}`);
      for (const o of want.objects ?? []) expect(objects, o).toContain(o);
    }, 30_000);
  }

  it("leaves Object.prototype alone", () => {
    runAll("proto-pollution.yaml", readFileSync(join(DIR, "proto-pollution.yaml"), "utf8"));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty("type");
  });

  it("survives a large generated input", () => {
    const docs: string[] = [];
    for (let n = 0; n < 40; n++)
      docs.push(`apiVersion: v1\nkind: Namespace\nmetadata: {name: ns-${n}, labels: {team: t${n % 7}}}`);
    for (let i = 0; i < 2000; i++) {
      docs.push(
        `apiVersion: v1\nkind: Pod\nmetadata: {name: p-${i}, namespace: ns-${i % 40}, labels: {app: a${i % 13}, tier: t${i % 3}}}\nspec: {containers: [{name: c, image: x, ports: [{name: http, containerPort: 8080}]}]}`,
      );
    }
    for (let s = 0; s < 400; s++) {
      docs.push(
        `apiVersion: v1\nkind: Service\nmetadata: {name: s-${s}, namespace: ns-${s % 40}}\nspec: {type: NodePort, selector: {app: a${s % 13}}, ports: [{port: 80, targetPort: http, nodePort: ${30000 + (s % 300)}}]}`,
      );
    }
    for (let p = 0; p < 120; p++) {
      docs.push(
        `apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: np-${p}, namespace: ns-${p % 40}}\nspec: {podSelector: {matchLabels: {tier: t${p % 3}}}, ingress: [{from: [{namespaceSelector: {matchLabels: {team: t${p % 7}}}}], ports: [{port: http}]}]}`,
      );
    }
    docs.push(
      `apiVersion: v1\nkind: Namespace\nmetadata: {name: long, labels: {big: "${"x".repeat(2_000_000)}"}}`,
    );
    const { model, result } = runAll("big.yaml", docs.join("\n---\n"));
    expect(model.pods.length).toBe(2000);
    // 400 Services share 300 node ports: the later 100 clash as they would in a cluster.
    expect(result.errors.filter((e) => e.detail === "provided port is already allocated")).toHaveLength(100);
    expect(
      result.errors.some(
        (e) => e.field === "metadata.labels" && e.detail === "must be no more than 63 characters",
      ),
    ).toBe(true);
  }, 120_000);
});
