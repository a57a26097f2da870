import { describe, expect, it } from "vitest";
import { defaultScenario, SCENARIOS } from "../../scenarios/index.ts";
import { rng } from "../engine/testing/random.ts";
// @ts-expect-error: the bench generator is plain JavaScript
import { generate } from "../../bench/generate.mjs";
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

describe("namespacesOf reads as the regular expressions it replaced", () => {
  /** The reading before: two expressions over the whole text (a match's start orders it). */
  function byExpressions(text: string): string[] {
    const re = /^\s*namespace:\s*["']?([a-z0-9]([-a-z0-9]*[a-z0-9])?)["']?\s*(#.*)?$/gm;
    const ns = /^kind:\s*Namespace\s*$[\s\S]*?^\s+name:\s*["']?([a-z0-9]([-a-z0-9]*[a-z0-9])?)/gm;
    const found = [...text.matchAll(re), ...text.matchAll(ns)].sort((a, b) => a.index - b.index);
    const all = [...new Set(found.map((m) => m[1]!))];
    const system = (n: string) => ["default", "kube-system", "kube-public", "kube-node-lease"].includes(n);
    return [...all.filter((n) => !system(n)), ...all.filter(system)];
  }

  it("on every scenario, a generated cluster, and their random edits", () => {
    const texts = [
      ...SCENARIOS.map((s) => s.manifests),
      (generate("S") as { text: string }).text.slice(0, 60_000),
      // A `name:` at a line's start after a blank line counts (a line start, then `\s+`); without one it does not.
      "kind: Namespace\nmetadata:\n\nname: after-blank\n",
      "kind: Namespace\nmetadata:\nname: flush\n  name: indented\n",
    ];
    for (const t of texts) expect(namespacesOf(t)).toEqual(byExpressions(t));
    // Edits around the keys: breaks, blanks, quotes, comments, dashes, capitals, other keys.
    const bits = [
      "\n",
      "\n\n",
      " ",
      "  ",
      "\t",
      "\r\n",
      '"',
      "'",
      "#",
      "# c",
      "-",
      "a-",
      "-b",
      "X",
      "x",
      "9",
      ":",
      "namespace:",
      "namespace: ",
      "  namespace: ns-",
      "\nkind: Namespace\n",
      "kind:Namespace",
      "kind: Namespaces",
      "\nmetadata:\n  name: ",
      "name:",
      "\nname: z",
      " name: n1",
      "\u00a0",
      "- namespace: d",
    ];
    const r = rng(20261207);
    for (let round = 0; round < 400; round++) {
      let t = r.pick(texts.slice(0, 12));
      t = t.slice(0, 3000);
      for (let k = 0, n = 1 + r.int(12); k < n; k++) {
        const at = r.int(t.length + 1);
        t =
          r.next() < 0.8
            ? t.slice(0, at) + r.pick(bits) + t.slice(at)
            : t.slice(0, at) + t.slice(at + 1 + r.int(4));
      }
      expect(namespacesOf(t), t).toEqual(byExpressions(t));
    }
  });
});
