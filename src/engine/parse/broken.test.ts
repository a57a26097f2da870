/** A doc that does not parse is skipped; its diagnostic names the object that is missing from the model and the graph (issue 14). */
import { describe, expect, it } from "vitest";
import { brokenDocObject } from "./yaml.ts";
import { parseManifests } from "./manifests.ts";

describe("the object of a broken doc", () => {
  it.each([
    [
      "block style",
      "kind: Service\nmetadata:\n  name: web\n  namespace: shop\nspec: [",
      { kind: "Service", name: "web", namespace: "shop" },
    ],
    [
      "flow style cut short",
      "apiVersion: v1\nkind: Service\nmetadata: {name: broken\n  namespace: shop\n",
      { kind: "Service", name: "broken", namespace: "shop" },
    ],
    [
      "no namespace; a label called name is not the name",
      "kind: Pod\nmetadata:\n  labels:\n    app.kubernetes.io/name: x\n  name: p\nspec: {",
      { kind: "Pod", name: "p" },
    ],
    [
      "quoted",
      'kind: "Deployment"\nmetadata:\n  name: "api"\n  namespace: \'x\'\n',
      { kind: "Deployment", name: "api", namespace: "x" },
    ],
    ["no kind", "metadata:\n  name: web\n", undefined],
    ["no name", "kind: Service\nmetadata: {\n", undefined],
  ])("%s", (_what, text, want) => {
    expect(brokenDocObject(text)).toEqual(want);
  });

  it("the diagnostic names it, with its kind, namespace and name", () => {
    const text =
      "kind: Namespace\nmetadata: {name: ok}\n---\nkind: Service\nmetadata: {name: broken\n  namespace: shop\n";
    const r = parseManifests([{ name: "m.yaml", text }]);
    const d = r.diagnostics.find((x) => x.code === "KTL101")!;
    expect(d).toMatchObject({ kind: "Service", name: "broken", namespace: "shop", file: "m.yaml", doc: 1 });
    expect(d.message).toContain("Service shop/broken is left out of the model and the graph");
    expect(r.objects.map((o) => o.kind)).toEqual(["Namespace"]);
  });
});
