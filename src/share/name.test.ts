import { describe, expect, it } from "vitest";
import { defaultScenario } from "../../scenarios/index.ts";
import { namespacesOf, scenarioName, slugOf } from "./name.ts";

const shop = defaultScenario();

describe("scenarioName: the catalogue scenario while the text is still mostly it, else its own name", () => {
  it("the scenario's own text, and an edit of it, keep the scenario's name", () => {
    expect(scenarioName(shop.manifests, shop.id)).toMatchObject({
      scenarioId: shop.id,
      title: shop.title,
      edited: false,
    });
    expect(scenarioName(shop.manifests + "\n# a note\n", shop.id)).toMatchObject({
      scenarioId: shop.id,
      edited: true,
    });
  });

  it("pasted text gets a name from its namespaces, not the scenario it replaced", () => {
    const pasted =
      "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: payments\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n  namespace: web\n---\nkind: Pod\nmetadata:\n  name: dns\n  namespace: kube-system\n";
    expect(scenarioName(pasted, shop.id)).toEqual({
      scenarioId: undefined,
      title: "payments, web",
      slug: "payments-web",
      edited: false,
    });
  });

  it("text without namespaces is Untitled", () => {
    expect(scenarioName("apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n", undefined)).toMatchObject({
      title: "Untitled",
      slug: "untitled",
    });
    expect(scenarioName("", shop.id).title).toBe("Untitled");
  });

  it("many namespaces are counted, and names become file-safe slugs", () => {
    const text = ["a", "b", "c", "d", "e"].map((n) => `metadata:\n  namespace: ${n}\n`).join("---\n");
    expect(scenarioName(text, undefined).title).toBe("a, b, c and 2 more");
    expect(slugOf("Why can't frontend reach payments?")).toBe("why-can-t-frontend-reach-payments");
    expect(namespacesOf('metadata:\n  namespace: "quoted" # c\n')).toEqual(["quoted"]);
  });
});
