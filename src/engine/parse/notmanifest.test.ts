/**
 * Files of a repository that are not Kubernetes manifests are noted (KTL110),
 * not read and not errors, so `ktl validate .` checks a real repository:
 * kustomize's file names (kustomize api/konfig: kustomization.yaml,
 * kustomization.yml, Kustomization), a Helm chart's Chart.yaml, values files
 * and unrendered templates (helm.sh/docs/topics/charts: the chart's file
 * structure), GitHub's `.github/` configuration, a mapping without kind,
 * apiVersion or metadata. A document that looks like an object and is broken
 * stays an error (KTL101, KTL103).
 */
import { describe, expect, it } from "vitest";
import { notManifest, parseManifests } from "./manifests.ts";
import { skippedDocuments } from "./diagnostics.ts";

describe("notManifest: by name and the files beside it", () => {
  const chart = new Set(["repo/chart/Chart.yaml", "repo/chart/values.yaml", "repo/chart/templates/svc.yaml"]);
  it.each([
    { name: "kustomization.yaml", names: [], why: /kustomization/ },
    { name: "overlays/prod/kustomization.yml", names: [], why: /kustomization/ },
    { name: "base/Kustomization", names: [], why: /kustomization/ },
    { name: "repo/chart/Chart.yaml", names: [...chart], why: /Helm chart/ },
    { name: "repo/chart/values.yaml", names: [...chart], why: /Helm chart/ },
    { name: "repo/chart/templates/svc.yaml", names: [...chart], why: /Helm chart's template/ },
    { name: "repo/chart/templates/sub/deploy.yaml", names: [...chart], why: /Helm chart's template/ },
    { name: ".github/workflows/ci.yml", names: [], why: /GitHub/ },
    { name: "repo/.github/dependabot.yml", names: [], why: /GitHub/ },
    { name: ".gitlab-ci.yml", names: [], why: /tool/ },
    { name: "docker-compose.yaml", names: [], why: /tool/ },
    // Without a Chart.yaml beside it, values.yaml or templates/ may be anything: the content decides.
    { name: "k8s/values.yaml", names: [], why: undefined },
    { name: "k8s/templates/svc.yaml", names: [], why: undefined },
    { name: "manifests.yaml", names: [], why: undefined },
    { name: "deploy/app.yaml", names: [], why: undefined },
  ])("$name", ({ name, names, why }) => {
    const got = notManifest(name, new Set([name, ...names]));
    if (why === undefined) expect(got).toBeUndefined();
    else expect(got).toMatch(why);
  });
});

describe("parseManifests notes what is not an object and still reports broken objects", () => {
  it.each([
    {
      what: "a workflow, by its folder",
      file: ".github/workflows/ci.yml",
      text: "name: ci\non: [push]\njobs: {}\n",
      code: "KTL110",
    },
    {
      what: "a values file outside a chart, by its content",
      file: "values.yaml",
      text: "replicaCount: 1\nimage: {tag: x}\n",
      code: "KTL110",
    },
    {
      what: "a JSON settings file",
      file: "cases.json",
      text: '{"source": "x", "cases": []}',
      code: "KTL110",
    },
    {
      what: "a JSON list of records (a tool's output, such as netpol-analyzer's connlist JSON)",
      file: "out.json",
      text: '[{"src": "a", "dst": "b", "conn": "TCP 80"}]',
      code: "KTL110",
    },
    // A list of anything else at the top is an error, as a list of objects is: kubectl reads no such document.
    { what: "a list of plain values", file: "list.yaml", text: "- a\n- b\n", code: "KTL102" },
    {
      what: "a kind without a name",
      file: "a.yaml",
      text: "apiVersion: v1\nkind: Service\nspec: {}\n",
      code: "KTL103",
    },
    {
      what: "metadata without a kind",
      file: "a.yaml",
      text: "apiVersion: v1\nmetadata: {name: x}\n",
      code: "KTL103",
    },
    {
      what: "a list of objects (not kind: List)",
      file: "a.yaml",
      text: "- kind: Service\n  metadata: {name: x}\n",
      code: "KTL102",
    },
    { what: "a syntax error", file: "a.yaml", text: "kind: Service\nmetadata: {name: x\n", code: "KTL101" },
  ])("$what: $code", ({ file, text, code }) => {
    const r = parseManifests([{ name: file, text }]);
    expect(r.objects).toEqual([]);
    expect(r.diagnostics.map((d) => d.code)).toEqual([code]);
    // A note is no skipped document: the answer misses nothing it could have read.
    expect(skippedDocuments(r.diagnostics).length).toBe(code === "KTL110" ? 0 : 1);
  });

  it("a chart's template is not parsed at all (its {{ }} are not YAML)", () => {
    const r = parseManifests([
      { name: "c/Chart.yaml", text: "apiVersion: v2\nname: c\nversion: 1.0.0\n" },
      {
        name: "c/templates/svc.yaml",
        text: "kind: Service\nmetadata:\n  name: {{ .Release.Name }}\n  {{- if x }}\n",
      },
      { name: "c/README.yaml", text: "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n" },
    ]);
    expect(r.diagnostics.map((d) => [d.file, d.code])).toEqual([
      ["c/Chart.yaml", "KTL110"],
      ["c/templates/svc.yaml", "KTL110"],
    ]);
    expect(r.objects.map((o) => o.name)).toEqual(["shop"]);
  });
});
