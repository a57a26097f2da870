import { describe, expect, it } from "vitest";
import {
  familyResolver,
  familyTitle,
  groupingKeys,
  nsFamily,
  nsPrefix,
  resolveNsGrouping,
  type NsLabels,
} from "./nsGroups.ts";

const ns = (name: string, labels: Record<string, string> = {}): NsLabels => ({
  name,
  labels: { "kubernetes.io/metadata.name": name, ...labels },
});

// Names that do not say who owns them: the team label does.
const cluster = [
  ns("checkout", { team: "shop", env: "prod" }),
  ns("cart", { team: "shop", env: "prod" }),
  ns("ledger", { team: "finance", env: "prod" }),
  ns("ledger-dev", { team: "finance", env: "dev" }),
  ns("kube-system"),
  ns("one-off", { owner: "alice" }),
];

describe("namespace families", () => {
  it.each([
    ["billing-dev", "billing"],
    ["billing-prod-3", "billing"],
    ["default", "default"],
  ])("name prefix of %s is %s", (name, prefix) => {
    expect(nsPrefix(name)).toBe(prefix);
  });

  it("lists the label keys that can fold (a value shared by two namespaces), owner keys first, never metadata.name", () => {
    expect(groupingKeys(cluster)).toEqual(["team", "env"]);
    expect(groupingKeys([ns("a", { team: "x" }), ns("b", { team: "y" })])).toEqual([]);
    expect(groupingKeys([])).toEqual([]);
  });

  it.each([
    ["auto takes the team label when it makes two families", "auto", cluster, { by: "label", key: "team" }],
    [
      "auto skips an owner key that puts everything in one family",
      "auto",
      [ns("a-x", { team: "t" }), ns("b-y", { team: "t" })],
      { by: "prefix" },
    ],
    [
      "auto takes a later owner key when the first does not group",
      "auto",
      [
        ns("a", { "app.kubernetes.io/part-of": "p", team: "solo" }),
        ns("b", { "app.kubernetes.io/part-of": "p" }),
        ns("c", { "app.kubernetes.io/part-of": "q" }),
        ns("d", { "app.kubernetes.io/part-of": "q" }),
      ],
      { by: "label", key: "app.kubernetes.io/part-of" },
    ],
    ["auto without owner labels is the name prefix", "auto", [ns("a-1"), ns("a-2")], { by: "prefix" }],
    ["prefix is the name prefix", "prefix", cluster, { by: "prefix" }],
    ["label:KEY is that label, present or not", "label:env", cluster, { by: "label", key: "env" }],
    [
      "a key with a slash",
      "label:app.kubernetes.io/part-of",
      [],
      { by: "label", key: "app.kubernetes.io/part-of" },
    ],
  ] as const)("%s", (_name, choice, namespaces, want) => {
    expect(resolveNsGrouping(choice, namespaces)).toEqual(want);
  });

  it("a namespace's family: its prefix, or KEY=VALUE of the label, or none without the label", () => {
    expect(nsFamily("ledger-dev", { team: "finance" }, { by: "prefix" })).toBe("ledger");
    expect(nsFamily("ledger-dev", { team: "finance" }, { by: "label", key: "team" })).toBe("team=finance");
    expect(nsFamily("kube-system", {}, { by: "label", key: "team" })).toBeUndefined();
    expect(nsFamily("kube-system", undefined, { by: "label", key: "team" })).toBeUndefined();
    // An empty value is a value (a selector team= matches it).
    expect(nsFamily("x", { team: "" }, { by: "label", key: "team" })).toBe("team=");
  });

  it("titles: a prefix reads as a name pattern, a label as its value", () => {
    expect(familyTitle("billing")).toBe("billing-*");
    expect(familyTitle("team=billing")).toBe("billing");
    expect(familyTitle("app.kubernetes.io/part-of=platform")).toBe("platform");
  });

  it("the resolver folds by team under auto, so names that share nothing still meet", () => {
    const f = familyResolver({ namespaces: cluster }, "auto");
    expect(f("checkout")).toBe(f("cart"));
    expect(f("ledger")).toBe("team=finance");
    expect(f("ledger-dev")).toBe("team=finance");
    expect(f("kube-system")).toBeUndefined();
    expect(f("not-declared")).toBeUndefined();
    expect(familyResolver({ namespaces: cluster }, "prefix")("ledger-dev")).toBe("ledger");
  });
});
