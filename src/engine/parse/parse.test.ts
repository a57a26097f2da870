import { describe, expect, it } from "vitest";
import { parseManifests } from "./manifests.ts";
import fc from "fast-check";
import { parseYamlFile } from "./yaml.ts";
import { lineOf, lineOfPath } from "./positions.ts";
import { kubectlReads, resolvePlain12 } from "./scalars.ts";

const parse = (text: string, name = "in.yaml") => parseManifests([{ name, text }]);

describe("parseYamlFile", () => {
  it("keeps the line of every collection, key and item", () => {
    const r = parseYamlFile(
      "a.yaml",
      "kind: Pod\nmetadata:\n  name: a\nspec:\n  containers:\n  - name: c\n    ports:\n    - containerPort: 80\n",
    );
    const doc = r.documents[0]!.value as Record<string, unknown>;
    expect(lineOf(doc, "metadata")).toBe(2);
    expect(lineOfPath(doc, ["spec", "containers", 0, "ports", 0, "containerPort"])).toBe(8);
    expect(lineOfPath(doc, ["spec", "missing", "deeper"])).toBe(4);
  });

  it("resolves plain scalars as kubectl does (sigs.k8s.io/yaml, goyaml.v2 resolve.go: YAML 1.1)", () => {
    const r = parseYamlFile(
      "a.yaml",
      'a: 1\nb: "1"\nc: true\nd: ~\ne: 0x1f\nf: 1.5\ng: yes\nh: 010\ni: "yes"\nj: Off\nk: 1_000\nl: 0b101\nm: 080\nn2: 0o17\no: 2024-01-01\np: +12\n',
    );
    expect(r.documents[0]!.value).toEqual({
      a: 1,
      b: "1",
      c: true,
      d: null,
      e: 31,
      f: 1.5,
      g: true,
      h: 8,
      i: "yes",
      j: false,
      k: 1000,
      l: 5,
      m: 80,
      n2: 15,
      o: "2024-01-01",
      p: 12,
    });
  });

  it("warns where kubectl's YAML 1.1 reading differs from YAML 1.2's, with the fix (KTL108)", () => {
    const r = parseYamlFile(
      "a.yaml",
      'metadata:\n  labels: {enabled: yes, "on": "yes", port: 010}\n  on: 1\n  name: y\n',
    );
    expect(r.diagnostics.map((d) => `${d.code}@${d.line}:${d.column}`)).toEqual([
      "KTL108@2:21",
      "KTL108@2:45",
      "KTL108@3:3",
      "KTL108@4:9",
    ]);
    expect(r.diagnostics[0]).toMatchObject({
      severity: "warning",
      hint: 'quote the value ("yes") if you mean the text',
    });
    expect(r.diagnostics[0]!.message).toContain("the boolean true");
    expect(r.diagnostics[1]!.message).toContain("the number 8");
    // A key goyaml.v2 reads as a boolean becomes the JSON key "true".
    expect(r.diagnostics[2]!.message).toContain('as "true"');
    expect(Object.keys((r.documents[0]!.value as { metadata: object }).metadata)).toEqual([
      "labels",
      "true",
      "name",
    ]);
    // One-letter y/n stay text (the upstream examples' namespace y), with the warning that kubectl reads a boolean.
    expect((r.documents[0]!.value as { metadata: { name: string } }).metadata.name).toBe("y");
    expect(r.diagnostics[3]!.message).toBe(
      'kubectl reads `y` as the boolean true (YAML 1.1, sigs.k8s.io/yaml), not as the text "y" (YAML 1.2); ktl keeps the text "y"',
    );
  });

  it("reports a syntax error with line and column and still loads the other documents", () => {
    const r = parseYamlFile("bad.yaml", "kind: A\n---\nkind: B\nx: [1,\ny: 2\n---\nkind: C\n");
    expect(r.documents.map((d) => (d.value as { kind: string }).kind)).toEqual(["A", "C"]);
    expect(r.diagnostics).toHaveLength(1);
    expect(r.diagnostics[0]).toMatchObject({
      code: "KTL101",
      severity: "error",
      file: "bad.yaml",
      doc: 1,
      line: 5,
    });
    expect(r.documents[1]!.index).toBe(2);
  });

  it("bounds what aliases expand to as go-yaml does (allowedAliasRatio) without failing other documents", () => {
    // 60 lines whose aliases expand to 10^6 nodes: refused. Many aliases to a small anchor are not a bomb.
    const bomb = [
      "a: &a [x,x,x,x,x,x,x,x,x,x]",
      ...["b", "c", "d", "e", "f"].map(
        (k, i) => `${k}: &${k} [${Array(10).fill(`*${"abcdef"[i]}`).join(",")}]`,
      ),
    ].join("\n");
    const many = ["a: &a [x]", ...Array.from({ length: 1100 }, (_, i) => `k${i}: *a`)].join("\n");
    const r = parseYamlFile("bomb.yaml", `${bomb}\n---\nkind: Ok\n---\n${many}\n`);
    expect(r.diagnostics.map((d) => `${d.code}@${d.doc}:${d.line}`)).toEqual(["KTL105@0:4"]);
    expect(r.diagnostics[0]!.message).toContain("document contains excessive aliasing");
    expect(r.documents.map((d) => d.index)).toEqual([1, 2]);
  });

  it("refuses an alias inside the collection its anchor names, as goyaml.v2 does (no cyclic values)", () => {
    const r = parseYamlFile(
      "c.yaml",
      "a: &n {b: *n}\n---\nl: &l [1, [*l]]\n---\nm: &m {<<: *m}\n---\nok: 1\n",
    );
    expect(r.diagnostics.map((d) => `${d.code}@${d.doc}:${d.line}`)).toEqual([
      "KTL105@0:1",
      "KTL105@1:3",
      "KTL105@2:5",
    ]);
    expect(r.diagnostics[0]!.message).toContain("anchor 'n' value contains itself");
    expect(r.documents.map((d) => d.value)).toEqual([{ ok: 1 }]);
  });

  it("refuses a list or mapping used as a key, without expanding it (goyaml.v2: invalid map key)", () => {
    const r = parseYamlFile(
      "k.yaml",
      "a: &a [x, x]\n*a : 1\n---\n? [1, 2]\n: x\n---\n~: null key\n---\nok: 1\n",
    );
    expect(r.diagnostics.map((d) => `${d.code}@${d.doc}:${d.line}`)).toEqual([
      "KTL101@0:2",
      "KTL101@1:4",
      "KTL101@2:7",
    ]);
    expect(r.documents.map((d) => d.value)).toEqual([{ ok: 1 }]);
  });

  it("places an empty key's error at its `:`, not at the end of the doc before it", () => {
    const r = parseYamlFile(
      "k.yaml",
      "a: 1\n---\nkind: Service\nmetadata:\n  name: api  # the name\n\n:  namespace: shop\n",
    );
    expect(r.diagnostics.map((d) => `${d.code}@${d.doc}:${d.line}:${d.column}`)).toEqual(["KTL101@1:7:1"]);
  });

  it("bounds the depth that aliases nest to", () => {
    const lines = ["a0: &a0 [[[[[[[[[[1]]]]]]]]]]"];
    for (let i = 1; i < 12; i++) lines.push(`a${i}: &a${i} [[[[[[[[[[*a${i - 1}]]]]]]]]]]`);
    const r = parseYamlFile("d.yaml", lines.join("\n"));
    expect(r.diagnostics.map((d) => d.code)).toEqual(["KTL101"]);
    expect(r.diagnostics[0]!.message).toContain("nesting too deep");
  });

  it("merges `<<` as goyaml.v2 does: inline and aliased mappings, a list's earlier maps win, a non-map is an error", () => {
    const r = parseYamlFile(
      "m.yaml",
      "b: &b {x: 1, y2: 1}\ns:\n  <<: [{type: NodePort, x: 2}, *b]\n  z: 3\n---\np: &p {__proto__: {type: NodePort}}\ns: {<<: *p}\n---\ns: {<<: 5}\n",
    );
    expect((r.documents[0]!.value as { s: object }).s).toEqual({ x: 2, y2: 1, type: "NodePort", z: 3 });
    const s1 = (r.documents[1]!.value as { s: Record<string, unknown> }).s;
    expect(s1.type).toBeUndefined();
    expect(Object.keys(s1)).toEqual(["__proto__"]);
    expect(r.diagnostics.map((d) => `${d.code}@${d.doc}`)).toEqual(["KTL101@2"]);
    expect(r.diagnostics[0]!.message).toContain("map merge requires map or sequence of maps");
  });

  it("skips a byte order mark that opens a later doc (files joined with ---)", () => {
    const r = parseYamlFile("b.yaml", "a: 1\n---\n\uFEFFb: 2\n\uFEFF---\nc: 3\n");
    expect(r.diagnostics).toEqual([]);
    expect(r.documents.map((d) => [d.line, d.value])).toEqual([
      [1, { a: 1 }],
      [3, { b: 2 }],
      [5, { c: 3 }],
    ]);
  });

  it("bounds nesting depth", () => {
    const deep = "[".repeat(5000) + "]".repeat(5000);
    const r = parseYamlFile("deep.yaml", deep);
    expect(r.diagnostics[0]?.code).toBe("KTL101");
  });

  it("warns on duplicate keys and keeps the last value", () => {
    const r = parseYamlFile("d.yaml", "a: 1\na: 2\n");
    expect(r.documents[0]!.value).toEqual({ a: 2 });
    expect(r.diagnostics[0]).toMatchObject({ code: "KTL106", line: 2 });
  });

  it("never turns a __proto__ key into a prototype", () => {
    const r = parseYamlFile("p.yaml", "__proto__: {polluted: true}\n");
    const v = r.documents[0]!.value as Record<string, unknown>;
    expect(Object.getPrototypeOf(Object.getPrototypeOf(v))).toBe(null);
    expect(Object.keys(v)).toEqual(["__proto__"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("parseManifests", () => {
  it("reads multi-document YAML with Helm comments and empty documents", () => {
    const r = parse(
      "---\n# Source: chart/templates/a.yaml\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\n\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: a}\n",
    );
    expect(r.objects.map((o) => `${o.kind}/${o.name}@${o.line}`)).toEqual(["Namespace/a@4", "Pod/p@10"]);
    expect(r.diagnostics).toEqual([]);
  });

  it("reads JSON", () => {
    const r = parse('{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}}', "p.json");
    expect(r.objects[0]).toMatchObject({ kind: "Pod", name: "p", namespace: undefined, line: 1 });
  });

  it("flattens kind: List (kubectl get -o yaml) and typed lists whose items lack kind", () => {
    const r = parse(`apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Namespace
  metadata: {name: a}
---
apiVersion: v1
kind: PodList
items:
- metadata: {name: p1, namespace: a}
- metadata: {name: p2, namespace: a}
`);
    expect(r.objects.map((o) => `${o.kind}/${o.name}@${o.line}`)).toEqual([
      "Namespace/a@4",
      "Pod/p1@11",
      "Pod/p2@12",
    ]);
  });

  it("keeps unknown kinds as ignored and says so", () => {
    const r = parse("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n");
    expect(r.objects).toEqual([]);
    expect(r.ignored.map((o) => o.kind)).toEqual(["ConfigMap"]);
    expect(r.diagnostics[0]).toMatchObject({ code: "KTL104", severity: "info", line: 1 });
  });

  it("reports objects without kind or name and top-level scalars", () => {
    const r = parse("metadata: {name: x}\n---\nkind: Pod\nmetadata: {}\n---\njust a string\n");
    expect(r.diagnostics.map((d) => [d.code, d.doc])).toEqual([
      ["KTL103", 0],
      ["KTL103", 1],
      ["KTL102", 2],
    ]);
  });

  it("reads component configuration, which has no metadata.name: KubeProxyConfiguration, and the one in kubeadm's kube-proxy ConfigMap", () => {
    const direct = parse(
      "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nclusterCIDR: 10.0.0.0/8\n",
    );
    expect(direct.diagnostics).toEqual([]);
    expect(direct.configs.map((c) => c.kind)).toEqual(["KubeProxyConfiguration"]);
    const cm = parse(
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: kube-proxy, namespace: kube-system}\ndata:\n  config.conf: |\n    kind: KubeProxyConfiguration\n    mode: nftables\n",
    );
    expect(cm.diagnostics).toEqual([]);
    expect(cm.configs[0]?.raw.mode).toBe("nftables");
  });
});

describe("Istio's mesh config", () => {
  // istio/istio pkg/config/mesh (MeshConfig from the istio ConfigMap's `mesh` key): engine/l7/mesh.ts reads it.
  it("ConfigMap istio-system/istio is read for the mesh, not reported as ignored; another ConfigMap is", () => {
    const text = (name: string, ns: string) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: ${ns}\ndata:\n  mesh: |\n    outboundTrafficPolicy:\n      mode: REGISTRY_ONLY\n`;
    const codes = (name: string, ns: string) =>
      parseManifests([{ name: "m.yaml", text: text(name, ns) }]).diagnostics.map((d) => d.code);
    expect(codes("istio", "istio-system")).toEqual([]);
    expect(codes("istio", "default")).toEqual(["KTL104"]);
    expect(codes("settings", "istio-system")).toEqual(["KTL104"]);
  });
});

describe("the YAML 1.1 warning's first-character shortcut", () => {
  // yaml11Warning skips scalars that start with none of [0-9+-.~yYnNtTfFoO]: both readings must keep them as text.
  it("both readings keep a scalar as text when it starts with any other character", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 12 }), (s) => {
        fc.pre(!/^[0-9+\-.~yYnNtTfFoO]/.test(s));
        expect(kubectlReads(s)).toBe(s);
        expect(resolvePlain12(s)).toBe(s);
      }),
      { numRuns: 5000, seed: 1205 },
    );
    for (const w of ["Yes", "on", "Off", "NULL", "~", ".inf", "-.Inf", "0x1F", "010", "1_000", "+1", "TRUE"])
      expect(kubectlReads(w) !== w || resolvePlain12(w) !== w).toBe(true);
  });
});
