import { describe, expect, it } from "vitest";
import { parseManifests } from "./manifests.ts";
import { lineOf, lineOfPath, parseYamlFile } from "./yaml.ts";

const parse = (text: string, name = "in.yaml") => parseManifests([{ name, text }]);

describe("parseYamlFile", () => {
  it("keeps the line of every collection, key and item", () => {
    const r = parseYamlFile("a.yaml", "kind: Pod\nmetadata:\n  name: a\nspec:\n  containers:\n  - name: c\n    ports:\n    - containerPort: 80\n");
    const doc = r.documents[0]!.value as Record<string, unknown>;
    expect(lineOf(doc, "metadata")).toBe(2);
    expect(lineOfPath(doc, ["spec", "containers", 0, "ports", 0, "containerPort"])).toBe(8);
    expect(lineOfPath(doc, ["spec", "missing", "deeper"])).toBe(4);
  });

  it("resolves scalars by the YAML 1.2 core schema, as js-yaml load does", () => {
    const r = parseYamlFile("a.yaml", 'a: 1\nb: "1"\nc: true\nd: ~\ne: 0x1f\nf: 1.5\ng: yes\nh: 010\n');
    expect(r.documents[0]!.value).toEqual({ a: 1, b: "1", c: true, d: null, e: 31, f: 1.5, g: "yes", h: 10 });
  });

  it("reports a syntax error with line and column and still loads the other documents", () => {
    const r = parseYamlFile("bad.yaml", "kind: A\n---\nkind: B\nx: [1,\ny: 2\n---\nkind: C\n");
    expect(r.documents.map((d) => (d.value as { kind: string }).kind)).toEqual(["A", "C"]);
    expect(r.diagnostics).toHaveLength(1);
    expect(r.diagnostics[0]).toMatchObject({ code: "KTL101", severity: "error", file: "bad.yaml", doc: 1, line: 5 });
    expect(r.documents[1]!.index).toBe(2);
  });

  it("bounds aliases per document (alias bomb guard) without failing other documents", () => {
    const bomb = ["a: &a [x]", ...Array.from({ length: 1100 }, (_, i) => `k${i}: *a`)].join("\n");
    const r = parseYamlFile("bomb.yaml", `${bomb}\n---\nkind: Ok\n`);
    expect(r.diagnostics[0]?.code).toBe("KTL105");
    expect(r.documents.map((d) => (d.value as { kind?: string }).kind)).toEqual(["Ok"]);
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
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("parseManifests", () => {
  it("reads multi-document YAML with Helm comments and empty documents", () => {
    const r = parse("---\n# Source: chart/templates/a.yaml\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\n\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: a}\n");
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
    expect(r.objects.map((o) => `${o.kind}/${o.name}@${o.line}`)).toEqual(["Namespace/a@4", "Pod/p1@11", "Pod/p2@12"]);
  });

  it("keeps unknown kinds as ignored and says so", () => {
    const r = parse("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n");
    expect(r.objects).toEqual([]);
    expect(r.ignored.map((o) => o.kind)).toEqual(["ConfigMap"]);
    expect(r.diagnostics[0]).toMatchObject({ code: "KTL104", severity: "info", line: 1 });
  });

  it("reports objects without kind or name and top-level scalars", () => {
    const r = parse("metadata: {name: x}\n---\nkind: Pod\nmetadata: {}\n---\njust a string\n");
    expect(r.diagnostics.map((d) => [d.code, d.doc])).toEqual([["KTL103", 0], ["KTL103", 1], ["KTL102", 2]]);
  });

  it("reads component configuration, which has no metadata.name: KubeProxyConfiguration, and the one in kubeadm's kube-proxy ConfigMap", () => {
    const direct = parse("apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nclusterCIDR: 10.0.0.0/8\n");
    expect(direct.diagnostics).toEqual([]);
    expect(direct.configs.map((c) => c.kind)).toEqual(["KubeProxyConfiguration"]);
    const cm = parse("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: kube-proxy, namespace: kube-system}\ndata:\n  config.conf: |\n    kind: KubeProxyConfiguration\n    mode: nftables\n");
    expect(cm.diagnostics).toEqual([]);
    expect(cm.configs[0]?.raw.mode).toBe("nftables");
  });
});
