/**
 * YAML that kubectl reads and js-yaml refuses is read as kubectl reads it
 * (lenient.ts). Expected values are what kubectl v1.32's decoder
 * (sigs.k8s.io/yaml over goyaml.v2) made of the same text, checked with
 * `kubectl config view --raw -o json` on a kubeconfig holding it as an
 * extension; goyaml.v2 scannerc.go: yaml_parser_unroll_indent does nothing
 * in the flow context, yaml_parser_scan_flow_scalar checks no indentation,
 * yaml_parser_scan_to_next_token eats tabs in the flow context. Lines and
 * columns stay the source's; KTL111 says YAML 1.2 tools refuse the text.
 */
import { describe, expect, it } from "vitest";
import { parseYamlFile } from "./yaml.ts";
import { lineOf } from "./positions.ts";
import { parseManifests } from "./manifests.ts";

const T = "\t";

function read(text: string): { value: unknown; codes: string[] } {
  const r = parseYamlFile("a.yaml", text);
  return { value: r.documents[0]?.value, codes: r.diagnostics.map((d) => d.code) };
}

describe("kubectl's leniencies, with kubectl's values", () => {
  it.each([
    {
      name: "a tab at the start of a line inside a flow sequence (netpol-analyzer's webapp args)",
      text: `a:\n  args:\n    [\n      "-jar",\n${T}    "-Dlisten=8080",\n      "x.jar",\n    ]\n`,
      want: { a: { args: ["-jar", "-Dlisten=8080", "x.jar"] } },
    },
    { name: "a tab after [", text: `a: [${T}x, z]\n`, want: { a: ["x", "z"] } },
    { name: "a tab after a flow mapping's colon", text: `c: {app:${T}a}\n`, want: { c: { app: "a" } } },
    { name: "a tab before a flow collection's [", text: `a: 1\nb:${T}[1]\n`, want: { a: 1, b: [1] } },
    {
      name: "a double-quoted continuation indented like its key",
      text: `m:\n  a: "hello\n  world"\n  b: x\n`,
      want: { m: { a: "hello world", b: "x" } },
    },
    {
      name: "a single-quoted JSON config closed at its key's indentation (netpol-analyzer's NetworkAttachmentDefinition)",
      text: `spec:\n  config: '{\n    "cniVersion": "0.3.1",\n    "type": "macvlan"\n  }'\n`,
      want: { spec: { config: '{ "cniVersion": "0.3.1", "type": "macvlan" }' } },
    },
    {
      name: "a quoted continuation at column 0, and a tab inside it kept",
      text: `m:\n  a: "x\n k:${T}v  \nw"\n`,
      want: { m: { a: `x k:${T}v w` } },
    },
    {
      name: "flow collections continued less indented than their key",
      text: `m:\n  a: [x,\n  q, z]\n  b: {k: v,\nm: n}\n`,
      want: { m: { a: ["x", "q", "z"], b: { k: "v", m: "n" } } },
    },
    {
      name: "multi-line plain scalars in a flow sequence",
      text: `m:\n  a: [x y,\n z w, q]\n`,
      want: { m: { a: ["x y", "z w", "q"] } },
    },
    {
      name: "a flow sequence in a list item, with a nested quoted scalar",
      text: `l:\n- name: x\n  args: ["a",\n"b", {k: "v\nw"}]\nz: 1\n`,
      want: { l: [{ name: "x", args: ["a", "b", { k: "v w" }] }], z: 1 },
    },
    {
      name: "a block scalar's quotes and brackets are text, not openers",
      text: `m:\n  s: |\n    a "quoted [ text\n  a: [1,\n 2]\n`,
      want: { m: { s: 'a "quoted [ text\n', a: [1, 2] } },
    },
    {
      name: "a tab inside a plain scalar of a flow sequence is kept",
      text: `m:\n  a: 'it''s\n fine'\n  b: [a${T}b, c]\n`,
      want: { m: { a: "it's fine", b: [`a${T}b`, "c"] } },
    },
  ])("$name", ({ text, want }) => {
    const r = read(text);
    expect(r.value).toEqual(want);
    expect(r.codes).toContain("KTL111");
    expect(r.codes).not.toContain("KTL101");
  });

  it.each([
    // goyaml.v2: "found character that cannot start any token".
    { name: "a tab that indents block structure", text: `a:\n${T}  b: 1\n` },
    // goyaml.v2: "did not find expected ',' or ']'".
    {
      name: "a flow sequence never closed (the issue's deny-all)",
      text: `spec:\n  policyTypes: [Ingress, Egress\n`,
    },
  ])("still refused as kubectl refuses it: $name", ({ text }) => {
    expect(read(text).codes).toEqual(["KTL101"]);
  });

  it("keeps every line: keys after a padded line are where the source has them", () => {
    const text = `m:\n  config: '{\n  "a": 1\n }'\n  after: [x,\ny]\n  last: 1\n`;
    const r = parseYamlFile("a.yaml", text);
    const m = (r.documents[0]!.value as { m: object }).m;
    expect([lineOf(m, "config"), lineOf(m, "after"), lineOf(m, "last")]).toEqual([2, 5, 7]);
    const d = r.diagnostics.find((x) => x.code === "KTL111")!;
    expect(d.line).toBe(3);
  });

  it("three Deployments of netpol-analyzer's acs-security-demos-added-workloads load (they vanished with KTL101)", () => {
    const deployment = (ns: string, name: string) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, namespace: ${ns}}
spec:
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      containers:
        - image: quay.io/vuln/${name}:latest
          command: ["java"]
          args:
            [
              "-jar",
${T}            "-Dlisten=8080",
              "/deployments/${name}.jar",
            ]
          name: ${name}
`;
    const r = parseManifests([
      { name: "frontend/webapp/deployment.yaml", text: deployment("frontend", "webapp") },
      { name: "payments/gateway/deployment.yaml", text: deployment("payments", "gateway") },
      {
        name: "payments/visa-processor-v2/deployment.yaml",
        text: deployment("payments", "visa-processor-v2"),
      },
    ]);
    expect(r.objects.map((o) => `${o.namespace}/${o.name}`)).toEqual([
      "frontend/webapp",
      "payments/gateway",
      "payments/visa-processor-v2",
    ]);
    expect(r.diagnostics.map((d) => d.code)).toEqual(["KTL111", "KTL111", "KTL111"]);
  });
});
